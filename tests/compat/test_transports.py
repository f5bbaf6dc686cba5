"""Transports by their official names and options, each next to the official client's
own transport for the same section: ``async_http``, ``transform``, ``datadog`` and a
transport class by dotted path."""

from __future__ import annotations

import gzip
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from olsdk.client import ConfigError, OpenLineageClient
from tests.support.client_testkit import LineageServer, kept
from tests.support.official import RUN_ID, RecordingTransport, official_run_event, to_json


def official_transport(section: dict[str, Any]) -> Any:
    from openlineage.client.transport import get_default_factory

    return get_default_factory().create(dict(section))


def run_events(runs: int) -> list[Any]:
    """``runs`` runs of START, RUNNING, COMPLETE each, interleaved across runs."""
    from openlineage.client.event_v2 import Job, Run, RunEvent, RunState

    out = []
    for state in ("START", "RUNNING", "COMPLETE"):
        for i in range(runs):
            out.append(
                RunEvent(
                    eventType=RunState(state),
                    eventTime="2024-07-01T12:00:00+00:00",
                    run=Run(runId=f"0190e5c6-5d4a-7b1e-8c3f-{i:012d}"),
                    job=Job(namespace="tests", name=f"job{i}"),
                    producer="https://example.com/tests",
                )
            )
    return out


def emit_all(client: OpenLineageClient, events: list[Any]) -> None:
    for event in events:
        client.emit(to_json(event))


def test_async_http_delivers_every_event_in_run_order_like_the_official_transport(tmp_path: Path) -> None:
    events = run_events(20)
    delivered = []
    for side in ("official", "olsdk"):
        srv = LineageServer()
        section = {"type": "async_http", "url": srv.url, "max_queue_size": 100, "max_concurrent_requests": 4}
        try:
            if side == "official":
                transport = official_transport(section)
                for event in events:
                    transport.emit(event)
                assert transport.close(10)
            else:
                client = OpenLineageClient(config={"transport": section}, spool=tmp_path / "spool", environ={})
                threads = [threading.Thread(target=emit_all, args=(client, events[i::4])) for i in range(4)]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join(30)
                assert client.close(10)
        finally:
            srv.stop()
        delivered.append(srv.events)
    official, ours = delivered
    key = lambda e: (e["run"]["runId"], e["eventType"])  # noqa: E731
    assert sorted(map(key, ours)) == sorted(map(key, official)) and len(ours) == 60
    assert kept(tmp_path / "spool") == []
    for i in range(20):  # a run's events arrive in the order they were emitted
        states = [e["eventType"] for e in ours if e["job"]["name"] == f"job{i}"]
        assert states == ["START", "RUNNING", "COMPLETE"]


def parented_event() -> Any:
    from openlineage.client.facet_v2 import parent_run

    parent = parent_run.ParentRunFacet(
        run=parent_run.Run(runId="0190e5c6-0000-7000-8000-000000000001"),
        job=parent_run.Job(namespace="airflow", name="dag.task"),
        root=parent_run.Root(
            run=parent_run.RootRun(runId="0190e5c6-0000-7000-8000-000000000002"),
            job=parent_run.RootJob(namespace="airflow", name="dag"),
        ),
    )
    return official_run_event("with_parent", run_facets={"parent": parent})


@pytest.mark.parametrize("include_parent", ["true", "false"])
def test_transform_replaces_namespaces_like_the_official_transformer(include_parent: str, tmp_path: Path) -> None:
    from openlineage.client.event_v2 import Dataset, DatasetEvent

    dataset_event = DatasetEvent(
        eventTime="2024-07-01T12:00:00+00:00", dataset=Dataset(namespace="s3://b", name="k"), producer="https://x"
    )
    events = [parented_event(), official_run_event("plain"), dataset_event]
    results = []
    for side in ("official", "olsdk"):
        out = tmp_path / side
        section = {
            "type": "transform",
            "transformer_class": "openlineage.client.transport.transform.transformers."
            "job_namespace_replace_transformer.JobNamespaceReplaceTransformer",
            "transformer_properties": {"new_job_namespace": "prod", "include_parent_facet": include_parent},
            "transport": {"type": "file", "log_file_path": str(out), "append": True},
        }
        if side == "official":
            transport = official_transport(section)
            for event in events:
                transport.emit(event)
        else:
            with OpenLineageClient(config={"transport": section}, spool=False, environ={}) as client:
                for event in events:
                    client.emit(to_json(event))
        results.append([json.loads(line) for line in out.read_text().splitlines()])
    official, ours = results
    assert ours == official
    assert ours[0]["job"]["namespace"] == "prod"
    root = ours[0]["run"]["facets"]["parent"]["root"]["job"]["namespace"]
    assert root == ("prod" if include_parent == "true" else "airflow")


def test_transform_refuses_a_transformer_of_the_official_event_classes() -> None:
    section = {
        "type": "transform",
        "transformer_class": "openlineage.client.transport.transform.transform.EventTransformer",
        "transport": {"type": "console"},
    }
    with pytest.raises(ConfigError, match=r"transformer_class: .* official client's event classes"):
        OpenLineageClient(config={"transport": section}, environ={})


def test_datadog_posts_what_the_official_transport_posts(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from openlineage.client.facet_v2 import job_type_job

    dbt = {"jobType": job_type_job.JobTypeJobFacet(processingType="BATCH", integration="DBT", jobType="MODEL")}
    events = [official_run_event("airflow_task"), official_run_event("dbt_model", job_facets=dbt)]
    monkeypatch.setenv("DD_API_KEY", "dd-key-from-env")
    seen = []
    for side in ("official", "olsdk"):
        srv = LineageServer()
        monkeypatch.setenv("DD_SITE", srv.url)  # an http URL stands for the intake
        section = {"type": "datadog", "retry": {"total": 0}}
        try:
            if side == "official":
                transport = official_transport(section)
                for event in events:
                    transport.emit(event)
                transport.close(10)
            else:
                with OpenLineageClient(config={"transport": section}, spool=tmp_path / "spool", environ={}) as client:
                    for event in events:
                        client.emit(to_json(event))
        finally:
            srv.stop()
        seen.append(
            sorted(
                (
                    r.path,
                    r.headers.get("Authorization"),
                    r.headers.get("Content-Encoding"),
                    json.dumps(json.loads(gzip.decompress(r.raw)), sort_keys=True),
                )
                for r in srv.requests
            )
        )
    official, ours = seen
    assert ours == official and len(ours) == 2
    assert {r[1] for r in ours} == {"Bearer dd-key-from-env"} and {r[2] for r in ours} == {"gzip"}


def test_any_olsdk_transport_by_dotted_path(tmp_path: Path) -> None:
    section = {"type": "tests.support.official.RecordingTransport", "label": "dotted", "copies": 2}
    with OpenLineageClient(config={"transport": section}, spool=False, environ={}) as client:
        client.emit(to_json(official_run_event()))
    bodies = RecordingTransport.received.pop("dotted")
    assert len(bodies) == 2 and json.loads(bodies[0])["run"]["runId"] == RUN_ID
    with pytest.raises(ConfigError, match=r"transport\.labl: unknown key; did you mean 'label'"):
        OpenLineageClient(config={"transport": {**section, "labl": "x"}}, environ={})
    # issue 23: a transport of the official client by dotted path is built as the official factory
    # builds it (it used to be refused); tests/transports/test_official.py covers what it receives
    official_class = "openlineage.client.transport.console.ConsoleTransport"
    with OpenLineageClient(config={"transport": {"type": official_class}}, spool=tmp_path / "s", environ={}) as c:
        c.emit(to_json(official_run_event()))
        assert type(c.transport.official).__name__ == "ConsoleTransport"  # type: ignore[attr-defined]
    assert kept(tmp_path / "s") == []
