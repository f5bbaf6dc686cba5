"""Event and facet construction shared by the listener and ``lineage_run``."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from olsdk.models import (
    EventType,
    InputDataset,
    Job,
    JobFacets,
    JobTypeJobFacet,
    OutputDataset,
    ParentRunFacet,
    ProcessingEngineRunFacet,
    Run,
    RunEvent,
    RunFacets,
)

__all__ = ["RunRef", "iso", "job_type", "parent_facet", "processing_engine", "run_event"]


@dataclass(frozen=True)
class RunRef:
    """A run as other runs point at it: job namespace and name, run id."""

    namespace: str
    name: str
    run_id: str


def iso(when: dt.datetime | None = None) -> str:
    """An RFC 3339 timestamp with milliseconds and an explicit UTC offset."""
    value = when or dt.datetime.now(dt.UTC)
    return value.astimezone(dt.UTC).isoformat(timespec="milliseconds")


def parent_facet(parent: RunRef, root: RunRef | None = None) -> ParentRunFacet:
    """A ``parent`` facet pointing at ``parent``; the root is ``root``, else the parent."""
    from olsdk.naming import parent as build_parent

    top = root or parent
    return build_parent(
        job_namespace=parent.namespace,
        job_name=parent.name,
        run_id=parent.run_id,
        root_job_namespace=top.namespace,
        root_job_name=top.name,
        root_run_id=top.run_id,
    )


def processing_engine(spark_version: str) -> ProcessingEngineRunFacet:
    from olsdk import __version__

    return ProcessingEngineRunFacet(version=spark_version, name="spark", openlineageAdapterVersion=__version__)


def job_type(kind: str = "SQL_JOB", processing: str = "BATCH") -> JobTypeJobFacet:
    return JobTypeJobFacet(processingType=processing, integration="SPARK", jobType=kind)


def run_event(
    event_type: str,
    when: dt.datetime | None,
    run_id: str,
    job: tuple[str, str],
    *,
    run_facets: Mapping[str, Any] | None = None,
    job_facets: Mapping[str, Any] | None = None,
    inputs: list[InputDataset] | None = None,
    outputs: list[OutputDataset] | None = None,
    producer: str | None = None,
) -> RunEvent:
    run = Run(runId=run_id, facets=RunFacets.model_validate(dict(run_facets))) if run_facets else Run(runId=run_id)
    namespace, name = job
    job_model = (
        Job(namespace=namespace, name=name, facets=JobFacets.model_validate(dict(job_facets)))
        if job_facets
        else Job(namespace=namespace, name=name)
    )
    extra: dict[str, Any] = {"producer": producer} if producer else {}
    return RunEvent(
        **extra,
        eventType=EventType(event_type),
        eventTime=iso(when),
        run=run,
        job=job_model,
        inputs=inputs or [],
        outputs=outputs or [],
    )
