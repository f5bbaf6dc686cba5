"""Interoperability with the official client (openlineage-python) over real HTTP."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import olsdk
from olsdk.client import OpenLineageClient
from tests.support.client_testkit import LineageServer
from tests.support.overlay import parent_root_in_models


def official_events() -> list[Any]:
    from openlineage.client.event_v2 import (
        Dataset,
        DatasetEvent,
        InputDataset,
        Job,
        JobEvent,
        OutputDataset,
        Run,
        RunEvent,
        RunState,
    )
    from openlineage.client.facet_v2 import (
        documentation_job,
        error_message_run,
        parent_run,
        schema_dataset,
        sql_job,
    )

    run_id = "0190e5c6-5d4a-7b1e-8c3f-1a2b3c4d5e6f"
    parent = parent_run.ParentRunFacet(
        run=parent_run.Run(runId="0190e5c6-0000-7000-8000-000000000001"),
        job=parent_run.Job(namespace="airflow", name="dag.task"),
        root=parent_run.Root(
            run=parent_run.RootRun(runId="0190e5c6-0000-7000-8000-000000000002"),
            job=parent_run.RootJob(namespace="airflow", name="dag"),
        ),
    )
    schema = schema_dataset.SchemaDatasetFacet(
        fields=[
            schema_dataset.SchemaDatasetFacetFields(name="id", type="BIGINT", description="key"),
            schema_dataset.SchemaDatasetFacetFields(
                name="address",
                type="STRUCT",
                fields=[schema_dataset.SchemaDatasetFacetFields(name="city", type="STRING")],
            ),
        ]
    )
    failed = RunEvent(
        eventType=RunState.FAIL,
        eventTime="2024-07-01T12:00:00.123456+00:00",
        run=Run(
            runId=run_id,
            facets={
                "parent": parent,
                "errorMessage": error_message_run.ErrorMessageRunFacet(
                    message="division by zero",
                    programmingLanguage="python",
                    stackTrace="Traceback (most recent call last):\n  ...\nZeroDivisionError",
                ),
            },
        ),
        job=Job(
            namespace="spark",
            name="etl.load",
            facets={
                "sql": sql_job.SQLJobFacet(query="SELECT 1 -- ünïcödé"),
                "documentation": documentation_job.DocumentationJobFacet(description="loads"),
            },
        ),
        inputs=[InputDataset(namespace="s3://bucket", name="raw/events", facets={"schema": schema})],
        outputs=[OutputDataset(namespace="postgres://db:5432", name="public.events")],
        producer="https://github.com/OpenLineage/OpenLineage/tree/1.54.0/client/python",
    )
    dataset_event = DatasetEvent(
        eventTime="2024-07-01T12:00:01Z",
        dataset=Dataset(namespace="s3://bucket", name="raw/events", facets={"schema": schema}),
        producer="https://example.com/p",
    )
    job_event = JobEvent(
        eventTime="2024-07-01T12:00:02Z",
        job=Job(namespace="spark", name="etl.load"),
        inputs=[InputDataset(namespace="s3://bucket", name="raw/events")],
        outputs=[],
        producer="https://example.com/p",
    )
    return [failed, dataset_event, job_event]


def test_official_client_events_parse_losslessly(server: LineageServer, restore_environ: None) -> None:
    from openlineage.client import OpenLineageClient as Official

    official = Official(config={"transport": {"type": "http", "url": server.url}})
    for event in official_events():
        official.emit(event)
    official.close(5)
    assert len(server.requests) == 3
    kinds = []
    for request in server.requests:
        sent = json.loads(request.body)
        parsed = olsdk.parse_event(request.body)
        kinds.append(type(parsed).__name__)
        assert json.loads(olsdk.to_json(parsed)) == sent  # nothing lost, nothing added
    assert kinds == ["RunEvent", "DatasetEvent", "JobEvent"]
    failed = olsdk.parse_event(server.requests[0].body)
    assert isinstance(failed, olsdk.RunEvent)
    assert failed.run.facets is not None and failed.run.facets.parent is not None
    root = failed.run.facets.parent.root
    if parent_root_in_models():
        assert root is not None and root.job.name == "dag"
    else:  # spec 1.30.0: no root field; the root is kept as extra data (docs/explanation/spec-versions.md)
        assert isinstance(root, dict) and root["job"]["name"] == "dag"
    assert failed.run.facets.errorMessage is not None
    assert failed.run.facets.errorMessage.message == "division by zero"


def to_official(data: dict[str, Any]) -> Any:
    """Build the official client's attrs RunEvent from olsdk JSON (what it can model)."""
    from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState
    from openlineage.client.facet_v2 import error_message_run, parent_run

    facets: dict[str, Any] = {}
    raw = data["run"].get("facets", {})
    if "errorMessage" in raw:
        e = raw["errorMessage"]
        facets["errorMessage"] = error_message_run.ErrorMessageRunFacet(
            message=e["message"],
            programmingLanguage=e["programmingLanguage"],
            stackTrace=e.get("stackTrace"),
            producer=e["_producer"],
        )
    if "parent" in raw:
        p = raw["parent"]
        root = p.get("root")
        facets["parent"] = parent_run.ParentRunFacet(
            run=parent_run.Run(runId=p["run"]["runId"]),
            job=parent_run.Job(namespace=p["job"]["namespace"], name=p["job"]["name"]),
            root=parent_run.Root(
                run=parent_run.RootRun(runId=root["run"]["runId"]),
                job=parent_run.RootJob(namespace=root["job"]["namespace"], name=root["job"]["name"]),
            )
            if root
            else None,
            producer=p["_producer"],
        )
    return RunEvent(
        eventType=RunState(data["eventType"]),
        eventTime=data["eventTime"],
        producer=data["producer"],
        run=Run(runId=data["run"]["runId"], facets=facets),
        job=Job(namespace=data["job"]["namespace"], name=data["job"]["name"]),
        inputs=[InputDataset(namespace=d["namespace"], name=d["name"]) for d in data.get("inputs", [])],
        outputs=[OutputDataset(namespace=d["namespace"], name=d["name"]) for d in data.get("outputs", [])],
    )


def without_empty(value: Any) -> Any:
    """Drop empty containers (the official serialiser writes `facets: {}`, `inputs: []`)."""
    if isinstance(value, dict):
        return {k: without_empty(v) for k, v in value.items() if v not in ({}, [], None)}
    if isinstance(value, list):
        return [without_empty(v) for v in value]
    return value


def test_olsdk_events_are_read_by_official_models(server: LineageServer, tmp_path: Path) -> None:
    from openlineage.client.serde import Serde

    client = OpenLineageClient(
        config={"transport": {"type": "http", "url": server.url}},
        spool=tmp_path / "spool",
        environ={},
    )
    with (
        client.run("ns", "parent") as outer,
        pytest.raises(ZeroDivisionError),
        client.run("ns", "child", inputs=[("s3://b", "in")], parent=outer) as run,
    ):
        run.add_outputs(("s3://b", "out"))
        1 / 0  # noqa: B018
    client.close()
    assert len(server.events) == 4
    for sent in server.events:
        official = to_official(sent)  # attrs validators check runId, eventTime, URLs
        back = Serde.to_dict(official)
        for facet in back["run"].get("facets", {}).values():
            facet.pop("_schemaURL")  # the official client stamps its own facet versions
        mine = json.loads(json.dumps(sent))
        for facet in mine["run"].get("facets", {}).values():
            facet.pop("_schemaURL")
        back.pop("schemaURL"), mine.pop("schemaURL")
        assert without_empty(back) == without_empty(mine)
    fail = server.events[2]
    assert fail["eventType"] == "FAIL"
    assert "ZeroDivisionError" in fail["run"]["facets"]["errorMessage"]["stackTrace"]
