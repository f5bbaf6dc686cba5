"""Attach facets to runs, jobs, datasets and events in one type-checked call.

`attach(target, *facets)` returns a copy of `target` with the facets set under their
keys; `target` itself, and the facet container it had, are left unchanged. The copy is
shallow: the objects it does not touch (the other facets, an event's datasets) and the
facet instances themselves are shared with the original.

The overloads let mypy refuse a facet of the wrong kind (a run facet on a dataset); the
same check runs at run time, with a `TypeError` naming both.
"""

from __future__ import annotations

from typing import Any, Final, TypeVar, overload

from pydantic import BaseModel

from olsdk.facets._base import entity_of, key_of
from olsdk.models import (
    BaseFacet,
    Dataset,
    DatasetEvent,
    DatasetFacet,
    DatasetFacets,
    FacetContainer,
    InputDataset,
    InputDatasetFacet,
    InputDatasetFacets,
    Job,
    JobEvent,
    JobFacet,
    JobFacets,
    OutputDataset,
    OutputDatasetFacet,
    OutputDatasetFacets,
    Run,
    RunEvent,
    RunFacet,
    RunFacets,
)

D = TypeVar("D", bound=Dataset)
M = TypeVar("M", bound=BaseModel)

# Entity kind -> (field of the owner, container class).
_FIELDS: Final[dict[str, tuple[str, type[FacetContainer]]]] = {
    "run": ("facets", RunFacets),
    "job": ("facets", JobFacets),
    "dataset": ("facets", DatasetFacets),
    "inputDataset": ("inputFacets", InputDatasetFacets),
    "outputDataset": ("outputFacets", OutputDatasetFacets),
}


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
def attach(
    target: OutputDataset, /, *facets: DatasetFacet | OutputDatasetFacet
) -> OutputDataset: ...
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
    keyed = [(_entity(facet), key_of(type(facet)), facet) for facet in facets]
    if isinstance(target, RunEvent):
        _refuse(target, keyed, ("run", "job"))
        return target.model_copy(
            update={
                "run": _attach(target.run, [k for k in keyed if k[0] == "run"]),
                "job": _attach(target.job, [k for k in keyed if k[0] == "job"]),
            }
        )
    if isinstance(target, JobEvent):
        _refuse(target, keyed, ("job",))
        return target.model_copy(update={"job": _attach(target.job, keyed)})
    if isinstance(target, DatasetEvent):
        _refuse(target, keyed, ("dataset",))
        return target.model_copy(update={"dataset": _attach(target.dataset, keyed)})
    if isinstance(target, Run):
        _refuse(target, keyed, ("run",))
    elif isinstance(target, Job):
        _refuse(target, keyed, ("job",))
    elif isinstance(target, InputDataset):
        _refuse(target, keyed, ("dataset", "inputDataset"))
    elif isinstance(target, OutputDataset):
        _refuse(target, keyed, ("dataset", "outputDataset"))
    elif isinstance(target, Dataset):
        _refuse(target, keyed, ("dataset",))
    else:
        raise TypeError(
            f"attach: cannot attach facets to a {type(target).__name__}; targets are Run, Job, "
            "a dataset (InputDataset, OutputDataset, ...) or an event"
        )
    return _attach(target, keyed)


def _entity(facet: Any) -> str:
    if not isinstance(facet, BaseFacet):
        raise TypeError(f"attach: {facet!r} is not a facet (a BaseFacet instance)")
    return entity_of(type(facet))


_ARTICLE: Final = {"run": "a run", "job": "a job", "dataset": "a dataset",
                   "inputDataset": "an input dataset", "outputDataset": "an output dataset"}


def _refuse(target: BaseModel, keyed: list[tuple[str, str, BaseFacet]], takes: tuple[str, ...]) -> None:
    for entity, _key, facet in keyed:
        if entity not in takes:
            allowed = " and ".join(f"{_ARTICLE[t].split(' ', 1)[1]}" for t in takes)
            raise TypeError(
                f"attach: {type(facet).__name__} is {_ARTICLE[entity]} facet; "
                f"{_a(type(target).__name__)} takes {allowed} facets"
            )


def _a(name: str) -> str:
    return f"{'an' if name[:1] in 'AEIOU' else 'a'} {name}"


def _attach(owner: M, keyed: list[tuple[str, str, BaseFacet]]) -> M:
    """`owner` copied with its containers copied and updated; `owner` itself if no facets."""
    if not keyed:
        return owner
    update: dict[str, FacetContainer] = {}
    for entity, key, facet in keyed:
        field, container_class = _FIELDS[entity]
        container = update.get(field)
        if container is None:
            current = getattr(owner, field)
            container = container_class() if current is None else current.model_copy()
            update[field] = container
        container[key] = facet
    return owner.model_copy(update=update)
