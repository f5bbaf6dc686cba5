"""Nothing `olsdk serve` acknowledged is lost when it is killed with SIGKILL mid-stream.

Four producer threads post events (one at a time and in batches) as fast as the server
answers; once it has acknowledged a few hundred, the server process is killed by PID with
SIGKILL. Every event answered 200 is then in the store, read directly from the database;
and once a server has started again on the store, so is every run derived from them (the
rows derived from events are written after the answer, and at start for what was left).
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from olsdk._integrations.serve._ingest import sort_event
from olsdk._integrations.serve._store import Store, database_url, now
from tests.serve.harness import ServeProcess, run_event

PRODUCERS = 4
ACKNOWLEDGED_BEFORE_KILL = 300
MAX_EVENTS = 20_000  # per producer: a bound, should the server never be killed


def _run_id(producer: int, number: int) -> str:
    return f"0190d3a4-7b5c-7a3e-9f00-{producer:04d}{number:08d}"


def _produce(url: str, producer: int, acknowledged: list[str], stop: threading.Event) -> None:
    """Post until the server is gone; keep the run id of every event answered 200."""
    batch = producer % 2 == 1
    number = 0
    while not stop.is_set() and number < MAX_EVENTS:
        ids = [_run_id(producer, number + i) for i in range(10 if batch else 1)]
        number += len(ids)
        events = [run_event(f"job{producer}", run_id, "COMPLETE") for run_id in ids]
        body = json.dumps(events if batch else events[0]).encode()
        path = "/api/v1/lineage/batch" if batch else "/api/v1/lineage"
        request = urllib.request.Request(url + path, data=body, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                if response.status == 200:
                    acknowledged.extend(ids)
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            return  # the server is gone


@pytest.mark.slow
def test_every_acknowledged_event_survives_sigkill(tmp_path: Path, db: str) -> None:
    server = ServeProcess(tmp_path, db)
    acknowledged: list[str] = []
    stop = threading.Event()
    threads = [threading.Thread(target=_produce, args=(server.url, p, acknowledged, stop)) for p in range(PRODUCERS)]
    try:
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 120
        while len(acknowledged) < ACKNOWLEDGED_BEFORE_KILL and time.monotonic() < deadline and server.alive():
            time.sleep(0.01)
        os.kill(server.pid, signal.SIGKILL)
        server.process.wait(30)
    finally:
        stop.set()
        for thread in threads:
            thread.join(60)
        server.stop()
    assert server.process.returncode == -signal.SIGKILL
    assert len(acknowledged) >= ACKNOWLEDGED_BEFORE_KILL

    engine = create_engine(database_url(db))
    try:
        with engine.connect() as conn:
            stored = set(conn.execute(text("SELECT run_id FROM events")).scalars())
        with ServeProcess(tmp_path, db) as restarted:  # derives what the killed server left underived
            runs_listed = restarted.get("/api/v1/namespaces/etl/jobs/job0/runs?limit=1")
        with engine.connect() as conn:
            runs = set(conn.execute(text("SELECT run_id FROM runs")).scalars())
    finally:
        engine.dispose()
    assert set(acknowledged) <= stored  # nothing acknowledged is lost
    assert runs_listed["runs"]
    assert set(acknowledged) <= runs  # nor what is derived from it


def test_events_stored_but_not_derived_are_derived_at_start(tmp_path: Path, db: str) -> None:
    """Events whose rows were committed, as a server killed before deriving them leaves them:
    the next server derives them before it answers a read."""
    run_ids = [_run_id(9, number) for number in range(3)]
    events = [run_event("left_job", run_id, "COMPLETE", outputs=[("warehouse", "left")]) for run_id in run_ids]
    received = [sort_event(json.dumps(event).encode(), now()).received for event in events]
    store = Store(db)
    try:
        assert store.append([item for item in received if item is not None]) > 0
        assert store.pending()
    finally:
        store.close()
    with ServeProcess(tmp_path, db) as server:
        runs = server.get("/api/v1/namespaces/etl/jobs/left_job/runs?limit=10")["runs"]
        assert sorted(run["id"] for run in runs) == run_ids
        assert server.get("/api/v1/namespaces/warehouse/datasets/left")["name"] == "left"
    store = Store(db)
    try:
        assert not store.pending()
    finally:
        store.close()
