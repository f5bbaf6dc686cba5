"""Hypothesis strategies derived from the generated models themselves.

They read each class's pydantic fields (types, patterns, required-ness) and build
instances through the public constructors, so model -> JSON -> schema tests exercise
what users write, including the defaults filled in at construction.
"""

from __future__ import annotations

import enum
import functools
import types
import typing
from typing import Any, Literal, get_args, get_origin

from hypothesis import strategies as st
from pydantic import BaseModel, RootModel, StringConstraints

import olsdk.models as models
from olsdk._foundation._formats import DATETIME_NO_LEAP_PATTERN, DATETIME_PATTERN
from olsdk._models._runtime import FacetContainer, OLRecord

MAX_DEPTH = 2
JSON_SCALARS = st.none() | st.booleans() | st.integers(-(2**31), 2**31) | st.text(max_size=8)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)
TEXT = st.text(max_size=12)


def _string(metadata: list[Any]) -> st.SearchStrategy[str]:
    for item in metadata:
        # StringConstraints, or olsdk's format marker (olsdk._models._runtime._Format): both have `pattern`.
        pattern = (
            getattr(item, "pattern", None) if isinstance(item, StringConstraints) or hasattr(item, "pattern") else None
        )
        if pattern == DATETIME_PATTERN:
            # The pattern allows second 60 at any time; a leap second is 23:59:60 UTC only.
            return st.from_regex(DATETIME_NO_LEAP_PATTERN, fullmatch=True) | st.just("2016-12-31T23:59:60Z")
        if isinstance(pattern, str):
            return st.from_regex(pattern, fullmatch=True)
    return TEXT


def _bounds(metadata: list[Any], low: Any, high: Any) -> tuple[Any, Any]:
    """Numeric bounds from annotated-types constraints (ge/gt/le/lt)."""
    for item in metadata:
        for attr in ("ge", "gt"):
            value = getattr(item, attr, None)
            if value is not None:
                low = value + (1 if attr == "gt" else 0)
        for attr in ("le", "lt"):
            value = getattr(item, attr, None)
            if value is not None:
                high = value - (1 if attr == "lt" else 0)
    return low, high


def for_type(annotation: Any, metadata: list[Any], depth: int) -> st.SearchStrategy[Any]:
    origin = get_origin(annotation)
    if origin is typing.Annotated:
        inner, *extra = get_args(annotation)
        return for_type(inner, [*metadata, *extra], depth)
    if origin in (types.UnionType, typing.Union):
        options = [a for a in get_args(annotation) if a is not type(None)]
        if depth > MAX_DEPTH:
            # Deep down, leave out the members that recurse (BinarySubsetCondition).
            options = [a for a in options if a not in _building] or options
        return st.one_of([for_type(a, metadata, depth) for a in options])
    if origin is list:
        (item,) = get_args(annotation)
        if depth > MAX_DEPTH:
            return st.just([])
        return st.lists(for_type(item, [], depth + 1), max_size=2)
    if origin is dict:
        _, value = get_args(annotation)
        if depth > MAX_DEPTH:
            return st.just({})
        return st.dictionaries(TEXT, for_type(value, [], depth + 1), max_size=2)
    if origin is Literal:
        return st.sampled_from(get_args(annotation))
    if annotation is Any:
        return JSON_VALUES
    if isinstance(annotation, type):
        return _for_class(annotation, metadata, depth)
    raise NotImplementedError(f"no strategy for {annotation!r}")


def _for_class(annotation: type, metadata: list[Any], depth: int) -> st.SearchStrategy[Any]:
    """A plain class: an enum, a JSON scalar (within the field's bounds) or a model."""
    if issubclass(annotation, enum.Enum):
        return st.sampled_from(list(annotation))
    if issubclass(annotation, bool):
        return st.booleans()
    if issubclass(annotation, int):
        low, high = _bounds(metadata, -(2**53), 2**53)
        return st.integers(int(low), int(high))
    if issubclass(annotation, float):
        low, high = _bounds(metadata, None, None)
        return st.floats(low, high, allow_nan=False, allow_infinity=False, width=64)
    if issubclass(annotation, str):
        return _string(metadata)
    if issubclass(annotation, BaseModel | OLRecord):  # (records build from keywords too)
        return for_model(typing.cast(type[BaseModel], annotation), depth + 1)
    raise NotImplementedError(f"no strategy for {annotation!r}")


# Fields the runtime fills in at construction: sometimes left out, to test that.
_CONSTRUCT_DEFAULTS = {"producer", "schemaURL", "eventTime"}


_building: list[type] = []


@functools.cache
def for_model(cls: type[BaseModel], depth: int = 0) -> st.SearchStrategy[Any]:
    _building.append(cls)
    try:
        return _for_model(cls, depth)
    finally:
        _building.pop()


def _for_model(cls: type[BaseModel], depth: int) -> st.SearchStrategy[Any]:
    if issubclass(cls, RootModel):
        return for_type(cls.model_fields["root"].annotation, [], depth).map(cls)
    if issubclass(cls, FacetContainer):
        return for_container(cls, depth)
    required: dict[str, st.SearchStrategy[Any]] = {}
    optional: dict[str, st.SearchStrategy[Any]] = {}
    for name, field in cls.model_fields.items():
        if field.is_required() and name not in _CONSTRUCT_DEFAULTS:
            required[name] = for_type(field.annotation, list(field.metadata), depth)
        elif depth <= MAX_DEPTH and name != "deleted":
            # (a deletion marker is a different document, tested on its own)
            strategy = for_type(field.annotation, list(field.metadata), depth)
            optional[name] = strategy.filter(lambda v: v is not None)
    return st.fixed_dictionaries(required, optional=optional).map(lambda kwargs: cls(**kwargs))


def for_container(cls: type[FacetContainer], depth: int) -> st.SearchStrategy[Any]:
    if depth > MAX_DEPTH:
        return st.just(cls())
    optional = {
        name: for_model(typing.cast(type[BaseModel], _facet_class(field.annotation)), depth + 1)
        for name, field in cls.model_fields.items()
    }
    return st.fixed_dictionaries({}, optional=optional).map(lambda kwargs: cls(**kwargs))


def _facet_class(annotation: Any) -> type:
    return next(a for a in get_args(annotation) if a is not type(None))


def events() -> st.SearchStrategy[Any]:
    return st.one_of(for_model(models.RunEvent), for_model(models.DatasetEvent), for_model(models.JobEvent))
