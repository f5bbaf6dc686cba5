"""Fixtures of the `olsdk serve` tests: a server process on SQLite and on PostgreSQL.

PostgreSQL is a throwaway cluster of Debian's binaries (`tests.serve.postgres`),
started once per session on a free port; each test gets a new database in it. Without
the binaries the PostgreSQL tests skip, except under CI (env var CI set), where they
fail: CI must run them (`.ci/run` installs postgresql). The browser is the graph tests'
headless chromium, with the same rule.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.graph.conftest import chromium  # noqa: F401 - the browser (skips, or fails under CI, without it)
from tests.serve.harness import ServeProcess
from tests.serve.postgres import PostgresCluster, postgres_bin

_databases = itertools.count()


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresCluster]:
    bin_dir = postgres_bin()
    if bin_dir is None:
        message = "PostgreSQL's initdb/pg_ctl are missing (apt-get install postgresql)"
        if os.environ.get("CI"):
            pytest.fail(f"{message}: CI must run the PostgreSQL tests")
        pytest.skip(message)
    with PostgresCluster(bin_dir, fsync=False) as cluster:  # a test cluster: durability is the bench's
        yield cluster


@pytest.fixture
def sqlite_db(tmp_path: Path) -> str:
    return str(tmp_path / "store" / "lineage.db")


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A store for one test: a SQLite file, or a new PostgreSQL database (its URL has the password)."""
    if request.param == "sqlite":
        return str(tmp_path / "store" / "lineage.db")
    cluster: PostgresCluster = request.getfixturevalue("postgres")
    return cluster.create_database(f"serve_{os.getpid()}_{next(_databases)}")


@pytest.fixture
def served(tmp_path: Path, db: str) -> Iterator[ServeProcess]:
    """`olsdk serve` on each store in turn."""
    with ServeProcess(tmp_path, db) as server:
        assert server.status()["store"].split(":")[0] == ("postgresql+psycopg" if "://" in db else "sqlite")
        yield server
    if "://" in db:
        assert db.split(":")[2].split("@")[0] not in server.output()  # the password is never printed


@pytest.fixture
def sqlite_served(tmp_path: Path, sqlite_db: str) -> Iterator[ServeProcess]:
    with ServeProcess(tmp_path, sqlite_db) as server:
        yield server
