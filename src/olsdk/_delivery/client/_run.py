"""The run lifecycle helper behind ``client.run(...)``.

::

    with client.run("ns", "daily_load", inputs=[src.as_input()]) as run:
        run.add_outputs(dst.as_output())
        run.add_run_facets(nominalTime=NominalTimeRunFacet(...))

emits START on enter and COMPLETE on exit; an exception emits FAIL with an
``errorMessage`` facet (message, language, stack trace) and is re-raised; a
``KeyboardInterrupt`` (or ``SystemExit``) emits ABORT and is re-raised. Without a
``parent`` (argument or ``parent`` run facet), the run's parent and root come from the
``OPENLINEAGE_CONTEXT`` environment variable when a scheduler set it. Inputs,
outputs and facets added at any point go into every later event. Run ids are
UUIDv7. Nothing here raises into the block beyond what ``client.emit`` does under
the configured error policy.
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Iterable, Mapping
from types import TracebackType
from typing import Any, Protocol, TypeAlias, TypeVar, runtime_checkable

from olsdk._builders import _build
from olsdk._builders._build import Emitter, RunRef
from olsdk._builders.naming._context import CONTEXT_ENV, context_parent
from olsdk._builders.naming._identifier import DatasetId
from olsdk._delivery.client._uuid7 import uuid7
from olsdk._models import ErrorMessageRunFacet, InputDataset, OutputDataset, ParentRunFacet, RunEvent

__all__ = ["DatasetConvertible", "DatasetLike", "RunContext"]


@runtime_checkable
class DatasetConvertible(Protocol):
    """Anything that turns itself into an input or output dataset (``olsdk.naming`` ids do)."""

    def as_input(self) -> InputDataset: ...

    def as_output(self) -> OutputDataset: ...


#: what ``inputs=``/``outputs=``/``add_inputs``/``add_outputs`` take: a dataset model,
#: an object with ``as_input()``/``as_output()``, a naming identifier, or a
#: ``(namespace, name)`` pair. (Any other object with ``namespace`` and ``name``
#: attributes is accepted too, for data of other libraries.)
DatasetLike: TypeAlias = InputDataset | OutputDataset | DatasetConvertible | DatasetId | tuple[str, str]


_Dataset = TypeVar("_Dataset", InputDataset, OutputDataset)


def _as_dataset(item: DatasetLike, model: type[_Dataset], method: str) -> _Dataset:
    """``item`` as ``model``: itself, what its ``as_input``/``as_output`` gives, or built
    from its namespace and name."""
    if isinstance(item, model):
        return item
    convert = getattr(item, method, None)
    if callable(convert):
        result: _Dataset = convert()
        return result
    return model(**_identity(item))


def _as_input(item: DatasetLike) -> InputDataset:
    return _as_dataset(item, InputDataset, "as_input")


def _as_output(item: DatasetLike) -> OutputDataset:
    return _as_dataset(item, OutputDataset, "as_output")


def _identity(item: object) -> dict[str, Any]:
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
    """One run of a job; see the module docstring. Usable with or without ``with``.

    ``client`` is anything that emits (an ``OpenLineageClient``, or any object with
    ``emit(event)``); its ``producer`` attribute, when it has one, is the events'.
    ``parent`` (a ``RunContext`` or a ``ParentRunFacet``), or a ``parent`` in
    ``run_facets``, wins over the ``OPENLINEAGE_CONTEXT`` environment variable.
    """

    def __init__(
        self,
        client: Emitter,
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
        self.producer: str | None = getattr(client, "producer", None)
        self.job_namespace = job_namespace
        self.job_name = job_name
        self.run_id = run_id or str(uuid7())
        self.inputs: list[InputDataset] = [_as_input(i) for i in inputs]
        self.outputs: list[OutputDataset] = [_as_output(o) for o in outputs]
        self.run_facets: dict[str, Any] = dict(run_facets or {})
        self.job_facets: dict[str, Any] = dict(job_facets or {})
        if parent is not None:
            self.run_facets["parent"] = parent.parent_facet() if isinstance(parent, RunContext) else parent
        elif "parent" not in self.run_facets:
            environ: Mapping[str, str] = getattr(client, "environ", os.environ)  # the client's, as its settings
            inherited = context_parent(environ.get(CONTEXT_ENV), producer=self.producer)
            if inherited is not None:
                self.run_facets["parent"] = inherited
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
        own_parent = self.run_facets.get("parent")
        root = _build.chain_root(own_parent) if own_parent is not None else None
        me = RunRef(self.job_namespace, self.job_name, self.run_id)
        return _build.parent_facet(me, root, producer=self.producer)

    # -- events ---------------------------------------------------------------------

    def event(self, event_type: str, **run_facets: Any) -> RunEvent:
        """The event for ``event_type`` with the run's current state."""
        return _build.run_event(
            event_type,
            None,
            self.run_id,
            (self.job_namespace, self.job_name),
            run_facets={**self.run_facets, **run_facets},
            job_facets=self.job_facets,
            inputs=list(self.inputs),
            outputs=list(self.outputs),
            producer=self.producer,
            omit_empty_datasets=True,
        )

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
        if error is not None:
            text = message or str(error) or type(error).__name__
            trace = "".join(traceback.format_exception(error))
        else:
            text, trace = message or "failed", None
        facet_args: dict[str, Any] = {"message": text, "programmingLanguage": "python"}
        if self.producer:
            facet_args["producer"] = self.producer
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
