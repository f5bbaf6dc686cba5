"""``type: async_http``: non-blocking, nothing dropped when the server is down or the
queue is full."""

from __future__ import annotations

from pathlib import Path

import pytest

from olsdk._delivery.transports._async_http import AsyncHttpSettings, queue_settings
from olsdk.client import OpenLineageClient, Spool
from olsdk.transports import BufferedSettings, BufferedTransport, create_transport
from tests.support.client_testkit import LineageServer, run_event


def test_the_section_maps_onto_the_buffered_wrapper(server: LineageServer) -> None:
    transport = create_transport({"type": "async_http", "url": server.url, "max_queue_size": 7})
    assert isinstance(transport, BufferedTransport)
    assert transport.settings.max_queue_size == 7 and transport.settings.on_full == "block"
    assert transport.label == "async_http"
    transport.close()
    mapped = queue_settings(AsyncHttpSettings(url=server.url, max_concurrent_requests=8))
    if "workers" in BufferedSettings.model_fields:  # concurrent delivery (issue 13)
        assert mapped.workers == 8  # type: ignore[attr-defined]
    else:  # one worker today: only the queue is mapped
        assert mapped == BufferedSettings(max_queue_size=10_000, on_full="block")


@pytest.mark.slow
def test_a_down_server_loses_nothing(free_port: int, tmp_path: Path) -> None:
    section = {"type": "async_http", "url": f"http://127.0.0.1:{free_port}", "retry": {"total": 0}}
    client = OpenLineageClient(config={"transport": section}, spool=tmp_path / "spool", environ={})
    for i in range(30):
        client.emit(run_event(job=f"j{i}"))
    client.close(10)
    records = list(Spool(tmp_path / "spool").records())
    assert sorted(r["event"]["job"]["name"] for r in records) == sorted(f"j{i}" for i in range(30))
    assert {r["target"] for r in records} == {"async_http"}


@pytest.mark.slow
def test_a_full_queue_waits_then_spools(free_port: int, tmp_path: Path) -> None:
    section = {
        "type": "async_http",
        "url": f"http://127.0.0.1:{free_port}",
        "max_queue_size": 1,
        "retry": {"total": 0},
    }
    client = OpenLineageClient(config={"transport": section}, spool=tmp_path / "spool", environ={})
    for i in range(5):
        client.emit(run_event(job=f"j{i}"))
    client.close(10)
    assert len(Spool(tmp_path / "spool")) == 5  # every event either delivered or spooled: here, spooled
