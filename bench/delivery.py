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
"""

from __future__ import annotations

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
