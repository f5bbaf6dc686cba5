"""Values of any length the server accepts are stored and read back, on SQLite and PostgreSQL.

The lenient reader stores events that break the spec, such as a run id thousands of
characters long, or job and dataset names as long. PostgreSQL refuses an index row over
about 2,700 bytes, so no index may hold a whole value of unbounded length: random
characters (which PostgreSQL cannot compress below that) must be stored as well as short ones.
Stores made before get the indexes made since; a store of a later schema is left as it is.
"""

from __future__ import annotations

import secrets
import urllib.parse
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from olsdk._foundation._exceptions import ConfigError
from olsdk._integrations.serve._schema import SCHEMA_VERSION
from olsdk._integrations.serve._store import Store, database_url
from tests.serve.harness import ServeProcess, dumps, run_event

LENGTH = 6000  # characters: well over what a PostgreSQL index row holds, even compressed
# the indexes of stores made before, which held whole names and run ids
EARLIER_INDEXES = {
    "jobs_namespace": "jobs (namespace_key, name)",
    "datasets_namespace": "datasets (namespace_key, name)",
    "runs_job_order": "runs (job_key, start_time, last_time, run_id)",
}
CURRENT_INDEXES = ("jobs_namespace_name", "datasets_namespace_name", "runs_job_latest")


def _long(prefix: str) -> str:
    return prefix + secrets.token_urlsafe(LENGTH)[:LENGTH]


def _store_and_read_back(served: ServeProcess) -> None:
    run_id, job, dataset = _long("run-"), _long("job-"), _long("table-")
    events = [
        run_event(job, run_id, "START", outputs=[("warehouse", dataset)], fields=[("id", "INT")]),
        run_event(job, run_id, "COMPLETE", time="2024-07-01T12:05:00.000000Z", outputs=[("warehouse", dataset)]),
    ]
    for event in events:
        status, answer = served.post("/api/v1/lineage", dumps(event))
        assert 200 <= status < 300, answer
        assert answer["status"] == "stored" and not answer["valid"]  # a run id that is not a UUID

    quoted_job, quoted_run = urllib.parse.quote(job, safe=""), urllib.parse.quote(run_id, safe="")
    found = served.get(f"/api/v1/jobs/runs/{quoted_run}")
    assert (found["id"], found["state"]) == (run_id, "COMPLETED")
    listed = served.get(f"/api/v1/namespaces/etl/jobs/{quoted_job}/runs?limit=10")
    assert [r["id"] for r in listed["runs"]] == [run_id]
    assert served.get(f"/api/v1/namespaces/etl/jobs/{quoted_job}")["latestRun"]["id"] == run_id
    jobs = served.get("/api/v1/namespaces/etl/jobs?limit=10")["jobs"]
    assert [j["name"] for j in jobs] == [job]
    datasets = served.get("/api/v1/namespaces/warehouse/datasets?limit=10")["datasets"]
    assert [(d["name"], [f["name"] for f in d["fields"]]) for d in datasets] == [(dataset, ["id"])]
    assert served.status()["events"]["stored"] == 2


def test_a_run_id_and_names_thousands_of_characters_long_are_stored_and_read_back(served: ServeProcess) -> None:
    _store_and_read_back(served)


def _index_names(db: str) -> set[str]:
    engine = create_engine(database_url(db))
    try:
        with engine.connect() as conn:
            if engine.dialect.name == "sqlite":
                return set(conn.execute(text("SELECT name FROM sqlite_master WHERE type = 'index'")).scalars())
            return set(conn.execute(text("SELECT indexname FROM pg_indexes WHERE schemaname = 'public'")).scalars())
    finally:
        engine.dispose()


def test_a_store_made_before_gets_indexes_that_hold_long_values(tmp_path: Path, db: str) -> None:
    Store(db).close()
    engine = create_engine(database_url(db))
    try:
        with engine.begin() as conn:  # the store as an earlier olsdk made it
            for name in CURRENT_INDEXES:
                conn.execute(text(f"DROP INDEX {name}"))
            for name, columns in EARLIER_INDEXES.items():
                conn.execute(text(f"CREATE INDEX {name} ON {columns}"))
    finally:
        engine.dispose()
    assert set(EARLIER_INDEXES) <= _index_names(db)

    with ServeProcess(tmp_path, db) as server:
        _store_and_read_back(server)
    names = _index_names(db)
    assert set(CURRENT_INDEXES) <= names
    assert not set(EARLIER_INDEXES) & names


def test_a_store_of_a_later_schema_is_refused_before_anything_in_it_changes(db: str) -> None:
    Store(db).close()
    engine = create_engine(database_url(db))
    try:
        with engine.begin() as conn:  # a store as a later olsdk might make it: an index retired here
            conn.execute(text("UPDATE olsdk_store SET value = '99' WHERE name = 'schema'"))
            conn.execute(text(f"DROP INDEX {next(iter(CURRENT_INDEXES))}"))
            for name, columns in EARLIER_INDEXES.items():
                conn.execute(text(f"CREATE INDEX {name} ON {columns}"))
    finally:
        engine.dispose()
    before = _index_names(db)

    with pytest.raises(ConfigError, match=f"store schema 99, this olsdk reads {SCHEMA_VERSION}"):
        Store(db)
    assert _index_names(db) == before
