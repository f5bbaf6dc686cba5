"""Several `olsdk serve` processes on one PostgreSQL database: nothing lost, nothing stored twice.

Three real server processes on 127.0.0.1 share one database; eight producer threads post
to all of them at once, one event at a time and in batches, each run's START through one
server while another producer posts its COMPLETE through another, every job and dataset
written through all three.
The database is then read directly: every event once, every run merged from both of its
events, every counter the sum of what was sent.
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.serve.harness import ServeProcess, run_event
from tests.serve.postgres import PostgresCluster

PRODUCERS = 8
RUNS = 40  # per producer: 2 events each
JOBS = 6


def _post(url: str, path: str, body: object) -> int:
    request = urllib.request.Request(
        url + path, data=json.dumps(body).encode(), method="POST", headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        status: int = response.status
        return status


def _run_id(producer: int, run: int) -> str:
    return f"0190d3a4-7b5c-7a3e-9f00-{producer:04d}{run:08d}"


def _event(owner: int, run: int, event_type: str) -> dict[str, object]:
    """An event of run `run` of producer `owner`; every START breaks the spec (stored with its
    problems). The even producers' jobs read from `warehouse` and write to `lake`, the odd
    ones' the other way round, so that writes name the same namespaces in both orders."""
    job = run % JOBS
    minute = f"2024-07-01T12:{run:02d}:{'00' if event_type == 'START' else '30'}.000000Z"
    source, sink = ("warehouse", "lake") if owner % 2 == 0 else ("lake", "warehouse")
    return run_event(
        f"job{job}",
        _run_id(owner, run),
        event_type,
        namespace=f"etl{owner % 2}",
        time=minute,
        inputs=[(source, f"table{job}")],
        outputs=[(sink, f"table{job + 1}")],
        fields=[("id", "int"), (f"column{owner}", "string")],
        **({"producer": "airflow"} if event_type == "START" else {}),
    )


def _produce(producer: int, urls: list[str], failures: list[str]) -> None:
    """The START of this producer's runs and, at the same time, the COMPLETE of the previous
    producer's runs, through two different servers: the even producers post one event at a
    time, the odd ones in batches of five."""
    previous = (producer - 1) % PRODUCERS
    step = 1 if producer % 2 == 0 else 5
    try:
        for first in range(0, RUNS, step):
            starts = [_event(producer, run, "START") for run in range(first, first + step)]
            completes = [_event(previous, run, "COMPLETE") for run in range(first, first + step)]
            target = (producer + first) % len(urls)
            if step == 1:
                assert _post(urls[target], "/api/v1/lineage", starts[0]) == 200
                assert _post(urls[(target + 1) % len(urls)], "/api/v1/lineage", completes[0]) == 200
            else:
                assert _post(urls[target], "/api/v1/lineage/batch", starts) == 200
                assert _post(urls[(target + 1) % len(urls)], "/api/v1/lineage/batch", completes) == 200
    except urllib.error.HTTPError as exc:  # reported by the test, not lost in a thread
        failures.append(f"producer {producer}: HTTP {exc.code} {exc.read()[:300]!r}")
    except Exception as exc:
        failures.append(f"producer {producer}: {exc!r}")


@pytest.mark.slow
def test_three_servers_on_one_database_store_every_event_once(tmp_path: Path, postgres: PostgresCluster) -> None:
    import psycopg

    db = postgres.create_database("scale_out")
    homes = [tmp_path / f"server{i}" for i in range(3)]
    for home in homes:
        home.mkdir()
    servers: list[ServeProcess] = []
    try:
        with ThreadPoolExecutor(3) as starting:  # started at once: each creates the schema if it is missing
            for started in [starting.submit(ServeProcess, home, db) for home in homes]:
                servers.append(started.result())
        urls = [server.url for server in servers]
        failures: list[str] = []
        threads = [threading.Thread(target=_produce, args=(p, urls, failures)) for p in range(PRODUCERS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(300)
        assert failures == [], "\n".join(failures + [server.output()[-3000:] for server in servers])
        assert not any(thread.is_alive() for thread in threads)
        listed = servers[2].get("/api/v1/namespaces/etl1/jobs?limit=100")
        assert sorted(job["name"] for job in listed["jobs"]) == [f"job{j}" for j in range(JOBS)]
    finally:
        for server in servers:
            server.stop()
    assert all(not server.alive() for server in servers)

    sent = PRODUCERS * RUNS * 2
    with psycopg.connect(postgres.url("scale_out")) as conn:
        assert conn.execute("SELECT count(*) FROM events").fetchone() == (sent,)
        once = conn.execute("SELECT count(*) FROM (SELECT DISTINCT run_id, event_type FROM events) AS pairs").fetchone()
        assert once == (sent,)  # no event stored twice
        runs = conn.execute("SELECT run_id, events, state FROM runs ORDER BY run_id").fetchall()
        expected = sorted(_run_id(p, r) for p in range(PRODUCERS) for r in range(RUNS))
        assert [row[0] for row in runs] == expected
        assert {(row[1], row[2]) for row in runs} == {(2, "COMPLETE")}  # both events of every run merged
        counters: dict[str, int] = dict(
            conn.execute("SELECT name, count FROM counters WHERE kind IN ('event', 'stored')").fetchall()
        )
        assert counters == {"run": sent, "valid": sent // 2, "invalid": sent // 2}
        invalid = {(ns, name): n for ns, name, n in conn.execute("SELECT namespace, name, invalid_events FROM jobs")}
        starts = [(f"etl{p % 2}", f"job{r % JOBS}") for p in range(PRODUCERS) for r in range(RUNS)]
        assert invalid == {job: starts.count(job) for job in set(starts)}  # every write merged on the last
        assert len(invalid) == JOBS * 2
        assert conn.execute("SELECT count(*) FROM datasets").fetchone() == ((JOBS + 1) * 2,)
        assert conn.execute("SELECT count(*) FROM edges").fetchone() == (JOBS * 2 * 2,)
        seqs = [row[0] for row in conn.execute("SELECT seq FROM events ORDER BY seq")]
        assert len(set(seqs)) == sent
        # the latest schema of each output has one producer's column: a merged row, never a mix
        for (fields,) in conn.execute("SELECT fields FROM datasets WHERE name <> 'table0'"):
            names = [name for name, _type in json.loads(fields)]
            assert names[0] == "id" and len(names) == 2 and names[1].startswith("column")
