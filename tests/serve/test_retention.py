"""``olsdk serve --retention-days N`` deletes what Marquez's retention deletes, and nothing else.

A real server stores two jobs' events; the rows of one of them are then made to look as if
they were last updated years ago (their update times set back in the database), and the
server is started again with a retention of 30 days: that job, its runs, the dataset only it
used and every event that happened before the limit go; the other job, the old dataset it
still reads, the namespaces and the recent events stay.
"""

from __future__ import annotations

import subprocess
import sys
import urllib.error
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import bindparam, create_engine, text
from sqlalchemy.engine import Connection

from olsdk._integrations.serve._store import database_url
from tests.serve.harness import ServeProcess, dumps, run_event
from tests.support.processes import child_env

LONG_AGO = "2020-01-02T00:00:00.000000Z"
OLD_RUN = "0190d3a4-7b5c-7a3e-9f00-0000000000a1"
NEW_RUN = "0190d3a4-7b5c-7a3e-9f00-0000000000b2"


def _gone(server: ServeProcess, path: str) -> bool:
    try:
        server.get(path)
    except urllib.error.HTTPError as exc:
        return exc.code == 404
    return False


def test_retention_deletes_old_runs_jobs_datasets_and_events(tmp_path: Path, db: str) -> None:
    recent = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.000000Z")
    old_io = {"inputs": [("warehouse", "old_source")], "outputs": [("warehouse", "shared")]}
    new_io = {"inputs": [("warehouse", "shared")], "outputs": [("warehouse", "fresh")]}
    events = [
        run_event("old_job", OLD_RUN, "START", time="2020-01-01T10:00:00.000000Z", **old_io),
        run_event("old_job", OLD_RUN, "COMPLETE", time="2020-01-01T11:00:00.000000Z", **old_io),
        run_event("new_job", NEW_RUN, "START", time=recent, **new_io),
        run_event("new_job", NEW_RUN, "COMPLETE", time=recent, **new_io),
    ]
    with ServeProcess(tmp_path, db) as server:
        for event in events:
            assert server.post("/api/v1/lineage", dumps(event))[0] == 200

    engine = create_engine(database_url(db))
    try:
        with engine.begin() as conn:  # years pass for the old job, its run and the datasets only it touched
            for table, names in (("jobs", ["old_job"]), ("datasets", ["old_source", "shared"])):
                aged = text(f"UPDATE {table} SET created_at = :t, updated_at = :t WHERE name IN :names")
                conn.execute(aged.bindparams(bindparam("names", expanding=True)), {"t": LONG_AGO, "names": names})
            conn.execute(text("UPDATE runs SET updated_at = :t WHERE job_name = 'old_job'"), {"t": LONG_AGO})

        with ServeProcess(tmp_path, db, "--retention-days", "30") as server:
            server.wait_for(lambda: _gone(server, "/api/v1/namespaces/etl/jobs/old_job"), timeout=60)
            jobs = server.get("/api/v1/namespaces/etl/jobs?limit=10")["jobs"]
            assert [job["name"] for job in jobs] == ["new_job"]
            assert _gone(server, f"/api/v1/jobs/runs/{OLD_RUN}")
            assert server.get(f"/api/v1/jobs/runs/{NEW_RUN}")["id"] == NEW_RUN

        with engine.connect() as conn:
            assert conn.execute(text("SELECT name FROM jobs")).scalars().all() == ["new_job"]
            assert conn.execute(text("SELECT run_id FROM runs")).scalars().all() == [NEW_RUN]
            # the old dataset the kept job still reads stays, as in Marquez
            assert sorted(conn.execute(text("SELECT name FROM datasets")).scalars()) == ["fresh", "shared"]
            assert conn.execute(text("SELECT count(*) FROM edges WHERE job_name = 'old_job'")).scalar() == 0
            times = conn.execute(text("SELECT event_time FROM events ORDER BY seq")).scalars().all()
            assert times == [recent, recent]  # the events that happened in 2020 are gone
            assert sorted(conn.execute(text("SELECT name FROM namespaces")).scalars()) == ["etl", "warehouse"]
    finally:
        engine.dispose()


def _event_seqs(db: str) -> list[int]:
    engine = create_engine(database_url(db))
    try:
        with engine.connect() as conn:
            return [int(seq) for seq in conn.execute(text("SELECT seq FROM events ORDER BY seq")).scalars()]
    finally:
        engine.dispose()


def _post_old_events(tmp_path: Path, db: str) -> list[int]:
    """A job's run of 2020, stored; the numbers of its events."""
    old = [
        run_event("old_job", OLD_RUN, "START", time="2020-01-01T10:00:00.000000Z"),
        run_event("old_job", OLD_RUN, "COMPLETE", time="2020-01-01T11:00:00.000000Z"),
    ]
    with ServeProcess(tmp_path, db) as server:
        for event in old:
            assert server.post("/api/v1/lineage", dumps(event))[0] == 200
        assert server.get("/api/v1/namespaces/etl/jobs/old_job")["latestRun"]["id"] == OLD_RUN
    numbers = _event_seqs(db)
    assert len(numbers) == 2
    return numbers


def _retain_everything_then_store_more(tmp_path: Path, db: str, numbers: list[int]) -> None:
    """Every event is older than the retention: all go, and events stored afterwards are still derived."""
    recent = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.000000Z")
    with ServeProcess(tmp_path, db, "--retention-days", "30") as server:
        server.wait_for(lambda: _gone(server, "/api/v1/namespaces/etl/jobs/old_job"), timeout=60)
        server.wait_for(lambda: not _event_seqs(db), timeout=60)  # the last event stored went too
        assert server.post("/api/v1/lineage", dumps(run_event("new_job", NEW_RUN, "START", time=recent)))[0] == 200
        assert server.get("/api/v1/namespaces/etl/jobs/new_job")["latestRun"]["id"] == NEW_RUN
        assert server.get(f"/api/v1/jobs/runs/{NEW_RUN}")["state"] == "RUNNING"
        events = server.get("/api/v1/events/lineage?limit=10")["events"]
        assert [event["run"]["runId"] for event in events] == [NEW_RUN]
    assert _event_seqs(db)[0] > max(numbers)  # never a number given before


def test_retention_can_delete_every_event_and_later_events_are_still_derived(tmp_path: Path, db: str) -> None:
    _retain_everything_then_store_more(tmp_path, db, _post_old_events(tmp_path, db))


def _events_sql(conn: Connection) -> str:
    return str(conn.execute(text("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'events'")).scalar())


def test_a_sqlite_store_made_before_keeps_its_events_and_never_numbers_one_again(
    tmp_path: Path, sqlite_db: str
) -> None:
    numbers = _post_old_events(tmp_path, sqlite_db)
    engine = create_engine(database_url(sqlite_db))
    try:
        with engine.begin() as conn:  # the events table as an earlier olsdk made it: no AUTOINCREMENT
            table_sql = _events_sql(conn)
            indexes = conn.execute(
                text("SELECT name, sql FROM sqlite_master WHERE tbl_name = 'events' AND type = 'index'")
            )
            index_sql = {name: sql for name, sql in indexes if sql}
            for name in index_sql:
                conn.execute(text(f"DROP INDEX {name}"))
            conn.execute(text("ALTER TABLE events RENAME TO events_now"))
            conn.execute(text(table_sql.replace("AUTOINCREMENT", "")))
            conn.execute(text("INSERT INTO events SELECT * FROM events_now"))
            conn.execute(text("DROP TABLE events_now"))
            for sql in index_sql.values():
                conn.execute(text(sql))
            assert "AUTOINCREMENT" not in _events_sql(conn)

        with ServeProcess(tmp_path, sqlite_db) as server:  # opening it rebuilds the table
            events = server.get("/api/v1/events/lineage?limit=10&sortDirection=asc")["events"]
            assert [(e["run"]["runId"], e["eventType"]) for e in events] == [(OLD_RUN, "START"), (OLD_RUN, "COMPLETE")]
        with engine.connect() as conn:
            assert "AUTOINCREMENT" in _events_sql(conn)
            assert {"events_job", "events_time", "events_run"} <= set(
                conn.execute(text("SELECT name FROM sqlite_master WHERE tbl_name = 'events'")).scalars()
            )
        assert _event_seqs(sqlite_db) == numbers
    finally:
        engine.dispose()
    _retain_everything_then_store_more(tmp_path, sqlite_db, numbers)


@pytest.mark.parametrize("days", ["0", "-3", "nan", "inf"])
def test_a_retention_that_is_not_a_number_of_days_is_refused(tmp_path: Path, days: str) -> None:
    code = "import sys; from olsdk._integrations._cli import main; sys.exit(main(sys.argv[1:]))"
    finished = subprocess.run(
        [sys.executable, "-c", code, "serve", "--port", "0", "--db", str(tmp_path / "x.db"), "--retention-days", days],
        env=child_env(tmp_path),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert finished.returncode == 2
    assert f"--retention-days {float(days)}: must be a number of days above 0" in finished.stderr
