"""The http transport against a real server on 127.0.0.1: wire format, retries, batches."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from olsdk._foundation._exceptions import ConfigError
from olsdk.client import Spool, replay
from olsdk.transports import (
    BatchSettings,
    BufferedTransport,
    HttpSettings,
    HttpTransport,
    Payload,
    RetrySettings,
    create_transport,
)
from tests.support.client_testkit import LineageServer, Reply, http_client, kept, run_event, stored_bytes
from tests.support.fault_server import FaultServer, Ledger


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
    assert kept(tmp_path / "spool") == []


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
    assert kept(tmp_path / "spool") == []


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


@pytest.mark.slow
def test_slow_server_hits_read_timeout_without_hanging(server: LineageServer, tmp_path: Path) -> None:
    # issue 23: the relay's probes (during close too) meet the same slow server
    server.script.extend([Reply(delay=30)] * 20)
    spool_path = tmp_path / "spool"
    with http_client(server.url, spool_path, timeout=0.3, retry={"read": 0}) as client:
        client.emit(run_event())  # returns after ~0.3 s, not 30 s
    (record,) = Spool(spool_path).records()
    assert "read timeout" in record["reason"]


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
        assert kept(tmp_path / "spool") == []
    finally:
        srv.stop()


def test_batch_per_event_outcomes(server: LineageServer) -> None:
    transport = HttpTransport(
        HttpSettings(url=server.url, retry=RetrySettings(total=0), batch=BatchSettings(max_events=3))
    )
    warm_up = [Payload.from_json(json.dumps(run_event(job=f"w{i}"))) for i in range(3)]
    assert transport.send_many(warm_up[:1]) == [] and transport.send_many(warm_up[1:]) == []  # slow start: 1, 2
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
    failed = transport.send_many([Payload.from_json(json.dumps(e)) for e in events])
    transport.close()
    assert json.loads(server.requests[-2].body) == events  # one batch of all three
    assert json.loads(server.requests[-1].body) == events[0]  # the retriable one resent on its own
    ((payload, error),) = failed
    assert payload.event() == events[2]
    assert "Unsupported facets" in error.reason and error.retriable is False


def test_built_in_code_from_settings_objects(server: LineageServer) -> None:
    settings = HttpSettings(url=f"{server.url}/prefix", retry=RetrySettings(total=0))
    transport = HttpTransport(settings, name="marquez")
    transport.send(Payload.from_json(json.dumps(run_event())))
    transport.close()
    assert [r.path for r in server.requests] == ["/prefix/api/v1/lineage"]
    assert transport.label == "marquez"
    with pytest.raises(ConfigError, match=r"transport\.url: need an http\(s\) URL"):
        HttpSettings(url="localhost:5000")


def test_batch_section_wraps_the_transport_in_a_buffered_one(server: LineageServer) -> None:
    transport = create_transport({"type": "http", "url": server.url, "batch": {"max_events": 7}, "name": "m"})
    assert isinstance(transport, BufferedTransport) and isinstance(transport.inner, HttpTransport)
    assert (transport.settings.batch_size, transport.label) == (7, "m")
    assert transport.inner.settings.batch == BatchSettings(max_events=7)
    transport.close()
    unbatched = create_transport({"type": "http", "url": server.url, "batch": {"enabled": False}})
    assert isinstance(unbatched, HttpTransport)


# -- batch mode degrades instead of giving up (issue 13) ----------------------------------


def seq_events(count: int, runs: int = 3) -> list[dict[str, Any]]:
    return [
        run_event(job=f"job{i % runs}", run_id=f"0190e5c6-0000-7000-8000-{i % runs:012d}", event_type="RUNNING", seq=i)
        for i in range(count)
    ]


def test_413_splits_the_batch_down_to_what_the_server_takes(tmp_path: Path) -> None:
    server = FaultServer()
    server.max_body = 10_240
    events = seq_events(300)
    big = run_event(job="huge", event_type="COMPLETE", seq=-1, padding="x" * 20_000)
    try:
        with http_client(server.url, tmp_path / "spool", batch={"max_events": 100, "linger": 0.05}) as client:
            for event in events:
                client.emit(event)
            client.emit(big)
        stored = server.events()
    finally:
        server.stop()
    assert Ledger.count(events, stored) == Ledger(300, 300, 0, 0, 0)
    (record,) = Spool(tmp_path / "spool").records()  # only the event that alone is over the limit
    assert record["event"] == big and record["retriable"] is False
    assert "the event alone (" in record["reason"] and "HTTP 413" in record["reason"]


def _reset_run(tmp_path: Path, batch: bool, events: list[dict[str, Any]]) -> tuple[Ledger, list[int]]:
    """The first 40 posts are stored by the server, then their connection is reset."""
    server = FaultServer()
    server.reset_first = 40
    spool = tmp_path / ("batch" if batch else "plain")
    extra: dict[str, Any] = {"batch": {"max_events": 100, "linger": 0.05, "workers": 1}} if batch else {}
    try:
        with http_client(server.url, spool, **extra) as client:
            for event in events:
                client.emit(event)
        healthy = create_transport({"type": "http", "url": server.url})
        spooled = [r["event"] for r in Spool(spool).records()]
        replay(spool, healthy)  # the server is healthy again: resend what was spooled
        healthy.close()
        return Ledger.count(events, server.events(), spooled), server.resets
    finally:
        server.stop()


def test_after_an_ambiguous_failure_batches_go_one_event_per_post(tmp_path: Path) -> None:
    events = seq_events(1000, runs=4)
    plain, _ = _reset_run(tmp_path, batch=False, events=events)
    batched, resets = _reset_run(tmp_path, batch=True, events=events)
    assert (plain.lost, batched.lost) == (0, 0)
    assert len(resets) == 40
    # batches start at one event and grow with each success (slow start); after an
    # ambiguous failure they go back to one: every post the fault met carried one event,
    # as in plain mode, so the duplicates are at most plain mode's
    assert set(resets) == {1}
    assert batched.duplicates <= plain.duplicates


def test_spool_records_count_every_attempt(server: LineageServer, tmp_path: Path) -> None:
    server.script.extend([Reply(503)] * 10)
    spool = tmp_path / "spool"
    with http_client(server.url, spool, retry={"total": 2, "backoff_factor": 0}) as client:
        client.emit(run_event())
    assert len(server.requests) == 3
    (record,) = Spool(spool).records()
    assert record["attempts"] == 3  # the first try and two retries, not "1"
    result = replay(spool, HttpTransport(HttpSettings(url=server.url, retry=RetrySettings(total=1, backoff_factor=0))))
    assert result.kept == 1 and len(server.requests) == 5
    (record,) = Spool(spool).records()
    assert record["attempts"] == 5  # the replay's two attempts added


def test_no_api_key_in_any_log_urllib3_debug_included(
    server: LineageServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import logging

    key = "qk-7f3a9c1e5b"
    endpoint = f"{server.url}/api/v1/lineage?api_key={key}&team=blue"
    server.script.extend([Reply(503), Reply(200), Reply(400, body=f"bad request {endpoint}".encode())])
    caplog.set_level(logging.DEBUG, logger="urllib3")
    caplog.set_level(logging.DEBUG, logger="olsdk")
    with http_client(server.url, tmp_path / "spool", endpoint=endpoint, retry={"total": 2, "backoff_factor": 0}) as c:
        c.emit(run_event(job="first"))  # 503, then delivered on the retry
        c.emit(run_event(job="second"))  # 400: spooled, logged with the server's answer
    assert len(server.requests) == 3
    assert server.requests[0].path.endswith(f"api_key={key}&team=blue")  # the key did travel
    request_lines = [r.getMessage() for r in caplog.records if r.name == "urllib3.connectionpool" and "POST" in r.msg]
    assert len(request_lines) == 3 and all("api_key=***" in line for line in request_lines)
    assert any(r.name.startswith("olsdk") for r in caplog.records)
    assert key not in caplog.text
    assert key not in "\n".join(r.getMessage() for r in caplog.records)
    assert key.encode() not in stored_bytes(tmp_path / "spool")
