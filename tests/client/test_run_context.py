"""The run helper takes its parent and root run from ``OPENLINEAGE_CONTEXT``, as the official
dbt integration reads it (compared with what openlineage-dbt makes of the same value, when
its environment, ``.venv-dbt``, is there)."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import pytest

from olsdk import naming
from olsdk.transports import Payload
from tests.support.client_testkit import collecting_client
from tests.support.overlay import parent_root_in_models

ROOT = Path(__file__).resolve().parents[2]
DBT_PYTHON = Path(os.environ.get("OLSDK_DBT_VENV", ROOT / ".venv-dbt")) / "bin" / "python"

PARENT_RUN = "0190e5c6-0000-7000-8000-0000000000a1"
ROOT_RUN = "0190e5c6-0000-7000-8000-0000000000a2"
TASK = {"namespace": "airflow", "name": "dag.task"}
DAG = {"namespace": "airflow", "name": "dag"}
JOB_TYPE = {
    "_producer": "https://github.com/apache/airflow",
    "_schemaURL": "https://openlineage.io/spec/facets/2-0-3/JobTypeJobFacet.json#/$defs/JobTypeJobFacet",
    "processingType": "BATCH",
    "integration": "AIRFLOW",
    "jobType": "TASK",
}


def context(root: bool = True, **parent: Any) -> str:
    body: dict[str, Any] = {"run": {"runId": PARENT_RUN}, "job": dict(TASK)}
    if root:
        body["root"] = {"run": {"runId": ROOT_RUN}, "job": dict(DAG)}
    body.update(parent)
    return json.dumps({"parent": body, "someFutureKey": {"ignored": True}})


def run_parents(value: str | None = None, **run_args: Any) -> list[dict[str, Any] | None]:
    """The ``parent`` facet of each event of one ``client.run`` block, ``OPENLINEAGE_CONTEXT=value``
    (None: unset) in the client's environment."""
    client, sent = collecting_client(environ={} if value is None else {"OPENLINEAGE_CONTEXT": value})
    with client, client.run("ns", "job", **run_args):
        pass
    return [_parent_of(p) for p in sent]


def _parent_of(payload: Payload) -> dict[str, Any] | None:
    facets = payload.event()["run"].get("facets", {})
    found: dict[str, Any] | None = facets.get("parent")
    return found


def official_parent(value: str) -> dict[str, Any]:
    """The parent facet openlineage-dbt builds from ``OPENLINEAGE_CONTEXT=value`` (in a process of its own)."""
    if not DBT_PYTHON.exists():
        pytest.skip(f"no official integration environment at {DBT_PYTHON.parent.parent}")
    code = textwrap.dedent("""
        import json
        from openlineage.client.serde import Serde
        from openlineage.common.provider.dbt.utils import get_parent_run_metadata
        print(Serde.to_json(get_parent_run_metadata().to_openlineage()))
    """)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENLINEAGE", "PYTHON", "VIRTUAL_ENV"))}
    env["OPENLINEAGE_CONTEXT"] = value
    done = subprocess.run([str(DBT_PYTHON), "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    facet: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return facet


def comparable(facet: dict[str, Any]) -> dict[str, Any]:
    """The run, job and root of a parent facet (the facet's own producer and schema differ by design)."""
    return {k: v for k, v in facet.items() if k in ("run", "job", "root")}


@pytest.mark.parametrize("with_root", [True, False], ids=["parent-and-root", "parent-only"])
def test_every_event_has_the_parent_and_root_the_official_integration_reads(with_root: bool) -> None:
    value = context(root=with_root)
    start, complete = run_parents(value)
    assert start is not None and start == complete
    assert start["run"] == {"runId": PARENT_RUN} and start["job"] == TASK
    if not parent_root_in_models():  # spec 1.30.0: no root in ParentRunFacet
        return
    expected_root = (
        {"run": {"runId": ROOT_RUN}, "job": DAG} if with_root else {"run": {"runId": PARENT_RUN}, "job": TASK}
    )
    assert start["root"] == expected_root
    assert comparable(start) == comparable(official_parent(value))


def test_forwarded_facets_go_into_the_parent_facet() -> None:
    if not parent_root_in_models():
        pytest.skip("these models have no facets in the parent facet's job")
    value = context(job={**TASK, "facets": {"jobType": JOB_TYPE}})
    start, _complete = run_parents(value)
    assert start is not None
    assert start["job"]["facets"] == {"jobType": JOB_TYPE}
    assert comparable(start) == comparable(official_parent(value))


def test_a_child_run_keeps_the_context_root() -> None:
    client, sent = collecting_client(environ={"OPENLINEAGE_CONTEXT": context()})
    with client, client.run("ns", "outer") as outer, client.run("ns", "inner", parent=outer):
        pass
    inner = next(_parent_of(p) for p in sent if p.event()["job"]["name"] == "inner")
    assert inner is not None and inner["job"] == {"namespace": "ns", "name": "outer"}
    if parent_root_in_models():
        assert inner["root"] == {"run": {"runId": ROOT_RUN}, "job": DAG}


def test_an_explicit_parent_wins_over_the_variable() -> None:
    mine = naming.parent(job_namespace="mine", job_name="caller", run_id="0190e5c6-0000-7000-8000-0000000000b1")
    for args in ({"parent": mine}, {"run_facets": {"parent": mine}}):
        start, _complete = run_parents(context(), **args)
        assert start is not None and start["job"] == {"namespace": "mine", "name": "caller"}, args


@pytest.mark.parametrize(
    ("value", "names"),
    [
        ("{not json", ["OPENLINEAGE_CONTEXT", "not JSON", "'{not json'"]),
        (context(run={"runId": "run-42"}), ["OPENLINEAGE_CONTEXT", "parent.run.runId", "'run-42'"]),
        (context(job={"namespace": "airflow"}), ["OPENLINEAGE_CONTEXT", "parent.job.name", "None"]),
        (context(root=False, run=[1]), ["OPENLINEAGE_CONTEXT", "parent.run", "[1]"]),
    ],
    ids=["not-json", "run-id-not-a-uuid", "no-job-name", "run-not-an-object"],
)
def test_an_unusable_value_is_ignored_with_a_warning_naming_it(
    caplog: pytest.LogCaptureFixture, value: str, names: list[str]
) -> None:
    with caplog.at_level(logging.WARNING, logger="olsdk.naming"):
        start, complete = run_parents(value)
    assert start is None and complete is None
    warning = " ".join(r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)
    for name in names:
        assert name in warning


def test_no_parent_key_and_no_variable_mean_no_parent() -> None:
    assert run_parents() == [None, None]
    assert run_parents(json.dumps({"other": {}})) == [None, None]


def test_the_context_is_read_from_the_clients_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """``environ=`` replaces ``os.environ`` for everything the client reads, this variable too."""
    monkeypatch.setenv("OPENLINEAGE_CONTEXT", context())
    assert run_parents() == [None, None]  # the client was given an empty environment
    client, sent = collecting_client(environ=None)  # None: the process's own
    with client, client.run("ns", "job"):
        pass
    parent = _parent_of(sent[0])
    assert parent is not None and parent["run"] == {"runId": PARENT_RUN}
