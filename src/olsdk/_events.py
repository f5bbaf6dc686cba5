"""One entry point from any event JSON to a typed event, and back to JSON.

The spec's top-level `oneOf` tells the three event kinds apart by their required keys
(`run` for RunEvent, `dataset` for DatasetEvent, `job` without `run` for JobEvent); a
callable discriminator makes pydantic-core dispatch on them in one pass over the JSON.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Annotated, Any, TypeAlias

from pydantic import BaseModel, Discriminator, Tag, TypeAdapter
from pydantic import ValidationError as PydanticValidationError

from olsdk._errors import ValidationError
from olsdk._runtime import DeletedFacet, FacetContainer, _models_in
from olsdk.models import DatasetEvent, JobEvent, RunEvent

Event: TypeAlias = RunEvent | DatasetEvent | JobEvent
"""Any OpenLineage event."""


def _event_kind(value: Any) -> str | None:
    if isinstance(value, Mapping):
        if "run" in value:
            return "run"
        if "dataset" in value:
            return "dataset"
        if "job" in value:
            return "job"
        return None
    if isinstance(value, RunEvent):
        return "run"
    if isinstance(value, DatasetEvent):
        return "dataset"
    if isinstance(value, JobEvent):
        return "job"
    return None


_EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(
    Annotated[
        Annotated[RunEvent, Tag("run")] | Annotated[DatasetEvent, Tag("dataset")] | Annotated[JobEvent, Tag("job")],
        Discriminator(
            _event_kind,
            custom_error_type="event_kind",
            custom_error_message=(
                "not an OpenLineage event: a RunEvent has 'run' and 'job', "
                "a DatasetEvent has 'dataset', a JobEvent has 'job'"
            ),
        ),
    ]
)


def parse_event(data: str | bytes | bytearray | Mapping[str, Any]) -> Event:
    """Parse event JSON (text, bytes or an already decoded dict) into a typed event.

    Raises `olsdk.ValidationError` naming the JSON path and the rule of every problem.
    """
    if not isinstance(data, str | bytes | bytearray | Mapping):
        raise TypeError(f"parse_event() takes JSON text, bytes or a dict, not {type(data).__name__}")
    try:
        event = _validate(data)
    except PydanticValidationError as exc:
        # A deletion marker under a key the spec types (`"schema": {"_deleted": true}`)
        # cannot be validated as that facet: take such markers out, validate the rest,
        # and put them back as `DeletedFacet`s. Rare, so it is not on the fast path.
        if not _may_hold_deletions(data):
            raise ValidationError.from_pydantic(exc) from None
        return _validate_with_deletions(data, exc)
    return event


_RUN_EVENT_VALIDATOR = RunEvent.__pydantic_validator__


def _validate(data: str | bytes | bytearray | Mapping[str, Any]) -> Event:
    # JSON names only: a custom field that happens to be called `producer` in a facet
    # must stay that field, not fill in the facet's `_producer`.
    if isinstance(data, str | bytes | bytearray):
        # Most events are RunEvents: validate straight from the JSON in pydantic-core.
        # The discriminating adapter would first turn the whole document into Python
        # objects to call its discriminator; it serves the other kinds and the errors.
        try:
            event: Event = _RUN_EVENT_VALIDATOR.validate_json(data, by_alias=True, by_name=False)
            return event
        except PydanticValidationError:
            pass
        return _EVENT_ADAPTER.validate_json(data, by_alias=True, by_name=False)
    return _EVENT_ADAPTER.validate_python(dict(data), by_alias=True, by_name=False)


def _may_hold_deletions(data: str | bytes | bytearray | Mapping[str, Any]) -> bool:
    if isinstance(data, str):
        return '"_deleted"' in data
    if isinstance(data, bytes | bytearray):
        return b'"_deleted"' in data
    return "_deleted" in json.dumps(data, default=str)


_Marker = tuple[tuple[str | int, ...], str, dict[str, Any]]


def _validate_with_deletions(
    data: str | bytes | bytearray | Mapping[str, Any], first_error: PydanticValidationError
) -> Event:
    document = json.loads(data) if isinstance(data, str | bytes | bytearray) else copy.deepcopy(dict(data))
    kind = _event_kind(document)
    markers: list[_Marker] = []
    if kind is not None and isinstance(document, dict):
        _take_markers(document, _EVENT_CLASSES[kind], (), markers)
    if not markers:
        raise ValidationError.from_pydantic(first_error) from None
    try:
        event = _validate(document)
    except PydanticValidationError as exc:
        raise ValidationError.from_pydantic(exc) from None
    for path, key, marker in markers:
        target: Any = event
        for step in path:
            target = target[step] if isinstance(step, int) else getattr(target, step)
        target[key] = DeletedFacet.model_validate(marker)
    return event


def _take_markers(node: Any, cls: type[BaseModel], path: tuple[str | int, ...], out: list[_Marker]) -> None:
    """Move deletion markers under typed keys out of `node` (a JSON object of `cls`)."""
    if issubclass(cls, FacetContainer):
        for key in list(node):
            value = node[key]
            if key in cls.__olsdk_keys__ and isinstance(value, dict) and value.get("_deleted") is True:
                out.append((path, key, node.pop(key)))
    for name, info in cls.model_fields.items():
        child = node.get(info.alias or name)
        models = [m for m in _models_in(info.annotation) if m.model_fields]
        if not models or not isinstance(child, list | dict):
            continue
        # (Walking only where one model class is possible keeps this simple: unions of
        # models, such as subset conditions, hold no facet containers.)
        if len(models) != 1:
            continue
        if isinstance(child, list):
            for index, item in enumerate(child):
                if isinstance(item, dict):
                    _take_markers(item, models[0], (*path, name, index), out)
        else:
            _take_markers(child, models[0], (*path, name), out)


_EVENT_CLASSES: dict[str, type[BaseModel]] = {"run": RunEvent, "dataset": DatasetEvent, "job": JobEvent}


def to_json(event: BaseModel) -> str:
    """Compact JSON of an event (or any model): JSON names, unset fields left out."""
    return event.model_dump_json(exclude_unset=True)


def to_dict(event: BaseModel) -> dict[str, Any]:
    """The JSON document of an event (or any model) as Python data."""
    return event.model_dump(mode="json", exclude_unset=True)
