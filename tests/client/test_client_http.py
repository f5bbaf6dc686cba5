"""HTTP transport against a real server on 127.0.0.1."""

from __future__ import annotations

import gzip
import json
import logging
from pathlib import Path
from typing import Any

import pytest
from client_testkit import LineageServer, Reply, run_event

from olsdk.client import DeliveryError, OpenLineageClient, Spool, replay
from olsdk.transports import create_transport

FAST_RETRY = {"total": 3, "backoff_factor": 0.01, "backoff_jitter": 0.01}


def http_client(url: str, spool: Path, **transport: Any) -> OpenLineageClient:
    config = {"transport": {"type": "http", "url": url, "retry": FAST_RETRY, **transport}}
    return OpenLineageClient(config=config, spool=spool, environ={})


def test_body_headers_and_auth(server: LineageServer, tmp_path: Path) -> None:
    event = run_event()
    with http_client(
        server.url,
        tmp_path / "spool",
        auth={"type": "api_key", "apiKey": "k-123"},
        custom_headers={"X-Tenant": "blue"},
    ) as client:
        client.emit(event)
    (req,) = server.requests
    assert req.path == "/api/v1/lineage"
    assert req.headers["Content-Type"] == "application/json"
    assert req.headers["Authorization"] == "Bearer k-123"
    assert req.headers["X-Tenant"] == "blue"
    assert "Content-Encoding" not in req.headers
    assert json.loads(req.body) == event
    assert not (tmp_path / "spool").exists()


def test_gzip(server: LineageServer, tmp_path: Path) -> None:
    event = run_event()
    with http_client(server.url, tmp_path / "spool", compression="gzip") as client:
        client.emit(event)
    (req,) = server.requests
    assert req.headers["Content-Encoding"] == "gzip"
    assert json.loads(gzip.decompress(req.raw)) == event


def test_path_prefix_and_endpoint_are_kept(server: LineageServer, tmp_path: Path) -> None:
    with http_client(f"{server.url}/marquez", tmp_path / "s", endpoint="api/v2/events") as client:
        client.emit(run_event())
    assert [r.path for r in server.requests] == ["/marquez/api/v2/events"]


def test_503_twice_then_200_delivers_exactly_once(server: LineageServer, tmp_path: Path) -> None:
    server.script.extend([Reply(503), Reply(503)])
    with http_client(server.url, tmp_path / "spool") as client:
        client.emit(run_event())
    assert len(server.requests) == 3
    assert len(server.events) == 1
    assert not (tmp_path / "spool").exists()


def test_429_retry_after_is_honoured(server: LineageServer, tmp_path: Path) -> None:
    server.script.append(Reply(429, headers={"Retry-After": "0"}))
    with http_client(server.url, tmp_path / "spool") as client:
        client.emit(run_event())
    assert [len(server.events), len(server.requests)] == [1, 2]


def test_client_error_is_not_retried_and_is_spooled(server: LineageServer, tmp_path: Path) -> None:
    server.script.append(Reply(400, body=b"bad event"))
    with http_client(server.url, tmp_path / "spool") as client:
        client.emit(run_event())
    assert len(server.requests) == 1
    (record,) = Spool(tmp_path / "spool").records()
    assert record["retriable"] is False
    assert "HTTP 400" in record["reason"]
    assert record["event"] == run_event()


def test_server_down_spools_then_replay_delivers_once(free_port: int, tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port}"
    spool_path = tmp_path / "spool.ndjson"
    events = [run_event(event_type="START"), run_event(event_type="COMPLETE")]
    with http_client(url, spool_path) as client:
        for event in events:
            client.emit(event)  # must not raise: the default policy is "log"
    records = list(Spool(spool_path).records())
    assert [r["event"] for r in records] == events
    assert all("cannot connect" in r["reason"] for r in records)

    transport = create_transport({"type": "http", "url": url, "retry": FAST_RETRY})
    still_down = replay(spool_path, transport)
    assert (still_down.delivered, still_down.kept) == (0, 2)
    assert len(Spool(spool_path)) == 2

    srv = LineageServer(port=free_port)
    try:
        result = replay(spool_path, transport)
        assert (result.delivered, result.kept) == (2, 0)
        assert srv.events == events  # once each, in order
        assert not spool_path.exists() or len(Spool(spool_path)) == 0
        again = replay(spool_path, transport)
        assert again.delivered == 0 and len(srv.events) == 2
    finally:
        srv.stop()
        transport.close()


def test_replay_keeps_later_events_of_a_failing_run(server: LineageServer, tmp_path: Path) -> None:
    spool_path = tmp_path / "spool"
    down = http_client("http://127.0.0.1:9", spool_path, retry={"total": 0})
    a1, a2 = (
        run_event(run_id="0190e5c6-0000-7000-8000-00000000000a"),
        run_event(run_id="0190e5c6-0000-7000-8000-00000000000a", event_type="COMPLETE"),
    )
    b1 = run_event(run_id="0190e5c6-0000-7000-8000-00000000000b")
    for event in (a1, a2, b1):
        down.emit(event)
    down.close()
    server.script.append(Reply(400))  # the first resend (a1) is rejected
    transport = create_transport({"type": "http", "url": server.url, "retry": {"total": 0}})
    result = replay(spool_path, transport)
    transport.close()
    assert (result.delivered, result.kept) == (1, 2)
    assert server.events == [b1]
    assert [r["event"] for r in Spool(spool_path).records()] == [a1, a2]  # order kept


def test_slow_server_hits_read_timeout_without_hanging(server: LineageServer, tmp_path: Path) -> None:
    server.script.append(Reply(delay=30))
    spool_path = tmp_path / "spool"
    with http_client(server.url, spool_path, timeout=0.3, retry={"read": 0}) as client:
        client.emit(run_event())  # returns after ~0.3 s, not 30 s
    (record,) = Spool(spool_path).records()
    assert "read timeout" in record["reason"]


def test_raise_policy_raises_and_still_spools(free_port: int, tmp_path: Path) -> None:
    config = {
        "transport": {"type": "http", "url": f"http://127.0.0.1:{free_port}", "retry": {"total": 0}},
        "error_policy": "raise",
    }
    client = OpenLineageClient(config=config, spool=tmp_path / "spool", environ={})
    with pytest.raises(DeliveryError, match="cannot connect"):
        client.emit(run_event())
    assert len(Spool(tmp_path / "spool")) == 1


def test_callback_policy(free_port: int, tmp_path: Path) -> None:
    seen: list[str] = []
    client = OpenLineageClient(
        config={"transport": {"type": "http", "url": f"http://127.0.0.1:{free_port}", "retry": {"total": 0}}},
        error_policy=lambda payload, error: seen.append(f"{payload.job_name}: {error.target}"),
        spool=tmp_path / "spool",
        environ={},
    )
    client.emit(run_event(job="j1"))
    assert seen == ["j1: http"]


def test_secrets_stay_out_of_logs_reprs_and_spool(
    free_port: int, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    url = f"http://user:pa55word@127.0.0.1:{free_port}"
    client = http_client(
        url, tmp_path / "spool", retry={"total": 0}, auth={"type": "api_key", "apiKey": "sup3r-s3cret"}
    )
    with caplog.at_level(logging.DEBUG, logger="olsdk"):
        client.emit(run_event())
    texts = [caplog.text, repr(client), repr(client.transport), (tmp_path / "spool").read_text(), repr(client.config)]
    for text in texts:
        assert "sup3r-s3cret" not in text
        assert "pa55word" not in text
    assert "not delivered" in caplog.text


def test_batch_endpoint_groups_events(server: LineageServer, tmp_path: Path) -> None:
    events = [run_event(job=f"j{i}") for i in range(25)]
    with http_client(server.url, tmp_path / "spool", batch={"max_events": 10, "linger": 5}) as client:
        for event in events:
            client.emit(event)
        assert client.flush(timeout=30)
    assert server.events == events
    batch_posts = [r for r in server.requests if r.path == "/api/v1/lineage/batch"]
    assert batch_posts, "events went out one by one"
    assert all(len(json.loads(r.body)) <= 10 for r in batch_posts)
    assert sum(len(json.loads(r.body)) for r in batch_posts) + (len(server.requests) - len(batch_posts)) == 25


def test_batch_falls_back_to_single_posts(tmp_path: Path) -> None:
    srv = LineageServer(batch=False)
    try:
        events = [run_event(job=f"j{i}") for i in range(12)]
        with http_client(srv.url, tmp_path / "spool", batch={"max_events": 5, "linger": 5}) as c:
            for event in events:
                c.emit(event)
        assert srv.events == events
        assert sum(r.path.endswith("/batch") for r in srv.requests) == 1  # tried once
        assert not (tmp_path / "spool").exists()
    finally:
        srv.stop()


def test_batch_per_event_outcomes(server: LineageServer, tmp_path: Path) -> None:
    report = {
        "status": "partial_success",
        "summary": {"received": 3, "successful": 1, "failed": 2},
        "failed_events": [
            {"index": 0, "reason": "Timeout", "retriable": True},
            {"index": 2, "reason": "Unsupported facets", "retriable": False},
        ],
    }
    server.batch_reply = Reply(200, {"Content-Type": "application/json"}, json.dumps(report).encode())
    events = [run_event(job=f"j{i}") for i in range(3)]
    spool_path = tmp_path / "spool"
    with http_client(server.url, spool_path, batch={"max_events": 3, "linger": 5}) as client:
        for event in events:
            client.emit(event)
    singles = [json.loads(r.body) for r in server.requests if not r.path.endswith("/batch")]
    assert singles == [events[0]]  # the retriable one was resent on its own
    (record,) = Spool(spool_path).records()
    assert record["event"] == events[2]
    assert "Unsupported facets" in record["reason"] and record["retriable"] is False
