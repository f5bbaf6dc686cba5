"""Fixtures of tests/airflow: one migrated Airflow metadata database a session, the reference
runs (the official ``file`` transport) a mode, and the tally table printed at the end."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.airflow.harness import Finished, Sites, Tally, file_events
from tests.support.client_testkit import free_port

__all__ = ["free_port"]

# (test, mode, tally, wall seconds) of every run, printed after the session
RESULTS: list[tuple[str, str, Tally | None, float]] = []


@pytest.fixture(scope="session")
def sites(tmp_path_factory: pytest.TempPathFactory) -> Sites:
    return Sites(tmp_path_factory.mktemp("airflow"))


class References:
    """The official file transport's events of one DAG run a mode, made on first use."""

    def __init__(self, sites: Sites) -> None:
        self.sites = sites
        self.runs: dict[str, tuple[list[dict[str, Any]], Finished]] = {}

    def __call__(self, mode: str) -> tuple[list[dict[str, Any]], Finished]:
        if mode not in self.runs:
            site = self.sites.new(mode)
            path = site.root / "reference.ndjson"
            site.configure({"type": "file", "log_file_path": str(path), "append": True})
            done = site.dags_test()
            events = file_events(path)
            assert events, done.tail()
            RESULTS.append(("official file transport (reference)", mode, None, done.seconds))
            self.runs[mode] = (events, done)
        return self.runs[mode]


@pytest.fixture(scope="session")
def reference(sites: Sites) -> References:
    return References(sites)


@pytest.fixture
def record(request: pytest.FixtureRequest) -> Iterator[Any]:
    """``record(mode, tally, done)``: keep a run's figures for the session's table."""

    def keep(mode: str, result: Tally, done: Finished) -> None:
        RESULTS.append((request.node.name, mode, result, done.seconds))
        print(f"{request.node.name} [{mode}]: {result}; DAG wall time {done.seconds:.1f} s")

    yield keep


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not RESULTS:
        return
    terminalreporter.section("Airflow runs (events against the official file transport's)")
    for name, mode, result, seconds in RESULTS:
        figures = str(result) if result is not None else "reference"
        terminalreporter.write_line(f"{name} [{mode}]: {figures}; DAG {seconds:.1f} s")
