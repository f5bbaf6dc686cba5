"""`python -m bench.outbox`: what write-ahead delivery costs, and how long `emit` takes with the backend down.

Rows:

* ``latency``: one process emits minimal events through a client with the backend down,
  timing every ``emit``; p50, p99 and the worst, then how long ``close()`` took. The
  backend is either *refused* (a port nothing listens on: each connect fails at once) or a
  *black hole* (a socket that accepts connections and never answers: every request waits
  for its timeout). Each row runs in a child process with a wall-clock budget (a client that
  blocks for seconds per event is measured on the events it managed, and the child is then
  killed by PID); the official client's http transport is measured the same way.
* ``cost``: the cost of one ``emit`` with the event written ahead to the outbox, side by side
  in one process with write-ahead off and with the official client's ``file`` transport
  (append mode: what a user who wants events on disk uses today). Every contender emits the
  same minimal event built with its own models; rounds interleave (`bench.timing`).

The script only uses APIs that existed before write-ahead delivery, so the "before" column is measured
by running it on an older checkout (``PYTHONPATH=<old>/src:<old> python -m bench.outbox``);
rows that need new keys say "n/a" there. Timings come from a shared 2-core machine: read
the ratios and orders of magnitude, not the digits.
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
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.timing import Measure, calibrate, interleave, loop_measure
from tests.support.fault_server import BlackHole

ROOT = Path(__file__).resolve().parent.parent


def minimal_event(seq: int) -> dict[str, Any]:
    return {
        "eventTime": "2026-01-01T12:00:00.000000+00:00",
        "producer": "https://example.com/bench",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "eventType": "START",
        "run": {"runId": f"0190e5c6-0000-7000-8000-{seq:012d}"},
        "job": {"namespace": "bench", "name": f"job{seq}"},
    }


# -- backends that are down ---------------------------------------------------------------


def refused_url() -> str:
    """A URL whose port nothing listens on (connects are refused at once)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@contextlib.contextmanager
def backend(kind: str) -> Iterator[str]:
    if kind == "refused":
        yield refused_url()
        return
    hole = BlackHole()
    try:
        yield hole.url
    finally:
        hole.stop()


# -- latency rows ---------------------------------------------------------------------------

OLSDK_SCRIPT = """
import json, sys, time
from olsdk.client import OpenLineageClient
client = OpenLineageClient(config={{"transport": {transport!r}}}, spool={spool!r}, environ={{}})
print("ready", flush=True)
for line in sys.stdin:
    t0 = time.perf_counter()
    client.emit(line)
    print(time.perf_counter() - t0, flush=True)
t0 = time.perf_counter()
client.close()
print("close", time.perf_counter() - t0, flush=True)
"""

OFFICIAL_SCRIPT = """
import json, sys, time
from openlineage.client import OpenLineageClient
from openlineage.client.event_v2 import Job, Run, RunEvent, RunState
from openlineage.client.transport.http import HttpConfig, HttpTransport
client = OpenLineageClient(transport=HttpTransport(HttpConfig.from_dict({transport!r})))
print("ready", flush=True)
for line in sys.stdin:
    data = json.loads(line)
    event = RunEvent(eventType=RunState.START, eventTime=data["eventTime"], producer=data["producer"],
                     run=Run(runId=data["run"]["runId"]), job=Job(namespace="bench", name=data["job"]["name"]))
    t0 = time.perf_counter()
    try:
        client.emit(event)
    except Exception:
        pass
    print(time.perf_counter() - t0, flush=True)
t0 = time.perf_counter()
client.transport.close(timeout=5)
print("close", time.perf_counter() - t0, flush=True)
"""


@dataclass
class Latency:
    name: str
    times: list[float]
    close_seconds: float | None
    budget_hit: bool

    def cells(self) -> str:
        if not self.times:
            return "| - | - | - | - | did not emit one event within the budget |"
        ordered = sorted(self.times)
        p50 = statistics.median(ordered)
        p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
        close = f"{self.close_seconds:.2f} s" if self.close_seconds is not None else "not reached"
        note = "budget hit, child killed" if self.budget_hit else ""
        return f"| {len(ordered)} | {_ms(p50)} | {_ms(p99)} | {_ms(ordered[-1])} | close {close} {note} |"


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms" if seconds < 1 else f"{seconds:.1f} s"


def _child_env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENLINEAGE")}
    env.update(HOME=str(tmp), XDG_STATE_HOME=str(tmp / "state"))
    path = os.pathsep.join(p for p in (os.environ.get("PYTHONPATH"), str(ROOT)) if p)
    env["PYTHONPATH"] = path
    return env


def time_emits(script: str, events: int, budget: float) -> tuple[list[float], float | None, bool]:
    """Run ``script`` in a child; feed it ``events`` events; per-emit seconds, close seconds, budget hit."""
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(script)],
            cwd=tmp,
            env=_child_env(Path(tmp)),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert proc.stdin is not None and proc.stdout is not None
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.extend(iter(proc.stdout.readline, "")), daemon=True)  # type: ignore[union-attr]
        reader.start()
        deadline = time.monotonic() + budget
        try:
            while "ready\n" not in lines and time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.01)
            feed = "".join(json.dumps(minimal_event(i)) + "\n" for i in range(events))
            writer = threading.Thread(target=_feed, args=(proc, feed), daemon=True)
            writer.start()
            while time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.05)
            hit = proc.poll() is None
        finally:
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGKILL)
            proc.wait(30)
            reader.join(5)
    times = [float(line) for line in lines if line.strip() and line[0].isdigit()]
    close = next((float(line.split()[1]) for line in lines if line.startswith("close ")), None)
    return times, close, hit


def _feed(proc: subprocess.Popen[str], text: str) -> None:
    with contextlib.suppress(OSError, ValueError):
        assert proc.stdin is not None
        proc.stdin.write(text)
        proc.stdin.close()


LATENCY_MODES: dict[str, Callable[[str], dict[str, Any]]] = {
    "olsdk http, defaults": lambda url: {"type": "http", "url": url},
    "olsdk async_http, defaults": lambda url: {"type": "async_http", "url": url},
    "olsdk http batch (max_events 100)": lambda url: {"type": "http", "url": url, "batch": {"max_events": 100}},
}


def latency_rows(events: int, budget: float) -> list[str]:
    lines = [
        "| backend down | client | events timed | p50 | p99 | worst | close() |",
        "|---|---|---|---|---|---|---|",
    ]
    for kind in ("refused", "black hole"):
        for name, transport in LATENCY_MODES.items():
            with backend(kind) as url, tempfile.TemporaryDirectory() as spool_dir:
                script = OLSDK_SCRIPT.format(transport=transport(url), spool=str(Path(spool_dir) / "spool.ndjson"))
                row = Latency(name, *time_emits(script, events, budget))
            lines.append(f"| {kind} | {name} {row.cells()}")
            print(lines[-1], flush=True)
        with backend(kind) as url:
            script = OFFICIAL_SCRIPT.format(transport={"url": url})
            row = Latency("official http, defaults", *time_emits(script, events, budget))
        lines.append(f"| {kind} | official http, defaults {row.cells()}")
        print(lines[-1], flush=True)
    return lines


# -- cost rows -----------------------------------------------------------------------------


def cost_rows(rounds: int, sample_seconds: float) -> list[str]:
    """µs per emit: write-ahead on / off, olsdk file transport, the official file transport."""
    from openlineage.client import OpenLineageClient as OfficialClient
    from openlineage.client.event_v2 import Job as OJob
    from openlineage.client.event_v2 import Run as ORun
    from openlineage.client.event_v2 import RunEvent as ORunEvent
    from openlineage.client.event_v2 import RunState
    from openlineage.client.transport.file import FileConfig, FileTransport
    from openlineage.client.transport.noop import NoopConfig, NoopTransport

    from olsdk.client import OpenLineageClient
    from olsdk.models import EventType, Job, Run, RunEvent

    data = minimal_event(1)
    olsdk_event = RunEvent(
        eventType=EventType.START,
        eventTime=data["eventTime"],
        producer=data["producer"],
        run=Run(runId=data["run"]["runId"]),
        job=Job(namespace="bench", name="job1"),
    )
    official_event = ORunEvent(
        eventType=RunState.START,
        eventTime=data["eventTime"],
        producer=data["producer"],
        run=ORun(runId=data["run"]["runId"]),
        job=OJob(namespace="bench", name="job1"),
    )
    measures: dict[str, Measure] = {}
    notes: dict[str, str] = {}
    clients: list[Any] = []
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)

        def olsdk_client(name: str, transport: dict[str, Any], spool: dict[str, Any], note: str) -> None:
            try:
                client = OpenLineageClient(config={"transport": transport, "spool": spool}, environ={})
            except Exception as exc:  # a key this checkout does not know
                notes[name] = f"n/a here: {type(exc).__name__}"
                return
            clients.append(client)
            fn = lambda: client.emit(olsdk_event)  # noqa: E731
            measures[name] = loop_measure(fn, calibrate(fn, sample_seconds), time.thread_time_ns)
            notes[name] = note

        spool = str(base / "spool.ndjson")
        olsdk_client(
            "olsdk, noop transport, write-ahead off",
            {"type": "noop"},
            {"path": spool, "write_ahead": False},
            "the reference: serialise + hand over",
        )
        if "olsdk, noop transport, write-ahead off" not in measures:  # an older olsdk: nothing was written ahead
            olsdk_client(
                "olsdk, noop transport, write-ahead off",
                {"type": "noop"},
                {"path": spool},
                "the reference: serialise + hand over (no write-ahead exists here)",
            )
        olsdk_client(
            "olsdk, noop transport, write-ahead on (default)",
            {"type": "noop"},
            {"path": str(base / "wa.ndjson"), "write_ahead": True},
            "record committed to the store, then deleted",
        )
        olsdk_client(
            "olsdk, noop transport, write-ahead + fsync always",
            {"type": "noop"},
            {"path": str(base / "fsync.ndjson"), "fsync": "always"},
            "synchronous=FULL: a disk flush per commit (survives power loss)",
        )
        olsdk_client(
            "olsdk, file transport (append), write-ahead off",
            {"type": "file", "log_file_path": str(base / "olsdk-events.ndjson"), "append": True},
            {"path": spool, "write_ahead": False},
            "the event itself appended to a file",
        )
        if "olsdk, file transport (append), write-ahead off" not in measures:
            olsdk_client(
                "olsdk, file transport (append), write-ahead off",
                {"type": "file", "log_file_path": str(base / "olsdk-events.ndjson"), "append": True},
                {"path": spool},
                "the event itself appended to a file",
            )
        official_file = OfficialClient(
            transport=FileTransport(FileConfig(log_file_path=str(base / "official-events.ndjson"), append=True))
        )
        official_noop = OfficialClient(transport=NoopTransport(NoopConfig()))
        for name, client, note in (
            ("official client, file transport (append)", official_file, "Serde.to_json + open/append/close"),
            ("official client, noop transport", official_noop, "Serde.to_json only"),
        ):
            fn = lambda client=client: client.emit(official_event)  # noqa: E731
            measures[name] = loop_measure(fn, calibrate(fn, sample_seconds), time.thread_time_ns)
            notes[name] = note
        reference = "olsdk, noop transport, write-ahead off"
        series = interleave(measures, reference, rounds)
        for client in clients:
            client.close()
    lines = [
        "| emit of a minimal event | µs per event (median, CPU) | spread | vs write-ahead off | note |",
        "|---|---|---|---|---|",
    ]
    off = series[reference].median_ns
    for name in [*measures, *(n for n in notes if n not in measures)]:
        if name not in series:
            lines.append(f"| {name} | - | - | - | {notes[name]} |")
            continue
        s = series[name]
        delta = s.median_ns - off
        lines.append(
            f"| {name} | {s.median_ns / 1e3:.1f} | {s.spread:.0%} | {'+' if delta >= 0 else ''}{delta / 1e3:.1f} µs | "
            f"{notes[name]} |"
        )
    for line in lines:
        print(line, flush=True)
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.outbox", description=__doc__)
    parser.add_argument("--rows", nargs="*", choices=("latency", "cost"), default=["latency", "cost"])
    parser.add_argument("--events", type=int, default=300, help="events per latency row (default 300)")
    parser.add_argument("--budget", type=float, default=45.0, help="seconds per latency row (default 45)")
    parser.add_argument("--rounds", type=int, default=7, help="rounds of the cost rows (default 7)")
    parser.add_argument("--quick", action="store_true", help="a smoke run: few events, short budget")
    parser.add_argument("--out", type=Path, help="also write the tables to this markdown file")
    args = parser.parse_args(argv)
    if args.quick:
        args.events, args.budget, args.rounds = 20, 8.0, 2
    lines: list[str] = []
    if "latency" in args.rows:
        lines += [*latency_rows(args.events, args.budget), ""]
    if "cost" in args.rows:
        lines += cost_rows(args.rounds, 0.05 if args.quick else 0.2)
    if args.out:
        args.out.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
