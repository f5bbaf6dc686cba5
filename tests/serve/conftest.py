"""Fixtures of the `olsdk serve` tests: a server process on a SQLite file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.serve.harness import ServeProcess


@pytest.fixture
def sqlite_db(tmp_path: Path) -> str:
    return str(tmp_path / "store" / "lineage.db")


@pytest.fixture
def served(tmp_path: Path, sqlite_db: str) -> Iterator[ServeProcess]:
    with ServeProcess(tmp_path, sqlite_db) as server:
        yield server
