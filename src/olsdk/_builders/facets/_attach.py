"""Attach facets to runs, jobs, datasets and events in one type-checked call.

`attach(target, *facets)` returns a copy of `target` with the facets set under their
keys; `target` itself, and the facet container it had, are left unchanged. The copy is
shallow: the objects it does not touch (the other facets, an event's datasets) and the
facet instances themselves are shared with the original.

The overloads let mypy refuse a facet of the wrong kind (a run facet on a dataset); the
same check runs at run time, with a `TypeError` naming both.
"""

from __future__ import annotations

from typing import Any, TypeVar, overload

from pydantic import BaseModel

from olsdk._builders.facets._base import entity_of, key_of
from olsdk._models import (
    BaseEvent,
    BaseFacet,
    Dataset,
    DatasetEvent,
    DatasetFacet,
    FacetContainer,
    InputDataset,
    InputDatasetFacet,
    Job,
    JobEvent,
    JobFacet,
    OutputDataset,
    OutputDatasetFacet,
    Run,
    RunEvent,
    RunFacet,
    _spec,
)

D = TypeVar("D", bound=Dataset)
M = TypeVar("M", bound=BaseModel)

_Keyed = list[tuple[_spec.Entity, str, BaseFacet]]


@overload
def attach(target: RunEvent, /, *facets: RunFacet | JobFacet) -> RunEvent: ...
@overload
def attach(target: JobEvent, /, *facets: JobFacet) -> JobEvent: ...
@overload
def attach(target: DatasetEvent, /, *facets: DatasetFacet) -> DatasetEvent: ...
@overload
def attach(target: Run, /, *facets: RunFacet) -> Run: ...
@overload
def attach(target: Job, /, *facets: JobFacet) -> Job: ...
@overload
def attach(target: InputDataset, /, *facets: DatasetFacet | InputDatasetFacet) -> InputDataset: ...
@overload
def attach(target: OutputDataset, /, *facets: DatasetFacet | OutputDatasetFacet) -> OutputDataset: ...
@overload
def attach(target: D, /, *facets: DatasetFacet) -> D: ...
def attach(target: BaseModel, /, *facets: BaseFacet) -> BaseModel:
    """A copy of `target` with `facets` set under their keys (replacing same-key facets).

    Targets and the facets they take:
    - `Run`: run facets; `Job`: job facets;
    - `InputDataset`: dataset and input dataset facets; `OutputDataset`: dataset and output
      dataset facets; any other `Dataset`: dataset facets;
    - `RunEvent`: run facets (to its run) and job facets (to its job); `JobEvent`: job
      facets; `DatasetEvent`: dataset facets (to its dataset).

    A facet's key is its custom facet key, or the key it is registered or specified
    under (`sql` for `SQLJobFacet`).
    """
    keyed = [(_spec.entity(_entity(facet)), key_of(type(facet)), facet) for facet in facets]
    if isinstance(target, BaseEvent):
        return _attach_to_event(target, keyed)
    takes = [e for e in _spec.ENTITIES if isinstance(target, e.owner)]
    if not takes:
        raise TypeError(
            f"attach: cannot attach facets to a {type(target).__name__}; targets are Run, Job, "
            "a dataset (InputDataset, OutputDataset, ...) or an event"
        )
    _refuse(target, keyed, takes)
    return _attach(target, keyed)


def _attach_to_event(event: BaseEvent, keyed: _Keyed) -> BaseEvent:
    """Facets go to the event's own run, job or dataset: the facet maps it holds outside lists."""
    kind = _spec.event_kind(event)
    holders: dict[str, list[_spec.Entity]] = {}  # event field -> entities whose facets it holds
    for path, entity in _spec.facet_places(kind) if kind is not None else []:
        if "[]" not in path:
            holders.setdefault(path.split(".", 1)[0], []).append(entity)
    _refuse(event, keyed, [e for entities in holders.values() for e in entities])
    update = {
        field: _attach(getattr(event, field), [k for k in keyed if k[0] in entities])
        for field, entities in holders.items()
    }
    return event.model_copy(update=update)


def _entity(facet: Any) -> str:
    if not isinstance(facet, BaseFacet):
        raise TypeError(f"attach: {facet!r} is not a facet (a BaseFacet instance)")
    return entity_of(type(facet))


def _refuse(target: BaseModel, keyed: _Keyed, takes: list[_spec.Entity]) -> None:
    for entity, _key, facet in keyed:
        if entity not in takes:
            allowed = " and ".join(t.words for t in takes)
            raise TypeError(
                f"attach: {type(facet).__name__} is {entity.with_article} facet; "
                f"{_a(type(target).__name__)} takes {allowed} facets"
            )


def _a(name: str) -> str:
    return f"{'an' if name[:1] in 'AEIOU' else 'a'} {name}"


def _attach(owner: M, keyed: _Keyed) -> M:
    """`owner` copied with its containers copied and updated; `owner` itself if no facets."""
    if not keyed:
        return owner
    update: dict[str, FacetContainer] = {}
    for entity, key, facet in keyed:
        container = update.get(entity.field)
        if container is None:
            current = getattr(owner, entity.field)
            container = entity.container() if current is None else current.model_copy()
            update[entity.field] = container
        container[key] = facet
    return owner.model_copy(update=update)
