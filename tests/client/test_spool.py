"""The spool and replay: nothing lost, resent once, order of a run kept."""

from __future__ import annotations

import json
import os
import signal
import stat
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from olsdk.client import OpenLineageClient, Spool, replay
from olsdk.transports import CallbackTransport, DeliveryError, Payload, create_transport
from tests.support.client_testkit import FAST_RETRY, LineageServer, Reply, http_client, run_event
from tests.support.fault_server import FaultServer, Ledger
from tests.support.processes import finish, run_cli, run_script, small_filesystem, start_cli, start_script


@pytest.mark.slow
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


@pytest.mark.slow
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


def test_unreadable_lines_are_kept_and_dry_run_sends_nothing(tmp_path: Path) -> None:
    """A spool file of an earlier olsdk (NDJSON) with a damaged line: migrated into the store on
    first open; the damaged line is kept as an unreadable record, never sent, never dropped."""

    spool_path = tmp_path / "spool"
    record = {"spooledAt": "2024-07-01T00:00:00+00:00", "reason": "down", "target": "http", "event": run_event()}
    spool_path.write_bytes(json.dumps(record).encode() + b"\n{torn line\n")
    delivered: list[Payload] = []
    dry = replay(spool_path, CallbackTransport(delivered.append), dry_run=True)
    assert (dry.delivered, dry.kept, dry.unreadable, delivered) == (0, 1, 1, [])
    result = replay(spool_path, CallbackTransport(delivered.append))
    assert (result.delivered, result.kept, result.unreadable, result.ok) == (1, 0, 1, False)
    assert [p.event() for p in delivered] == [run_event()]
    assert [r["raw"] for r in Spool(spool_path).records()] == ["{torn line"]  # kept for a human to look at


# -- crash safety (issue 13) ------------------------------------------------------------

REFUSE_ALL = """
from olsdk.client import OpenLineageClient
from olsdk.transports import CallbackTransport, DeliveryError
def refuse(payload):
    raise DeliveryError("backend down", target="http")
client = OpenLineageClient(CallbackTransport(refuse), spool={spool!r}, environ={{}})
"""


def seq_events(count: int, runs: int = 10) -> list[dict[str, Any]]:
    return [
        run_event(job=f"job{i % runs}", run_id=f"0190e5c6-0000-7000-8000-{i % runs:012d}", event_type="RUNNING", seq=i)
        for i in range(count)
    ]


def test_a_torn_last_record_never_swallows_the_next_one(server: LineageServer, tmp_path: Path) -> None:
    """What a writer of an earlier olsdk killed in the middle of a record left: migrated, the
    torn line kept on its own, the records around it intact."""
    spool_path = tmp_path / "spool.ndjson"
    events = seq_events(4)
    lines = [json.dumps({"spooledAt": "2024-07-01T00:00:00+00:00", "reason": "down", "event": e}) for e in events[:3]]
    torn = '{"spooledAt": "2024-07-01T00:00:00+00:00", "reason": "down", "event": {"eventTy'
    spool_path.write_text("\n".join(lines) + "\n" + torn)

    def refuse(payload: Payload) -> None:
        raise DeliveryError("down", retriable=False)

    client = OpenLineageClient(CallbackTransport(refuse), spool=spool_path, environ={})
    client.emit(events[3])
    client.close()
    transport = create_transport({"type": "http", "url": server.url})
    result = replay(spool_path, transport)
    transport.close()
    assert server.events == events  # the record after the torn one is intact
    assert (result.delivered, result.unreadable) == (4, 1)
    assert [r["raw"] for r in Spool(spool_path).records()] == [torn]  # the torn line is kept, on its own


def test_a_full_disk_holds_records_until_there_is_room_again(tmp_path: Path) -> None:
    """A real small file system (tmpfs, when one can be mounted) or a file-size limit."""
    with small_filesystem(tmp_path / "disk", "1m") as disk:
        if disk is not None:  # fill the 1 MiB disk but a few KiB, then spool past the end
            spool_path = disk / "spool.ndjson"
            filler = str(disk / "filler")
            limit = f"open({filler!r}, 'wb').write(b'x' * (1024 * 1024 - 8192))"
            room = f"import os; os.unlink({filler!r})"
        else:  # no mount here: a file-size limit on the child does the same to its writes
            spool_path = tmp_path / "spool.ndjson"
            limit = (
                "import resource, signal; signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
                "hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]; "
                "resource.setrlimit(resource.RLIMIT_FSIZE, (8192, hard))"
            )
            room = "resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))"
        events = seq_events(41)
        script = (
            REFUSE_ALL.format(spool=str(spool_path))
            + f"""
import json, sys
events = json.loads(sys.stdin.read())
{limit}
for event in events[:40]:
    client.emit(event)
print(client.spool.pending, flush=True)
{room}
client.emit(events[40])
print(client.close(), client.spool.pending)
"""
        )
        done = run_script(script, tmp_path, input=json.dumps(events))
        assert done.returncode == 0, done.stderr
        held, closed = done.stdout.splitlines()
        assert int(held) > 0  # the disk was full: records waited in memory
        assert closed == "False 0"  # everything written in the end; close says events were spooled
        assert "not writable" in done.stderr and "held in memory" in done.stderr
        assert sorted(r["event"]["seq"] for r in Spool(spool_path).records()) == list(range(41))


@pytest.mark.slow
def test_a_replay_killed_with_sigkill_resends_at_most_the_one_in_flight(tmp_path: Path) -> None:
    spool_path = tmp_path / "spool.ndjson"
    events = seq_events(3000, runs=50)
    made = run_script(
        REFUSE_ALL.format(spool=str(spool_path)) + "import sys\nfor line in sys.stdin: client.emit(line)\n",
        tmp_path,
        input="\n".join(json.dumps(e) for e in events),
    )
    assert made.returncode == 0, made.stderr
    server = FaultServer()
    try:
        first = start_cli("replay", str(spool_path), home=tmp_path, OPENLINEAGE_URL=server.url)
        for _ in range(3000):  # bounded: until a third is delivered, then SIGKILL by PID
            if len(server.events()) >= 1000 or first.poll() is not None:
                break
            time.sleep(0.01)
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=30)
        killed_at = len(server.events())
        again = run_cli("replay", str(spool_path), home=tmp_path, OPENLINEAGE_URL=server.url)
        assert again.returncode == 0, again.stderr  # each delivered record left the store as it went
        ledger = Ledger.count(events, server.events())
    finally:
        server.stop()
    assert 0 < killed_at < 3000
    assert (ledger.delivered_once + (1 if ledger.duplicates else 0), ledger.lost) == (3000, 0)
    assert ledger.duplicates <= 1  # at most the event in flight when the replay was killed
    assert len(Spool(spool_path)) == 0


@pytest.mark.slow
def test_two_replays_of_one_spool_at_once_deliver_each_event_once(tmp_path: Path) -> None:
    spool_path = tmp_path / "spool.ndjson"
    events = seq_events(2000, runs=20)
    made = run_script(
        REFUSE_ALL.format(spool=str(spool_path)) + "import sys\nfor line in sys.stdin: client.emit(line)\n",
        tmp_path,
        input="\n".join(json.dumps(e) for e in events),
    )
    assert made.returncode == 0, made.stderr
    server = FaultServer()
    server.latency = 0.002  # the first replay is surely still running when the second starts
    try:
        first = start_cli("replay", str(spool_path), home=tmp_path, OPENLINEAGE_URL=server.url)
        for _ in range(3000):
            if server.posts or first.poll() is not None:
                break
            time.sleep(0.01)
        second = run_cli("replay", str(spool_path), home=tmp_path, OPENLINEAGE_URL=server.url)
        first_done = finish(first, timeout=300)
        ledger = Ledger.count(events, server.events())
    finally:
        server.stop()
    assert (ledger.delivered_once, ledger.duplicates, ledger.lost) == (2000, 0, 0)
    assert first_done.returncode == 0, first_done.stderr
    assert second.returncode == 3
    assert "another replay of" in second.stderr and "is running (pid" in second.stderr
    assert "Traceback" not in second.stderr + first_done.stderr


def test_a_second_replay_in_code_raises_or_waits(tmp_path: Path) -> None:
    from olsdk.client import ReplayInProgress

    spool_path = tmp_path / "spool.ndjson"
    OpenLineageClient(CallbackTransport(refuse_down), spool=spool_path, environ={}).emit(run_event())
    server = FaultServer()
    server.hold = threading.Event()  # the first replay's request stays in flight
    holder = start_script(
        f"""
        from olsdk.client import replay
        from olsdk.transports import create_transport
        print(replay({str(spool_path)!r}, create_transport({{"type": "http", "url": {server.url!r}}})).delivered)
        """,
        tmp_path,
    )
    try:
        for _ in range(3000):
            if server.posts:
                break
            time.sleep(0.01)
        delivered: list[Payload] = []
        with pytest.raises(ReplayInProgress, match=r"another replay of .* is running \(pid \d+\)"):
            replay(spool_path, CallbackTransport(delivered.append))
        server.hold.set()
        assert finish(holder).stdout.strip() == "1"
        assert replay(spool_path, CallbackTransport(delivered.append), wait=True).delivered == 0
        assert delivered == []
    finally:
        server.stop()
        if holder.poll() is None:
            os.kill(holder.pid, signal.SIGKILL)


def test_a_refused_replay_leaves_no_connection_open(tmp_path: Path) -> None:
    from olsdk.client import ReplayInProgress

    spool_path = tmp_path / "spool.db"
    holder = start_script(
        f"""
        import sys
        from olsdk._delivery.client._store import Store
        store = Store({str(spool_path)!r})
        with store.transaction() as conn:
            store.claim_role(conn, "replay")
        print("held", flush=True)
        sys.stdin.read()
        """,
        tmp_path,
        stdin=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        before = _open_files(spool_path)
        with pytest.raises(ReplayInProgress):
            replay(spool_path, CallbackTransport(lambda _payload: None))
        assert _open_files(spool_path) == before  # the refused replay's connection is closed
    finally:
        finish(holder, "")


def test_opening_a_store_again_keeps_the_write_ahead_log_of_the_first(tmp_path: Path) -> None:
    """A second store of one file in a process must not drop the first one's locks: another
    process closing its connection would take itself for the last and delete the log in use
    (the disk I/O errors a replay met after another replay ended)."""
    from olsdk._delivery.client._store import Store

    path = tmp_path / "spool.db"
    first, second = Store(path), Store(path)
    assert first.query("SELECT count(*) FROM sqlite_master") == second.query("SELECT count(*) FROM sqlite_master")
    other = run_script(
        f"""
        from olsdk._delivery.client._store import Store
        store = Store({str(path)!r})
        store.query("SELECT 1")
        store.close()
        """,
        tmp_path,
    )
    assert other.returncode == 0, other.stderr
    assert (tmp_path / "spool.db-wal").exists() and (tmp_path / "spool.db-shm").exists()


def _open_files(path: Path) -> list[str]:
    """The files of the store at ``path`` (database, WAL, shared memory) this process has open."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # the descriptor of the listing itself, closed since
            continue
        if target.startswith(str(path)):
            found.append(target)
    return sorted(found)


def refuse_down(payload: Payload) -> None:
    raise DeliveryError("down", target="http")


def refuse_for_good(payload: Payload) -> None:
    raise DeliveryError("refused", target="http", retriable=False)


def test_spool_folder_is_private_and_its_files_0600(tmp_path: Path) -> None:
    spool_path = tmp_path / "state" / "olsdk" / "spool.db"
    client = OpenLineageClient(CallbackTransport(refuse_down), spool=spool_path, environ={})
    client.emit(run_event())  # committed to the store before the attempt, kept there
    assert stat.S_IMODE(spool_path.parent.stat().st_mode) == 0o700
    refusing = OpenLineageClient(CallbackTransport(refuse_for_good), spool=spool_path, environ={})
    refusing.emit(run_event())  # refused for good: given up in the store
    files = sorted(spool_path.parent.iterdir())  # the database and SQLite's write-ahead log beside it
    assert spool_path in files and all(stat.S_IMODE(f.stat().st_mode) == 0o600 for f in files)


def test_a_failed_emit_reads_nothing_of_the_spool(tmp_path: Path) -> None:
    """The cost of spooling does not grow with the spool: nothing is reread (bytes read, not time)."""
    spool_path = tmp_path / "spool.ndjson"
    line = json.dumps({"spooledAt": "x", "reason": "r", "target": "t", "retriable": True, "event": run_event()})
    spool_path.write_text((line + "\n") * 50_000)  # about 20 MB
    client = OpenLineageClient(CallbackTransport(refuse_down), spool=spool_path, environ={})
    body = json.dumps(run_event())
    client.emit(body)  # imports and first-use costs out of the way

    def bytes_read() -> int:
        return int(dict(row.split(": ") for row in Path("/proc/self/io").read_text().splitlines())["rchar"])

    before = bytes_read()
    for _ in range(20):
        client.emit(body)
    assert bytes_read() - before < 1_000_000
    assert len(Spool(spool_path)) == 50_000 + 21  # the earlier spool file migrated, and each event kept
