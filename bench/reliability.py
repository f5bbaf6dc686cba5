"""`python -m bench.reliability`: the fault table, counted, and the speed claims.

Every fault row runs the client against a real server on 127.0.0.1 that misbehaves on
purpose (`tests.support.fault_server`), with real processes (killed with SIGKILL where
the row says so) and a real `os.fork`, then resends whatever was spooled to a healthy
server and counts, per row: events tried, delivered exactly once, extra copies the
server stored (duplicates), spooled at the end of the fault, and lost (neither
delivered nor spooled). The same script runs on an older checkout (it only uses
APIs that existed before the spool), which is how the "before" column was measured:

    PYTHONPATH=<old checkout>/src:<old checkout> python -m bench.reliability --rows faults

Speed rows (`--rows speed`, new code only): the concurrent buffered wrapper's
delivery rate against a server answering after 50 ms, per worker count; 16 threads x
500 events against a fast server, per worker count (how the default was chosen); the
cost of one failed emit against the spool's size; how long `close()` takes against
its `close_timeout`. Timings are medians of a few runs on a shared machine: read
the ratios, not the digits.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.fault_server import FaultServer, Ledger, SpawnedServer

ROOT = Path(__file__).resolve().parent.parent
FAST_RETRY = {"total": 3, "backoff_factor": 0.01, "backoff_jitter": 0.01}


def event(seq: int, run: int = 0, event_type: str = "RUNNING") -> dict[str, Any]:
    return {
        "eventTime": "2024-07-01T12:00:00.000000+00:00",
        "producer": "https://example.com/bench",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "eventType": event_type,
        "run": {"runId": f"0190e5c6-0000-7000-8000-{run:012d}"},
        "job": {"namespace": "bench", "name": f"job{run}"},
        "seq": seq,
    }


@dataclass
class Row:
    name: str
    ledger: Ledger | None
    note: str = ""


def spool_events(path: Path) -> list[dict[str, Any]]:
    """The events kept undelivered: the spool file's, and (olsdk with write-ahead) its outbox's."""
    from olsdk.client import Spool

    return [r["event"] for r in Spool(path).records() if isinstance(r.get("event"), dict)]


def env_for(tmp: Path, url: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENLINEAGE")}
    env.update(HOME=str(tmp), XDG_STATE_HOME=str(tmp / "state"))
    if url:
        env["OPENLINEAGE_URL"] = url
    return env


def python(script: str, tmp: Path, **kwargs: Any) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(script)],
        cwd=tmp,
        env=kwargs.pop("env", env_for(tmp)),
        text=True,
        **kwargs,
    )


def replay_cli(spool: Path, url: str, tmp: Path, **kwargs: Any) -> subprocess.Popen[str]:
    code = "import sys; from olsdk._integrations._cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.Popen(
        [sys.executable, "-c", code, "replay", str(spool)],
        cwd=tmp,
        env=env_for(tmp, url),
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **kwargs,
    )


def finish(tried: list[dict[str, Any]], server: Any, spool: Path, tmp: Path) -> Ledger:
    """Count the spool, resend it to a healthy server, and count everything."""
    spooled = spool_events(spool)
    if spooled:
        healthy = FaultServer()
        try:
            proc = replay_cli(spool, healthy.url, tmp)
            proc.communicate(timeout=600)
            resent = healthy.events()
        finally:
            healthy.stop()
    else:
        resent = []
    ledger = Ledger.count(tried, server.events() + resent, spooled)
    return ledger


def wait_for(condition: Callable[[], bool], seconds: float = 60.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return False


# -- fault rows ---------------------------------------------------------------------------


def close_in_flight(tmp: Path, batch: bool) -> Row:
    """A request still in flight when close(1) gives up; the process then exits."""
    server = FaultServer()
    server.hold = threading.Event()
    spool = tmp / "spool.ndjson"
    events = [event(i, run=i % 5) for i in range(50)]
    if batch:
        transport = {
            "type": "http",
            "url": server.url,
            "retry": FAST_RETRY,
            "batch": {"max_events": 100, "linger": 0.05},
        }
    else:
        transport = {"type": "buffered", "transport": {"type": "http", "url": server.url, "retry": FAST_RETRY}}
    script = f"""
        import json, sys
        from olsdk.client import OpenLineageClient
        client = OpenLineageClient(config={{"transport": {transport!r}}}, spool={str(spool)!r}, environ={{}})
        for e in {events!r}:
            client.emit(e)
        sys.stdin.readline()  # the test says when a request is in flight
        print(client.close(1), flush=True)
    """
    proc = python(script, tmp, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_for(lambda: server.posts >= 1)
        assert proc.stdin is not None
        out, err = proc.communicate("go\n", timeout=120)
    finally:
        server.stop()
    ledger = finish(events, server, spool, tmp)
    warned = "not delivered within the close timeout" in err or "not delivered" in err
    return Row(
        f"{'batch' if batch else 'buffered'} mode, request in flight when close(1) gives up",
        ledger,
        f"close() returned {out.strip() or '?'}; warning logged: {'yes' if warned else 'no'}",
    )


def torn_spool(tmp: Path) -> Row:
    """A record torn half-way (a writer killed mid-append), then one more append."""
    spool = tmp / "spool.ndjson"
    events = [event(i) for i in range(4)]
    script = f"""
        from olsdk.client import OpenLineageClient
        from olsdk.transports import CallbackTransport, DeliveryError
        def refuse(payload):
            raise DeliveryError("down")
        client = OpenLineageClient(CallbackTransport(refuse), spool={str(spool)!r}, environ={{}})
        for e in {events[:3]!r}:
            client.emit(e)
        with open({str(spool)!r}, "ab") as f:  # what a writer killed mid-record leaves
            f.write(b'{{"spooledAt": "2024-07-01T00:00:00", "reason": "down", "event": {{"eventTy')
        client.emit({events[3]!r})
        client.close()
    """
    python(script, tmp, stderr=subprocess.DEVNULL).wait(timeout=120)
    server = FaultServer()
    server.stop()
    return Row("torn last line in the spool, then one more append", finish(events, server, spool, tmp))


def torn_ndjson(tmp: Path) -> Row:
    out = tmp / "events.ndjson"
    events = [event(i) for i in range(4)]
    script = f"""
        from olsdk.client import OpenLineageClient
        transport = {{"type": "file", "log_file_path": {str(out)!r}, "append": True}}
        client = OpenLineageClient(config={{"transport": transport}}, environ={{}})
        for e in {events[:3]!r}:
            client.emit(e)
        with open({str(out)!r}, "ab") as f:
            f.write(b'{{"eventTime": "2024-07-01T12:00:00", "eventTy')
        client.emit({events[3]!r})
        client.close()
    """
    python(script, tmp, stderr=subprocess.DEVNULL).wait(timeout=120)
    stored = []
    for line in out.read_bytes().splitlines():
        with contextlib.suppress(ValueError):  # the torn line, and what a torn line swallowed
            stored.append(json.loads(line))
    return Row("torn last line in an NDJSON file (file transport), then one more append", Ledger.count(events, stored))


def disk_full(tmp: Path) -> Row:
    """The spool's file system fills up (RLIMIT_FSIZE), then frees up; more events come."""
    spool = tmp / "spool.ndjson"
    events = [event(i) for i in range(11)]
    script = f"""
        import resource, signal
        from olsdk.client import OpenLineageClient
        from olsdk.transports import CallbackTransport, DeliveryError
        def refuse(payload):
            raise DeliveryError("down")
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes past the limit fail with EFBIG
        soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        client = OpenLineageClient(CallbackTransport(refuse), spool={str(spool)!r}, environ={{}})
        client.emit({events[0]!r})
        resource.setrlimit(resource.RLIMIT_FSIZE, (1500, hard))  # room for about two more records
        for e in {events[1:10]!r}:
            client.emit(e)
        resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))  # space again
        client.emit({events[10]!r})
        client.close()
    """
    python(script, tmp, stderr=subprocess.DEVNULL).wait(timeout=120)
    server = FaultServer()
    server.stop()
    return Row("spool file system full (file-size limit), then space again", finish(events, server, spool, tmp))


def make_spool(tmp: Path, count: int) -> tuple[Path, list[dict[str, Any]]]:
    spool = tmp / "spool.ndjson"
    events = [event(i, run=i % 50) for i in range(count)]
    script = f"""
        import json, sys
        from olsdk.client import OpenLineageClient
        from olsdk.transports import CallbackTransport, DeliveryError
        def refuse(payload):
            raise DeliveryError("down", target="http")
        client = OpenLineageClient(CallbackTransport(refuse), spool={str(spool)!r}, environ={{}})
        for line in sys.stdin:
            client.emit(line)
    """
    python(script, tmp, stdin=subprocess.PIPE, stderr=subprocess.DEVNULL).communicate(
        "\n".join(json.dumps(e) for e in events) + "\n", timeout=600
    )
    return spool, events


def replay_killed(tmp: Path, count: int = 3000) -> Row:
    spool, events = make_spool(tmp, count)
    server = FaultServer()
    try:
        proc = replay_cli(spool, server.url, tmp)
        wait_for(lambda: len(server.events()) >= count // 3, 300)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
        killed_at = len(server.events())
        again = replay_cli(spool, server.url, tmp)
        again.communicate(timeout=600)
        ledger = Ledger.count(events, server.events(), spool_events(spool))
    finally:
        server.stop()
    return Row(f"replay killed (SIGKILL) after {killed_at} events, then run again", ledger)


def two_replays(tmp: Path, count: int = 2000) -> Row:
    spool, events = make_spool(tmp, count)
    server = FaultServer()
    try:
        first, second = replay_cli(spool, server.url, tmp), replay_cli(spool, server.url, tmp)
        _, err1 = first.communicate(timeout=600)
        _, err2 = second.communicate(timeout=600)
        ledger = Ledger.count(events, server.events(), spool_events(spool))
    finally:
        server.stop()
    crashed = "Traceback" in err1 + err2
    note = f"exit codes {first.returncode}, {second.returncode}; traceback: {'yes' if crashed else 'no'}"
    lines = [line for line in (err1 + err2).splitlines() if "another replay" in line]
    if lines:
        note += f"; '{lines[0][:90]}'"
    return Row("two `olsdk replay` of one spool at once", ledger, note)


def fork_child_closes(tmp: Path) -> Row:
    server = FaultServer()
    server.latency = 0.01  # the parent's queue is still full when it forks
    spool = tmp / "spool.ndjson"
    parent_events = [event(i, run=1) for i in range(200)]
    child_events = [event(1000 + i, run=2) for i in range(20)]
    script = f"""
        import os
        from olsdk.client import OpenLineageClient
        config = {{"transport": {{"type": "buffered", "close_timeout": 10,
                   "transport": {{"type": "http", "url": {server.url!r}, "retry": {FAST_RETRY!r}}}}}}}
        client = OpenLineageClient(config=config, spool={str(spool)!r}, environ={{}})
        for e in {parent_events!r}:
            client.emit(e)
        pid = os.fork()
        if pid == 0:
            for e in {child_events!r}:
                client.emit(e)
            client.close(10)
            os._exit(0)
        os.waitpid(pid, 0)
        client.close(60)
    """
    try:
        python(script, tmp, stderr=subprocess.DEVNULL).wait(timeout=300)
    finally:
        server.stop()
    ledger = finish(parent_events + child_events, server, spool, tmp)
    return Row("fork of a process holding a buffered client; the child closes it", ledger)


def fork_multiprocessing(tmp: Path) -> Row:
    server = FaultServer()
    spool = tmp / "spool.ndjson"
    child_events = [event(i, run=3) for i in range(20)]
    script = f"""
        import multiprocessing
        from olsdk.client import OpenLineageClient
        config = {{"transport": {{"type": "buffered",
                   "transport": {{"type": "http", "url": {server.url!r}, "retry": {FAST_RETRY!r}}}}}}}
        client = OpenLineageClient(config=config, spool={str(spool)!r}, environ={{}})
        def work():
            for e in {child_events!r}:
                client.emit(e)
        if __name__ == "__main__":
            child = multiprocessing.get_context("fork").Process(target=work)
            child.start()
            child.join(120)
            client.close(10)
    """
    try:
        python(script, tmp, stderr=subprocess.DEVNULL).wait(timeout=300)
    finally:
        server.stop()
    return Row(
        "fork (multiprocessing) child emits 20 events through an inherited client",
        finish(child_events, server, spool, tmp),
    )


def threads(tmp: Path, workers: int | None = None, n_threads: int = 16, per_thread: int = 500) -> tuple[Ledger, float]:
    server = SpawnedServer(latency=0.0, max_seconds=600)
    spool = tmp / "spool.ndjson"
    events = [event(i, run=t) for t in range(n_threads) for i in range(per_thread)]
    transport: dict[str, Any] = {"type": "buffered", "transport": {"type": "http", "url": server.url}}
    if workers is not None:
        transport["workers"] = workers
    script = f"""
        import json, sys, threading, time
        from olsdk.client import OpenLineageClient
        client = OpenLineageClient(config={{"transport": {transport!r}}}, spool={str(spool)!r}, environ={{}})
        events = json.load(sys.stdin)
        per = {per_thread}
        def emit(t):
            for e in events[t * per:(t + 1) * per]:
                client.emit(e)
        t0 = time.monotonic()
        pool = [threading.Thread(target=emit, args=(t,)) for t in range({n_threads})]
        for p in pool: p.start()
        for p in pool: p.join()
        client.close()
        print(time.monotonic() - t0)
    """
    try:
        proc = python(script, tmp, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        out, _ = proc.communicate(json.dumps(events), timeout=900)
        seconds = float(out.strip() or "nan")
        stored = server.events()
    finally:
        server.stop()
    return Ledger.count(events, stored, spool_events(spool)), seconds


def threads_row(tmp: Path) -> Row:
    ledger, seconds = threads(tmp)
    return Row("16 threads x 500 events, buffered at its defaults, healthy server", ledger, f"{seconds:.1f} s")


def batch_413(tmp: Path) -> Row:
    server = FaultServer()
    server.max_body = 10_240
    spool = tmp / "spool.ndjson"
    events = [event(i, run=i % 3) for i in range(300)]
    script = f"""
        import json, sys
        from olsdk.client import OpenLineageClient
        transport = {{"type": "http", "url": {server.url!r}, "retry": {FAST_RETRY!r},
                     "batch": {{"max_events": 100, "linger": 0.05}}}}
        client = OpenLineageClient(config={{"transport": transport}}, spool={str(spool)!r}, environ={{}})
        for e in json.load(sys.stdin):
            client.emit(e)
        client.close(60)
    """
    try:
        python(script, tmp, stdin=subprocess.PIPE, stderr=subprocess.DEVNULL).communicate(
            json.dumps(events), timeout=300
        )
        posts = server.posts
    finally:
        server.stop()
    return Row(
        "batch mode, server answers 413 for bodies over 10 KB", finish(events, server, spool, tmp), f"{posts} posts"
    )


def reset_after_body(tmp: Path, batch: bool, count: int = 1000, resets: int = 40) -> Row:
    server = FaultServer()
    server.reset_first = resets
    spool = tmp / "spool.ndjson"
    events = [event(i, run=i % 4) for i in range(count)]
    transport: dict[str, Any] = {"type": "http", "url": server.url, "retry": FAST_RETRY}
    if batch:
        transport["batch"] = {"max_events": 100, "linger": 0.05}
    script = f"""
        import json, sys
        from olsdk.client import OpenLineageClient
        client = OpenLineageClient(config={{"transport": {transport!r}}}, spool={str(spool)!r}, environ={{}})
        for e in json.load(sys.stdin):
            client.emit(e)
        client.close(120)
    """
    try:
        python(script, tmp, stdin=subprocess.PIPE, stderr=subprocess.DEVNULL).communicate(
            json.dumps(events), timeout=600
        )
    finally:
        server.stop()
    mode = "batch" if batch else "plain"
    return Row(
        f"{mode} mode, connection reset after the body was sent (first {resets} posts), after replay",
        finish(events, server, spool, tmp),
    )


def forked_workers(tmp: Path, backend: str, batch: bool = False, count: int = 20, timeout: float = 7.0) -> Row:
    """Airflow's way of emitting without Airflow: a parent forks one worker per
    event; each worker builds a client, emits its event and ends with ``os._exit(0)``, and
    is killed with SIGKILL if it is still running after ``timeout`` seconds (Airflow's
    ``execution_timeout``, 10 s by default; 7 s here, above the http timeout of 5 s). Then ``olsdk replay`` runs
    with the receiver healthy, as a user would."""
    from tests.support.fault_server import BlackHole

    spool = tmp / "spool.ndjson"
    events = [event(i, run=i % 5) for i in range(count)]
    hole = BlackHole() if backend == "black hole" else None
    healthy = FaultServer() if backend == "up" else None
    if hole is not None:
        url = hole.url
    elif healthy is not None:
        url = healthy.url
    else:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    transport: dict[str, Any] = {"type": "http", "url": url}
    if batch:
        transport["batch"] = {"max_events": 100}
    script = f"""
        import json, os, signal, sys, time
        import olsdk.client  # imported once by the parent, as Airflow's worker has the provider loaded
        events = json.load(sys.stdin)
        killed = 0
        t0 = time.monotonic()
        for e in events:
            pid = os.fork()
            if pid == 0:
                from olsdk.client import OpenLineageClient
                client = OpenLineageClient(config={{"transport": {transport!r}}}, spool={str(spool)!r}, environ={{}})
                client.emit(json.dumps(e))
                os._exit(0)
            deadline = time.monotonic() + {timeout}
            while True:
                done, _ = os.waitpid(pid, os.WNOHANG)
                if done:
                    break
                if time.monotonic() > deadline:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    killed += 1
                    break
                time.sleep(0.005)
        print(killed, round(time.monotonic() - t0, 1), flush=True)
    """
    try:
        proc = python(script, tmp, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        out, _ = proc.communicate(json.dumps(events), timeout=count * (timeout + 30))
        stored_before = healthy.events() if healthy is not None else []
    finally:
        if hole is not None:
            hole.stop()
    if healthy is not None:
        ledger = finish(events, healthy, spool, tmp)
        healthy.stop()
    else:
        ledger = finish(events, _NoServer(), spool, tmp)
    killed, seconds = [*out.split(), "?", "?"][:2]
    mode = "batch mode" if batch else "plain http"
    return Row(
        f"{count} forked workers, one event each, os._exit or SIGKILL after {timeout:g} s; {mode}, receiver "
        f"{backend}; then olsdk replay",
        ledger,
        f"workers killed: {killed}; all workers took {seconds} s; delivered before replay: {len(stored_before)}",
    )


class _NoServer:
    def events(self) -> list[dict[str, Any]]:
        return []


FAULTS: dict[str, Callable[[Path], Row]] = {
    "workers-refused": lambda tmp: forked_workers(tmp, "refused"),
    "workers-black-hole": lambda tmp: forked_workers(tmp, "black hole"),
    "workers-batch-up": lambda tmp: forked_workers(tmp, "up", batch=True),
    "close-batch": lambda tmp: close_in_flight(tmp, batch=True),
    "close-buffered": lambda tmp: close_in_flight(tmp, batch=False),
    "torn-spool": torn_spool,
    "torn-ndjson": torn_ndjson,
    "disk-full": disk_full,
    "replay-killed": replay_killed,
    "two-replays": two_replays,
    "fork-close": fork_child_closes,
    "fork-mp": fork_multiprocessing,
    "threads": threads_row,
    "batch-413": batch_413,
    "reset-plain": lambda tmp: reset_after_body(tmp, batch=False),
    "reset-batch": lambda tmp: reset_after_body(tmp, batch=True),
}


# -- speed rows -------------------------------------------------------------------------------


def latency_rate(workers: int, latency: float = 0.05, batch: bool = False) -> float:
    """Events per second through the buffered wrapper (or batch mode) against a server
    answering after ``latency``."""
    from olsdk.client import OpenLineageClient

    server = SpawnedServer(latency=latency, max_seconds=600)
    count = max(100, int(workers / latency * 2)) * (50 if batch else 1)  # about two seconds at full concurrency
    runs = max(workers, 16)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            http = {"type": "http", "url": server.url}
            transport = (
                {**http, "batch": {"workers": workers, "linger": 0.05}}
                if batch
                else {"type": "buffered", "workers": workers, "transport": http}
            )
            config = {"transport": transport}
            client = OpenLineageClient(config=config, spool=Path(tmp) / "spool", environ={})
            events = [json.dumps(event(i, run=i % runs)) for i in range(count)]
            t0 = time.perf_counter()
            for e in events:
                client.emit(e)
            assert client.flush(timeout=600)
            seconds = time.perf_counter() - t0
            assert client.close()
        delivered = len(server.events())
        assert delivered == count, (delivered, count)
    finally:
        server.stop()
    return count / seconds


def failed_emit_cost(records: int) -> float:
    """Median microseconds of one emit that fails and is spooled, with ``records`` in the spool."""
    from olsdk.client import OpenLineageClient
    from olsdk.transports import CallbackTransport, DeliveryError

    def refuse(payload: Any) -> None:
        raise DeliveryError("down")

    with tempfile.TemporaryDirectory() as tmp:
        spool = Path(tmp) / "spool.ndjson"
        line = json.dumps(
            {"spooledAt": "x", "reason": "down", "target": "t", "retriable": True, "attempts": 1, "event": event(0)}
        )
        spool.write_text((line + "\n") * records)
        client = OpenLineageClient(CallbackTransport(refuse), spool=spool, environ={})
        body = json.dumps(event(1))
        times = []
        for _ in range(200):
            t0 = time.perf_counter()
            client.emit(body)
            times.append(time.perf_counter() - t0)
        client.close()
    return statistics.median(times) * 1e6


def close_duration(close_timeout: float = 5.0) -> float:
    """Seconds ``close()`` takes with 1,000 events queued behind a server that never answers."""
    from olsdk.client import OpenLineageClient

    server = FaultServer()
    server.hold = threading.Event()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            config = {
                "transport": {
                    "type": "buffered",
                    "close_timeout": close_timeout,
                    "transport": {"type": "http", "url": server.url, "timeout": 30},
                }
            }
            client = OpenLineageClient(config=config, spool=Path(tmp) / "spool", environ={})
            for i in range(1000):
                client.emit(json.dumps(event(i, run=i % 20)))
            wait_for(lambda: server.posts >= 1)
            t0 = time.perf_counter()
            client.close()
            return time.perf_counter() - t0
    finally:
        server.stop()


def speed(quick: bool) -> list[str]:
    lines = ["", "| speed | value |", "|---|---|"]
    for workers in (1, 2, 4, 8, 16, 32) if not quick else (1, 8):
        rate = latency_rate(workers)
        lines.append(f"| buffered, {workers} workers, server latency 50 ms | {rate:.0f} events/s |")
        print(lines[-1], flush=True)
    for workers in (1, 2, 4) if not quick else (1,):
        rate = latency_rate(workers, batch=True)
        lines.append(f"| batch mode (100 per post), {workers} workers, server latency 50 ms | {rate:.0f} events/s |")
        print(lines[-1], flush=True)
    for workers in (1, 2, 4, 8, 16, 32) if not quick else (8,):
        with tempfile.TemporaryDirectory() as tmp:
            ledger, seconds = threads(Path(tmp), workers=workers, per_thread=500 if not quick else 50)
        lines.append(f"| 16 threads x 500, fast server, {workers} workers | {seconds:.1f} s; {ledger.row()} |")
        print(lines[-1], flush=True)
    for records in (0, 10_000, 100_000) if not quick else (0, 10_000):
        lines.append(f"| one failed emit, spool of {records} records | {failed_emit_cost(records):.0f} µs |")
        print(lines[-1], flush=True)
    lines.append(f"| close() with 1,000 queued, server never answers, close_timeout 5 | {close_duration():.1f} s |")
    print(lines[-1], flush=True)
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.reliability", description=__doc__)
    parser.add_argument("--rows", choices=("faults", "speed", "all"), default="all")
    parser.add_argument("--only", nargs="*", choices=sorted(FAULTS), help="fault rows to run")
    parser.add_argument("--quick", action="store_true", help="fewer speed points (a smoke run)")
    parser.add_argument("--out", type=Path, help="also write the tables to this markdown file")
    args = parser.parse_args(argv)
    lines: list[str] = []
    if args.rows in ("faults", "all"):
        lines += [
            "| fault | tried | delivered once | duplicates | spooled | lost | note |",
            "|---|---|---|---|---|---|---|",
        ]
        for key in args.only or list(FAULTS):
            with tempfile.TemporaryDirectory() as tmp:
                try:
                    row = FAULTS[key](Path(tmp))
                except Exception as exc:  # a row that cannot run on this checkout says why
                    row = Row(key, None, f"did not run: {type(exc).__name__}: {exc}")
            ledger = row.ledger
            cells = (
                f"{ledger.tried} | {ledger.delivered_once} | {ledger.duplicates} | {ledger.spooled} | {ledger.lost}"
                if ledger
                else "- | - | - | - | -"
            )
            lines.append(f"| {row.name} | {cells} | {row.note} |")
            print(lines[-1], flush=True)
    if args.rows in ("speed", "all"):
        lines += speed(args.quick)
    if args.out:
        args.out.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
