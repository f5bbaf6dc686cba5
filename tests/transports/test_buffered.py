"""The non-blocking buffered wrapper (slow and failing inner transports are CallbackTransports)."""

from __future__ import annotations

import json
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from olsdk.client import OpenLineageClient, Spool
from olsdk.transports import BufferedSettings, BufferedTransport, CallbackTransport, DeliveryError, Payload
from tests.support.client_testkit import LineageServer, run_event
from tests.support.fault_server import FaultServer, Ledger
from tests.support.processes import finish, run_script, start_script


def burst(n_runs: int, per_run: int) -> list[dict[str, Any]]:
    """Events of several runs, interleaved, each carrying its index within its run."""
    events = []
    for i in range(per_run):
        for r in range(n_runs):
            run_id = f"0190e5c6-0000-7000-8000-{r:012d}"
            events.append(run_event(job=f"job{r}", run_id=run_id, event_type="RUNNING", seq=i))
    return events


@pytest.mark.slow
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
    assert len(Spool(tmp_path / "spool")) == 0


def test_burst_through_batch_mode(server: LineageServer, tmp_path: Path) -> None:
    events = burst(n_runs=10, per_run=100)
    config = {
        "transport": {
            "type": "http",
            "url": server.url,
            "batch": {"max_events": 50, "linger": 0.05, "on_full": "block", "workers": 1},
        }
    }
    with OpenLineageClient(config=config, spool=tmp_path / "spool", environ={}) as client:
        for event in events:
            client.emit(event)
    assert server.events == events  # one worker, FIFO batches: global order kept
    assert any(r.path.endswith("/batch") for r in server.requests)


class Gate:
    """Holds every send until the gate opens (a slow consumer), behind a buffered
    transport of ``max_queue_size`` that ``client`` emits into."""

    def __init__(self, spool: Path, max_queue_size: int) -> None:
        self.open = threading.Event()
        self.sent: list[bytes] = []
        transport = BufferedTransport(CallbackTransport(self.send), BufferedSettings(max_queue_size=max_queue_size))
        self.client = OpenLineageClient(transport, spool=spool, environ={})

    def send(self, payload: Payload) -> None:
        self.open.wait(30)
        self.sent.append(payload.body)


def test_full_queue_spools_without_blocking(tmp_path: Path) -> None:
    gate = Gate(tmp_path / "spool", max_queue_size=10)
    client = gate.client
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
    gate = Gate(tmp_path / "spool", max_queue_size=100)
    client = gate.client
    events = [run_event(job=f"j{i}") for i in range(20)]
    for event in events:
        client.emit(event)
    assert client.close(timeout=0.2) is False
    records = list(Spool(tmp_path / "spool").records())
    # one event is in flight inside the gate, the rest queued: all are spooled, in order
    # (the one in flight too, since issue 13: the worker may never finish it)
    assert [r["event"] for r in records] == events
    assert records[0]["reason"].startswith("in flight when close gave up")
    assert all(r["reason"] == "not delivered before close timeout" for r in records[1:])
    gate.open.set()


def refuse(payload: Payload) -> None:
    raise DeliveryError("nope", target="failing")


def test_async_failures_are_spooled_and_raised_on_flush_in_raise_mode(tmp_path: Path) -> None:
    inner = CallbackTransport(refuse)
    client = OpenLineageClient(BufferedTransport(inner), error_policy="raise", spool=tmp_path / "spool", environ={})
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
    assert len(Spool(tmp_path / "spool")) == 0


# -- shutdown, fork and concurrency (issue 13) --------------------------------------------

FAST = {"total": 3, "backoff_factor": 0.01, "backoff_jitter": 0.01}


def run_events(count: int, runs: int) -> list[dict[str, Any]]:
    return [
        run_event(job=f"job{i % runs}", run_id=f"0190e5c6-0000-7000-8000-{i % runs:012d}", event_type="RUNNING", seq=i)
        for i in range(count)
    ]


@pytest.mark.parametrize("mode", ["batch", "buffered"])
def test_events_in_flight_when_close_gives_up_are_spooled(mode: str, tmp_path: Path) -> None:
    """The process exits right after close(1): whatever the workers still hold goes to the spool."""
    server = FaultServer()
    server.hold = threading.Event()  # every post stays in flight
    spool = tmp_path / "spool.ndjson"
    events = run_events(50, runs=5)
    http = {"type": "http", "url": server.url, "retry": FAST}
    transport = (
        {**http, "batch": {"max_events": 100, "linger": 0.05}}
        if mode == "batch"
        else {"type": "buffered", "transport": http}
    )
    child = start_script(
        f"""
        import json, sys
        from olsdk.client import OpenLineageClient
        client = OpenLineageClient(config={{"transport": {transport!r}}}, spool={str(spool)!r}, environ={{}})
        for event in json.loads(sys.stdin.readline()):
            client.emit(event)
        sys.stdin.readline()  # the test says when a post is in flight
        print(client.close(1))
        """,
        tmp_path,
        stdin=True,
    )
    try:
        assert child.stdin is not None
        child.stdin.write(json.dumps(events) + "\n")
        child.stdin.flush()
        for _ in range(3000):  # bounded wait for the first post to arrive
            if server.posts:
                break
            time.sleep(0.01)
        done = finish(child, "go\n")
    finally:
        server.stop()  # the held posts are dropped, never stored
    assert done.stdout.strip() == "False"
    assert server.events() == []
    records = list(Spool(spool).records())
    assert Ledger.count(events, [], [r["event"] for r in records]) == Ledger(50, 0, 0, 50, 0)
    in_flight = [r for r in records if r["reason"].startswith("in flight when close gave up")]
    assert in_flight and all("may have received it" in r["reason"] for r in in_flight)
    assert "events not delivered within the close timeout" in done.stderr  # the warning says how many
    assert f"{len(in_flight)} in flight" in done.stderr


@pytest.mark.slow
def test_a_forked_child_sends_its_own_events_and_never_the_parents(tmp_path: Path) -> None:
    server = FaultServer()
    server.latency = 0.01  # the parent's queue is still full when it forks
    spool = tmp_path / "spool.ndjson"
    parent_events = run_events(200, runs=1)
    child_events = [run_event(job="child", event_type="RUNNING", seq=1000 + i) for i in range(20)]
    config = {"type": "buffered", "transport": {"type": "http", "url": server.url, "retry": FAST}}
    done = run_script(
        f"""
        import json, os, sys
        from olsdk.client import OpenLineageClient
        parent_events, child_events = json.load(sys.stdin)
        client = OpenLineageClient(config={{"transport": {config!r}}}, spool={str(spool)!r}, environ={{}})
        for event in parent_events:
            client.emit(event)
        pid = os.fork()
        if pid == 0:  # the child
            for event in child_events:
                client.emit(event)
            ok = client.close(30)
            os._exit(0 if ok else 3)
        _, status = os.waitpid(pid, 0)
        print(os.waitstatus_to_exitcode(status), client.close(60))
        """,
        tmp_path,
        input=json.dumps([parent_events, child_events]),
        timeout=180,
    )
    try:
        stored = server.events()
    finally:
        server.stop()
    assert done.stdout.split() == ["0", "True"], done.stderr
    assert Ledger.count(parent_events + child_events, stored) == Ledger(220, 220, 0, 0, 0)
    assert len(Spool(spool)) == 0
    ours = [e["seq"] for e in stored if e["job"]["name"] == "job0"]
    assert ours == sorted(ours)  # the parent's run still in order


def test_a_multiprocessing_child_delivers_events_sent_through_an_inherited_client(tmp_path: Path) -> None:
    """multiprocessing ends its fork children with os._exit: no atexit, yet nothing is lost."""
    server = FaultServer()
    spool = tmp_path / "spool.ndjson"
    events = [run_event(job="worker", event_type="RUNNING", seq=i) for i in range(20)]
    config = {"type": "buffered", "transport": {"type": "http", "url": server.url, "retry": FAST}}
    done = run_script(
        f"""
        import json, multiprocessing, sys
        from olsdk.client import OpenLineageClient
        events = json.load(sys.stdin)
        client = OpenLineageClient(config={{"transport": {config!r}}}, spool={str(spool)!r}, environ={{}})
        def work():
            for event in events:
                client.emit(event)
        if __name__ == "__main__":
            child = multiprocessing.get_context("fork").Process(target=work)
            child.start()
            child.join(120)
            print(child.exitcode, client.close(30))
        """,
        tmp_path,
        input=json.dumps(events),
        timeout=180,
    )
    try:
        stored = server.events()
    finally:
        server.stop()
    assert done.stdout.split() == ["0", "True"], done.stderr
    assert Ledger.count(events, stored) == Ledger(20, 20, 0, 0, 0)


@pytest.mark.slow
def test_16_threads_x_500_events_are_delivered_concurrently_in_run_order(tmp_path: Path) -> None:
    """Buffered at its defaults: deliveries overlap (more than one post in flight), each run
    keeps its order, nothing is spooled. (How fast: `python -m bench.reliability`.)"""
    server = FaultServer()
    server.latency = 0.001  # a little network time per post, so that overlap shows
    events = run_events(8000, runs=16)
    config = {"transport": {"type": "buffered", "transport": {"type": "http", "url": server.url}}}
    try:
        client = OpenLineageClient(config=config, spool=tmp_path / "spool", environ={})

        def emit(run: int) -> None:
            for event in events[run::16]:
                client.emit(event)

        threads = [threading.Thread(target=emit, args=(run,)) for run in range(16)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(300)
        assert client.flush(timeout=600)
        assert client.close() is True
        stored = server.events()
    finally:
        server.stop()
    assert Ledger.count(events, stored) == Ledger(8000, 8000, 0, 0, 0)
    assert server.max_in_flight > 1
    seqs: dict[str, list[int]] = defaultdict(list)
    for event in stored:
        seqs[event["run"]["runId"]].append(event["seq"])
    assert all(s == sorted(s) for s in seqs.values()) and len(seqs) == 16
    assert len(Spool(tmp_path / "spool")) == 0
