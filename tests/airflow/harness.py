"""A real Airflow 3 for tests/airflow: ``airflow dags test`` of tests/airflow/dags in .venv-airflow.

Each run gets a fresh ``AIRFLOW_HOME`` (a copy of one metadata database migrated once per
test session, SQLite) and ``HOME``, so nothing of one run (spool, outbox, logs) leaks into
another. The provider is configured as a user would configure it: environment variables
``AIRFLOW__OPENLINEAGE__*``. The run is bounded in time and its whole process group (the
provider forks a child per emission) is killed by its id if it outlives the bound.

What a run emitted is counted against a reference: the same DAG in the same environment
with the official ``file`` transport. Run ids and times differ between runs, so events are
compared by their shape (event type and job name); duplicates are the events received more
than once (same run id, event type, job and event time).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
AIRFLOW_VENV = Path(os.environ.get("OLSDK_AIRFLOW_VENV", ROOT / ".venv-airflow"))
DAGS = Path(__file__).resolve().parent / "dags"
DAG_ID = "olsdk_lineage"
COMPAT = "olsdk.compat.OlsdkTransport"
# `airflow dags test` of six tasks takes 30-60 s here; a backend that is down may hold each
# emission for the provider's execution_timeout (10 s) plus 3 s before it kills the child
RUN_TIMEOUT = 900.0
# variables of the test process that must not reach Airflow (the provider reads OPENLINEAGE_*,
# and disables its config cache when PYTEST_VERSION is set)
_DROPPED = ("OPENLINEAGE", "AIRFLOW", "PYTHON", "VIRTUAL_ENV", "PYTEST", "XDG_", "_OLSDK")


def venv_bin(name: str) -> Path:
    """A command of .venv-airflow; the test skips without it (fails under CI)."""
    binary = AIRFLOW_VENV / "bin" / name
    if not binary.exists():
        message = f"no Airflow environment at {AIRFLOW_VENV} (`make test` builds it with the 'airflow' extra)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return binary


@dataclass
class Finished:
    args: list[str]
    returncode: int
    seconds: float
    output: str  # stdout and stderr, interleaved

    def tail(self, chars: int = 4000) -> str:
        return f"$ {' '.join(self.args)}\nexit {self.returncode} after {self.seconds:.1f} s\n{self.output[-chars:]}"


def run(args: list[str], env: Mapping[str, str], cwd: Path, timeout: float = RUN_TIMEOUT) -> Finished:
    """Run ``args`` in a process group of its own; kill that group by its id after ``timeout``."""
    started = time.monotonic()
    proc = subprocess.Popen(
        args,
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate(timeout=60)
        out += f"\n[killed after {timeout} s]"
    finally:
        # forked emitters the provider left behind (none, normally) go with their group
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    return Finished(args, proc.returncode, time.monotonic() - started, out)


@dataclass
class Site:
    """One Airflow installation for a run: its AIRFLOW_HOME, HOME and SQLite warehouse."""

    root: Path
    mode: str = "fork"  # "fork" (the provider's default) or "thread" ([openlineage] execute_in_thread)
    variables: dict[str, str] = field(default_factory=dict)

    @property
    def airflow_home(self) -> Path:
        return self.root / "airflow"

    @property
    def home(self) -> Path:
        return self.root / "home"

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.upper().startswith(_DROPPED)}
        env.update(
            HOME=str(self.home),
            PATH=f"{AIRFLOW_VENV / 'bin'}{os.pathsep}{env.get('PATH', '')}",
            AIRFLOW_HOME=str(self.airflow_home),
            AIRFLOW__CORE__DAGS_FOLDER=str(DAGS),
            AIRFLOW__CORE__LOAD_EXAMPLES="False",
            AIRFLOW_CONN_OLSDK_SQLITE=json.dumps({"conn_type": "sqlite", "host": str(self.root / "warehouse.db")}),
            DO_NOT_TRACK="1",
        )
        if self.mode == "thread":
            env["AIRFLOW__OPENLINEAGE__EXECUTE_IN_THREAD"] = "True"
        env.update(self.variables)
        env.update(extra)
        return env

    def configure(self, transport: Mapping[str, Any]) -> None:
        """The provider's transport, as ``AIRFLOW__OPENLINEAGE__TRANSPORT`` (JSON)."""
        self.variables["AIRFLOW__OPENLINEAGE__TRANSPORT"] = json.dumps(transport)

    def dags_test(self, timeout: float = RUN_TIMEOUT) -> Finished:
        """``airflow dags test olsdk_lineage``: the DAG once, in this process tree, as a user runs it."""
        done = run([str(venv_bin("airflow")), "dags", "test", DAG_ID], self.env(), self.root, timeout)
        # the DAG itself succeeds: its last task runs after the failing one (all_done)
        assert done.returncode == 0, done.tail()
        for task in ("create_tables", "insert_select", "python_step", "bash_step", "after_failure"):
            assert f"task_id={task}" in done.output, f"{task} did not run\n{done.tail()}"
        return done

    def olsdk(self, *args: str, timeout: float = 300) -> Finished:
        """``olsdk ARGS`` of .venv-airflow, in this site's environment (HOME, AIRFLOW_*)."""
        return run([str(venv_bin("olsdk")), *args], self.env(), self.root, timeout)

    def down_then_replay(self, **http: Any) -> tuple[list[dict[str, Any]], Finished, Finished]:
        """The DAG once with olsdk's http transport (``http``: its other keys) pointing at a port
        nothing listens on; then a receiver there and ``olsdk replay`` with no argument. Returns
        what the receiver got, the DAG run and the replay."""
        from tests.support.client_testkit import LineageServer, unused_port

        port = unused_port()
        self.configure(compat({"type": "http", "url": f"http://127.0.0.1:{port}", **http}))
        done = self.dags_test()
        server = LineageServer(port=port)
        try:
            replayed = self.olsdk("replay")
        finally:
            server.stop()
        return list(server.events), done, replayed


class Sites:
    """Fresh sites on one metadata database migrated once (``airflow db migrate``)."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.count = 0
        self.lock = threading.Lock()  # sites are made from several threads
        template = base / "template"
        template.mkdir()
        site = Site(template)
        migrated = run([str(venv_bin("airflow")), "db", "migrate"], site.env(), template, timeout=600)
        assert migrated.returncode == 0, migrated.tail()
        self.database = site.airflow_home / "airflow.db"
        assert self.database.is_file(), migrated.tail()

    def new(self, mode: str = "fork") -> Site:
        with self.lock:
            self.count += 1
            site = Site(self.base / f"site-{self.count}-{mode}", mode)
        site.airflow_home.mkdir(parents=True)
        site.home.mkdir()
        shutil.copyfile(self.database, site.airflow_home / "airflow.db")
        return site


def compat(inner: Mapping[str, Any], spool: Path | None = None) -> dict[str, Any]:
    """The provider's transport section loading olsdk (its spool at ``spool``, else olsdk's default)."""
    section: dict[str, Any] = {"type": COMPAT, "transport": dict(inner)}
    if spool is not None:
        section["spool"] = {"path": str(spool)}
    return section


def file_events(path: Path) -> list[dict[str, Any]]:
    """The events the official file transport appended to ``path`` (every line must be one)."""
    lines = [line for line in path.read_text().splitlines() if line.strip()]
    return [json.loads(line) for line in lines]


def shape(event: Mapping[str, Any]) -> tuple[str, str]:
    return (str(event.get("eventType")), str(event["job"]["name"]))


def identity(event: Mapping[str, Any]) -> tuple[str, ...]:
    return (str(event["run"]["runId"]), str(event.get("eventType")), str(event["job"]["name"]), str(event["eventTime"]))


@dataclass(frozen=True)
class Tally:
    """What a run delivered against the reference."""

    expected: int
    received: int
    unique: int
    lost: int
    duplicates: int
    extra: int  # events received that the reference does not have
    missing: tuple[tuple[str, str], ...]  # shapes (event type, job) not received, with repeats

    def __str__(self) -> str:
        return (
            f"{self.unique} of {self.expected} events delivered, {self.lost} lost, {self.duplicates} duplicates"
            + (f", {self.extra} not in the reference" if self.extra else "")
            + (f"; missing (first 5): {list(self.missing)[:5]}" if self.missing else "")
        )


def tally(reference: Iterable[Mapping[str, Any]], received: Iterable[Mapping[str, Any]]) -> Tally:
    ref = list(reference)
    got = list(received)
    unique = {identity(e): e for e in got}
    expected, delivered = Counter(shape(e) for e in ref), Counter(shape(e) for e in unique.values())
    missing = expected - delivered
    return Tally(
        expected=len(ref),
        received=len(got),
        unique=len(unique),
        lost=sum(missing.values()),
        duplicates=len(got) - len(unique),
        extra=sum((delivered - expected).values()),
        missing=tuple(sorted(missing.elements())),
    )
