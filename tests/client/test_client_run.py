"""The run lifecycle helper and UUIDv7 run ids."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

import olsdk
from olsdk.client import OpenLineageClient, uuid7
from olsdk.client.uuid7 import uuid7_time_ms
from olsdk.models import SQLJobFacet


def file_client(tmp_path: Path, **config: Any) -> OpenLineageClient:
    transport = {"type": "file", "log_file_path": str(tmp_path / "events.ndjson")}
    return OpenLineageClient(config={"transport": transport, **config}, spool=tmp_path / "spool", environ={})


def emitted(tmp_path: Path) -> list[dict[str, Any]]:
    lines = (tmp_path / "events.ndjson").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_start_and_complete_with_datasets_and_facets(tmp_path: Path) -> None:
    with file_client(tmp_path) as client, client.run("ns", "load", inputs=[("s3://b", "in")]) as run:
        run.add_outputs(("s3://b", "out"))
        run.add_job_facets(sql=SQLJobFacet(query="select 1"))
    start, complete = emitted(tmp_path)
    assert [start["eventType"], complete["eventType"]] == ["START", "COMPLETE"]
    assert start["run"]["runId"] == complete["run"]["runId"] == run.run_id
    assert start["inputs"] == [{"namespace": "s3://b", "name": "in"}]
    assert "outputs" not in start
    assert complete["outputs"] == [{"namespace": "s3://b", "name": "out"}]
    assert complete["job"]["facets"]["sql"]["query"] == "select 1"
    for event in (start, complete):
        olsdk.parse_event(event)  # valid against the models


def test_exception_emits_fail_with_stack_trace_and_reraises(tmp_path: Path) -> None:
    def transform() -> None:
        raise ValueError("bad row 42")

    with file_client(tmp_path) as client, pytest.raises(ValueError, match="bad row 42"), client.run("ns", "load"):
        transform()
    _start, fail = emitted(tmp_path)
    assert fail["eventType"] == "FAIL"
    error = fail["run"]["facets"]["errorMessage"]
    assert error["message"] == "bad row 42"
    assert error["programmingLanguage"] == "python"
    assert "in transform" in error["stackTrace"] and "ValueError: bad row 42" in error["stackTrace"]


def test_keyboard_interrupt_emits_abort(tmp_path: Path) -> None:
    with file_client(tmp_path) as client, pytest.raises(KeyboardInterrupt), client.run("ns", "load"):
        raise KeyboardInterrupt
    assert [e["eventType"] for e in emitted(tmp_path)] == ["START", "ABORT"]


def test_parent_chain_and_producer_from_config(tmp_path: Path) -> None:
    producer = "https://example.com/my-pipeline/1.0"
    before = olsdk.get_default_producer()
    try:
        with (
            file_client(tmp_path, producer=producer) as client,
            client.run("ns", "dag") as dag,
            client.run("ns", "task", parent=dag) as task,
            client.run("ns", "step", parent=task),
        ):
            pass
    finally:
        olsdk.set_default_producer(before)
    events = emitted(tmp_path)
    assert all(e["producer"] == producer for e in events)
    step = next(e for e in events if e["job"]["name"] == "step")
    parent = step["run"]["facets"]["parent"]
    assert parent["_producer"] == producer
    assert parent["job"] == {"namespace": "ns", "name": "task"}
    assert parent["root"]["job"] == {"namespace": "ns", "name": "dag"}
    assert parent["root"]["run"]["runId"] == dag.run_id


def test_emission_failure_does_not_break_the_block(tmp_path: Path) -> None:
    client = OpenLineageClient(
        config={"transport": {"type": "http", "url": "http://127.0.0.1:9", "retry": {"total": 0}}},
        spool=tmp_path / "spool",
        environ={},
    )
    ran = False
    with client.run("ns", "load"):
        ran = True
    assert ran
    assert len([line for line in (tmp_path / "spool").read_text().splitlines() if line]) == 2


def test_uuid7_layout_and_order() -> None:
    before = time.time_ns() // 1_000_000
    ids = [uuid7() for _ in range(5000)]
    after = time.time_ns() // 1_000_000
    assert all(u.version == 7 and u.variant == uuid.RFC_4122 for u in ids)
    assert ids == sorted(ids, key=lambda u: u.int)
    assert len(set(ids)) == len(ids)
    assert before <= uuid7_time_ms(ids[0]) and uuid7_time_ms(ids[-1]) <= after + 2
