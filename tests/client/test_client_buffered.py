"""The non-blocking buffered wrapper."""

from __future__ import annotations

import json
import threading
from collections import defaultdict
from pathlib import Path

from client_testkit import LineageServer, run_event

from olsdk.client import OpenLineageClient, Spool
from olsdk.transports import BufferedSettings, BufferedTransport, DeliveryError, Payload, Transport


def burst(n_runs: int, per_run: int) -> list[dict[str, object]]:
    """Events of several runs, interleaved, each carrying its index within its run."""
    events = []
    for i in range(per_run):
        for r in range(n_runs):
            run_id = f"0190e5c6-0000-7000-8000-{r:012d}"
            events.append(run_event(job=f"job{r}", run_id=run_id, event_type="RUNNING", seq=i))
    return events


def test_burst_of_10000_all_delivered_in_order_per_run(server: LineageServer, tmp_path: Path) -> None:
    events = burst(n_runs=40, per_run=250)
    assert len(events) == 10_000
    config = {
        "transport": {
            "type": "buffered",
            "max_queue_size": 500,
            "on_full": "block",
            "block_timeout": 60,
            "transport": {"type": "http", "url": server.url},
        }
    }
    with OpenLineageClient(config=config, spool=tmp_path / "spool", environ={}) as client:
        for event in events:
            client.emit(event)
        assert client.flush(timeout=120)
    assert len(server.events) == 10_000
    seqs: dict[str, list[int]] = defaultdict(list)
    for event in server.events:
        seqs[event["run"]["runId"]].append(event["seq"])
    assert len(seqs) == 40
    assert all(s == list(range(250)) for s in seqs.values())
    assert not (tmp_path / "spool").exists()


def test_burst_through_batch_mode(server: LineageServer, tmp_path: Path) -> None:
    events = burst(n_runs=10, per_run=100)
    config = {
        "transport": {
            "type": "http",
            "url": server.url,
            "batch": {"max_events": 50, "linger": 0.05, "on_full": "block"},
        }
    }
    with OpenLineageClient(config=config, spool=tmp_path / "spool", environ={}) as client:
        for event in events:
            client.emit(event)
    assert server.events == events  # one worker, FIFO batches: global order kept
    assert any(r.path.endswith("/batch") for r in server.requests)


class Gate(Transport):
    """A transport that holds every send until the gate opens (a slow consumer)."""

    kind = "gate"

    def __init__(self) -> None:
        super().__init__()
        self.open = threading.Event()
        self.sent: list[bytes] = []

    def send(self, payload: Payload) -> None:
        self.open.wait(30)
        self.sent.append(payload.body)


def test_full_queue_spools_without_blocking(tmp_path: Path) -> None:
    gate = Gate()
    transport = BufferedTransport(gate, BufferedSettings(max_queue_size=10))
    client = OpenLineageClient(transport, spool=tmp_path / "spool", environ={})
    events = [run_event(job=f"j{i}") for i in range(50)]
    for event in events:
        client.emit(event)  # never waits for the gate
    spooled = [r["event"] for r in Spool(tmp_path / "spool").records()]
    assert spooled and all("buffer full" in r["reason"] for r in Spool(tmp_path / "spool").records())
    gate.open.set()
    assert client.flush(timeout=30)
    delivered = [json.loads(b) for b in gate.sent]
    assert sorted(map(json.dumps, delivered + spooled)) == sorted(map(json.dumps, events))
    client.close()


def test_close_timeout_spools_what_is_left(tmp_path: Path) -> None:
    gate = Gate()
    transport = BufferedTransport(gate, BufferedSettings(max_queue_size=100))
    client = OpenLineageClient(transport, spool=tmp_path / "spool", environ={})
    events = [run_event(job=f"j{i}") for i in range(20)]
    for event in events:
        client.emit(event)
    assert client.close(timeout=0.2) is False
    records = list(Spool(tmp_path / "spool").records())
    # one event is in flight inside the gate; every queued one is spooled, in order
    assert [r["event"] for r in records] == events[len(events) - len(records) :]
    assert len(records) >= 19
    assert all(r["reason"] == "not delivered before close timeout" for r in records)
    gate.open.set()


class Failing(Transport):
    kind = "failing"

    def send(self, payload: Payload) -> None:
        raise DeliveryError("nope", target="failing")


def test_async_failures_are_spooled_and_raised_on_flush_in_raise_mode(tmp_path: Path) -> None:
    client = OpenLineageClient(BufferedTransport(Failing()), error_policy="raise", spool=tmp_path / "spool", environ={})
    client.emit(run_event())  # accepted: the failure happens in the background
    try:
        client.flush(timeout=10)
    except DeliveryError as exc:
        assert "1 events not delivered: nope" in str(exc)
    else:
        raise AssertionError("flush() should raise in raise mode")
    assert len(Spool(tmp_path / "spool")) == 1
    client.close()


def test_queued_events_are_delivered_at_interpreter_exit(server: LineageServer, tmp_path: Path) -> None:
    import subprocess
    import sys

    script = f"""
import json
from olsdk.client import OpenLineageClient
config = {{"transport": {{"type": "buffered", "transport": {{"type": "http", "url": "{server.url}"}}}}}}
client = OpenLineageClient(config=config, spool={str(tmp_path / "spool")!r}, environ={{}})
event = {json.dumps(run_event())!r}
for _ in range(200):
    client.emit(event)
# no flush(), no close(): the atexit hook must drain the queue
"""
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120)
    assert len(server.events) == 200
    assert not (tmp_path / "spool").exists()
