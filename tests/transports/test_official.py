"""Transports written against the official client's ``Transport`` interface, named by dotted
``type:``: built as the official factory builds them, fed official event objects."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from olsdk import models as m
from olsdk._foundation._exceptions import ConfigError
from olsdk.client import OpenLineageClient, Spool
from tests.support.client_testkit import kept
from tests.support.official import RUN_ID, OfficialRecordingTransport, official_run_event

DOTTED = "tests.support.official.OfficialRecordingTransport"


def official_event() -> Any:
    from openlineage.client.event_v2 import InputDataset, OutputDataset
    from openlineage.client.facet_v2 import RunFacet, parent_run, schema_dataset, sql_job

    parent = parent_run.ParentRunFacet(
        run=parent_run.Run(runId="0190e5c6-5d4a-7b1e-8c3f-000000000001"),
        job=parent_run.Job(namespace="scheduler", name="dag"),
        root=parent_run.Root(
            run=parent_run.RootRun(runId="0190e5c6-5d4a-7b1e-8c3f-000000000002"),
            job=parent_run.RootJob(namespace="scheduler", name="dag"),
        ),
    )
    custom = RunFacet().with_additional_properties(rows=42, note="from a facet class of the user's own")
    schema = schema_dataset.SchemaDatasetFacet(
        fields=[
            schema_dataset.SchemaDatasetFacetFields(name="id", type="BIGINT"),
            schema_dataset.SchemaDatasetFacetFields(name="payload", type="STRUCT", fields=[]),
        ]
    )
    return official_run_event(
        run_facets={"parent": parent, "myCompany_stats": custom},
        job_facets={"sql": sql_job.SQLJobFacet(query="insert into out select * from raw")},
        inputs=[InputDataset(namespace="postgres://db:5432", name="public.raw", facets={"schema": schema})],
        outputs=[OutputDataset(namespace="postgres://db:5432", name="public.out")],
    )


def without_empty(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_empty(v) for k, v in value.items() if v not in ({}, [], None)}
    if isinstance(value, list):
        return [without_empty(v) for v in value]
    return value


def received(label: str) -> list[Any]:
    return OfficialRecordingTransport.received.pop(label, [])


def test_an_official_interface_transport_gets_what_the_official_client_gives_it(tmp_path: Path) -> None:
    from openlineage.client import OpenLineageClient as Official
    from openlineage.client.event_v2 import RunEvent, RunState
    from openlineage.client.facet_v2 import RunFacet, parent_run, schema_dataset, sql_job
    from openlineage.client.serde import Serde

    event = official_event()
    official = Official(config={"transport": {"type": DOTTED, "label": "by-official"}})
    official.emit(event)
    (by_official,) = received("by-official")

    section = {"type": DOTTED, "label": "by-olsdk", "name": "mine"}
    with OpenLineageClient(config={"transport": section}, spool=tmp_path / "spool", environ={}) as client:
        client.emit(event)
    (by_olsdk,) = received("by-olsdk")
    assert OfficialRecordingTransport.closed[-1] == "by-olsdk"  # closed with the client

    assert json.loads(Serde.to_json(by_olsdk)) == json.loads(Serde.to_json(by_official))
    assert isinstance(by_olsdk, RunEvent) and by_olsdk.eventType is RunState.START
    assert by_olsdk.run.runId == RUN_ID
    facets = by_olsdk.run.facets
    assert type(facets["parent"]) is parent_run.ParentRunFacet
    assert type(facets["parent"].root) is parent_run.Root and facets["parent"].root.job.name == "dag"
    assert isinstance(facets["myCompany_stats"], RunFacet) and facets["myCompany_stats"].rows == 42
    assert type(by_olsdk.job.facets["sql"]) is sql_job.SQLJobFacet
    schema = by_olsdk.inputs[0].facets["schema"]
    assert type(schema) is schema_dataset.SchemaDatasetFacet
    assert [type(f) for f in schema.fields] == [schema_dataset.SchemaDatasetFacetFields] * 2
    assert kept(tmp_path / "spool") == []


def test_olsdk_models_reach_it_as_official_objects_with_nothing_lost(tmp_path: Path) -> None:
    from openlineage.client.event_v2 import DatasetEvent
    from openlineage.client.facet_v2 import error_message_run
    from openlineage.client.serde import Serde

    event = m.RunEvent(
        eventType=m.EventType.FAIL,
        run=m.Run(
            runId=RUN_ID,
            facets=m.RunFacets(errorMessage=m.ErrorMessageRunFacet(message="boom", programmingLanguage="python")),
        ),
        job=m.Job(namespace="tests", name="job"),
    )
    data = json.loads(m.RunEvent.model_validate(event).model_dump_json(by_alias=True, exclude_none=True))
    data["vendorExtra"] = {"kept": True}  # a key no official class declares
    dataset_event = {
        "eventTime": "2024-07-01T12:00:00Z",
        "producer": "https://example.com/tests",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent",
        "dataset": {"namespace": "s3://bucket", "name": "events", "facets": {}},
    }
    section = {"type": DOTTED, "label": "models"}
    with OpenLineageClient(config={"transport": section}, spool=tmp_path / "spool", environ={}) as client:
        client.emit(data)
        client.emit(dataset_event)
    run_event, ds_event = received("models")
    assert type(run_event.run.facets["errorMessage"]) is error_message_run.ErrorMessageRunFacet
    assert run_event.vendorExtra == {"kept": True}
    # schema URLs, producers and extras as emitted (the official serialiser adds empty containers)
    assert without_empty(json.loads(Serde.to_json(run_event))) == data
    assert isinstance(ds_event, DatasetEvent) and ds_event.dataset.name == "events"


def test_its_failures_are_kept_and_its_config_is_checked_when_loaded(tmp_path: Path) -> None:
    spool = tmp_path / "spool"
    section = {"type": DOTTED, "label": "down", "fail": "true"}
    with OpenLineageClient(config={"transport": section}, spool=spool, environ={}) as client:
        client.emit(official_event())
    (record,) = Spool(spool).records()
    assert "ConnectionError: down: backend unavailable" in record["reason"]
    assert record["event"]["run"]["runId"] == RUN_ID
    with pytest.raises(ConfigError, match=r"transport: OfficialRecordingConfig\.from_dict refused .*label is required"):
        OpenLineageClient(config={"transport": {"type": DOTTED}}, environ={})
    with pytest.raises(ConfigError, match=r"unknown keys \['labl'\]"):
        OpenLineageClient(config={"transport": {"type": DOTTED, "label": "x", "labl": "y"}}, environ={})
    env = {"OPENLINEAGE__TRANSPORT__TYPE": DOTTED, "OPENLINEAGE__TRANSPORT__LABEL": "from-env"}
    with OpenLineageClient(spool=spool, environ=env) as client:
        client.emit(official_event())
    assert len(received("from-env")) == 1


def test_a_class_that_is_no_transport_is_refused_naming_both_interfaces() -> None:
    with pytest.raises(ConfigError, match=r"not a transport class .*openlineage\.client\.transport\.Transport"):
        OpenLineageClient(config={"transport": {"type": "tests.support.official.RUN_ID"}}, environ={})
