"""Which facet class parses which key, per entity kind.

Facet keys repeat across entity kinds (`tags` is a run, a job and a dataset facet), so
the registry is keyed by (entity, key). Spec facets are registered by the generated
metadata; custom facets by `olsdk.facets` (or `register_facet` directly). A key that
two classes claim for one entity is an error, never a silent overwrite.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from pydantic import BaseModel

from olsdk._foundation._exceptions import FacetKeyConflict

_lock = threading.Lock()
_spec: dict[tuple[str, str], type[BaseModel]] = {}
_custom: dict[tuple[str, str], type[BaseModel]] = {}
# Called with the entity after a custom facet is registered or unregistered for it
# (the runtime switches that entity's facet maps between a C no-op and a Python hook).
_listeners: list[Callable[[str], None]] = []
# The entities the spec defines, in the generated entity table's order (`define_entities`).
_entities: tuple[str, ...] = ()


def on_change(listener: Callable[[str], None]) -> None:
    _listeners.append(listener)


def has_custom(entity: str) -> bool:
    """Whether any custom facet class is registered for `entity`."""
    return any(registered_entity == entity for registered_entity, _key in _custom)


def _changed(entity: str) -> None:
    for listener in _listeners:
        listener(entity)


def check_entity(entity: str) -> None:
    """`ValueError` naming the entities the spec defines, unless `entity` is one."""
    if entity not in _entities:
        raise ValueError(f"entity: {entity!r} is not one of {', '.join(_entities)}")


def define_entities(entities: tuple[str, ...]) -> None:
    # Fed by the generated metadata at import (the entity table), as the spec facets are.
    global _entities
    _entities = entities


def register_spec_facet(entity: str, key: str, facet_class: type[BaseModel]) -> None:
    # Fed by the generated metadata at import, which is where the entity names come from.
    with _lock:
        _spec[(entity, key)] = facet_class


def register(entity: str, key: str, facet_class: type[BaseModel]) -> None:
    """Make events parse facet `key` of `entity` into `facet_class`."""
    check_entity(entity)
    if not key:
        raise ValueError("key: a facet key must be a non-empty string")
    with _lock:
        spec_class = _spec.get((entity, key))
        if spec_class is not None:
            raise FacetKeyConflict(
                f"key {key!r} of {entity} facets belongs to the spec's {spec_class.__name__}; "
                f"{facet_class.__name__} cannot claim it"
            )
        current = _custom.get((entity, key))
        if current is not None and _qualname(current) != _qualname(facet_class):
            raise FacetKeyConflict(
                f"key {key!r} of {entity} facets is already registered to {_qualname(current)}; "
                f"{_qualname(facet_class)} cannot claim it too (unregister it first)"
            )
        _custom[(entity, key)] = facet_class
    _changed(entity)


def unregister(entity: str, key: str) -> type[BaseModel] | None:
    with _lock:
        removed = _custom.pop((entity, key), None)
    _changed(entity)
    return removed


def lookup(entity: str, key: str) -> type[BaseModel] | None:
    """The custom class registered for a key the spec does not define, if any."""
    return _custom.get((entity, key))


def spec_facet(entity: str, key: str) -> type[BaseModel] | None:
    return _spec.get((entity, key))


def registered() -> dict[tuple[str, str], type[BaseModel]]:
    """Every registered key: spec facets and custom facets."""
    with _lock:
        return {**_spec, **_custom}


def _qualname(cls: type) -> str:
    # Re-importing a module (or reloading it in a notebook) recreates its classes:
    # the same qualified name is the same facet, not a conflict.
    return f"{cls.__module__}.{cls.__qualname__}"
