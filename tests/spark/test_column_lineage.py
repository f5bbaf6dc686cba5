"""Column lineage on a real session: DIRECT through JDBC queries (the tables' own columns,
schemas kept), INDIRECT for filters, joins, grouping, sorting and conditions, on by default."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.spark.conftest import Collector
from tests.spark.test_listener import _write_with_own_listener, one_run

pytestmark = pytest.mark.spark


def _lineage(facet: Any) -> dict[str, set[tuple[str, str, str, str]]]:
    """output column -> {(dataset name tail, field, type, subtype)}."""
    return {
        name: {
            (f.name.rsplit("/", 1)[-1], f.field, t.type, t.subtype)
            for f in value.inputFields
            for t in f.transformations
        }
        for name, value in facet.fields.items()
    }


def _dataset_level(facet: Any) -> set[tuple[str, str, str]]:
    return {(f.name.rsplit("/", 1)[-1], f.field, t.subtype) for f in facet.dataset or [] for t in f.transformations}


@pytest.fixture(scope="module")
def derby(spark: Any, spark_dirs: Path, lineage: Collector) -> str:
    url = f"jdbc:derby:{spark_dirs / 'lineage_db'};create=true"
    first = spark.createDataFrame([(1, "a"), (2, "b")], "k INT, j1 STRING")
    second = spark.createDataFrame([(1, "x"), (2, "y")], "k INT, j2 STRING")
    for df, table in ((first, "APP.JDBC_SOURCE1"), (second, "APP.JDBC_SOURCE2")):
        df.write.format("jdbc").option("url", url).option("dbtable", table).mode("overwrite").save()
    lineage.take()
    return url


def test_jdbc_query_names_the_tables_columns(spark: Any, derby: str, spark_dirs: Path, lineage: Collector) -> None:
    """columnLineageJDBCComplete.json: value <- jdbc_source1.j1, jdbc_source2.j2 (and the file's v)."""
    from pyspark.sql import functions as F

    files = spark_dirs / "lineage_files" / "v_source"
    spark.createDataFrame([(1, "p"), (2, "q")], "k INT, v STRING").write.mode("overwrite").parquet(str(files))
    lineage.take()
    query = (
        'SELECT s1."k", s1."j1" || s2."j2" AS "j" FROM APP.JDBC_SOURCE1 s1 JOIN APP.JDBC_SOURCE2 s2 ON s1."k" = s2."k"'
    )
    jdbc = spark.read.format("jdbc").option("url", derby).option("query", query).load()
    out = jdbc.join(spark.read.parquet(str(files)), "k").select("k", F.concat("j", "v").alias("value"))
    out.write.mode("overwrite").parquet(str(spark_dirs / "lineage_files" / "jdbc_out"))
    _, complete = one_run(lineage.take())
    inputs = {i.name: [(f.name, f.type) for f in i.facets.schema.fields] for i in complete.inputs}
    assert inputs == {
        "APP.JDBC_SOURCE1": [("k", "integer"), ("j1", "string")],
        "APP.JDBC_SOURCE2": [("j2", "string")],
        str(files): [("k", "integer"), ("v", "string")],
    }
    facet = complete.outputs[0].facets.columnLineage
    got = _lineage(facet)
    assert got["k"] == {("APP.JDBC_SOURCE1", "k", "DIRECT", "IDENTITY")}
    assert got["value"] == {
        ("APP.JDBC_SOURCE1", "j1", "DIRECT", "TRANSFORMATION"),
        ("APP.JDBC_SOURCE2", "j2", "DIRECT", "TRANSFORMATION"),
        ("v_source", "v", "DIRECT", "TRANSFORMATION"),
    }
    assert ("v_source", "k", "JOIN") in _dataset_level(facet)


def test_indirect_lineage(spark: Any, spark_dirs: Path, lineage: Collector) -> None:
    from pyspark.sql import functions as F

    base = spark_dirs / "indirect"
    orders = spark.createDataFrame(
        [(1, 10, 5.0, "open"), (2, 10, 7.0, "shipped"), (3, 20, 1.0, "open")],
        "id INT, customer INT, amount DOUBLE, status STRING",
    )
    customers = spark.createDataFrame([(10, "eu"), (20, "us")], "customer INT, region STRING")
    orders.write.mode("overwrite").parquet(str(base / "orders"))
    customers.write.mode("overwrite").parquet(str(base / "customers"))
    lineage.take()
    o = spark.read.parquet(str(base / "orders"))
    c = spark.read.parquet(str(base / "customers"))
    (
        o.join(c, "customer")
        .where(F.col("status") == "open")
        .groupBy("region")
        .agg(F.sum(F.when(F.col("amount") > 2, F.col("amount")).otherwise(0)).alias("big"))
        .orderBy("region")
        .write.mode("overwrite")
        .parquet(str(base / "out"))
    )
    _, complete = one_run(lineage.take())
    facet = complete.outputs[0].facets.columnLineage
    got = _lineage(facet)
    assert got["region"] == {("customers", "region", "DIRECT", "IDENTITY")}
    assert got["big"] == {
        ("orders", "amount", "DIRECT", "AGGREGATION"),
        ("orders", "amount", "INDIRECT", "CONDITIONAL"),
    }
    assert _dataset_level(facet) == {
        ("orders", "customer", "JOIN"),
        ("customers", "customer", "JOIN"),
        ("orders", "status", "FILTER"),
        ("customers", "region", "GROUP_BY"),
        ("customers", "region", "SORT"),
    }


def test_switched_off_by_the_agents_key(spark: Any, spark_dirs: Path, lineage: Collector) -> None:
    spark.range(3).write.mode("overwrite").parquet(str(spark_dirs / "switch" / "people_parquet"))
    lineage.take()
    on: list[Any] = []
    _write_with_own_listener(spark, lineage, on.append, spark_dirs / "switch" / "out" / "on")
    off: list[Any] = []
    key = {"spark.openlineage.facets.columnLineage.disabled": "true"}
    _write_with_own_listener(spark, lineage, off.append, spark_dirs / "switch" / "out" / "off", key)
    assert on[2].outputs[0].facets.columnLineage is not None  # on by default, as in the agent
    assert off[2].outputs[0].facets.columnLineage is None
