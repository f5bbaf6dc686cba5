"""A SQLite write lock held by another process never holds up the server's event loop.

Another process (a backup, a script, a second tool on the same file) holds the database's
write lock. A post that meets it is not committed (so not acknowledged) until the lock is
released, but meanwhile the server keeps answering: reads are served at once, not after
SQLite's 30 s busy wait. Once the lock is released, the post is acknowledged and stored.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from tests.serve.harness import ServeProcess, dumps, run_event

RUN_A = "0190d3a4-7b5c-7a3e-9f00-0000000000a1"
RUN_B = "0190d3a4-7b5c-7a3e-9f00-0000000000b2"
PROMPT = 15.0  # seconds: well under SQLite's 30 s busy wait, well over any read of two jobs

_HOLD_LOCK = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")  # the write lock, until told to let go
print("locked", flush=True)
sys.stdin.readline()
conn.execute("ROLLBACK")
conn.close()
"""


class LockHolder:
    """Another process holding the SQLite database's write lock while in the `with` block."""

    def __init__(self, db: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", _HOLD_LOCK, db], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def __enter__(self) -> LockHolder:
        assert self.process.stdout is not None
        assert self.process.stdout.readline().strip() == "locked"
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.process.stdin is not None
        try:
            self.process.stdin.write("\n")
            self.process.stdin.close()
            self.process.wait(30)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait(30)


def _get(server: ServeProcess, path: str, timeout: float) -> Any:
    with urllib.request.urlopen(server.url + path, timeout=timeout) as response:
        return json.load(response)


def test_a_lock_held_by_another_process_does_not_hold_up_reads(sqlite_served: ServeProcess, sqlite_db: str) -> None:
    server = sqlite_served
    assert server.post("/api/v1/lineage", dumps(run_event("before", RUN_A)))[0] == 200
    assert server.get("/api/v1/namespaces/etl/jobs/before")["latestRun"]["id"] == RUN_A

    with ThreadPoolExecutor(1) as pool:
        with LockHolder(sqlite_db):
            posted = pool.submit(server.post, "/api/v1/lineage", dumps(run_event("during", RUN_B)))
            time.sleep(1)  # the post reaches the server and meets the lock
            jobs = _get(server, "/api/v1/namespaces/etl/jobs?limit=10", PROMPT)["jobs"]
            assert [job["name"] for job in jobs] == ["before"]
            assert _get(server, "/api/olsdk/status", PROMPT)["events"]["stored"] == 1
            assert not posted.done()  # not acknowledged: it cannot be committed yet
        status, answer = posted.result(timeout=60)
    assert (status, answer) == (200, {"status": "stored", "valid": True})
    assert server.get("/api/v1/namespaces/etl/jobs/during")["latestRun"]["id"] == RUN_B
    assert server.status()["events"]["stored"] == 2
