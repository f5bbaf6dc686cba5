"""Which facet class parses which key, per entity kind: `FacetRegistry`.

Facet keys repeat across entity kinds (`tags` is a run, a job and a dataset facet), so
a registry is keyed by (entity, key). The spec's facets are the same for every registry
(registered by the generated metadata); custom facets live in a registry object, which
the readers are given (`parse_event(data, registry=...)`, `validate_event(data,
registry=...)`). One default instance, `DEFAULT`, serves when none is given: custom
facet classes register themselves there when they are defined. A registry made with
`parent=DEFAULT` holds its own facets on top of the default's. A key that two classes
claim for one entity is an error, never a silent overwrite.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel

from olsdk._foundation._exceptions import FacetKeyConflict

_spec: dict[tuple[str, str], type[BaseModel]] = {}
# The entities the spec defines, in the generated entity table's order, with their base
# facet class (`define_entities`).
_entities: dict[str, type[BaseModel]] = {}
# Called with the entity after a custom facet is registered or unregistered for it in
# any registry (the runtime switches that entity's facet maps between a C no-op and a
# Python hook).
_listeners: list[Callable[[str], None]] = []
# Every registry alive, for `any_custom`.
_alive: weakref.WeakSet[FacetRegistry] = weakref.WeakSet()


def on_change(listener: Callable[[str], None]) -> None:
    _listeners.append(listener)


def _changed(entity: str) -> None:
    for listener in _listeners:
        listener(entity)


def any_custom(entity: str) -> bool:
    """Whether any registry holds a custom facet class for `entity`."""
    return any(registry.has_custom(entity) for registry in list(_alive))


def keys_of(facet_class: type[Any], entity: str) -> set[str]:
    """The keys `facet_class` is registered under for `entity`, in the spec or in any registry."""
    keys = {key for (e, key), registered in _spec.items() if e == entity and registered is facet_class}
    for registry in list(_alive):
        keys.update(
            key for (e, key), registered in registry.custom().items() if e == entity and registered is facet_class
        )
    return keys


def check_entity(entity: str) -> None:
    """`ValueError` naming the entities the spec defines, unless `entity` is one."""
    if entity not in _entities:
        raise ValueError(f"entity: {entity!r} is not one of {', '.join(_entities)}")


def define_entities(entities: Mapping[str, type[BaseModel]]) -> None:
    # Fed by the generated metadata at import (the entity table: entity -> base facet).
    _entities.clear()
    _entities.update(entities)


def register_spec_facet(entity: str, key: str, facet_class: type[BaseModel]) -> None:
    # Fed by the generated metadata at import, which is where the entity names come from.
    _spec[(entity, key)] = facet_class


def spec_facet(entity: str, key: str) -> type[BaseModel] | None:
    return _spec.get((entity, key))


def entity_of(facet_class: type[Any]) -> str:
    """The entity kind a facet class attaches to (`run`, `job`, `dataset`, ...)."""
    # InputDatasetFacet and OutputDatasetFacet do not derive from DatasetFacet in the
    # spec, so a facet class has exactly one entity.
    found = [
        name for name, base in _entities.items() if isinstance(facet_class, type) and issubclass(facet_class, base)
    ]
    if len(found) != 1:
        bases = ", ".join(base.__name__ for base in _entities.values())
        raise TypeError(f"{facet_class.__name__} must derive from exactly one of {bases} (found: {found or 'none'})")
    return found[0]


def check_key(key: object) -> str:
    if not isinstance(key, str) or not key or any(c.isspace() for c in key):
        raise TypeError(f"key={key!r}: a facet key is a non-empty string without white space")
    return key


class FacetRegistry:
    """Which custom facet class parses which facet key, per entity.

    Give one to `olsdk.parse_event(data, registry=...)` or `olsdk.validate_event(data,
    registry=...)`; without one they use the default registry, where custom facet
    classes register themselves when defined. `parent`: a registry whose facets this one
    holds too (its own first); `FacetRegistry(parent=olsdk.facets.default_registry)`
    adds facets to what the default knows without changing the default's verdicts.
    """

    def __init__(self, *, parent: FacetRegistry | None = None) -> None:
        self.parent = parent
        self._lock = threading.Lock()
        self._custom: dict[tuple[str, str], type[BaseModel]] = {}
        _alive.add(self)

    def __repr__(self) -> str:
        keys = ", ".join(f"{entity}:{key}" for entity, key in self.custom())
        return f"FacetRegistry({keys})"

    def register_facet(
        self, facet_class: type[BaseModel], *, key: str | None = None, entity: str | None = None
    ) -> type[BaseModel]:
        """Make events read with this registry parse facet `key` into `facet_class`.

        `entity` defaults to the kind of the class's spec base (and must be it); `key` is
        required unless the class is a custom facet, which knows its own key. A key
        that another class holds for that entity (or that the spec defines) raises
        `FacetKeyConflict`. Returns the class.
        """
        kind = entity_of(facet_class)
        if entity is not None and entity != kind:
            raise TypeError(
                f"{facet_class.__name__} is a {kind} facet (it derives from "
                f"{_entities[kind].__name__}); it cannot be registered as a {entity} facet"
            )
        if key is None:
            key = getattr(facet_class, "__olsdk_facet_key__", None)
            if key is None:
                raise TypeError(
                    f"register_facet({facet_class.__name__}): pass key=..., the JSON key events carry this facet under"
                )
        self.register(kind, check_key(key), facet_class)
        return facet_class

    def unregister_facet(self, facet_class: type[BaseModel]) -> None:
        """Remove every registration of `facet_class` from this registry."""
        for (entity, key), registered in list(self._custom.items()):
            if registered is facet_class:
                self.unregister(entity, key)

    def register(self, entity: str, key: str, facet_class: type[BaseModel]) -> None:
        """Make events parse facet `key` of `entity` into `facet_class`."""
        check_entity(entity)
        if not key:
            raise ValueError("key: a facet key must be a non-empty string")
        with self._lock:
            spec_class = _spec.get((entity, key))
            if spec_class is not None:
                raise FacetKeyConflict(
                    f"key {key!r} of {entity} facets belongs to the spec's {spec_class.__name__}; "
                    f"{facet_class.__name__} cannot claim it"
                )
            current = self.lookup(entity, key)
            if current is not None and _qualname(current) != _qualname(facet_class):
                raise FacetKeyConflict(
                    f"key {key!r} of {entity} facets is already registered to {_qualname(current)}; "
                    f"{_qualname(facet_class)} cannot claim it too (unregister it first)"
                )
            self._custom[(entity, key)] = facet_class
        _changed(entity)

    def unregister(self, entity: str, key: str) -> type[BaseModel] | None:
        with self._lock:
            removed = self._custom.pop((entity, key), None)
        _changed(entity)
        return removed

    def lookup(self, entity: str, key: str) -> type[BaseModel] | None:
        """The custom class for a key the spec does not define, if any (this registry's
        own, then its parent's)."""
        found = self._custom.get((entity, key))
        if found is None and self.parent is not None:
            return self.parent.lookup(entity, key)
        return found

    def custom(self) -> dict[tuple[str, str], type[BaseModel]]:
        """Every custom facet this registry holds (its parent's included)."""
        inherited = self.parent.custom() if self.parent is not None else {}
        with self._lock:
            return {**inherited, **self._custom}

    def has_custom(self, entity: str) -> bool:
        """Whether any custom facet class is registered for `entity`."""
        return any(registered_entity == entity for registered_entity, _key in self.custom())

    def registered(self) -> dict[tuple[str, str], type[BaseModel]]:
        """Every key this registry parses: the spec's facets and the custom ones."""
        return {**_spec, **self.custom()}


DEFAULT = FacetRegistry()
"""The registry the readers use when given none; custom facet classes register here."""


def _qualname(cls: type) -> str:
    # Re-importing a module (or reloading it in a notebook) recreates its classes:
    # the same qualified name is the same facet, not a conflict.
    return f"{cls.__module__}.{cls.__qualname__}"
