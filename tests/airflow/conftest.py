"""Fixtures of tests/airflow: one migrated Airflow metadata database a session, the DAG runs of
the selected tests started together in the background, and the tally table printed at the end.

An ``airflow dags test`` run is mostly waiting (Airflow polls its task states once a second,
the provider waits on its forked children), so the runs the selected tests need go two at
a time in a thread pool as soon as the first of those tests asks; each test then waits for
its own runs and asserts on them. A test module declares its runs in ``PLANS``: the test's
name (``test_receiver_up[fork]``) -> a function of the ``Sites`` that does the runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import pytest

from tests.airflow.harness import RUN_TIMEOUT, Finished, Sites, Tally
from tests.support.client_testkit import free_port

__all__ = ["free_port"]

# (test, mode, tally, wall seconds) of every run, printed after the session
RESULTS: list[tuple[str, str, Tally | None, float]] = []
PARALLEL_RUNS = 2


@pytest.fixture(scope="session")
def sites(tmp_path_factory: pytest.TempPathFactory) -> Sites:
    return Sites(tmp_path_factory.mktemp("airflow"))


class Campaign:
    """The planned runs of the selected tests, ``PARALLEL_RUNS`` at a time."""

    def __init__(self, sites: Sites, plans: dict[str, Callable[[Sites], Any]]) -> None:
        self.pool = ThreadPoolExecutor(PARALLEL_RUNS, thread_name_prefix="airflow-run")
        self.futures: dict[str, Future[Any]] = {name: self.pool.submit(plan, sites) for name, plan in plans.items()}

    def result(self, name: str) -> Any:
        # a plan does at most two DAG runs and a replay, each bounded by RUN_TIMEOUT
        return self.futures[name].result(timeout=RUN_TIMEOUT * 3 * len(self.futures))

    def close(self) -> None:
        for future in self.futures.values():
            future.cancel()
        self.pool.shutdown(wait=True)


@pytest.fixture(scope="session")
def campaign(request: pytest.FixtureRequest, sites: Sites) -> Iterator[Campaign]:
    plans: dict[str, Callable[[Sites], Any]] = {}
    for item in request.session.items:
        module_plans: dict[str, Callable[[Sites], Any]] = getattr(getattr(item, "module", None), "PLANS", {})
        # the reference runs first: the other tests compare against them
        for name in ("reference", item.name):
            if name in module_plans and name not in plans:
                plans[name] = module_plans[name]
    runs = Campaign(sites, plans)
    yield runs
    runs.close()


@pytest.fixture
def record(request: pytest.FixtureRequest) -> Iterator[Any]:
    """``record(mode, tally, done)``: keep a run's figures for the session's table."""

    def keep(mode: str, result: Tally | None, done: Finished) -> None:
        RESULTS.append((request.node.name, mode, result, done.seconds))
        print(f"{request.node.name} [{mode}]: {result or 'reference'}; DAG wall time {done.seconds:.1f} s")

    yield keep


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not RESULTS:
        return
    terminalreporter.section("Airflow runs (events against the official file transport's)")
    for name, mode, result, seconds in RESULTS:
        figures = str(result) if result is not None else "reference"
        terminalreporter.write_line(f"{name} [{mode}]: {figures}; DAG {seconds:.1f} s")
