"""Write-ahead delivery: every event is committed to the store before ``emit`` returns, in every
mode; a process killed (SIGKILL) or ended with ``os._exit`` loses nothing; a later process
finishes the job, in emit order per run, once, one owner of a record at a time.

Every test runs real processes against a real HTTP receiver on 127.0.0.1 and counts every
event it stored.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from olsdk.client import OpenLineageClient, Spool, replay
from olsdk.transports import create_transport
from tests.support.client_testkit import run_event
from tests.support.fault_server import FaultServer, Ledger, event_key
from tests.support.processes import finish, run_cli, run_script, start_script


def free_url() -> tuple[int, str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port, f"http://127.0.0.1:{port}"


def events_of(first: int, count: int, runs: int = 3, prefix: str = "") -> list[dict[str, Any]]:
    return [
        run_event(
            job=f"{prefix}job{i % runs}",
            run_id=f"0190e5c6-0000-7000-8000-{hash(prefix) % 1000:04d}{i % runs:08d}",
            event_type="RUNNING",
            seq=i,
        )
        for i in range(first, first + count)
    ]


EMIT_AND_EXIT = """
import json, os, signal, sys
from olsdk.client import OpenLineageClient
client = OpenLineageClient(config={{"transport": {transport!r}, "spool": {{"path": {spool!r}}}}}, environ={{}})
for line in sys.stdin:
    client.emit(line)
print("emitted", flush=True)
{end}
"""

ENDS = {
    "os._exit": "os._exit(0)",
    "SIGKILL": "os.kill(os.getpid(), signal.SIGKILL)",
}


def later_client(spool: Path, url: str, home: Path, wait_for: int, timeout: float = 60) -> str:
    """A later process: a plain client that only waits until ``wait_for`` events reached the
    receiver (its relay finishes the outbox), then closes. Returns its stderr."""
    script = f"""
        import time, urllib.request, json
        from olsdk.client import OpenLineageClient
        client = OpenLineageClient(config={{"transport": {{"type": "http", "url": {url!r}}},
                                            "spool": {{"path": {str(spool)!r}, "finish_delay": 0}}}}, environ={{}})
        deadline = time.monotonic() + {timeout}
        while client.relay.adopted < {wait_for} and time.monotonic() < deadline:
            time.sleep(0.05)
        client.flush({timeout})
        print(client.relay.adopted, client.relay.delivered, client.close())
    """
    done = run_script(script, home, timeout=timeout + 60)
    assert done.returncode == 0, done.stderr
    return done.stdout


TRANSPORTS: dict[str, Any] = {
    "plain": lambda url: {"type": "http", "url": url},
    "batch": lambda url: {"type": "http", "url": url, "batch": {"max_events": 100}},
    "buffered": lambda url: {"type": "buffered", "transport": {"type": "http", "url": url}},
    "async_http": lambda url: {"type": "async_http", "url": url},
    "composite": lambda url: {
        "type": "composite",
        "transports": {
            "direct": {"type": "http", "url": url},
            "queued": {"type": "buffered", "transport": {"type": "http", "url": url, "endpoint": "api/v1/other"}},
        },
    },
}


@pytest.mark.parametrize("end", sorted(ENDS))
@pytest.mark.parametrize("mode", sorted(TRANSPORTS))
@pytest.mark.slow
def test_killed_with_the_backend_down_then_a_later_process_delivers_everything_once(
    mode: str, end: str, tmp_path: Path
) -> None:
    port, url = free_url()  # nothing listens: the backend is down for the whole first process
    spool = tmp_path / "spool.ndjson"
    events = events_of(0, 40)
    script = EMIT_AND_EXIT.format(transport=TRANSPORTS[mode](url), spool=str(spool), end=ENDS[end])
    done = run_script(script, tmp_path, input="\n".join(json.dumps(e) for e in events))
    assert "emitted" in done.stdout, done.stderr
    assert done.returncode == (-signal.SIGKILL if end == "SIGKILL" else 0)
    assert {json.dumps(r["event"], sort_keys=True) for r in Spool(spool).records()} == {
        json.dumps(e, sort_keys=True) for e in events
    }  # every event on disk, though the process never closed its client
    server = FaultServer(port=port)  # the backend is back
    try:
        later_client(spool, url, tmp_path, wait_for=len(events))
        stored = server.events()
    finally:
        server.stop()
    copies = 2 if mode == "composite" else 1  # the composite delivers to both of its children
    ledger = Ledger.count(events * copies, stored)
    assert (ledger.lost, len(stored)) == (0, len(events) * copies)
    assert sorted(event_key(e) for e in stored) == sorted(event_key(e) for e in events * copies)
    for run in {e["run"]["runId"] for e in events}:  # each run in emit order
        seqs = [e["seq"] for e in stored if e["run"]["runId"] == run]
        assert seqs == sorted(seqs) if copies == 1 else sorted(seqs) == sorted(seqs)
    assert len(Spool(spool)) == 0  # delivered records left the store


def settled_count(server: FaultServer, quiet: float = 1.0, timeout: float = 30.0) -> int:
    """How many events the server holds once none has arrived for `quiet` seconds."""
    count, deadline = len(server.events()), time.monotonic() + timeout
    while time.monotonic() < deadline:
        time.sleep(quiet)
        now = len(server.events())
        if now == count:
            break
        count = now
    return count


def test_batch_mode_with_the_backend_up_and_os_exit_loses_nothing(tmp_path: Path) -> None:
    """The issue's '109 of 109, silently': batched events never left the child's memory."""
    server = FaultServer()
    spool = tmp_path / "spool.ndjson"
    events = events_of(0, 109)
    transport = {"type": "http", "url": server.url, "batch": {"max_events": 100, "linger": 5}}
    script = EMIT_AND_EXIT.format(transport=transport, spool=str(spool), end=ENDS["os._exit"])
    try:
        done = run_script(script, tmp_path, input="\n".join(json.dumps(e) for e in events))
        assert done.returncode == 0, done.stderr
        # what the child posted before os._exit (batches start at one event) may be stored
        # without its deletion from the store: at most those come twice (counted once the
        # server has read every request the child sent: one may still be arriving)
        before = settled_count(server)
        later_client(spool, server.url, tmp_path, wait_for=len(events) - before)
        ledger = Ledger.count(events, server.events())
    finally:
        server.stop()
    assert ledger.lost == 0 and ledger.delivered_once + ledger.duplicates == 109
    assert ledger.duplicates <= before < 109


@pytest.mark.parametrize("mode", ["batch", "buffered"])
def test_logging_shutdown_before_os_exit_sends_what_memory_held(mode: str, tmp_path: Path) -> None:
    """The Airflow provider's forked child calls logging.shutdown() and then os._exit(0): olsdk
    hands its queued events to the transport there, so a batch filling up is delivered."""
    server = FaultServer()
    spool = tmp_path / "spool.ndjson"
    events = events_of(0, 12)
    transport = (
        {"type": "http", "url": server.url, "batch": {"max_events": 100, "linger": 30}}
        if mode == "batch"
        else {"type": "buffered", "transport": {"type": "http", "url": server.url}}
    )
    end = "import logging; logging.shutdown(); os._exit(0)"
    try:
        script = EMIT_AND_EXIT.format(transport=transport, spool=str(spool), end=end)
        done = run_script(script, tmp_path, input="\n".join(json.dumps(e) for e in events))
        assert done.returncode == 0, done.stderr
        stored = server.events()
    finally:
        server.stop()
    assert Ledger.count(events, stored).lost == 0 and len(stored) == len(events)
    assert len(Spool(spool)) == 0  # each delivered record left the store: no later process resends it


def test_a_process_pool_worker_delivers_its_batch_when_the_pool_shuts_down(tmp_path: Path) -> None:
    """The provider emits DAG run events from a ProcessPoolExecutor's worker, whose client is
    made in the worker; the worker ends with os._exit after multiprocessing's finalizers."""
    server = FaultServer()
    events = events_of(0, 5)
    config = {
        "transport": {"type": "http", "url": server.url, "batch": {"max_events": 100, "linger": 30}},
        "spool": {"path": str(tmp_path / "spool.ndjson")},
    }
    script = f"""
        import json, sys
        from concurrent.futures import ProcessPoolExecutor
        CLIENT = None

        def emit(line):
            global CLIENT
            from olsdk.client import OpenLineageClient
            CLIENT = CLIENT or OpenLineageClient(config={config!r}, environ={{}})
            CLIENT.emit(line)

        if __name__ == "__main__":
            with ProcessPoolExecutor(max_workers=1) as pool:
                for line in sys.stdin:
                    pool.submit(emit, line).result()
    """
    try:
        done = run_script(script, tmp_path, input="\n".join(json.dumps(e) for e in events))
        assert done.returncode == 0, done.stderr
        stored = server.events()
    finally:
        server.stop()
    assert Ledger.count(events, stored).lost == 0 and len(stored) == len(events)


@pytest.mark.slow
def test_a_run_split_across_dead_processes_is_finished_in_emit_order(tmp_path: Path) -> None:
    """START in one worker, COMPLETE in the next (Airflow's forked children): both die with
    the backend down; the later process delivers each run's events oldest first."""
    port, url = free_url()
    spool = tmp_path / "spool.ndjson"
    runs = [f"0190e5c6-0000-7000-8000-{i:012d}" for i in range(5)]
    waves = [
        [run_event(job=f"task{i}", run_id=run, event_type=kind, seq=w * 10 + i) for i, run in enumerate(runs)]
        for w, kind in enumerate(["START", "RUNNING", "COMPLETE"])
    ]
    for wave in waves:  # one process per wave, in turn
        script = EMIT_AND_EXIT.format(transport={"type": "http", "url": url}, spool=str(spool), end="os._exit(0)")
        done = run_script(script, tmp_path, input="\n".join(json.dumps(e) for e in wave))
        assert done.returncode == 0, done.stderr
    assert len(Spool(spool)) == 15  # every event of the three processes kept
    server = FaultServer(port=port)
    try:
        later_client(spool, url, tmp_path, wait_for=15)
        stored = server.events()
    finally:
        server.stop()
    assert len(stored) == 15
    for run in runs:
        assert [e["eventType"] for e in stored if e["run"]["runId"] == run] == ["START", "RUNNING", "COMPLETE"]


FINISHER = """
import time
from olsdk.client import OpenLineageClient
client = OpenLineageClient(config={{"transport": {{"type": "http", "url": {url!r}}},
                                    "spool": {{"path": {spool!r}, "finish_delay": 0}}}}, environ={{}})
print("started", flush=True)
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    time.sleep(0.1)
    if client.relay.adopted and not client.relay.pending:
        break
    if not client.relay.adopted and time.monotonic() > deadline - 55:
        break  # another finisher took them
client.flush(30)
print("adopted", client.relay.adopted, "delivered", client.relay.delivered, client.close(), flush=True)
"""


@pytest.mark.slow
def test_concurrent_finishers_and_writers_neither_lose_nor_duplicate(tmp_path: Path) -> None:
    port, url = free_url()
    spool = tmp_path / "spool.ndjson"
    dead: list[dict[str, Any]] = []
    for n in range(6):  # six processes die with the backend down, 50 events each
        events = events_of(n * 50, 50, runs=4, prefix=f"p{n}")
        dead += events
        end = ENDS["SIGKILL" if n % 2 else "os._exit"]
        script = EMIT_AND_EXIT.format(transport={"type": "http", "url": url}, spool=str(spool), end=end)
        run_script(script, tmp_path, input="\n".join(json.dumps(e) for e in events))
    server = FaultServer(port=port)
    server.latency = 0.002
    try:
        # three later processes start together on the same outbox, while two writers emit
        finishers = [start_script(FINISHER.format(url=url, spool=str(spool)), tmp_path) for _ in range(3)]
        live = [events_of(1000 + n * 100, 100, runs=2, prefix=f"w{n}") for n in range(2)]
        writer_script = """
            import json, sys
            from olsdk.client import OpenLineageClient
            client = OpenLineageClient(config={{"transport": {{"type": "http", "url": {url!r}}},
                                                "spool": {{"path": {spool!r}, "finish": False}}}}, environ={{}})
            for line in sys.stdin:  # writers only write here: the three finishers compete
                client.emit(line)
            print(client.close())
        """
        writers = [start_script(writer_script.format(url=url, spool=str(spool)), tmp_path, stdin=True) for _ in live]
        outputs = [finish(w, "\n".join(json.dumps(e) for e in ev)) for w, ev in zip(writers, live, strict=True)]
        results = [finish(f, timeout=120) for f in finishers]
        stored = server.events()
    finally:
        server.stop()
    assert all(o.returncode == 0 and o.stdout.strip() == "True" for o in outputs), [o.stderr[-3000:] for o in outputs]
    assert all(r.returncode == 0 for r in results), [r.stderr for r in results]
    adopted = [int(r.stdout.split("adopted")[1].split()[0]) for r in results]
    assert sum(adopted) == len(dead)  # one owner per record: what one finisher took, no other did
    everything = dead + [e for ev in live for e in ev]
    ledger = Ledger.count(everything, stored)
    assert (ledger.delivered_once, ledger.duplicates, ledger.lost) == (len(everything), 0, 0)
    for run in {e["run"]["runId"] for e in everything}:
        seqs = [e["seq"] for e in stored if e["run"]["runId"] == run]
        assert seqs == sorted(seqs)  # every run in emit order, across processes
    assert len(Spool(spool)) == 0


@pytest.mark.slow
def test_a_finisher_killed_mid_delivery_loses_nothing(tmp_path: Path) -> None:
    port, url = free_url()
    spool = tmp_path / "spool.ndjson"
    events = events_of(0, 200, runs=5)
    script = EMIT_AND_EXIT.format(transport={"type": "http", "url": url}, spool=str(spool), end=ENDS["SIGKILL"])
    run_script(script, tmp_path, input="\n".join(json.dumps(e) for e in events))
    server = FaultServer(port=port)
    server.latency = 0.01  # slow posts: the finisher is killed with one in flight
    try:
        first = start_script(FINISHER.format(url=url, spool=str(spool)), tmp_path)
        for _ in range(3000):  # bounded: until 50 arrived
            if len(server.events()) >= 50 or first.poll() is not None:
                break
            time.sleep(0.01)
        os.kill(first.pid, signal.SIGKILL)
        first.wait(30)
        killed_at = len(server.events())
        server.latency = 0.0
        later_client(spool, url, tmp_path, wait_for=len(events) - killed_at - 1)
        ledger = Ledger.count(events, server.events())
    finally:
        server.stop()
    assert 0 < killed_at < 200
    assert ledger.lost == 0
    assert ledger.duplicates <= 1  # at most the one post in flight when it was killed
    assert len(Spool(spool)) == 0


def test_a_forked_child_ending_with_os_exit_says_once_where_its_events_are(tmp_path: Path) -> None:
    _, url = free_url()
    spool = tmp_path / "spool.ndjson"
    script = f"""
        import os
        from olsdk.client import OpenLineageClient
        client = OpenLineageClient(config={{"transport": {{"type": "http", "url": {url!r}}},
                                            "spool": {{"path": {str(spool)!r}}}}}, environ={{}})
        pid = os.fork()
        if pid == 0:
            for i in range(5):
                client.emit({json.dumps(run_event())!r})
            client.relay.handed.tried(30)  # the first attempts (made by the relay's thread) failed
            os._exit(0)  # as Airflow's worker children end: no exit hook runs
        os.waitpid(pid, 0)
        os._exit(0)
    """
    done = run_script(script, tmp_path)
    told = [line for line in done.stderr.splitlines() if "later client delivers it" in line]
    assert len(told) == 1, done.stderr
    assert f"olsdk replay {spool}" in told[0] and f"kept in the store {spool}" in told[0]
    assert len(Spool(spool)) == 5


def test_write_ahead_can_be_switched_off_in_code_and_by_variable(tmp_path: Path) -> None:
    server = FaultServer()
    try:
        off = OpenLineageClient(
            config={"transport": {"type": "http", "url": server.url}, "spool": {"write_ahead": False}},
            spool=tmp_path / "a" / "spool",
            environ={},
        )
        off.emit(run_event())
        assert not off.write_ahead and len(Spool(tmp_path / "a" / "spool")) == 0  # nothing failed: nothing kept
        env = {"OPENLINEAGE_URL": server.url, "OPENLINEAGE__SPOOL__WRITE_AHEAD": "false"}
        by_env = OpenLineageClient(spool=tmp_path / "b" / "spool", environ=env)
        assert not by_env.write_ahead
        on = OpenLineageClient(spool=tmp_path / "c" / "spool", environ={"OPENLINEAGE_URL": server.url})
        on.emit(run_event())
        assert on.write_ahead
        assert off.close() and by_env.close() and on.close()
        assert len(server.events()) == 2
    finally:
        server.stop()
    assert len(Spool(tmp_path / "c" / "spool")) == 0  # delivered: left it


def test_delivered_records_leave_the_store(tmp_path: Path) -> None:
    server = FaultServer()
    spool = tmp_path / "spool"
    try:
        client = OpenLineageClient(config={"transport": {"type": "http", "url": server.url}}, spool=spool, environ={})
        for event in events_of(0, 100):
            client.emit(event)
        assert client.write_ahead and len(Spool(spool)) == 0  # each written ahead, delivered, deleted
        assert client.close()
    finally:
        server.stop()
    assert len(server.events()) == 100


def test_fsync_always_writes_and_delivers_the_same(tmp_path: Path) -> None:
    server = FaultServer()
    try:
        config = {"transport": {"type": "http", "url": server.url}, "spool": {"fsync": "always"}}
        with OpenLineageClient(config=config, spool=tmp_path / "spool", environ={}) as client:
            for event in events_of(0, 20):
                client.emit(event)
            assert client.spool is not None and client.spool.store.fsync == "always"
    finally:
        server.stop()
    assert len(server.events()) == 20


def test_replay_finishes_old_spool_records_and_the_outbox_of_a_dead_process(tmp_path: Path) -> None:
    """Records of the format before issue 23 (no "v") and outbox records, both resent once."""
    port, url = free_url()
    spool = tmp_path / "spool.ndjson"
    old = events_of(0, 3, prefix="old")
    spool.write_text(
        "".join(
            json.dumps({"spooledAt": "2025-01-01T00:00:00+00:00", "reason": "down", "target": "http",
                        "retriable": True, "attempts": 1, "event": e}) + "\n"
            for e in old
        )
    )  # fmt: skip
    new = events_of(10, 4, prefix="new")
    script = EMIT_AND_EXIT.format(transport={"type": "http", "url": url}, spool=str(spool), end=ENDS["SIGKILL"])
    run_script(script, tmp_path, input="\n".join(json.dumps(e) for e in new))
    dry = run_cli("replay", str(spool), "--dry-run", home=tmp_path, OPENLINEAGE_URL=url)
    assert "would resend 7" in dry.stdout, dry.stderr
    server = FaultServer(port=port)
    try:
        done = run_cli("replay", str(spool), home=tmp_path, OPENLINEAGE_URL=url)
        assert done.returncode == 0, done.stderr
        assert "delivered 7, kept 0" in done.stdout
        assert "4 of those delivered were left owed by processes now gone" in done.stdout
        ledger = Ledger.count(old + new, server.events())
    finally:
        server.stop()
    assert (ledger.delivered_once, ledger.duplicates, ledger.lost) == (7, 0, 0)
    assert len(Spool(spool)) == 0


def test_attempts_are_counted_in_the_store_as_they_happen(tmp_path: Path) -> None:
    """Each failed attempt is committed when it happens (a process killed in the middle of its
    retries still tells how many it made)."""
    server = FaultServer()
    server.script.extend([503] * 100)
    spool = tmp_path / "spool.ndjson"
    transport = {"type": "http", "url": server.url, "retry": {"total": 3, "backoff_factor": 0.2}}
    script = EMIT_AND_EXIT.format(transport=transport, spool=str(spool), end="import time; time.sleep(60)")
    proc = start_script(script, tmp_path, stdin=True)
    try:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(run_event()) + "\n")
        proc.stdin.close()
        for _ in range(3000):  # bounded: until three attempts were made
            if server.posts >= 3:
                break
            time.sleep(0.01)
        time.sleep(0.1)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
    finally:
        server.stop()
    (shown,) = Spool(spool).records()
    assert shown["event"] == run_event() and shown["state"] == "retrying" and "HTTP 503" in shown["reason"]
    assert shown["attempts"] == server.posts >= 3


def test_replay_leaves_what_a_running_process_holds(tmp_path: Path) -> None:
    port, url = free_url()
    spool = tmp_path / "spool.ndjson"
    script = f"""
        import time
        from olsdk.client import OpenLineageClient
        client = OpenLineageClient(config={{"transport": {{"type": "http", "url": {url!r}}},
                                            "spool": {{"path": {str(spool)!r}}}}}, environ={{}})
        client.emit({json.dumps(run_event())!r})
        print("emitted", flush=True)
        time.sleep(120)  # alive, holding its outbox segment, until killed
    """
    holder = start_script(script, tmp_path)
    try:
        assert holder.stdout is not None
        ready, _, _ = select.select([holder.stdout], [], [], 60)
        assert ready and holder.stdout.readline().strip() == "emitted"
        done = run_cli("replay", str(spool), home=tmp_path, OPENLINEAGE_URL=url)
        assert "1 events belong to processes still running" in done.stdout
        assert len(Spool(spool)) == 1
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(30)
    transport = create_transport({"type": "http", "url": url})
    server = FaultServer(port=port)
    try:
        assert replay(spool, transport).delivered == 1  # its process is gone now
    finally:
        transport.close()
        server.stop()


def test_released_records_and_a_gone_process_records_are_taken_over_together(tmp_path: Path) -> None:
    # One adoption meets both kinds of owner: none (released at a client's close) and a
    # process that is gone. Both become the adopter's, none is left behind.
    from olsdk._delivery.client._store import Store

    ended = subprocess.Popen(["true"])
    ended.wait()  # its pid belongs to no process now
    dead_owner = f"{ended.pid}:0:gone"
    store = Store(tmp_path / "spool.db")
    store.add(b'{"released": 1}', "run-a", owner=None)
    store.add(b'{"orphan": 1}', "run-b", owner=dead_owner)
    taken, owners = store.adopt()
    assert taken == 2
    assert owners == {"released", dead_owner}
