"""One entry point from any event JSON to a typed event, and back to JSON.

`parse_event` reads strictly (`olsdk._readers._strict`, exactly the spec) or tolerantly
(`olsdk._readers._lenient`); `to_json` and `to_dict` write any model back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from olsdk._foundation._registry import FacetRegistry
from olsdk._models import RunEvent
from olsdk._models._runtime import built, dump_json, registry_context
from olsdk._models._runtime._pydantic import validator_of
from olsdk._readers._strict import Event, parse_strict

__all__ = ["Event", "parse_event", "to_dict", "to_json"]


def parse_event(
    data: str | bytes | bytearray | Mapping[str, Any], *, strict: bool = True, registry: FacetRegistry | None = None
) -> Event:
    """Parse event JSON (text, bytes or an already decoded dict) into a typed event.

    Strict (the default): exactly what the spec's JSON Schema accepts, every facet
    under a key a facet file declares checked against that file's schema; otherwise
    `olsdk.ValidationError` naming the JSON path and the rule of every problem.

    `strict=False` reads every event whose identity is usable (see `olsdk.validate_event`
    for its problems): what is valid is typed as strict parsing types it, the rest is
    kept as it was sent, and the event dumps back to the same JSON.

    `registry`: the custom facet classes that type their keys (`olsdk.facets.FacetRegistry`);
    by default the default registry, where custom facet classes register themselves.
    """
    context = registry_context(registry)
    # The fast path: a valid RunEvent as bytes or text, validated straight from the JSON in
    # pydantic-core (every other case goes on below, including the errors).
    kind = type(data)
    if strict and (kind is bytes or kind is str):
        text = cast("bytes | str", data)
        try:
            event: Event = (_RUN_EVENT_VALIDATOR or _run_event_validator()).validate_json(text, context=context)
        except PydanticValidationError:
            pass
        else:
            return event
    if not isinstance(data, str | bytes | bytearray | Mapping):
        raise TypeError(f"parse_event() takes JSON text, bytes or a dict, not {type(data).__name__}")
    if not strict:
        from olsdk._readers._lenient import parse_lenient  # loaded when first used

        return cast("Event", parse_lenient(data, context=context))
    return parse_strict(data, run_event_tried=kind is bytes or kind is str, context=context)


# RunEvent's validator, kept here once RunEvent is built (on the first parse: the models
# build on first use), so that the fast path costs one global lookup.
# (A pydantic-core `SchemaValidator`, or pydantic's wrapper of one when plugins are installed.)
_RUN_EVENT_VALIDATOR: Any = None


def _run_event_validator() -> Any:
    global _RUN_EVENT_VALIDATOR
    built(RunEvent)
    _RUN_EVENT_VALIDATOR = validator_of(RunEvent)
    return _RUN_EVENT_VALIDATOR


def to_json(event: BaseModel) -> str:
    """Compact JSON of an event (or any model): JSON names, unset fields left out."""
    return dump_json(event).decode()


def to_dict(event: BaseModel) -> dict[str, Any]:
    """The JSON document of an event (or any model) as Python data."""
    return event.model_dump(mode="json", exclude_defaults=True, warnings=False)
