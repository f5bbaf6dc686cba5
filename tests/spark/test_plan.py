"""What the listener reads from plans beyond V1 file and table writes: DataSource V2
writes and row-level commands, DDL with its lifecycle facet, and the agent's reference
shapes for Hive and file writes (real local[2] session; events through the spec schema)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.spark.agent_shapes import mismatches, template
from tests.spark.conftest import APP_JOB, APP_NAME, Collector
from tests.spark.test_listener import NS, fields, one_run, roundtrip

pytestmark = pytest.mark.spark

# What olsdk writes differently from the agent, on purpose (docs/how-to/spark.md):
# dataSource.uri is left out when the namespace is no URI ("file"), which the spec's
# uri format refuses; empty facet containers ({}) are left out; environment-properties
# is Databricks-only.
_DELIBERATE = frozenset(
    {
        "$.outputs[0].facets.dataSource.uri",
        "$.inputs[0].facets.dataSource.uri",
        "$.inputs[0].inputFacets",
        "$.outputs[0].outputFacets",
    }
)


def _python_data_source(spark: Any) -> str:
    """Register a Python DataSource that accepts writes (defined here: pickled by value)."""
    from pyspark.sql.datasource import DataSource, DataSourceWriter, WriterCommitMessage

    class CountingWriter(DataSourceWriter):
        def write(self, iterator: Any) -> WriterCommitMessage:
            for _ in iterator:
                pass
            return WriterCommitMessage()

    class CountingSource(DataSource):
        @classmethod
        def name(cls) -> str:
            return "olsdk_counting"

        def schema(self) -> str:
            return "id long"

        def writer(self, schema: Any, overwrite: bool) -> DataSourceWriter:
            return CountingWriter()

    spark.dataSource.register(CountingSource)
    return "olsdk_counting"


@pytest.fixture(scope="module")
def source(spark: Any, spark_dirs: Path, lineage: Collector) -> Path:
    path = spark_dirs / "plan" / "ids"
    spark.range(6).write.mode("overwrite").parquet(str(path))
    lineage.take()
    return path


# -- DataSource V2 -------------------------------------------------------------------


def test_noop_write_is_a_run_without_output(spark: Any, source: Path, lineage: Collector) -> None:
    spark.read.parquet(str(source)).write.format("noop").mode("append").save()
    _, complete = one_run(lineage.take())
    assert complete.job.name.startswith(f"{APP_JOB}.append_data")
    assert [i.name for i in complete.inputs] == [str(source)]
    assert complete.outputs == []


def test_python_data_source_writes(spark: Any, source: Path, lineage: Collector, tmp_path: Path) -> None:
    name = _python_data_source(spark)
    spark.read.parquet(str(source)).write.format(name).mode("append").save()
    _, complete = one_run(lineage.take())
    [output] = complete.outputs
    assert (output.namespace, output.name) == (f"spark-datasource://{name}", name)
    assert fields(output) == [("id", "long")]
    assert output.facets.lifecycleStateChange is None
    assert [i.name for i in complete.inputs] == [str(source)]

    target = tmp_path / "py_ds"
    spark.read.parquet(str(source)).write.format(name).mode("overwrite").option("path", str(target)).save()
    _, complete = one_run(lineage.take())
    [output] = complete.outputs
    assert (output.namespace, output.name) == ("file", str(target))  # the path option names it
    assert output.facets.lifecycleStateChange.lifecycleStateChange == "OVERWRITE"
    assert complete.job.name.startswith(f"{APP_JOB}.overwrite_by_expression")


@pytest.mark.parametrize(
    ("statement", "command"),
    [
        ("MERGE INTO rowlevel_t t USING rowlevel_t s ON t.id = s.id WHEN MATCHED THEN DELETE", "merge_into_table"),
        ("UPDATE rowlevel_t SET id = 2 WHERE id = 1", "update_table"),
        ("DELETE FROM rowlevel_t WHERE id = 1", "delete_from_table"),
    ],
)
def test_row_level_commands_name_their_table(
    spark: Any, lineage: Collector, spark_dirs: Path, statement: str, command: str
) -> None:
    """The session catalog refuses these (only Delta/Iceberg-like catalogs run them), so each
    ends in FAIL; the run still names the table the command was about. (A V2 ``CREATE OR
    REPLACE TABLE ... AS SELECT`` or ``RENAME COLUMN`` fails before any execution starts
    there: nothing to see.)"""
    spark.sql("CREATE TABLE IF NOT EXISTS rowlevel_t (id BIGINT) USING parquet")
    lineage.take()
    with pytest.raises(Exception, match=r"not supported|UNSUPPORTED"):
        spark.sql(statement)
    events = lineage.take()
    _, fail = one_run(events, end="FAIL")
    assert fail.job.name.startswith(f"{APP_JOB}.{command}"), fail.job.name
    [output] = fail.outputs
    assert output.name == str(spark_dirs / "warehouse" / "rowlevel_t")
    assert output.facets.symlinks.identifiers[0].name == "default.rowlevel_t"
    assert "not supported" in fail.run.facets.errorMessage.message


# -- DDL -----------------------------------------------------------------------------


def _only_output(lineage: Collector) -> tuple[Any, Any]:
    _, complete = one_run(lineage.take())
    [output] = complete.outputs
    return complete, output


def test_ddl_lifecycle(spark: Any, lineage: Collector, spark_dirs: Path) -> None:
    warehouse = spark_dirs / "warehouse"
    spark.sql("CREATE TABLE ddl_t (a INT) USING parquet")
    complete, output = _only_output(lineage)
    assert output.facets.lifecycleStateChange.lifecycleStateChange == "CREATE"
    spark.sql("INSERT INTO ddl_t VALUES (1), (2)")
    lineage.take()

    spark.sql("ALTER TABLE ddl_t ADD COLUMNS (b STRING COMMENT 'added')")
    complete, output = _only_output(lineage)
    assert complete.job.name == f"{APP_JOB}.execute_alter_table_add_columns_command.default_ddl_t"
    assert output.facets.lifecycleStateChange.lifecycleStateChange == "ALTER"
    assert [(f.name, f.type, f.description) for f in output.facets.schema.fields] == [
        ("a", "integer", None),
        ("b", "string", "added"),
    ]

    spark.sql("TRUNCATE TABLE ddl_t")
    complete, output = _only_output(lineage)
    assert output.facets.lifecycleStateChange.lifecycleStateChange == "TRUNCATE"
    assert output.name == str(warehouse / "ddl_t")

    spark.sql("ALTER TABLE ddl_t RENAME TO ddl_renamed")
    complete, output = _only_output(lineage)
    change = output.facets.lifecycleStateChange
    assert change.lifecycleStateChange == "RENAME"
    assert (change.previousIdentifier.namespace, change.previousIdentifier.name) == ("file", str(warehouse / "ddl_t"))
    assert output.name == str(warehouse / "ddl_renamed")
    assert output.facets.symlinks.identifiers[0].name == "default.ddl_renamed"

    spark.sql("DROP TABLE ddl_renamed")
    complete, output = _only_output(lineage)
    assert complete.job.name.endswith(".default_ddl_renamed")
    assert output.facets.lifecycleStateChange.lifecycleStateChange == "DROP"
    assert output.name == str(warehouse / "ddl_renamed")


def test_load_data_reads_the_file(spark: Any, lineage: Collector, spark_dirs: Path, tmp_path: Path) -> None:
    spark.sql("CREATE TABLE load_t (id INT, s STRING) STORED AS TEXTFILE")
    lineage.take()
    data = tmp_path / "rows.txt"
    data.write_text("1\x01a\n2\x01b\n")
    spark.sql(f"LOAD DATA LOCAL INPATH '{data}' OVERWRITE INTO TABLE load_t")
    complete, output = _only_output(lineage)
    assert complete.job.name == f"{APP_JOB}.execute_load_data_command.default_load_t"
    assert [(i.namespace, i.name) for i in complete.inputs] == [("file", str(data))]
    assert output.name == str(spark_dirs / "warehouse" / "load_t")
    assert output.facets.lifecycleStateChange.lifecycleStateChange == "OVERWRITE"
    assert output.facets.catalog.framework == "hive"


# -- the agent's reference shapes ----------------------------------------------------------


def test_hive_ctas_matches_the_agent(spark: Any, lineage: Collector, spark_dirs: Path) -> None:
    """cli_pyspark_example_expected_event_{start,complete}.json: CTAS of a Hive table."""
    spark.sql("CREATE TABLE t1 (a INT, b STRING) STORED AS PARQUET")
    spark.sql("INSERT INTO t1 VALUES (1, 'x')")
    lineage.take()
    spark.sql("CREATE TABLE t2 STORED AS PARQUET AS SELECT * FROM t1")
    start, complete = one_run(lineage.take())
    replace = {
        '"namespace": "default"': f'"namespace": "{NS}"',
        "cli_test_application": APP_JOB,
        "CLI test application": APP_NAME,
        '"spark.master": "local"': '"spark.master": "local[2]"',
        "spark-warehouse": "warehouse",
    }
    skip = _DELIBERATE | {"$.run.facets.environment-properties"}
    for event, name in ((start, "start"), (complete, "complete")):
        expected = template(f"cli_pyspark_example_expected_event_{name}.json", replace)
        assert mismatches(roundtrip([event])[0].to_dict(), expected, skip=skip) == []


def test_insert_into_table_matches_the_agent(spark: Any, lineage: Collector, spark_dirs: Path) -> None:
    """pysparkHadoopFSEndEvent.json: INSERT INTO a datasource table from another."""
    spark.sql("CREATE TABLE test (key INT, value STRING) USING parquet")
    spark.sql("CREATE TABLE target (key INT, value STRING) USING parquet")
    spark.sql("INSERT INTO test VALUES (1, 'a')")
    lineage.take()
    spark.sql("INSERT INTO target SELECT * FROM test")
    _, complete = one_run(lineage.take())
    warehouse = str(spark_dirs / "warehouse")
    expected = template(
        "pysparkHadoopFSEndEvent.json",
        {
            "testPysparkSQLHadoopFSTest": NS,
            "open_lineage_integration_hadoop_fs_relation": APP_JOB,
            "/tmp/warehouse": warehouse,
        },
    )
    assert mismatches(complete.to_dict(), expected, skip=_DELIBERATE) == []


def test_hive_ctas_catalog_facet_matches_the_agent(spark: Any, lineage: Collector, spark_dirs: Path) -> None:
    """pysparkCTASEnd.json: a Hive CTAS output carries the hive catalog facet."""
    temp = spark_dirs / "ctas_load" / "temp"
    spark.range(3).selectExpr("id AS a", "id * 2 AS b").write.mode("overwrite").parquet(str(temp))
    lineage.take()
    spark.sql(f"CREATE TABLE tbl1 STORED AS PARQUET AS SELECT * FROM parquet.`{temp}`")
    _, complete = one_run(lineage.take())
    warehouse = spark_dirs / "warehouse"
    expected = template(
        "pysparkCTASEnd.json",
        {
            "testCreateAsSelectAndLoad": NS,
            "/tmp/ctas_load/temp": str(temp),
            "/tmp/ctas_load/tbl1": str(warehouse / "tbl1"),
            "file:/tmp/ctas_load": f"file:{warehouse}",
        },
    )
    assert mismatches(complete.to_dict(), expected, skip=_DELIBERATE) == []
