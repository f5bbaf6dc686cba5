"""Event JSON handed to emit() is checked against the spec; nothing is dropped."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

import olsdk
from olsdk import OpenLineageClient

GOOD = {
    "eventTime": "2026-11-22T10:00:00Z",
    "producer": "https://example.com/p",
    "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    "eventType": "START",
    "run": {"runId": "0190d3a4-7b5c-7a3e-9f00-1234567890ab"},
    "job": {"namespace": "ns", "name": "job"},
}
BAD = {**GOOD, "run": {"runId": "not-a-uuid"}}


def file_client(tmp_path: Path, policy: str) -> OpenLineageClient:
    config = {"transport": {"type": "file", "log_file_path": str(tmp_path / "events.ndjson")}}
    return OpenLineageClient(config=config, error_policy=policy, spool=tmp_path / "spool.ndjson")


def written(tmp_path: Path) -> list[dict[str, object]]:
    path = tmp_path / "events.ndjson"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_raise_policy_rejects_event_json_that_breaks_the_spec(tmp_path: Path) -> None:
    with file_client(tmp_path, "raise") as client:
        with pytest.raises(olsdk.ValidationError, match=r"run\.runId: not a UUID"):
            client.emit(json.dumps(BAD))
        client.emit(GOOD)
    assert written(tmp_path) == [GOOD]


def test_log_policy_warns_with_the_problem_and_still_sends(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING), file_client(tmp_path, "log") as client:
        client.emit(BAD)
    assert written(tmp_path) == [BAD]
    assert any("run.runId: not a UUID" in record.getMessage() for record in caplog.records)
