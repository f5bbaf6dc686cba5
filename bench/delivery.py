"""HTTP delivery: N minimal events to one local sink (`bench.server`), events per second.

Three contenders, each a client built once and reused for every round (keep-alive
connections, as in a long-running producer):

- olsdk single-event: `olsdk.client.OpenLineageClient` with the http transport, one
  synchronous POST per event;
- olsdk batch mode: the same transport with `batch:` (a background thread posts up to
  100 events per `POST /api/v1/lineage/batch`); the clock stops when `flush()` returns,
  i.e. when every event has been delivered;
- official: `openlineage.client.OpenLineageClient` with its `HttpTransport`.

Each contender emits the same pre-built minimal START event (serialised on every
emit, as a real client does). After each sample the sink's count must have grown by
exactly N, otherwise the run fails.

`python -m bench.delivery` adds the rows of a black-holed backend (a socket on 127.0.0.1
that accepts connections and never answers): how long the first `emit` and the slowest
later one wait, in a fresh child process per client, with the http `timeout` given.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.timing import Measure

# One-line switch: set to False to show the olsdk HTTP rows as pending (e.g. while the
# olsdk client is being reworked) and measure only the official transport.
OLSDK_CLIENT_READY = True

OFFICIAL = "official HttpTransport"
OLSDK_SINGLE = "olsdk http, single event"
OLSDK_BATCH = "olsdk http, batch mode"


class Sink:
    """`python -m bench.server` in a subprocess; bounded, stops by itself."""

    def __init__(self, max_seconds: float = 900.0) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bench.server", "--max-seconds", str(max_seconds)],
            stdout=subprocess.PIPE,
            text=True,
            cwd=Path(__file__).resolve().parent.parent,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line.strip().isdigit():
            self.proc.kill()
            raise RuntimeError(f"bench.server did not start: {line!r}")
        self.port = int(line)
        self.url = f"http://127.0.0.1:{self.port}"

    def count(self) -> int:
        with urllib.request.urlopen(f"{self.url}/count", timeout=10) as reply:
            return int(reply.read())

    def close(self) -> None:
        try:
            urllib.request.urlopen(f"{self.url}/shutdown", timeout=5).close()
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def __enter__(self) -> Sink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _official_client(url: str) -> tuple[Callable[[Any], None], Callable[[], None]]:
    from openlineage.client import OpenLineageClient
    from openlineage.client.transport.http import HttpConfig, HttpTransport

    client = OpenLineageClient(transport=HttpTransport(HttpConfig(url=url)))
    return client.emit, lambda: None


def _olsdk_client(url: str, batch: bool) -> tuple[Callable[[Any], None], Callable[[], None]]:
    from olsdk.client import OpenLineageClient

    transport: dict[str, Any] = {"type": "http", "url": url}
    if batch:
        transport["batch"] = {"max_events": 100, "on_full": "block"}
    client = OpenLineageClient(config={"transport": transport}, spool=False, error_policy="raise", environ={})

    def flush() -> None:
        if not client.flush(timeout=120):
            raise RuntimeError("olsdk client did not flush within 120 s")

    return client.emit, flush


def measures(sink: Sink, events: int, official_event: Any, olsdk_event: Any) -> tuple[dict[str, Measure], list[str]]:
    """The delivery contenders (ns per delivered event) and the names still pending."""

    def deliver(emit: Callable[[Any], None], done: Callable[[], None], event: Any) -> Measure:
        def send(n: int) -> float:
            before = sink.count()
            t0 = time.perf_counter_ns()
            for _ in range(n):
                emit(event)
            done()
            elapsed = time.perf_counter_ns() - t0
            received = sink.count() - before
            if received != n:
                raise RuntimeError(f"sink received {received} of {n} events")
            return elapsed / n

        send(min(200, events))  # warm up: imports, the connection, the batch thread
        return lambda: send(events)

    out: dict[str, Measure] = {}
    pending: list[str] = []
    if OLSDK_CLIENT_READY:
        out[OLSDK_SINGLE] = deliver(*_olsdk_client(sink.url, batch=False), olsdk_event)
        out[OLSDK_BATCH] = deliver(*_olsdk_client(sink.url, batch=True), olsdk_event)
    else:
        pending += [OLSDK_SINGLE, OLSDK_BATCH]
    out[OFFICIAL] = deliver(*_official_client(sink.url), official_event)
    return out, pending


# -- a black-holed backend: how long does an emit wait? -----------------------------------


OLSDK_WAIT_SCRIPT = """
import sys, time
from olsdk.client import OpenLineageClient
client = OpenLineageClient(config={config!r}, environ={{}})
print("ready", flush=True)
for line in sys.stdin:
    t0 = time.perf_counter()
    try:
        client.emit(line)
    except Exception:
        pass
    print(time.perf_counter() - t0, flush=True)
try:
    client.close(timeout=1)
except Exception:
    pass
"""


def black_hole_rows(events: int = 20, timeout: float = 2.0, budget: float = 60.0) -> list[str]:
    """The first emit's wait and the later ones' (p50, p99, worst), each client in a child
    process (killed at ``budget`` seconds) emitting ``events`` events to a black hole; olsdk
    with its defaults (the spool, write-ahead on)."""
    from bench.outbox import OFFICIAL_SCRIPT, backend, time_emits

    lines = [
        f"| emit to a black-holed backend (timeout {timeout:g} s) | first emit | later p50 | later p99 "
        "| later worst | events timed |",
        "|---|---|---|---|---|---|",
    ]
    for name, policy in (
        ("olsdk http, error_policy log (default)", "log"),
        ("olsdk http, error_policy raise", "raise"),
    ):
        with backend("black hole") as url:
            config = {"transport": {"type": "http", "url": url, "timeout": timeout}, "error_policy": policy}
            times, _, _ = time_emits(OLSDK_WAIT_SCRIPT.format(config=config), events, budget)
        lines.append(f"| {name} | {_wait_cells(times)} |")
        print(lines[-1], flush=True)
    with backend("black hole") as url:
        times, _, _ = time_emits(OFFICIAL_SCRIPT.format(transport={"url": url, "timeout": timeout}), events, budget)
    lines.append(f"| official http | {_wait_cells(times)} |")
    print(lines[-1], flush=True)
    return lines


def _wait_cells(times: list[float]) -> str:
    if not times:
        return "did not return within the budget | - | - | - | 0"
    later = sorted(times[1:]) or [times[0]]
    p99 = later[min(len(later) - 1, round(0.99 * (len(later) - 1)))]
    cells = [times[0], statistics.median(later), p99, later[-1]]
    return " | ".join(f"{t * 1e3:.1f} ms" if t < 1 else f"{t:.2f} s" for t in cells) + f" | {len(times)}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.delivery", description=__doc__)
    parser.add_argument("--events", type=int, default=20, help="events per client (default 20)")
    parser.add_argument("--timeout", type=float, default=2.0, help="the http timeout, seconds (default 2)")
    parser.add_argument("--budget", type=float, default=60.0, help="seconds per client (default 60)")
    args = parser.parse_args(argv)
    black_hole_rows(args.events, args.timeout, args.budget)
    return 0


if __name__ == "__main__":
    sys.exit(main())
