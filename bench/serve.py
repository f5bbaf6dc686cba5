"""`python -m bench.serve`: what `olsdk serve` ingests, how fast the page follows, a lineage query.

Rows, each on SQLite (a file, WAL, synchronous=NORMAL) and on PostgreSQL (a throwaway
cluster of Debian's binaries, fsync on, `tests.serve.postgres`), against the real
server process on 127.0.0.1 (`tests.serve.harness.ServeProcess`):

- ingest, single: one producer posting events one by one (keep-alive), events/s;
- ingest, 8 producers: eight threads posting one by one at once (the writer's group
  commit shares transactions between them), events/s;
- ingest, batch: one producer posting ``/lineage/batch`` of 100 events, events/s;
- server CPU per event: the server process's user + system CPU time (``/proc``) over each
  ingest row, divided by its events, in ms;
- page update latency: an event posted -> its job in the page's data, in headless
  chromium, on a small store (200 events) and on the 100,000-event one (SQLite; the
  store makes little difference to the page), median of repeats;
- lineage query: ``GET /api/v1/lineage?nodeId=job:...&depth=5`` (and ``depth=20``) on a
  store of 100,000 events (2,000 jobs in 20 chains, 50 runs each), median of repeats.

Each ingest row is the median of ``--rounds`` rounds. With ``--baseline SRC`` (the ``src``
directory of another olsdk checkout), the same rows are measured on a server running that
olsdk beside this one's, in columns of their own: the ingest rounds alternate between the
two servers (which goes first alternates too), so both see the same load.

Every figure but the CPU rows is wall-clock time on a shared 2-core machine, where the
producers, the server and other work share the cores: read ratios, not digits.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import urllib3

from tests.serve.harness import PRODUCER, SCHEMA_URL, ServeProcess
from tests.serve.postgres import PostgresCluster, postgres_bin

CHAINS = 20


def event(job: int, run: int, event_type: str = "COMPLETE") -> dict[str, Any]:
    """Job `job` of a chain: reads the dataset of the job before it, writes its own."""
    chain, position = divmod(job, 100)
    return {
        "eventType": event_type,
        "eventTime": f"2024-07-01T12:{run // 60 % 60:02d}:{run % 60:02d}.000000Z",
        "run": {"runId": f"0190d3a4-7b5c-7a3e-{chain:04d}-{position:04d}{run:08d}"},
        "job": {"namespace": "bench", "name": f"chain{chain}.job{position}"},
        "inputs": [{"namespace": "warehouse", "name": f"chain{chain}.table{position}"}],
        "outputs": [{"namespace": "warehouse", "name": f"chain{chain}.table{position + 1}"}],
        "producer": PRODUCER,
        "schemaURL": SCHEMA_URL,
    }


def events(count: int, start: int = 0) -> Iterator[dict[str, Any]]:
    jobs = CHAINS * 100
    for i in range(start, start + count):
        yield event(i % jobs, i // jobs)


class Poster:
    """Keep-alive HTTP posts to one server."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.pool = urllib3.PoolManager(maxsize=16, retries=False, timeout=urllib3.Timeout(connect=10, read=120))

    def post(self, path: str, body: Any) -> None:
        response = self.pool.request(
            "POST", self.url + path, body=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
        )
        if response.status != 200:
            raise RuntimeError(f"{path}: HTTP {response.status}: {response.data[:300]!r}")

    def post_each(self, path: str, bodies: Sequence[Any]) -> None:
        for body in bodies:
            self.post(path, body)

    def get(self, path: str) -> Any:
        response = self.pool.request("GET", self.url + path)
        if response.status != 200:
            raise RuntimeError(f"{path}: HTTP {response.status}")
        return json.loads(response.data)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process `pid` so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(rows: dict[str, list[float]], name: str, pid: int, count: int, work: Callable[[], object]) -> None:
    """Post `count` events with `work`: events/s and the server's CPU ms per event."""
    cpu = cpu_seconds(pid)
    started = time.perf_counter()
    work()
    elapsed = time.perf_counter() - started
    rows.setdefault(f"ingest {name} (events/s)", []).append(count / elapsed)
    rows.setdefault(f"server CPU per event, {name} (ms)", []).append((cpu_seconds(pid) - cpu) * 1000 / count)


def ingest_round(url: str, pid: int, count: int, start: int, rows: dict[str, list[float]]) -> None:
    poster = Poster(url)
    single = list(events(count, start=start))
    measure(rows, "single", pid, count, lambda: poster.post_each("/api/v1/lineage", single))

    parallel = list(events(count, start=start + count))
    share = len(parallel) // 8

    def eight() -> None:
        def produce(part: list[dict[str, Any]]) -> None:
            for item in part:
                poster.post("/api/v1/lineage", item)

        threads = [threading.Thread(target=produce, args=(parallel[i * share : (i + 1) * share],)) for i in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    measure(rows, "8 producers", pid, share * 8, eight)
    batched = list(events(count * 10, start=start + count * 2))
    batches = [batched[i : i + 100] for i in range(0, len(batched), 100)]
    measure(rows, "batch of 100", pid, len(batched), lambda: poster.post_each("/api/v1/lineage/batch", batches))


def ingest_rows(servers: Sequence[ServeProcess], count: int, rounds: int) -> list[dict[str, float]]:
    """Each ingest row's median over `rounds` rounds (new events each round), per server; the
    servers take turns round by round, the first of a round changing every round."""
    measured: list[dict[str, list[float]]] = [{} for _ in servers]
    for round_ in range(rounds):
        order = list(range(len(servers)))
        if round_ % 2:
            order.reverse()
        for index in order:
            ingest_round(servers[index].url, servers[index].pid, count, round_ * count * 12, measured[index])
    return [{name: statistics.median(values) for name, values in rows.items()} for rows in measured]


def fill(url: str, total: int) -> None:
    """`total` events through the batch endpoint (1,000 per post)."""
    poster = Poster(url)
    batch: list[dict[str, Any]] = []
    for item in events(total):
        batch.append(item)
        if len(batch) == 1000:
            poster.post("/api/v1/lineage/batch", batch)
            batch = []
    if batch:
        poster.post("/api/v1/lineage/batch", batch)


def lineage_rows(url: str, total: int, repeats: int) -> dict[str, float]:
    started = time.perf_counter()
    fill(url, total)
    filled = time.perf_counter() - started
    poster = Poster(url)
    rows = {f"store {total:,} events by batch (s)": filled}
    for depth in (5, 20):
        times = []
        nodes = 0
        query = urllib.parse.urlencode({"nodeId": f"job:bench:chain{CHAINS // 2}.job50", "depth": depth})
        for _ in range(repeats):
            started = time.perf_counter()
            graph = poster.get(f"/api/v1/lineage?{query}")["graph"]
            times.append(time.perf_counter() - started)
            nodes = len(graph)
        rows[f"lineage query, depth {depth}, {nodes} nodes, on {total:,} events (ms)"] = statistics.median(times) * 1000
    return rows


def page_latency(url: str, repeats: int) -> dict[str, float]:
    from tests.graph.chromium import Chromium

    poster = Poster(url)
    latencies = []
    with Chromium() as browser:
        browser.open(url + "/")
        browser.wait_for("olsdkLineage.updates >= 1")
        for i in range(repeats):
            name = f"latency_probe_{i}"
            probe = {**event(0, 10_000 + i), "job": {"namespace": "bench", "name": name}}
            time.sleep(1.0)  # a quiet stream: the update is not held back by the previous one
            started = time.perf_counter()
            poster.post("/api/v1/lineage", probe)
            browser.wait_for(f"olsdkLineage.data().nodes.some((n) => n.n === {json.dumps(name)})", timeout=60)
            latencies.append(time.perf_counter() - started)
        if browser.errors():
            raise RuntimeError(f"the page reported errors: {browser.errors()}")
    nodes = len(poster.get("/api/olsdk/graph")["nodes"])
    return {f"page update latency, {nodes} nodes (ms)": statistics.median(latencies) * 1000}


def _databases(store: str, home: Path, cluster: PostgresCluster | None, tag: str) -> list[str]:
    if store == "postgresql":
        assert cluster is not None
        return [cluster.create_database(f"bench_{tag}{i}") for i in range(2)]
    return [str(home / f"ingest{tag}.db"), str(home / f"lineage{tag}.db")]


def _store_rows(
    store: str, home: Path, cluster: PostgresCluster | None, sizes: tuple[int, int, int, int], sources: Sequence[str]
) -> list[dict[str, float]]:
    """The ingest and lineage rows of one store, for each olsdk of `sources` ("" for this one)."""
    count, total, repeats, rounds = sizes
    databases = [_databases(store, home, cluster, f"{index}_") for index in range(len(sources))]
    with contextlib.ExitStack() as stack:
        servers = [
            stack.enter_context(_serve(home, dbs[0], source)) for dbs, source in zip(databases, sources, strict=True)
        ]
        results = ingest_rows(servers, count, rounds)
    for rows, dbs, source in zip(results, databases, sources, strict=True):
        with _serve(home, dbs[1], source) as server:
            rows.update(lineage_rows(server.url, total, repeats))
    return results


def _serve(home: Path, db: str, source: str) -> ServeProcess:
    """A server of this olsdk, or (`source`: a src directory) of that one."""
    if not source:
        return ServeProcess(home, db)
    kept = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = source  # what the child's environment is made from
    try:
        return ServeProcess(home, db)
    finally:
        if kept is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = kept


def run(
    stores: Sequence[str],
    count: int,
    total: int,
    repeats: int,
    rounds: int = 3,
    page: bool = True,
    baseline: str | None = None,
) -> dict[str, dict[str, float]]:
    results: dict[str, dict[str, float]] = {}
    sources = ["", baseline] if baseline else [""]
    with tempfile.TemporaryDirectory(prefix="olsdk-bench-serve-") as folder:
        home = Path(folder)
        cluster = None
        try:
            for store in stores:
                if store == "postgresql" and cluster is None:
                    bin_dir = postgres_bin()
                    if bin_dir is None:
                        print("PostgreSQL binaries missing: its rows are skipped")
                        continue
                    cluster = PostgresCluster(bin_dir)
                found = _store_rows(store, home, cluster, (count, total, repeats, rounds), sources)
                rows = found[0]
                if store == "sqlite" and page:  # the store makes no difference to the page: one row
                    with ServeProcess(home, str(home / "lineage0_.db")) as server:
                        rows.update(page_latency(server.url, repeats))
                    with ServeProcess(home, str(home / "small.db")) as server:
                        fill(server.url, 200)
                        rows.update(page_latency(server.url, repeats))
                results[store] = rows
                if baseline:
                    results[f"{store}, baseline"] = found[1]
        finally:
            if cluster is not None:
                cluster.stop()
    return results


def _cell(value: float) -> str:
    return f"{value:>10,.0f}" if value >= 100 else f"{value:>10,.2f}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.serve")
    parser.add_argument("--stores", default="sqlite,postgresql")
    parser.add_argument("--events", type=int, default=2000, help="events per single-post row (batch: 10x)")
    parser.add_argument("--stored", type=int, default=100_000, help="events stored for the lineage query")
    parser.add_argument("--repeats", type=int, default=5, help="lineage queries and page updates per row")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the ingest rows (their median)")
    parser.add_argument("--no-page", action="store_true", help="leave out the page rows (no chromium)")
    parser.add_argument(
        "--baseline",
        metavar="SRC",
        help="also measure the olsdk in SRC (a src directory), round by round beside this one",
    )
    args = parser.parse_args(argv)
    results = run(
        args.stores.split(","),
        args.events,
        args.stored,
        args.repeats,
        rounds=args.rounds,
        page=not args.no_page,
        baseline=args.baseline,
    )
    names = sorted({name for rows in results.values() for name in rows}, key=lambda n: (not n.startswith("ingest"), n))
    width = max([10, *(len(store) for store in results)])
    print(f"| {'row':<64} | " + " | ".join(f"{store:>{width}}" for store in results) + " |")
    print(f"|{'-' * 66}|" + "|".join("-" * (width + 2) for _ in results) + "|")
    for name in names:
        cells = [f"{_cell(results[s][name]) if name in results[s] else '':>{width}}" for s in results]
        print(f"| {name:<64} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
