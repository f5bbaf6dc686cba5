"""One entry point from any event JSON to a typed event, and back to JSON.

The spec's top-level `oneOf` tells the three event kinds apart by their required keys
(`run` for RunEvent, `dataset` for DatasetEvent, `job` without `run` for JobEvent); a
callable discriminator makes pydantic-core dispatch on them in one pass over the JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, TypeAlias

from pydantic import BaseModel, Discriminator, Tag, TypeAdapter
from pydantic import ValidationError as PydanticValidationError

from olsdk._errors import ValidationError
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
    try:
        # JSON names only: a custom field that happens to be called `producer` in a
        # facet must stay that field, not fill in the facet's `_producer`.
        if isinstance(data, str | bytes | bytearray):
            return _EVENT_ADAPTER.validate_json(data, by_alias=True, by_name=False)
        if isinstance(data, Mapping):
            return _EVENT_ADAPTER.validate_python(dict(data), by_alias=True, by_name=False)
    except PydanticValidationError as exc:
        raise ValidationError.from_pydantic(exc) from None
    raise TypeError(f"parse_event() takes JSON text, bytes or a dict, not {type(data).__name__}")


def to_json(event: BaseModel) -> str:
    """Compact JSON of an event (or any model): JSON names, unset fields left out."""
    return event.model_dump_json(exclude_unset=True)


def to_dict(event: BaseModel) -> dict[str, Any]:
    """The JSON document of an event (or any model) as Python data."""
    return event.model_dump(mode="json", exclude_unset=True)
