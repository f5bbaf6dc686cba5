"""``type: transform``: a transformer of olsdk models; drops are logged, failures spooled,
replay resends through the transformer."""

from __future__ import annotations

from pathlib import Path

import pytest

from olsdk.client import OpenLineageClient, Spool, replay
from olsdk.transports import create_transport
from tests.support.client_testkit import LineageServer, run_event

SECTION = {"type": "transform", "transformer_class": "tests.support.official.UpperJobTransformer"}


def test_changed_dropped_and_failed_events(
    server: LineageServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    section = {**SECTION, "transport": {"type": "http", "url": server.url}}
    dataset_event = {
        "eventTime": "2024-07-01T12:00:00Z",
        "producer": "https://x",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent",
        "dataset": {"namespace": "s3://b", "name": "k"},
    }
    spool = tmp_path / "spool"
    with caplog.at_level("INFO"), OpenLineageClient(config={"transport": section}, spool=spool, environ={}) as client:
        client.emit(run_event(job="load"))
        client.emit(dataset_event)
        client.emit(run_event(job="boom"))
    assert [e["job"]["name"] for e in server.events] == ["LOAD"]
    assert "dropped by" in caplog.text
    (record,) = Spool(spool).records()
    assert "cannot transform boom" in record["reason"] and record["event"]["job"]["name"] == "boom"


@pytest.mark.slow
def test_replay_goes_through_the_transformer(server: LineageServer, free_port: int, tmp_path: Path) -> None:
    down = {**SECTION, "transport": {"type": "http", "url": f"http://127.0.0.1:{free_port}", "retry": {"total": 0}}}
    spool = tmp_path / "spool"
    with OpenLineageClient(config={"transport": down}, spool=spool, environ={}) as client:
        client.emit(run_event(job="late"))
    (record,) = Spool(spool).records()  # issue 23: kept in the outbox beside the spool file
    assert record["event"]["job"]["name"] == "late"  # as emitted
    up = create_transport({**SECTION, "transport": {"type": "http", "url": server.url}})
    assert replay(spool, up).delivered == 1
    assert [e["job"]["name"] for e in server.events] == ["LATE"]
