"""Building RunEvents: the one builder behind `client.run(...)` and the Spark layer.

Both assemble the same shape (a run with facets, a job with facets, inputs, outputs,
an optional parent), so they share this code instead of each restating it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from olsdk._models import (
    EventType,
    InputDataset,
    Job,
    JobFacets,
    OutputDataset,
    ParentRunFacet,
    Run,
    RunEvent,
    RunFacets,
)

__all__ = ["Emitter", "RunRef", "chain_root", "iso", "parent_facet", "run_event"]


@runtime_checkable
class Emitter(Protocol):
    """Something that emits events: an `OpenLineageClient`, or anything with its `emit`.

    `client.run(...)` and the Spark layer take this, so tests and users can hand in
    their own (a collector, a client of another library) without subclassing.
    """

    def emit(self, event: Any) -> None: ...


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


def parent_facet(parent: RunRef, root: RunRef | None = None, *, producer: str | None = None) -> ParentRunFacet:
    """A ``parent`` facet pointing at ``parent``; the root is ``root``, else the parent.

    ``producer`` sets the facet's ``_producer`` (default: the configured producer).
    Built by ``olsdk.naming.parent``, which also decides what happens on models
    without the facet's ``root`` field.
    """
    from olsdk._builders.naming._parent import parent as build_parent

    top = root or parent
    return build_parent(
        job_namespace=parent.namespace,
        job_name=parent.name,
        run_id=parent.run_id,
        root_job_namespace=top.namespace,
        root_job_name=top.name,
        root_run_id=top.run_id,
        producer=producer,
    )


def chain_root(facet: ParentRunFacet) -> RunRef:
    """The run at the top of the chain a ``parent`` facet describes: its root, else its parent.

    A run whose own parent facet is ``facet`` hands this on as the root of its children.
    """
    from olsdk._builders.naming._parent import chain_root as top_of_chain  # knows specs without `root`

    return RunRef(*top_of_chain(facet))


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
    omit_empty_datasets: bool = False,
) -> RunEvent:
    """A RunEvent at ``when`` (None: now) of run ``run_id`` of ``job`` (namespace, name).

    Facets are given by key; ``producer`` defaults to the configured producer. Empty
    ``inputs``/``outputs`` are written as ``[]`` (as the Java agent does) unless
    ``omit_empty_datasets``, which leaves them out (what ``client.run`` emits).
    """
    run = Run(runId=run_id, facets=RunFacets.model_validate(dict(run_facets))) if run_facets else Run(runId=run_id)
    namespace, name = job
    job_model = (
        Job(namespace=namespace, name=name, facets=JobFacets.model_validate(dict(job_facets)))
        if job_facets
        else Job(namespace=namespace, name=name)
    )
    extra: dict[str, Any] = {"producer": producer} if producer else {}
    for key, datasets in (("inputs", inputs), ("outputs", outputs)):
        if datasets or not omit_empty_datasets:
            extra[key] = list(datasets or [])
    return RunEvent(**extra, eventType=EventType(event_type), eventTime=iso(when), run=run, job=job_model)
