"""Structured Streaming: a run per query run (START, RUNNING, COMPLETE/FAIL) with its
source and sink, and ``foreachBatch`` writes emitted per micro-batch with their inputs.
Queries are bounded: ``availableNow`` triggers, or a short rate stream stopped by the test."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.spark.conftest import APP_JOB, Collector
from tests.spark.test_listener import roundtrip

pytestmark = pytest.mark.spark


@pytest.fixture
def json_input(spark: Any, tmp_path: Path, lineage: Collector) -> Path:
    path = tmp_path / "in"
    for i in range(2):
        spark.range(i * 10, i * 10 + 10).write.mode("append").json(str(path))
    lineage.take()
    return path


def _streaming_runs(events: list[Any]) -> dict[str, list[Any]]:
    runs: dict[str, list[Any]] = {}
    for event in roundtrip(events):
        if event.job.facets.jobType.processingType == "STREAMING":
            runs.setdefault(str(event.run.runId), []).append(event)
    return runs


def test_file_to_file_query_is_one_run(spark: Any, lineage: Collector, json_input: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    query = (
        spark.readStream.schema("id long")
        .json(str(json_input))
        .writeStream.format("json")
        .option("checkpointLocation", str(tmp_path / "cp"))
        .trigger(availableNow=True)
        .start(str(out))
    )
    query.awaitTermination(120)
    runs = _streaming_runs(lineage.take())
    [(run_id, events)] = runs.items()
    assert run_id == str(query.runId)  # Spark's run id is the OpenLineage run id
    kinds = [e.eventType for e in events]
    assert kinds[0] == "START" and kinds[-1] == "COMPLETE" and set(kinds) <= {"START", "RUNNING", "COMPLETE"}
    complete = events[-1]
    assert complete.job.name == f"{APP_JOB}.streaming_query.{tmp_path.name}_out"
    assert [(i.namespace, i.name) for i in complete.inputs] == [("file", str(json_input))]
    assert [(o.namespace, o.name) for o in complete.outputs] == [("file", str(out))]
    assert events[0].outputs[0].name == str(out)  # the sink is known from the start


def test_foreach_batch_writes_per_micro_batch(spark: Any, lineage: Collector, json_input: Path, tmp_path: Path) -> None:
    target = tmp_path / "batches"

    def write_batch(df: Any, batch_id: int) -> None:
        df.write.mode("append").parquet(str(target))

    query = (
        spark.readStream.schema("id long")
        .option("maxFilesPerTrigger", 2)
        .json(str(json_input))
        .writeStream.foreachBatch(write_batch)
        .option("checkpointLocation", str(tmp_path / "cp"))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination(120)
    events = roundtrip(lineage.take())
    stream_events = [e for e in events if str(e.run.runId) == str(query.runId)]
    assert [stream_events[0].eventType, stream_events[-1].eventType] == ["START", "COMPLETE"]
    writes = [e for e in events if e.outputs and e.outputs[0].name == str(target)]
    completes = [e for e in writes if e.eventType == "COMPLETE"]
    assert len(completes) == query.lastProgress["batchId"] + 1 >= 2  # one run per micro-batch
    for complete in completes:
        assert [(i.namespace, i.name) for i in complete.inputs] == [("file", str(json_input))]
        assert str(complete.run.facets.parent.run.runId) == str(query.runId)  # under the query's run
    # every write run was started before it completed, none left pending
    starts = {str(e.run.runId) for e in writes if e.eventType == "START"}
    assert starts == {str(e.run.runId) for e in completes}


def test_rate_query_stopped(spark: Any, lineage: Collector, tmp_path: Path) -> None:
    from olsdk.spark import SparkLineage

    seen: list[Any] = []
    handle = SparkLineage(spark, seen.append, namespace="olsdk-rate", streaming_interval=0.0)
    try:
        query = (
            spark.readStream.format("rate")
            .option("rowsPerSecond", 20)
            .load()
            .writeStream.format("parquet")
            .option("checkpointLocation", str(tmp_path / "cp"))
            .trigger(processingTime="500 milliseconds")
            .start(str(tmp_path / "rate"))
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not any(e.eventType == "RUNNING" for e in seen):
            time.sleep(0.2)
        query.stop()
        assert handle.flush(60)
    finally:
        handle.close()
        lineage.take()
    mine = [e for e in roundtrip(seen) if str(e.run.runId) == str(query.runId)]
    assert mine[0].eventType == "START" and mine[-1].eventType == "COMPLETE"
    assert "RUNNING" in [e.eventType for e in mine]
    assert mine[-1].inputs == []  # generated rows: no source dataset
    assert mine[-1].outputs[0].name == str(tmp_path / "rate")
