"""A real ``dbt-ol run`` of a tiny dbt project on DuckDB, its OpenLineage client configured
to load ``olsdk.compat.OlsdkTransport``: the events arrive through olsdk's batch mode,
the same events the official http transport delivers for the same run.

dbt-core, dbt-duckdb and openlineage-dbt live in their own environment, ``.venv-dbt``
(the ``dbt`` extra; ``make setup`` builds it): dbt-core pins ``pathspec<0.13`` where the
dev tools need ``pathspec>=1``. Without it the test skips, except under CI, where it fails.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

import olsdk
from tests.support.client_testkit import LineageServer, kept, write_yml

pytestmark = pytest.mark.dbt

ROOT = Path(__file__).resolve().parents[2]
PROJECT = Path(__file__).resolve().parent / "dbt_project"
DBT_VENV = Path(os.environ.get("OLSDK_DBT_VENV", ROOT / ".venv-dbt"))


def dbt_bin() -> Path:
    binary = DBT_VENV / "bin" / "dbt-ol"
    if not binary.exists():
        message = f"no dbt environment at {DBT_VENV} (make setup builds it with the 'dbt' extra)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return binary


def dbt_ol_run(workdir: Path, transport: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    """``dbt-ol run`` in a copy of the project; its OpenLineage config names ``transport``."""
    binary = dbt_bin()
    project = workdir / "project"
    shutil.copytree(PROJECT, project)
    config = write_yml(workdir / "openlineage.yml", {"transport": transport})
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENLINEAGE", "DBT_", "PYTHON", "VIRTUAL_ENV"))}
    env.update(
        PATH=f"{binary.parent}{os.pathsep}{env.get('PATH', '')}",  # dbt-ol runs `dbt` from PATH
        HOME=str(workdir),
        OPENLINEAGE_CONFIG=str(config),
        OLSDK_DBT_DUCKDB=str(workdir / "warehouse.duckdb"),
        DBT_SEND_ANONYMOUS_USAGE_STATS="false",
        DO_NOT_TRACK="1",
    )
    args = [str(binary), "run", "--project-dir", str(project), "--profiles-dir", str(project)]
    return subprocess.run(args, cwd=project, env=env, capture_output=True, text=True, timeout=300, check=False)


def shape(event: dict[str, Any]) -> tuple[Any, ...]:
    """What must match between two runs (run ids and times differ)."""
    return (
        event["eventType"],
        event["job"]["namespace"],
        event["job"]["name"],
        tuple(d["name"] for d in event.get("inputs") or []),
        tuple(d["name"] for d in event.get("outputs") or []),
        tuple(sorted(event["run"].get("facets") or {})),
        tuple(sorted(event["job"].get("facets") or {})),
    )


def per_job_order(events: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Each job's event types in the order the server received them."""
    order: dict[str, list[str]] = {}
    for event in events:
        order.setdefault(event["job"]["name"], []).append(event["eventType"])
    return order


def test_dbt_ol_run_delivers_through_olsdk(tmp_path: Path) -> None:
    official_server, olsdk_server = LineageServer(), LineageServer()
    try:
        plain = dbt_ol_run(tmp_path / "official", {"type": "http", "url": official_server.url})
        assert plain.returncode == 0, plain.stdout[-2000:] + plain.stderr[-2000:]
        through_olsdk = dbt_ol_run(
            tmp_path / "olsdk",
            {
                "type": "olsdk.compat.OlsdkTransport",
                "transport": {"type": "http", "url": olsdk_server.url, "batch": {"max_events": 100, "linger": 5}},
                "spool": {"path": str(tmp_path / "spool.ndjson")},
            },
        )
        assert through_olsdk.returncode == 0, through_olsdk.stdout[-2000:] + through_olsdk.stderr[-2000:]
    finally:
        official_server.stop()
        olsdk_server.stop()
    assert kept(tmp_path / "spool.ndjson") == []
    assert len(official_server.events) == 6  # a START and a COMPLETE for the run and each of 2 models
    # dbt-ol emits from its own threads, so the order across runs is not fixed; within a
    # run (a job's START before its COMPLETE) it is.
    assert sorted(shape(e) for e in olsdk_server.events) == sorted(shape(e) for e in official_server.events)
    assert per_job_order(olsdk_server.events) == per_job_order(official_server.events)
    # olsdk's batch mode did the posting (it starts at one event per post and doubles)
    assert any(r.path.endswith("/batch") for r in olsdk_server.requests)
    assert len(olsdk_server.requests) < len(olsdk_server.events)
    for event in olsdk_server.events:
        olsdk.parse_event(json.dumps(event))  # strict: every event is valid
    revenue = [e for e in olsdk_server.events if e["job"]["name"].endswith(".revenue")]
    assert revenue and revenue[0]["inputs"][0]["name"].endswith("main.orders")
