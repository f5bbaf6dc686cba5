"""The run lifecycle helper: events, datasets of every accepted kind, parents, emitters."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import olsdk
from olsdk import naming
from olsdk.client import DatasetLike, Emitter, OpenLineageClient, RunContext, Spool
from olsdk.models import InputDataset, NominalTimeRunFacet, OutputDataset, SQLJobFacet
from olsdk.transports import Payload
from tests.support.client_testkit import collecting_client
from tests.support.overlay import parent_root_in_models


def emitted(sent: list[Payload]) -> list[dict[str, Any]]:
    return [p.event() for p in sent]


def test_start_and_complete_with_datasets_and_facets() -> None:
    client, sent = collecting_client()
    with client, client.run("ns", "load", inputs=[("s3://b", "in")]) as run:
        run.add_outputs(("s3://b", "out"))
        run.add_job_facets(sql=SQLJobFacet(query="select 1"))
    start, complete = emitted(sent)
    assert [start["eventType"], complete["eventType"]] == ["START", "COMPLETE"]
    assert start["run"]["runId"] == complete["run"]["runId"] == run.run_id
    assert start["inputs"] == [{"namespace": "s3://b", "name": "in"}]
    assert "outputs" not in start
    assert complete["outputs"] == [{"namespace": "s3://b", "name": "out"}]
    assert complete["job"]["facets"]["sql"]["query"] == "select 1"
    for event in (start, complete):
        olsdk.parse_event(event)  # valid against the models


def test_exception_emits_fail_with_stack_trace_and_reraises() -> None:
    def transform() -> None:
        raise ValueError("bad row 42")

    client, sent = collecting_client()
    with client, pytest.raises(ValueError, match="bad row 42"), client.run("ns", "load"):
        transform()
    _start, fail = emitted(sent)
    assert fail["eventType"] == "FAIL"
    error = fail["run"]["facets"]["errorMessage"]
    assert error["message"] == "bad row 42"
    assert error["programmingLanguage"] == "python"
    assert "in transform" in error["stackTrace"] and "ValueError: bad row 42" in error["stackTrace"]


def test_keyboard_interrupt_emits_abort() -> None:
    client, sent = collecting_client()
    with client, pytest.raises(KeyboardInterrupt), client.run("ns", "load"):
        raise KeyboardInterrupt
    assert [e["eventType"] for e in emitted(sent)] == ["START", "ABORT"]


def test_parent_chain_and_producer_from_config() -> None:
    producer = "https://example.com/my-pipeline/1.0"
    before = olsdk.get_default_producer()
    client, sent = collecting_client(config={"producer": producer})
    try:
        with (
            client,
            client.run("ns", "dag") as dag,
            client.run("ns", "task", parent=dag) as task,
            client.run("ns", "step", parent=task),
        ):
            pass
    finally:
        olsdk.set_default_producer(before)
    events = emitted(sent)
    assert all(e["producer"] == producer for e in events)
    step = next(e for e in events if e["job"]["name"] == "step")
    parent = step["run"]["facets"]["parent"]
    assert parent["_producer"] == producer
    assert parent["job"] == {"namespace": "ns", "name": "task"}
    if parent_root_in_models():
        assert parent["root"]["job"] == {"namespace": "ns", "name": "dag"}
        assert parent["root"]["run"]["runId"] == dag.run_id
    else:  # spec 1.30.0: no root in ParentRunFacet, dropped (docs/explanation/spec-versions.md)
        assert "root" not in parent


def test_emission_failure_does_not_break_the_block(tmp_path: Path) -> None:
    client = OpenLineageClient(
        config={"transport": {"type": "http", "url": "http://127.0.0.1:9", "retry": {"total": 0}}},
        spool=tmp_path / "spool",
        environ={},
    )
    ran = False
    with client.run("ns", "load"):
        ran = True
    assert ran
    assert client.relay is not None and client.relay.handed.tried(30)  # the attempts are the relay's
    assert len(Spool(tmp_path / "spool")) == 2  # issue 23: kept in the outbox beside the spool file


class Warehouse:
    """A dataset of another library: it converts itself (the DatasetConvertible protocol)."""

    def as_input(self) -> InputDataset:
        return InputDataset(namespace="snowflake://acct", name="DB.S.ORDERS")

    def as_output(self) -> OutputDataset:
        return OutputDataset(namespace="snowflake://acct", name="DB.S.ORDERS")


class Named:
    """Anything with namespace and name (and facets) is still read, as before."""

    namespace = "file"
    name = "/data/x.csv"
    facets = None


def test_every_kind_of_dataset_like() -> None:
    pg = naming.postgres(host="db", database="shop", schema="public", table="orders")
    given: list[DatasetLike] = [
        InputDataset(namespace="s3://b", name="model"),
        OutputDataset(namespace="s3://b", name="model-out"),
        Warehouse(),
        pg,
        ("s3://b", "pair"),
    ]
    client, sent = collecting_client()
    with client.run("ns", "all", inputs=given, outputs=given) as run:
        run.add_inputs(Named())  # type: ignore[arg-type]
    _start, complete = emitted(sent)
    names = ["model", "model-out", "DB.S.ORDERS", "shop.public.orders", "pair"]
    assert [d["name"] for d in complete["inputs"]] == [*names, "/data/x.csv"]
    assert [d["name"] for d in complete["outputs"]] == names
    assert complete["inputs"][3]["namespace"] == "postgres://db:5432"
    with pytest.raises(TypeError, match="not a dataset: 42"):
        client.run("ns", "bad", inputs=[42])  # type: ignore[list-item]


def test_any_emitter_will_do() -> None:
    class Recorder:
        producer = "https://example.com/recorder"

        def __init__(self) -> None:
            self.events: list[Any] = []

        def emit(self, event: Any) -> None:
            self.events.append(event)

    recorder = Recorder()
    assert isinstance(recorder, Emitter)
    with RunContext(recorder, "ns", "job") as parent, RunContext(recorder, "ns", "child", parent=parent):
        pass
    assert [(e.job.name, e.eventType.value) for e in recorder.events] == [
        ("job", "START"),
        ("child", "START"),
        ("child", "COMPLETE"),
        ("job", "COMPLETE"),
    ]
    assert all(e.producer == recorder.producer for e in recorder.events)
    child_parent = recorder.events[1].run.facets.parent
    assert child_parent.producer == recorder.producer
    assert str(child_parent.run.runId) == parent.run_id


def test_a_parent_facet_from_elsewhere_gives_the_root_to_children() -> None:
    airflow = naming.parent(
        job_namespace="airflow",
        job_name="dag.task",
        run_id="0190e5c6-0000-7000-8000-000000000001",
        root_job_name="dag",
        root_run_id="0190e5c6-0000-7000-8000-000000000002",
    )
    client, sent = collecting_client()
    with client.run("spark", "app", parent=airflow) as app, client.run("spark", "app.query", parent=app):
        pass
    query_start = emitted(sent)[1]
    facet = query_start["run"]["facets"]["parent"]
    assert facet["job"] == {"namespace": "spark", "name": "app"}
    if not parent_root_in_models():  # spec 1.30.0: no root in ParentRunFacet (docs/explanation/spec-versions.md)
        assert "root" not in facet
        return
    assert facet["root"] == {
        "run": {"runId": "0190e5c6-0000-7000-8000-000000000002"},
        "job": {"namespace": "airflow", "name": "dag"},
    }


def test_a_run_helper_event_is_what_the_shared_builder_makes() -> None:
    from olsdk._builders import _build

    client = OpenLineageClient(spool=False, environ={}, config={"transport": {"type": "noop"}})
    run = client.run(
        "ns",
        "j",
        inputs=[("s3://b", "in")],
        run_facets={"nominalTime": NominalTimeRunFacet(nominalStartTime="2024-01-01T00:00:00Z")},
    )
    event = run.event("START")
    built = _build.run_event(
        "START",
        None,
        run.run_id,
        ("ns", "j"),
        run_facets=run.run_facets,
        inputs=run.inputs,
        producer=client.producer,
        omit_empty_datasets=True,
    )
    mine, theirs = olsdk.to_dict(event), olsdk.to_dict(built)
    mine.pop("eventTime"), theirs.pop("eventTime")
    assert mine == theirs
