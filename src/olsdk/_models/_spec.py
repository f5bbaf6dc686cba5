"""Facts the spec defines, in one place for the hand-written layer.

The entity table comes from the generated metadata (`olsdk._models._generated._meta`, written by
`codegen/` from the spec's facet maps): each kind of facet (`run`, `job`, `dataset`,
`inputDataset`, `outputDataset`) with its base facet class, its typed facet map, the
class and field that hold the map, and where events hold it (`inputs[].inputFacets`).
Nothing here restates it.

The spec's top-level `oneOf` tells the three event kinds apart by their required keys:
`run` for a RunEvent, `dataset` for a DatasetEvent, `job` without `run` for a JobEvent.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias, cast

from pydantic import BaseModel

from olsdk._foundation import _registry
from olsdk._models import BaseEvent, BaseFacet, DatasetEvent, JobEvent, RunEvent
from olsdk._models._runtime import FacetContainer

# isort: split
# After `olsdk.models`: it imports the generated package quietly and binds the metadata.
from olsdk._models._generated import _meta

__all__ = [
    "ENTITIES",
    "ENTITY_NAMES",
    "EVENT_CLASSES",
    "Entity",
    "Event",
    "EventKind",
    "entity",
    "entity_of_class",
    "event_kind",
    "facet_places",
]

EventKind: TypeAlias = Literal["run", "dataset", "job"]
Event: TypeAlias = RunEvent | DatasetEvent | JobEvent
"""Any OpenLineage event."""


@dataclass(frozen=True)
class Entity:
    """One kind of facet, as the spec defines it."""

    name: str  # e.g. "inputDataset"
    base: type[BaseFacet]  # the spec's base facet, e.g. InputDatasetFacet
    container: type[FacetContainer]  # the typed facet map, e.g. InputDatasetFacets
    owner: type[BaseModel]  # the class whose field holds the map, e.g. InputDataset
    field: str  # that field, e.g. "inputFacets"
    places: tuple[str, ...]  # where events hold the map, e.g. ("inputs[].inputFacets",)

    @property
    def suffix(self) -> str:
        """How the class names of this entity's facets end (`InputDatasetFacet`)."""
        return self.base.__name__

    @property
    def words(self) -> str:
        """The entity in words, for messages: `inputDataset` -> `input dataset`."""
        return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", self.name).lower()

    @property
    def with_article(self) -> str:
        """`a run`, `an input dataset`."""
        return f"{'an' if self.words[:1] in 'aeiou' else 'a'} {self.words}"


ENTITIES: tuple[Entity, ...] = tuple(
    Entity(
        name=name,
        base=base,
        container=container,
        owner=owner,
        field=field,
        places=tuple(dict.fromkeys(path for _kind, path, of in _meta.FACET_PLACES if of == name)),
    )
    for name, (base, container, owner, field) in _meta.ENTITIES.items()
)
"""Every kind of facet, in the order events hold them (run, job, dataset, ...)."""

ENTITY_NAMES: tuple[str, ...] = tuple(e.name for e in ENTITIES)

EVENT_CLASSES: Mapping[EventKind, type[BaseEvent]] = cast("Mapping[EventKind, type[BaseEvent]]", _meta.EVENTS)
"""Event kind -> its class (`run` -> RunEvent)."""

_BY_NAME = {e.name: e for e in ENTITIES}


def entity(name: str) -> Entity:
    """The entity called `name`; `ValueError` naming the valid ones otherwise."""
    _registry.check_entity(name)
    return _BY_NAME[name]


def entity_of_class(facet_class: type[Any]) -> list[Entity]:
    """The entities whose base facet `facet_class` derives from (one for a proper facet)."""
    return [e for e in ENTITIES if isinstance(facet_class, type) and issubclass(facet_class, e.base)]


def facet_places(kind: EventKind) -> list[tuple[str, Entity]]:
    """(JSON path, entity) of every facet map an event of `kind` holds."""
    return [(path, _BY_NAME[name]) for of_kind, path, name in _meta.FACET_PLACES if of_kind == kind]


def event_kind(event: Any) -> EventKind | None:
    """Which kind of event `event` is (a decoded JSON object or a model); None if none.

    An event of kind K holds a field named K (`run`, `dataset`, `job`). A RunEvent holds
    a `job` too, so a kind whose field more event classes share is tried later.
    """
    if isinstance(event, Mapping):
        return next((kind for kind in _KIND_ORDER if kind in event), None)
    return next((kind for kind in _KIND_ORDER if getattr(event, kind, None) is not None), None)


_KIND_ORDER: tuple[EventKind, ...] = tuple(
    sorted(EVENT_CLASSES, key=lambda kind: sum(kind in cls.model_fields for cls in EVENT_CLASSES.values()))
)
