"""What a user writes with olsdk, checked by mypy --strict and basedpyright (test_user_code.py).

`assert_type` lines fail a checker that sees the models as `Any`/`Unknown`; at run time
they do nothing, and this module also runs as written.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import assert_type

import olsdk
from olsdk.client import uuid7
from olsdk.facets import CustomRunFacet, attach
from olsdk.models import (
    EventType,
    InputDataset,
    Job,
    JobFacets,
    NominalTimeRunFacet,
    ParentRunFacet,
    ParentRunFacetJob,
    ParentRunFacetRun,
    Run,
    RunEvent,
    RunFacets,
    SchemaDatasetFacet,
    SchemaDatasetFacetFields,
    SQLJobFacet,
)


class MyCompanyStatisticsRunFacet(
    CustomRunFacet,
    prefix="myCompany",
    schema_base_url="https://schemas.example.com/olfacets",
    version="1-0-0",
):
    """Row statistics of a run."""

    rows: int
    bytesWritten: int | None = None


def build() -> RunEvent:
    parent = ParentRunFacet(
        run=ParentRunFacetRun(runId="0190d3a4-7b5c-7a3e-9f00-1234567890aa"),
        job=ParentRunFacetJob(namespace="airflow", name="dag.task"),
    )
    run = Run(runId="0190d3a4-7b5c-7a3e-9f00-1234567890ab", facets=RunFacets(parent=parent))
    return RunEvent(
        eventType=EventType.START,
        run=attach(run, MyCompanyStatisticsRunFacet(rows=42)),
        job=Job(namespace="etl", name="daily_orders", facets=JobFacets(sql=SQLJobFacet(query="select 1"))),
        inputs=[InputDataset(namespace="postgres://db:5432", name="public.orders")],
    )


def build_with_python_values() -> RunEvent:
    # uuid and date-time fields take a uuid.UUID / an aware datetime; reading gives the string.
    run = Run(runId=uuid7(), facets=RunFacets(nominalTime=NominalTimeRunFacet(nominalStartTime=datetime.now(UTC))))
    event = RunEvent(eventTime=datetime.now(UTC), run=run, job=Job(namespace="etl", name="daily"))
    assert_type(event.run.runId, str)
    assert_type(event.eventTime, str)
    nominal = run.facets.nominalTime if run.facets is not None else None
    if nominal is not None:
        assert_type(nominal.nominalEndTime, str | None)
    return event


def parent_job_name(event: RunEvent) -> str | None:
    facets = event.run.facets
    assert_type(facets, RunFacets | None)
    parent = facets.parent if facets is not None else None
    assert_type(parent, ParentRunFacet | None)
    return parent.job.name if parent is not None else None


def schema(columns: dict[str, str | None]) -> SchemaDatasetFacet:
    # Records (the schema's fields) take keywords like the models; None means "not sent".
    nested = [SchemaDatasetFacetFields(name="inner", type="INT")]
    fields = [SchemaDatasetFacetFields(name=name, type=kind) for name, kind in columns.items()]
    fields.append(SchemaDatasetFacetFields(name="outer", fields=nested))
    facet = SchemaDatasetFacet(fields=fields)
    first = (facet.fields or [])[0]
    assert_type(first, SchemaDatasetFacetFields)
    assert_type(first.name, str)
    assert_type(first.type, str | None)
    assert_type(first.fields, list[SchemaDatasetFacetFields] | None)
    first.description = "set like an attribute"
    return facet


def emit_every_kind(event: RunEvent) -> int:
    # emit takes olsdk's events, the official client's events and event JSON; nothing else
    from openlineage.client.event_v2 import Job as OfficialJob
    from openlineage.client.event_v2 import Run as OfficialRun
    from openlineage.client.event_v2 import RunEvent as OfficialRunEvent
    from openlineage.client.event_v2 import RunState

    from olsdk import OpenLineageClient
    from olsdk.transports import CallbackTransport, Payload

    sent: list[Payload] = []
    client = OpenLineageClient(CallbackTransport(sent.append), spool=False, environ={})
    client.emit(event)
    client.emit(olsdk.to_dict(event))
    client.emit(olsdk.to_json(event))
    client.emit(olsdk.to_json(event).encode())
    official = OfficialRunEvent(
        eventType=RunState.START,
        eventTime="2024-07-01T12:00:00Z",
        run=OfficialRun(runId="0190d3a4-7b5c-7a3e-9f00-1234567890ab"),
        job=OfficialJob(namespace="etl", name="daily"),
        producer="https://example.com/p",
    )
    client.emit(official)
    client.close()
    return len(sent)


def read(text: str) -> int:
    event = olsdk.parse_event(text)
    assert_type(event, olsdk.Event)
    if not isinstance(event, RunEvent) or event.run.facets is None:
        return 0
    statistics = event.run.facets.get("myCompany_statistics")
    return statistics.rows if isinstance(statistics, MyCompanyStatisticsRunFacet) else 0


if __name__ == "__main__":
    event = build()
    assert parent_job_name(event) == "dag.task"
    assert read(olsdk.to_json(event)) == 42
    assert emit_every_kind(event) == 5
    assert olsdk.parse_event(olsdk.to_json(build_with_python_values())).eventTime.endswith("+00:00")
    facet = schema({"id": "BIGINT", "note": None})
    assert facet.to_dict()["fields"][1] == {"name": "note"}
    print("ok")
