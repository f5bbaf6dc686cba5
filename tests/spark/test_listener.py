"""End-to-end: real writes on a local[2] session -> events, parsed back and checked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import olsdk
from tests.spark.conftest import APP_JOB, Collector

pytestmark = pytest.mark.spark

NS = "olsdk-tests"


def roundtrip(events: list[Any]) -> list[Any]:
    """Every event through JSON and ``olsdk.parse_event``, checked by the spec's schema."""
    from tests.spec_schema import event_validator

    out = []
    for event in events:
        text = olsdk.to_json(event)
        event_validator().validate(json.loads(text))
        out.append(olsdk.parse_event(text))
    return out


def one_run(events: list[Any], end: str = "COMPLETE") -> tuple[Any, Any]:
    parsed = roundtrip(events)
    assert [e.eventType for e in parsed] == ["START", end], [e.job.name for e in parsed]
    start, finish = parsed
    assert start.run.runId == finish.run.runId
    assert start.job.name == finish.job.name
    return start, finish


def check_common(event: Any, app: Any) -> None:
    facets = event.run.facets
    assert facets.parent.job.namespace == NS
    assert facets.parent.job.name == APP_JOB
    assert str(facets.parent.run.runId) == app.run_id
    assert facets.parent.root.job.name == APP_JOB
    assert facets.processing_engine.name == "spark"
    assert facets.processing_engine.version.startswith("4.")
    job_type = event.job.facets.jobType
    assert (job_type.processingType, job_type.integration, job_type.jobType) == (
        "BATCH",
        "SPARK",
        "SQL_JOB",
    )
    assert event.job.namespace == NS


def fields(dataset: Any) -> list[tuple[str, str]]:
    return [(f.name, f.type) for f in dataset.facets.schema.fields]


@pytest.fixture(scope="module")
def data(spark: Any, spark_dirs: Path, lineage: Collector) -> Path:
    """Input files written before lineage is looked at (their events are discarded)."""
    base = spark_dirs / "data"
    people = spark.createDataFrame([(i, f"name{i}", i % 3) for i in range(30)], "id INT, name STRING, grp INT")
    people.write.mode("overwrite").parquet(str(base / "people_parquet"))
    people.write.mode("overwrite").option("header", True).csv(str(base / "people_csv"))
    spark.createDataFrame([(g, f"group {g}") for g in range(3)], "grp INT, label STRING").write.mode("overwrite").json(
        str(base / "groups_json")
    )
    lineage.take()
    return base


def test_application_run_started(lineage: Collector) -> None:
    first = roundtrip(lineage.events[:1])[0]
    assert (first.eventType, first.job.name, first.job.namespace) == ("START", APP_JOB, NS)
    assert first.job.facets.jobType.jobType == "APPLICATION"
    assert first.run.facets.parent is None
    assert str(first.run.runId) == lineage.handle.app_run.run_id


def test_parquet_overwrite(spark: Any, data: Path, lineage: Collector) -> None:
    out = data / "out" / "parquet_copy"
    spark.read.parquet(str(data / "people_parquet")).write.mode("overwrite").parquet(str(out))
    start, complete = one_run(lineage.take())
    assert complete.job.name == f"{APP_JOB}.execute_insert_into_hadoop_fs_relation_command.out_parquet_copy"
    check_common(complete, lineage.handle.app_run)
    [inp] = complete.inputs
    assert (inp.namespace, inp.name) == ("file", str(data / "people_parquet"))
    assert fields(inp) == [("id", "integer"), ("name", "string"), ("grp", "integer")]
    assert inp.facets.dataSource.name == "file"
    [output] = complete.outputs
    assert (output.namespace, output.name) == ("file", str(out))
    assert fields(output) == fields(inp)
    assert output.facets.lifecycleStateChange.lifecycleStateChange == "OVERWRITE"
    stats = output.outputFacets.outputStatistics
    assert stats.rowCount == 30 and stats.fileCount >= 1 and stats.size > 0
    assert start.outputs[0].outputFacets is None  # statistics only once the write is done
    assert start.eventTime <= complete.eventTime


def test_partitioned_json_from_csv_join_json(spark: Any, data: Path, lineage: Collector) -> None:
    from pyspark.sql import functions as F

    people = spark.read.option("header", True).option("inferSchema", True).csv(str(data / "people_csv"))
    groups = spark.read.json(str(data / "groups_json"))
    out = data / "out" / "by_group"
    (
        people.join(groups, "grp")
        .groupBy("grp", "label")
        .agg(F.count("id").alias("n"))
        .write.partitionBy("grp")
        .mode("append")
        .json(str(out))
    )
    _, complete = one_run(lineage.take())
    assert complete.job.name.endswith(".execute_insert_into_hadoop_fs_relation_command.out_by_group")
    assert {(i.namespace, i.name) for i in complete.inputs} == {
        ("file", str(data / "people_csv")),
        ("file", str(data / "groups_json")),
    }
    [output] = complete.outputs
    assert output.name == str(out)  # the root, not the grp=... partitions
    assert output.facets.lifecycleStateChange is None  # append
    assert output.outputFacets.outputStatistics.rowCount == 3
    assert ("grp", "integer") in fields(output)


def test_read_partitioned_directory_names_the_root(spark: Any, data: Path, lineage: Collector) -> None:
    spark.read.json(str(data / "out" / "by_group" / "grp=1")).write.mode("overwrite").csv(
        str(data / "out" / "one_group")
    )
    _, complete = one_run(lineage.take())
    [inp] = complete.inputs
    assert inp.name == str(data / "out" / "by_group")  # partition directory trimmed (A5.6)


def test_single_file_read_names_the_file(spark: Any, data: Path, lineage: Collector) -> None:
    [part] = [p for p in (data / "groups_json").iterdir() if p.name.endswith(".json")][:1]
    spark.read.json(str(part)).write.mode("overwrite").parquet(str(data / "out" / "one_file"))
    _, complete = one_run(lineage.take())
    assert [i.name for i in complete.inputs] == [str(part)]


def test_save_as_table_is_one_run(spark: Any, data: Path, lineage: Collector, spark_dirs: Path) -> None:
    spark.read.parquet(str(data / "people_parquet")).write.saveAsTable("people_t")
    events = lineage.take()
    _, complete = one_run(events)  # 3 listener callbacks, one run
    assert complete.job.name == f"{APP_JOB}.execute_create_data_source_table_as_select_command.default_people_t"
    check_common(complete, lineage.handle.app_run)
    [output] = complete.outputs
    warehouse = spark_dirs / "warehouse"
    assert (output.namespace, output.name) == ("file", str(warehouse / "people_t"))
    [link] = output.facets.symlinks.identifiers
    assert (link.namespace, link.name, link.type) == (f"file:{warehouse}", "default.people_t", "TABLE")
    assert output.facets.lifecycleStateChange.lifecycleStateChange == "CREATE"
    assert output.outputFacets.outputStatistics.rowCount == 30
    assert [i.name for i in complete.inputs] == [str(data / "people_parquet")]


def test_insert_into_table(spark: Any, lineage: Collector, spark_dirs: Path) -> None:
    spark.sql("CREATE TABLE IF NOT EXISTS small_t (id INT, name STRING) USING parquet")
    lineage.take()
    spark.sql("INSERT INTO small_t SELECT id, name FROM people_t WHERE grp = 0")
    _, complete = one_run(lineage.take())
    warehouse = spark_dirs / "warehouse"
    # The agent names an insert by its path suffix, even into a table (reference fixture).
    assert complete.job.name == f"{APP_JOB}.execute_insert_into_hadoop_fs_relation_command.warehouse_small_t"
    [inp] = complete.inputs
    assert inp.name == str(warehouse / "people_t")
    assert inp.facets.symlinks.identifiers[0].name == "default.people_t"
    [output] = complete.outputs
    assert output.name == str(warehouse / "small_t")
    assert output.facets.symlinks.identifiers[0].name == "default.small_t"
    assert output.outputFacets.outputStatistics.rowCount == 10


def test_create_table_statement(spark: Any, lineage: Collector) -> None:
    spark.sql("CREATE TABLE created_t (a INT COMMENT 'the a', b DECIMAL(10,2)) USING parquet")
    _, complete = one_run(lineage.take())
    assert complete.job.name.endswith(".execute_create_data_source_table_command.default_created_t")
    [output] = complete.outputs
    assert output.facets.lifecycleStateChange.lifecycleStateChange == "CREATE"
    schema = output.facets.schema.fields
    assert [(f.name, f.type, f.description) for f in schema] == [
        ("a", "integer", "the a"),
        ("b", "decimal(10,2)", None),
    ]


def test_ctas_sql_and_hive_table(spark: Any, lineage: Collector, spark_dirs: Path) -> None:
    spark.sql("CREATE TABLE hive_t STORED AS PARQUET AS SELECT id, name FROM people_t")
    _, complete = one_run(lineage.take())
    assert complete.job.name == f"{APP_JOB}.execute_create_hive_table_as_select_command.default_hive_t"
    [output] = complete.outputs
    assert output.name == str(spark_dirs / "warehouse" / "hive_t")
    assert output.facets.lifecycleStateChange.lifecycleStateChange == "CREATE"
    spark.sql("SELECT * FROM hive_t").write.mode("overwrite").parquet(str(spark_dirs / "hive_copy"))
    _, complete = one_run(lineage.take())
    [inp] = complete.inputs
    assert inp.name == str(spark_dirs / "warehouse" / "hive_t")
    assert inp.facets.symlinks.identifiers[0].name == "default.hive_t"


def test_jdbc_write_and_reads(spark: Any, data: Path, lineage: Collector, spark_dirs: Path) -> None:
    db = spark_dirs / "derby_db"
    url = f"jdbc:derby:{db};create=true"
    creds = {"user": "app_user", "password": "s3cr3t-pw"}
    people = spark.read.parquet(str(data / "people_parquet"))
    people.write.format("jdbc").option("url", url).option("dbtable", "APP.PEOPLE").options(**creds).mode(
        "overwrite"
    ).save()
    events = lineage.take()
    _, complete = one_run(events)  # the foreachPartition callback is dropped
    assert complete.job.name == f"{APP_JOB}.execute_save_into_data_source_command.APP_PEOPLE"
    [output] = complete.outputs
    assert (output.namespace, output.name) == (f"file:{db}", "APP.PEOPLE")
    assert output.facets.dataSource.uri == f"file:{db}"
    assert output.facets.lifecycleStateChange.lifecycleStateChange == "OVERWRITE"
    assert fields(output) == [("id", "integer"), ("name", "string"), ("grp", "integer")]

    reader = spark.read.format("jdbc").option("url", url).options(**creds)
    reader.option("dbtable", "APP.PEOPLE").load().write.mode("overwrite").parquet(str(db) + "_copy")
    later = lineage.take()
    _, by_table = one_run(later)
    assert [(i.namespace, i.name) for i in by_table.inputs] == [(f"file:{db}", "APP.PEOPLE")]
    assert fields(by_table.inputs[0]) == [("id", "integer"), ("name", "string"), ("grp", "integer")]
    for event in [*events, *later]:
        assert "s3cr3t" not in olsdk.to_json(event) and "app_user" not in olsdk.to_json(event)


def test_jdbc_query_read(spark: Any, lineage: Collector, spark_dirs: Path) -> None:
    db = spark_dirs / "derby_db"
    url = f"jdbc:derby:{db}"
    (
        spark.read.format("jdbc")
        .option("url", url)
        .option("user", "app_user")
        .option("password", "s3cr3t-pw")
        .option("query", 'SELECT p."id", p."name" FROM APP.PEOPLE p WHERE p."grp" = 1')
        .load()
        .write.mode("overwrite")
        .parquet(str(db) + "_query")
    )
    events = lineage.take()
    _, complete = one_run(events)
    [inp] = complete.inputs
    assert (inp.namespace, inp.name) == (f"file:{db}", "APP.PEOPLE")  # via openlineage-sql
    assert fields(inp) == [("id", "integer"), ("name", "string")]
    assert all("s3cr3t" not in olsdk.to_json(e) for e in events)


def test_failing_write_emits_fail(spark: Any, data: Path, lineage: Collector) -> None:
    from pyspark.sql import functions as F

    df = spark.read.parquet(str(data / "people_parquet"))
    with pytest.raises(Exception, match="boom"):
        df.select(F.raise_error(F.lit("boom"))).write.mode("overwrite").parquet(str(data / "out" / "never"))
    start, fail = one_run(lineage.take(), end="FAIL")
    error = fail.run.facets.errorMessage
    assert "boom" in error.message
    assert error.programmingLanguage == "JAVA"
    assert "SparkRuntimeException" in (error.stackTrace or "")
    assert fail.outputs[0].name == str(data / "out" / "never")
    assert fail.outputs[0].outputFacets is None
    assert start.run.facets.errorMessage is None


def test_read_only_actions_are_silent(spark: Any, data: Path, lineage: Collector) -> None:
    df = spark.read.parquet(str(data / "people_parquet"))
    df.count()
    df.collect()
    spark.sql("SHOW TABLES").collect()
    assert lineage.take() == []


def test_column_lineage(spark: Any, data: Path, lineage: Collector) -> None:
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    people = spark.read.parquet(str(data / "people_parquet"))
    groups = spark.read.json(str(data / "groups_json"))
    joined = people.join(groups, "grp").withColumn("upper", F.upper("label"))
    agg = joined.groupBy("grp").agg(F.max("upper").alias("top"), F.count("id").alias("n"))
    ranked = agg.withColumn("rank", F.rank().over(Window.orderBy("n")))
    both = ranked.unionByName(ranked)
    lineage.handle.column_lineage = True  # read by the (asynchronous) callback
    try:
        both.write.mode("overwrite").parquet(str(data / "out" / "lineage"))
        events = lineage.take()
    finally:
        lineage.handle.column_lineage = False
    _, complete = one_run(events)
    facet = complete.outputs[0].facets.columnLineage
    got = {
        out: sorted((f.name.rsplit("/", 1)[-1], f.field, f.transformations[0].subtype) for f in v.inputFields)
        for out, v in facet.fields.items()
    }
    assert got["grp"] == [("people_parquet", "grp", "IDENTITY")]
    assert got["top"] == [("groups_json", "label", "AGGREGATION")]
    assert got["n"] == [("people_parquet", "id", "AGGREGATION")]
    assert got["rank"] == [("people_parquet", "id", "AGGREGATION")]


def test_datasets_of_dataframes(spark: Any, data: Path, spark_dirs: Path, lineage: Collector) -> None:
    from olsdk.spark import datasets

    people = spark.read.parquet(str(data / "people_parquet"))
    people.createOrReplaceTempView("people_view")
    spark.sql("CREATE OR REPLACE VIEW people_pview AS SELECT * FROM people_t")
    view = spark.sql("SELECT v.id FROM people_view v JOIN people_pview p ON v.id = p.id")
    found = {(d.namespace, d.name) for d in datasets(view)}
    assert found == {("file", str(data / "people_parquet")), ("file", str(spark_dirs / "warehouse" / "people_t"))}
    assert datasets(spark.range(3)) == []
    lineage.take()


def test_lineage_run(spark: Any, data: Path, lineage: Collector) -> None:
    from olsdk.spark.run import lineage_run

    people = spark.read.parquet(str(data / "people_parquet"))
    target = str(data / "out" / "manual")
    with lineage_run(spark, "manual.export", inputs=[people], outputs=[(people, target)]):
        people.toPandas()
    events = [e for e in lineage.take() if e.job.name == "manual.export"]
    _, complete = one_run(events)
    assert complete.run.facets.parent.run.runId == lineage.handle.app_run.run_id
    assert [i.name for i in complete.inputs] == [str(data / "people_parquet")]
    assert complete.outputs[0].name == target
    assert fields(complete.outputs[0]) == [("id", "integer"), ("name", "string"), ("grp", "integer")]

    @lineage_run(spark, "manual.broken")
    def broken() -> None:
        raise ValueError("nope")

    with pytest.raises(ValueError, match="nope"):
        broken()
    _, fail = one_run([e for e in lineage.take() if e.job.name == "manual.broken"], end="FAIL")
    assert fail.run.facets.errorMessage.message == "nope"
