"""Event files on Spark, the agent's facets, parent_conf, the demo pipeline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import olsdk
from tests.spark.conftest import Collector

pytestmark = pytest.mark.spark

AGENT_REFERENCE = Path(__file__).resolve().parents[3] / "shared" / "spark-agent-reference"


@pytest.fixture(scope="module")
def event_file(spark: Any, spark_dirs: Path, lineage: Collector) -> tuple[Path, int]:
    """NDJSON with real listener events plus three broken lines."""
    base = spark_dirs / "events"
    base.mkdir(exist_ok=True)
    spark.range(5).write.mode("overwrite").parquet(str(base / "src"))
    spark.read.parquet(str(base / "src")).write.mode("overwrite").json(str(base / "dst"))
    events = [olsdk.to_json(e) for e in lineage.take()]
    good = json.loads(events[-1])
    bad_type = {**good, "eventType": "EXPLODED"}
    no_run_id = {**good, "run": {"facets": {}}}
    path = base / "events.ndjson"
    path.write_text("\n".join([*events, json.dumps(bad_type), json.dumps(no_run_id), "{not json", ""]))
    return path, len(events)


def test_validate_events(spark: Any, event_file: tuple[Path, int]) -> None:
    from olsdk.spark import validate_events

    path, good = event_file
    report = validate_events(spark, str(path))
    assert (report.total, report.valid, report.invalid) == (good + 3, good, 3)
    messages = " | ".join(m for m, _ in report.errors)
    assert "eventType" in messages and "runId" in messages and "JSON" in messages
    assert "3 invalid" in str(report)


def test_read_events_keeps_facets_as_json(spark: Any, event_file: tuple[Path, int]) -> None:
    from pyspark.sql import functions as F

    from olsdk.spark import lineage_edges, read_events

    path = event_file[0]
    events = read_events(spark, str(path)).cache()
    assert events.where(F.col("_corrupt_record").isNotNull()).count() == 1
    row = events.where(F.col("eventType") == "COMPLETE").where(F.size("outputs") > 0).first()
    stats = json.loads(row["outputs"][0]["outputFacets"]["outputStatistics"])
    assert stats["rowCount"] == 5
    parent = json.loads(row["run"]["facets"]["parent"])
    assert parent["job"]["name"] == "olsdk_spark_tests"
    edges = {tuple(r) for r in lineage_edges(events).select("direction", "dataset_name").collect()}
    assert ("input", str(path.parent / "src")) in edges
    assert ("output", str(path.parent / "dst")) in edges
    events.unpersist()


@pytest.mark.parametrize(
    "name", ["cli_pyspark_example_expected_event_complete.json", "pysparkKafkaWriteCompleteEvent.json"]
)
def test_agent_facets_parse_typed(name: str) -> None:
    from olsdk.spark import agent_facets

    reference = AGENT_REFERENCE / name
    if not reference.exists():
        pytest.skip("agent reference events not available")
    doc = json.loads(reference.read_text())
    # Reference templates are partial: complete them into valid events.
    doc.update(
        eventTime="2024-01-01T00:00:00Z",
        producer="https://example.com/agent",
        schemaURL="https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    )
    doc["job"].setdefault("name", "kafka")
    doc["run"]["runId"] = "0190b1a2-0000-7000-8000-000000000001"
    for key, facet in doc["run"]["facets"].items():
        facet.update({"_producer": "https://example.com/agent", "_schemaURL": agent_facets._AGENT_SCHEMA_URL})
        if key == "parent":
            facet["run"] = {"runId": "0190b1a2-0000-7000-8000-000000000002"}
        if key == "processing_engine":
            facet["version"] = "3.5.1"
    doc["job"].pop("facets", None)
    for ds in doc.get("inputs", []) + doc.get("outputs", []):
        ds["facets"] = {}
    event = olsdk.parse_event(doc)
    facets = event.run.facets
    if "spark_properties" in doc["run"]["facets"]:
        props = facets.spark_properties
        assert isinstance(props, agent_facets.SparkPropertiesRunFacet)
        assert props.properties["spark.app.name"] == "CLI test application"
        env = getattr(facets, "environment-properties")
        assert isinstance(env, agent_facets.EnvironmentPropertiesRunFacet)
        assert env.environment_properties == {}
    else:
        assert isinstance(getattr(facets, "spark.logicalPlan"), agent_facets.SparkLogicalPlanRunFacet)
    assert json.loads(olsdk.to_json(event))["run"]["facets"].keys() == doc["run"]["facets"].keys()


def test_agent_exception_facet_roundtrip() -> None:
    from olsdk.spark.agent_facets import SparkExceptionRunFacet, SparkJobDetailsRunFacet

    facet = SparkExceptionRunFacet(message="boom", stackTrace="at x")
    assert json.loads(facet.to_json())["message"] == "boom"
    assert SparkJobDetailsRunFacet(jobId=3).jobId == 3


def test_parent_conf() -> None:
    from olsdk.client.run import RunContext
    from olsdk.spark import parent_conf

    class _Client:
        producer = "https://example.com/p"

        def emit(self, event: Any) -> None:
            pass

    dag = RunContext(_Client(), "airflow", "dag")  # type: ignore[arg-type]
    task = RunContext(_Client(), "airflow", "dag.task", parent=dag)  # type: ignore[arg-type]
    conf = parent_conf(task)
    assert conf == {
        "spark.openlineage.parentJobNamespace": "airflow",
        "spark.openlineage.parentJobName": "dag.task",
        "spark.openlineage.parentRunId": task.run_id,
        "spark.openlineage.rootParentJobNamespace": "airflow",
        "spark.openlineage.rootParentJobName": "dag",
        "spark.openlineage.rootParentRunId": dag.run_id,
    }
    with pytest.raises(TypeError):
        parent_conf("nope")


def test_demo_pipeline_events_validate(spark: Any, spark_dirs: Path, lineage: Collector) -> None:
    from olsdk.spark.demo import generate_data, run_pipeline, summarize
    from tests.spec_schema import event_validator

    base = spark_dirs / "demo"
    generate_data(base / "input", customers=20, orders=100)
    lineage.take()
    result = run_pipeline(spark, base)
    assert "refusing to export" in result["failed_step"]
    events = lineage.take()
    for event in events:
        event_validator().validate(json.loads(olsdk.to_json(event)))
    summary = summarize([olsdk.parse_event(olsdk.to_json(e)) for e in events])
    assert (len(summary.runs), len(summary.failed_runs)) == (3, 1)
    assert len(summary.datasets) == 5
    assert {e.eventType for e in events} == {"START", "COMPLETE", "FAIL"}
