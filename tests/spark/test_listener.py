"""End-to-end: real writes on a local[2] session -> events, parsed back and checked."""

from __future__ import annotations

import json
import logging
import uuid
from pathlib import Path
from typing import Any

import pytest

import olsdk
from tests.spark.conftest import APP_JOB, Collector
from tests.support.client_testkit import kept
from tests.support.overlay import parent_root_in_models, release_has

pytestmark = pytest.mark.spark

NS = "olsdk-tests"


def roundtrip(events: list[Any]) -> list[Any]:
    """Every event through JSON and ``olsdk.parse_event``, checked by the spec's schema."""
    from tests.support.spec_schema import event_validator

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
    if parent_root_in_models():
        assert facets.parent.root.job.name == APP_JOB
    else:  # releases before 1.31.0: no root in ParentRunFacet, dropped (docs/explanation/spec-versions.md)
        assert "root" not in facets.parent.to_dict()
    assert facets.processing_engine.name == "spark"
    assert facets.processing_engine.version.startswith("4.")
    if not release_has("JobTypeJobFacet"):  # before 1.6.0: left out (docs/explanation/spec-versions.md)
        assert event.job.facets is None or "jobType" not in event.job.facets.to_dict()
        return
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
    if release_has("JobTypeJobFacet"):
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


def transformation(item: Any) -> tuple[str, str]:
    """(type, subtype) of a transformation: typed, or extra data on models before 1.17.0 (no such field)."""
    if isinstance(item, dict):
        return str(item["type"]), str(item["subtype"])
    return str(item.type), str(item.subtype)


def test_column_lineage(spark: Any, data: Path, lineage: Collector) -> None:
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    people = spark.read.parquet(str(data / "people_parquet"))
    groups = spark.read.json(str(data / "groups_json"))
    joined = people.join(groups, "grp").withColumn("upper", F.upper("label"))
    agg = joined.groupBy("grp").agg(F.max("upper").alias("top"), F.count("id").alias("n"))
    ranked = agg.withColumn("rank", F.rank().over(Window.orderBy("n")))
    both = ranked.unionByName(ranked)
    previous = lineage.handle.column_lineage
    lineage.handle.column_lineage = True  # on by default; read by the worker
    try:
        both.write.mode("overwrite").parquet(str(data / "out" / "lineage"))
        events = lineage.take()
    finally:
        lineage.handle.column_lineage = previous
    _, complete = one_run(events)
    facet = complete.outputs[0].facets.columnLineage
    listed = {
        out: [
            (f.name.rsplit("/", 1)[-1], f.field, *transformation(t)) for f in v.inputFields for t in f.transformations
        ]
        for out, v in facet.fields.items()
    }
    got = {out: sorted((d, c, sub) for d, c, kind, sub in found if kind == "DIRECT") for out, found in listed.items()}
    # The inputs of the whole dataset (the join, the window): in the facet's `dataset` list,
    # or, on models without it (before 1.23.0), under every column.
    whole = {sub for *_, kind, sub in (x for found in listed.values() for x in found) if kind == "INDIRECT"}
    if release_has("ColumnLineageDatasetFacet.dataset"):
        whole = {transformation(t)[1] for f in facet.dataset for t in f.transformations}
    assert {"JOIN", "WINDOW"} <= whole
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
    from olsdk._integrations.spark._run import lineage_run

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


# -- when lineage cannot be emitted: logged on olsdk.spark, spooled, never raised ------------


def _write_with_own_listener(
    spark: Any, lineage: Collector, client: Any, target: Path, settings: dict[str, str] | None = None
) -> Any:
    """One parquet write (of ``people_parquet`` next to ``target``'s parent) seen by a
    listener of its own, started with ``settings`` in the session's conf; returns its
    handle, closed. ``install`` would return the shared listener instead."""
    from olsdk.spark import SparkLineage

    settings = settings or {}
    for key, value in settings.items():
        spark.conf.set(key, value)
    try:
        handle = SparkLineage(spark, client, namespace="olsdk-failures")
    finally:
        for key in settings:
            spark.conf.unset(key)
    try:
        spark.read.parquet(str(target.parents[1] / "people_parquet")).write.mode("overwrite").parquet(str(target))
        assert handle.flush(60)
    finally:
        handle.close()
        lineage.take()  # the shared listener saw the write too
    return handle


def _spooled_events(path: Path) -> list[tuple[str, str]]:
    from olsdk.client import Spool

    return [(r["event"]["eventType"], r["event"]["job"]["name"]) for r in Spool(path).records()]


@pytest.mark.parametrize("policy", ["log", "raise"])
def test_unreachable_backend_spools_every_event(
    spark: Any,
    data: Path,
    lineage: Collector,
    tmp_path: Path,
    free_port: int,
    policy: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    from olsdk.client import OpenLineageClient

    spool = tmp_path / "spool.ndjson"
    client = OpenLineageClient(
        config={"transport": {"type": "http", "url": f"http://127.0.0.1:{free_port}", "retry": {"total": 0}}},
        spool=spool,
        error_policy=policy,  # type: ignore[arg-type]
    )
    target = data / "out" / f"unreachable_{policy}"
    with caplog.at_level(logging.WARNING, logger="olsdk"):
        try:
            handle = _write_with_own_listener(spark, lineage, client, target)
        finally:
            client.close()
    write_job = f"{APP_JOB}.execute_insert_into_hadoop_fs_relation_command.out_unreachable_{policy}"
    assert _spooled_events(spool) == [
        ("START", APP_JOB),
        ("START", write_job),
        ("COMPLETE", write_job),
        ("COMPLETE", APP_JOB),
    ]
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert any("cannot connect" in r.getMessage() for r in warnings), [r.getMessage() for r in warnings]
    if policy == "raise":  # the client raised to the listener: it says so, and does not spool twice
        spark_warnings = [r.getMessage() for r in warnings if r.name == "olsdk.spark"]
        assert len(spark_warnings) == 4
        assert all("DeliveryError" in m and "spooled to" in m and "by the client" in m for m in spark_warnings)
        assert handle.failed_emits == 4
    else:
        assert handle.failed_emits == 0


def test_emitter_failure_goes_to_its_spool(
    spark: Any, data: Path, lineage: Collector, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from olsdk.client import Spool

    class RejectingEmitter:
        """An emitter of the user's own with a spool, whose backend refuses every event."""

        def __init__(self, path: Path) -> None:
            self.spool = Spool(path)

        def emit(self, event: Any) -> None:
            raise RuntimeError("backend refused the event")

    emitter = RejectingEmitter(tmp_path / "spool.ndjson")
    target = data / "out" / "rejected"
    with caplog.at_level(logging.WARNING, logger="olsdk.spark"):
        _write_with_own_listener(spark, lineage, emitter, target)
    records = list(emitter.spool.records())
    assert [r["event"]["eventType"] for r in records] == ["START", "START", "COMPLETE", "COMPLETE"]
    assert all(r["reason"] == "RuntimeError: backend refused the event" for r in records)
    write: Any = olsdk.parse_event(records[2]["event"])  # spooled whole: it parses back
    assert write.outputs[0].name == str(target)
    assert write.outputs[0].outputFacets.outputStatistics.rowCount == 30
    messages = [r.getMessage() for r in caplog.records if r.name == "olsdk.spark"]
    assert len(messages) == 4
    assert all("RuntimeError: backend refused the event" in m and "spooled to" in m for m in messages)


def test_events_that_cannot_be_built_are_logged_not_raised(
    spark: Any, data: Path, lineage: Collector, caplog: pytest.LogCaptureFixture
) -> None:
    """A parent run id that is no UUID: no event can be built; the write still succeeds."""
    events: list[Any] = []
    settings = {
        "spark.openlineage.parentJobNamespace": "airflow",
        "spark.openlineage.parentJobName": "dag.task",
        "spark.openlineage.parentRunId": "not-a-uuid",
    }
    with caplog.at_level(logging.WARNING, logger="olsdk.spark"):
        handle = _write_with_own_listener(spark, lineage, events.append, data / "out" / "unbuilt", settings)
    assert events == []
    assert spark.read.parquet(str(data / "out" / "unbuilt")).count() == 30
    messages = [r.getMessage() for r in caplog.records if r.name == "olsdk.spark"]
    assert len(messages) == 4, messages  # application START, the write's START and COMPLETE, application COMPLETE
    assert all("could not be built" in m and "'not-a-uuid'" in m and "UUID" in m for m in messages)
    assert "the run of Execute InsertIntoHadoopFsRelationCommand, its START" in messages[1]
    assert "the run of Execute InsertIntoHadoopFsRelationCommand, its COMPLETE" in messages[2]
    assert handle.failed_emits == 4


def test_orchestrator_parent_from_spark_settings(spark: Any, data: Path, lineage: Collector) -> None:
    """``spark.openlineage.parent*`` (what ``parent_conf`` writes) puts the application run under it."""
    from olsdk.client import OpenLineageClient
    from olsdk.spark import parent_conf

    client = OpenLineageClient(config={"transport": {"type": "noop"}}, spool=False)
    dag = client.run("airflow", "dag")
    task = client.run("airflow", "dag.task", parent=dag)
    events: list[Any] = []
    handle = _write_with_own_listener(spark, lineage, events.append, data / "out" / "orchestrated", parent_conf(task))
    app_start, write_start, _, app_complete = roundtrip(events)
    app_parent = app_start.run.facets.parent
    assert (app_parent.job.name, str(app_parent.run.runId)) == ("dag.task", task.run_id)
    write_parent = write_start.run.facets.parent
    assert (write_parent.job.name, str(write_parent.run.runId)) == (APP_JOB, handle.app_run.run_id)
    if not parent_root_in_models():
        # before 1.31.0: no root in ParentRunFacet, so parent_conf sees one level up only
        # and the task is the top of the chain (docs/explanation/spec-versions.md)
        assert "root" not in type(app_parent).model_fields
        assert handle.root_run.run_id == task.run_id
    else:
        assert (app_parent.root.job.name, str(app_parent.root.run.runId)) == ("dag", dag.run_id)
        assert (write_parent.root.job.name, str(write_parent.root.run.runId)) == ("dag", dag.run_id)
        assert handle.root_run.run_id == dag.run_id
    assert app_complete.run.facets.parent.run.runId == app_parent.run.runId


def _context(parent_run: str, root_run: str, **job_facets: Any) -> str:
    job: dict[str, Any] = {"namespace": "airflow", "name": "dag.task"}
    if job_facets:
        job["facets"] = job_facets
    root = {"run": {"runId": root_run}, "job": {"namespace": "airflow", "name": "dag"}}
    return json.dumps({"parent": {"run": {"runId": parent_run}, "job": job, "root": root}})


def test_orchestrator_parent_from_the_context_variable(
    spark: Any, data: Path, lineage: Collector, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``OPENLINEAGE_CONTEXT`` in the driver's environment puts the application run under its parent."""
    task_run, dag_run = "0190e5c6-0000-7000-8000-0000000000c1", "0190e5c6-0000-7000-8000-0000000000c2"
    monkeypatch.setenv("OPENLINEAGE_CONTEXT", _context(task_run, dag_run))
    events: list[Any] = []
    handle = _write_with_own_listener(spark, lineage, events.append, data / "out" / "context_env")
    app_start, write_start, _, app_complete = roundtrip(events)
    for app_event in (app_start, app_complete):
        app_parent = app_event.run.facets.parent
        assert (app_parent.job.namespace, app_parent.job.name, str(app_parent.run.runId)) == (
            "airflow",
            "dag.task",
            task_run,
        )
    write_parent = write_start.run.facets.parent
    assert str(write_parent.run.runId) == handle.app_run.run_id
    if parent_root_in_models():
        assert (app_start.run.facets.parent.root.job.name, str(app_start.run.facets.parent.root.run.runId)) == (
            "dag",
            dag_run,
        )
        assert str(write_parent.root.run.runId) == dag_run
        assert handle.root_run.run_id == dag_run


def test_the_context_setting_wins_over_parent_keys_and_the_variable(
    spark: Any, data: Path, lineage: Collector, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``spark.openlineage.context`` (with forwarded job facets) wins, as in the Java agent."""
    monkeypatch.setenv("OPENLINEAGE_CONTEXT", _context(str(uuid.uuid4()), str(uuid.uuid4())))
    task_run, dag_run = "0190e5c6-0000-7000-8000-0000000000d1", "0190e5c6-0000-7000-8000-0000000000d2"
    job_type = {
        "_producer": "https://github.com/apache/airflow",
        "_schemaURL": "https://openlineage.io/spec/facets/2-0-3/JobTypeJobFacet.json#/$defs/JobTypeJobFacet",
        "processingType": "BATCH",
        "integration": "AIRFLOW",
        "jobType": "TASK",
    }
    settings = {
        "spark.openlineage.context": _context(task_run, dag_run, jobType=job_type),
        "spark.openlineage.parentJobNamespace": "other",
        "spark.openlineage.parentJobName": "other.task",
        "spark.openlineage.parentRunId": str(uuid.uuid4()),
    }
    events: list[Any] = []
    handle = _write_with_own_listener(spark, lineage, events.append, data / "out" / "context_conf", settings)
    app_start = roundtrip(events)[0]
    app_parent = app_start.run.facets.parent.to_dict()
    assert app_parent["job"]["name"] == "dag.task" and app_parent["run"]["runId"] == task_run
    if parent_root_in_models():
        assert app_parent["job"]["facets"] == {"jobType": job_type}
        assert handle.root_run.run_id == dag_run


# -- START when the write begins; every session; close unregisters ----------------------


def test_start_is_sent_while_the_write_runs(spark: Any, data: Path, lineage: Collector, tmp_path: Path) -> None:
    """The START of a write arrives while its query is still running (here: held by a gate)."""
    import threading

    from tests.spark.conftest import gated

    gate = tmp_path / "gate"
    target = data / "out" / "long_write"
    seen: list[Any] = []
    done = threading.Event()
    arrived = threading.Event()

    def watch(event: Any) -> None:
        seen.append(event)
        if event.eventType == "START" and event.job.name.endswith("out_long_write"):
            arrived.set()

    from olsdk.spark import SparkLineage

    handle = SparkLineage(spark, watch, namespace="olsdk-long")
    try:
        writer = threading.Thread(
            target=lambda: (gated(spark.range(4), gate).write.mode("overwrite").parquet(str(target)), done.set())
        )
        writer.start()
        assert arrived.wait(120), [(e.eventType, e.job.name) for e in seen]
        assert not done.is_set()  # the query is still held by the gate
        assert [e.eventType for e in seen if e.job.name.endswith("out_long_write")] == ["START"]
        gate.touch()
        writer.join(120)
        assert done.is_set()
        assert handle.flush(60)
    finally:
        gate.touch()
        handle.close()
        lineage.take()
    start, complete = one_run([e for e in seen if e.job.name.endswith("out_long_write")])
    assert start.eventTime < complete.eventTime
    assert complete.outputs[0].outputFacets.outputStatistics.rowCount == 4


def test_writes_of_new_sessions_are_seen(spark: Any, data: Path, lineage: Collector) -> None:
    other = spark.newSession()
    other.read.parquet(str(data / "people_parquet")).write.mode("overwrite").parquet(str(data / "out" / "from_new"))
    _, complete = one_run(lineage.take())
    assert complete.outputs[0].name == str(data / "out" / "from_new")
    assert [i.name for i in complete.inputs] == [str(data / "people_parquet")]


def test_close_unregisters_the_listener(spark: Any, data: Path, lineage: Collector) -> None:
    from olsdk.spark import SparkLineage

    events: list[Any] = []
    handle = SparkLineage(spark, events.append, namespace="olsdk-closed")
    handle.close()
    kinds = [(e.eventType, e.job.name) for e in events]
    assert kinds == [("START", APP_JOB), ("COMPLETE", APP_JOB)]
    spark.read.parquet(str(data / "people_parquet")).write.mode("overwrite").parquet(str(data / "out" / "after_close"))
    assert lineage.take()  # the shared listener saw the write...
    assert len(events) == 2  # ...the closed one did not


# -- SIGTERM, in a real process ---------------------------------------------------------


def _children(pid: int) -> list[int]:
    """PIDs of the direct children of ``pid`` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def test_sigterm_ends_the_runs_and_loses_nothing(tmp_path: Path, server: Any) -> None:
    """SIGTERM to a PySpark process mid-write: the write that finished was delivered, the
    held write and the application run end with ABORT, and the process still dies of SIGTERM."""
    import contextlib
    import os
    import signal
    import subprocess
    import sys
    import time

    spool = tmp_path / "spool.ndjson"
    env = {
        **os.environ,
        "PYSPARK_PYTHON": sys.executable,
        "OPENLINEAGE_CONFIG": str(tmp_path / "openlineage.yml"),
    }
    (tmp_path / "openlineage.yml").write_text(f"spool:\n  path: {spool}\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.spark.sigterm_job", server.url, str(tmp_path)],
        env=env,
        cwd=Path(__file__).resolve().parents[2],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    jvm: list[int] = []
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and proc.poll() is None:
            if any(e["eventType"] == "START" and e["job"]["name"].endswith("held") for e in server.events):
                break
            time.sleep(0.2)
        assert proc.poll() is None, proc.stderr.read().decode()[-3000:] if proc.stderr else ""
        jvm = _children(proc.pid)
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
        for pid in jvm:  # the JVM exits when its Python parent is gone; make sure of it
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    assert code == -signal.SIGTERM
    kinds = [(e["eventType"], e["job"]["name"].rsplit("_", 1)[-1]) for e in server.events]
    assert kinds == [
        ("START", "job"),  # sigterm_job: the application run
        ("START", "first"),
        ("COMPLETE", "first"),
        ("START", "held"),
        ("ABORT", "held"),
        ("ABORT", "job"),
    ]
    app_abort, held_abort = server.events[5], server.events[4]
    assert app_abort["job"]["name"] == "sigterm_job"
    assert app_abort["run"]["facets"]["errorMessage"]["message"] == "terminated by SIGTERM"
    assert "SIGTERM" in held_abort["run"]["facets"]["errorMessage"]["message"]
    assert held_abort["run"]["facets"]["parent"]["run"]["runId"] == app_abort["run"]["runId"]
    assert held_abort["run"]["runId"] == server.events[3]["run"]["runId"]
    assert kept(spool) == []  # the endpoint took everything
