"""The run lifecycle helper behind ``client.run(...)``.

::

    with client.run("ns", "daily_load", inputs=[src.as_input()]) as run:
        run.add_outputs(dst.as_output())
        run.add_run_facets(nominalTime=NominalTimeRunFacet(...))

emits START on enter and COMPLETE on exit; an exception emits FAIL with an
``errorMessage`` facet (message, language, stack trace) and is re-raised; a
``KeyboardInterrupt`` (or ``SystemExit``) emits ABORT and is re-raised. Inputs,
outputs and facets added at any point go into every later event. Run ids are
UUIDv7. Nothing here raises into the block beyond what ``client.emit`` does under
the configured error policy.
"""

from __future__ import annotations

import traceback
from collections.abc import Iterable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any

from olsdk.client.uuid7 import uuid7

if TYPE_CHECKING:
    from olsdk.client.client import OpenLineageClient
    from olsdk.models import InputDataset, OutputDataset, ParentRunFacet, RunEvent

__all__ = ["DatasetLike", "RunContext"]

#: an InputDataset/OutputDataset, an object with ``as_input()``/``as_output()``
#: (``olsdk.naming`` identifiers), anything with ``namespace`` and ``name``, or a
#: ``(namespace, name)`` tuple
DatasetLike = Any


def _as_input(item: DatasetLike) -> InputDataset:
    from olsdk.models import InputDataset

    if isinstance(item, InputDataset):
        return item
    if hasattr(item, "as_input"):
        result: InputDataset = item.as_input()
        return result
    return InputDataset(**_identity(item))


def _as_output(item: DatasetLike) -> OutputDataset:
    from olsdk.models import OutputDataset

    if isinstance(item, OutputDataset):
        return item
    if hasattr(item, "as_output"):
        result: OutputDataset = item.as_output()
        return result
    return OutputDataset(**_identity(item))


def _identity(item: DatasetLike) -> dict[str, Any]:
    if isinstance(item, tuple) and len(item) == 2:
        return {"namespace": item[0], "name": item[1]}
    if hasattr(item, "namespace") and hasattr(item, "name"):
        data: dict[str, Any] = {"namespace": item.namespace, "name": item.name}
        facets = getattr(item, "facets", None)
        if facets:
            data["facets"] = facets
        return data
    raise TypeError(f"not a dataset: {item!r}")


class RunContext:
    """One run of a job; see the module docstring. Usable with or without ``with``."""

    def __init__(
        self,
        client: OpenLineageClient,
        job_namespace: str,
        job_name: str,
        *,
        inputs: Iterable[DatasetLike] = (),
        outputs: Iterable[DatasetLike] = (),
        parent: RunContext | ParentRunFacet | None = None,
        run_id: str | None = None,
        run_facets: Mapping[str, Any] | None = None,
        job_facets: Mapping[str, Any] | None = None,
    ) -> None:
        self.client = client
        self.job_namespace = job_namespace
        self.job_name = job_name
        self.run_id = run_id or str(uuid7())
        self.inputs: list[InputDataset] = [_as_input(i) for i in inputs]
        self.outputs: list[OutputDataset] = [_as_output(o) for o in outputs]
        self.run_facets: dict[str, Any] = dict(run_facets or {})
        self.job_facets: dict[str, Any] = dict(job_facets or {})
        if parent is not None:
            self.run_facets["parent"] = (
                parent.parent_facet() if isinstance(parent, RunContext) else parent
            )
        self.state: str | None = None

    # -- building up the run -----------------------------------------------------

    def add_inputs(self, *datasets: DatasetLike) -> None:
        self.inputs.extend(_as_input(d) for d in datasets)

    def add_outputs(self, *datasets: DatasetLike) -> None:
        self.outputs.extend(_as_output(d) for d in datasets)

    def add_run_facets(self, **facets: Any) -> None:
        """Attach run facets by key, e.g. ``add_run_facets(nominalTime=...)``."""
        self.run_facets.update(facets)

    def add_job_facets(self, **facets: Any) -> None:
        self.job_facets.update(facets)

    def parent_facet(self) -> ParentRunFacet:
        """A ``parent`` facet pointing at this run (with the chain's root), for child runs."""
        from olsdk.models import (
            ParentRunFacet,
            ParentRunFacetJob,
            ParentRunFacetRoot,
            ParentRunFacetRun,
            RootJob,
            RootRun,
        )

        root_run, root_ns, root_name = self.run_id, self.job_namespace, self.job_name
        own_parent = self.run_facets.get("parent")
        if own_parent is not None:
            above = own_parent.root or own_parent
            root_run, root_ns, root_name = str(above.run.runId), above.job.namespace, above.job.name
        return ParentRunFacet(
            run=ParentRunFacetRun(runId=self.run_id),
            job=ParentRunFacetJob(namespace=self.job_namespace, name=self.job_name),
            root=ParentRunFacetRoot(
                run=RootRun(runId=root_run), job=RootJob(namespace=root_ns, name=root_name)
            ),
            producer=self.client.producer,
        )

    # -- events ---------------------------------------------------------------------

    def event(self, event_type: str, **run_facets: Any) -> RunEvent:
        """The event for ``event_type`` with the run's current state."""
        from olsdk.models import EventType, Job, JobFacets, Run, RunEvent, RunFacets

        facets = {**self.run_facets, **run_facets}
        run = Run(runId=self.run_id)
        if facets:
            run = Run(runId=self.run_id, facets=RunFacets.model_validate(facets))
        job = Job(namespace=self.job_namespace, name=self.job_name)
        if self.job_facets:
            job = Job(
                namespace=self.job_namespace,
                name=self.job_name,
                facets=JobFacets.model_validate(self.job_facets),
            )
        args: dict[str, Any] = {
            "eventType": EventType(event_type),
            "producer": self.client.producer,
            "run": run,
            "job": job,
        }
        if self.inputs:
            args["inputs"] = list(self.inputs)
        if self.outputs:
            args["outputs"] = list(self.outputs)
        return RunEvent(**args)

    def emit(self, event_type: str, **run_facets: Any) -> None:
        self.state = event_type
        self.client.emit(self.event(event_type, **run_facets))

    def start(self) -> RunContext:
        self.emit("START")
        return self

    def complete(self) -> None:
        self.emit("COMPLETE")

    def abort(self) -> None:
        self.emit("ABORT")

    def fail(self, error: BaseException | None = None, message: str | None = None) -> None:
        from olsdk.models import ErrorMessageRunFacet

        if error is not None:
            text = message or str(error) or type(error).__name__
            trace = "".join(traceback.format_exception(error))
        else:
            text, trace = message or "failed", None
        facet_args: dict[str, Any] = {
            "message": text,
            "programmingLanguage": "python",
            "producer": self.client.producer,
        }
        if trace:
            facet_args["stackTrace"] = trace
        self.emit("FAIL", errorMessage=ErrorMessageRunFacet(**facet_args))

    def __enter__(self) -> RunContext:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc is None:
            self.complete()
        elif isinstance(exc, Exception):
            self.fail(exc)
        else:  # KeyboardInterrupt, SystemExit: the run was stopped, not broken
            self.abort()
        # returning None re-raises the exception

    def __repr__(self) -> str:
        return f"<RunContext {self.job_namespace}/{self.job_name} run={self.run_id} {self.state}>"
