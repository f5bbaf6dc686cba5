"""The strict reader: event JSON to a typed event, exactly as the spec's JSON Schema says.

The spec's top-level `oneOf` tells the three event kinds apart by their required keys
(`run` for RunEvent, `dataset` for DatasetEvent, `job` without `run` for JobEvent); a
callable discriminator makes pydantic-core dispatch on them in one pass over the JSON.
`olsdk.parse_event` (`olsdk._readers._events`) tries a RunEvent straight from the JSON first and
comes here for everything else; the tolerant reader (`olsdk._readers._lenient`) starts here too.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Annotated, Any, Union, cast

from pydantic import ConfigDict, Discriminator, Tag, TypeAdapter
from pydantic import ValidationError as PydanticValidationError

from olsdk._foundation._exceptions import Problem, ValidationError
from olsdk._models import DatasetEvent, RunEvent
from olsdk._models._runtime import PYTHON_FORMS
from olsdk._models._runtime._pydantic import validator_of
from olsdk._models._spec import EVENT_CLASSES, Event, EventKind, event_kind
from olsdk._readers._wire import JSONProblem, check_data, decode, decode_exact, exact_numbers

__all__ = ["Event", "parse_strict"]


# One tagged member per event kind of the generated table, dispatched on `event_kind`.
_TAGGED_EVENTS: Any = Union[tuple(Annotated[cls, Tag(kind)] for kind, cls in EVENT_CLASSES.items())]  # noqa: UP007
_EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(
    Annotated[
        _TAGGED_EVENTS,
        Discriminator(
            event_kind,
            custom_error_type="event_kind",
            custom_error_message=(
                "not an OpenLineage event: a RunEvent has 'run' and 'job', "
                "a DatasetEvent has 'dataset', a JobEvent has 'job'"
            ),
        ),
    ],
    # Built on first use, with the event classes (see `olsdk.models`), by `_adapter`.
    config=ConfigDict(defer_build=True),
)
_BUILD_LOCK = threading.Lock()
_built = False


def _adapter() -> TypeAdapter[Event]:
    """The event adapter, built by the first caller: pydantic's deferred build is not safe
    when several threads make the first call at once (the others see a half-built adapter
    and fail with "not fully defined"), as a server's or a Spark listener's first events do."""
    global _built
    if not _built:
        with _BUILD_LOCK:
            if not _built:
                _EVENT_ADAPTER.rebuild()
                _built = True
    return _EVENT_ADAPTER


def parse_strict(
    data: str | bytes | bytearray | Mapping[str, Any], *, run_event_tried: bool = False, context: Any = None
) -> Event:
    """`olsdk.parse_event(data)` once `data` is known to be JSON text, bytes or a dict
    (`run_event_tried`: the caller already tried `data` as a RunEvent from the JSON;
    `context`: the validation context, which names the facet registry when not the default)."""
    if isinstance(data, Mapping):
        _check_data(data)
    try:
        try:
            event = _validate(data, run_event_tried=run_event_tried, context=context)
        except PydanticValidationError as exc:
            return _parse_after_error(data, exc, context)
        if type(event) is DatasetEvent and event.model_extra and "job" in event.model_extra:
            # `dataset` and `job` together: the spec's oneOf also tries the JobEvent branch.
            return _one_of(_document(data), first_error=None, context=context)
    except ValidationError as exc:
        if isinstance(data, str | bytes | bytearray):
            raise _json_words(exc) from None
        raise
    return event


def _json_words(exc: ValidationError) -> ValidationError:
    """The problems of JSON text without what only a Python caller may pass instead
    ("..., or a datetime with a time zone"): the slow path checks the decoded document."""
    problems = []
    for problem in exc.problems:
        rule = problem.rule
        for python_form in PYTHON_FORMS.values():
            rule = rule.removesuffix(python_form)
        problems.append(Problem(problem.path, rule, problem.value))
    return ValidationError(problems, exc.title)


def _validate(
    data: str | bytes | bytearray | Mapping[str, Any], *, run_event_tried: bool = False, context: Any = None
) -> Event:
    # JSON names only (the models' configuration): a custom field that happens to be
    # called `producer` in a facet must stay that field, not fill in the facet's `_producer`.
    if isinstance(data, str | bytes | bytearray):
        # Most events are RunEvents: validate straight from the JSON in pydantic-core.
        # The discriminating adapter would first turn the whole document into Python
        # objects to call its discriminator; it serves the other kinds and the errors.
        if not run_event_tried:
            try:
                event: Event = validator_of(RunEvent).validate_json(data, context=context)
                return event
            except PydanticValidationError:
                pass
        return _adapter().validate_json(data, context=context)
    return _adapter().validate_python(dict(data), context=context)


def _check_data(data: Any) -> None:
    try:
        check_data(data)
    except JSONProblem as exc:
        raise ValidationError([exc.problem]) from None


def _decode(data: str | bytes | bytearray) -> Any:
    try:
        return decode(data)
    except JSONProblem as exc:
        raise ValidationError([exc.problem]) from None


def _document(data: str | bytes | bytearray | Mapping[str, Any]) -> Any:
    if not isinstance(data, str | bytes | bytearray):
        return dict(data)
    # JSON text on the slow path: numbers exact (an integer field's `3.0` is 3, `1E+308` is
    # 10**308); a decimal no double says right stays one, which an integer field refuses.
    try:
        return exact_numbers(decode_exact(data), keep_inexact=True)
    except JSONProblem as exc:
        raise ValidationError([exc.problem]) from None


def _parse_after_error(
    data: str | bytes | bytearray | Mapping[str, Any], exc: PydanticValidationError, context: Any
) -> Event:
    """The slow path, after the fast one refused: clear JSON errors, the spec's exact
    oneOf over the event kinds."""
    document = _document(data)  # raises the JSON problem, if that is what failed
    if not isinstance(document, dict):
        raise ValidationError.from_pydantic(exc) from None
    return _one_of(document, first_error=exc, context=context)


def _candidates(document: dict[str, Any]) -> list[EventKind]:
    """The kinds whose `required` and `not` the document meets (the spec's oneOf branches)."""
    out: list[EventKind] = []
    if "run" in document and "job" in document:
        out.append("run")
    if "dataset" in document and not ("job" in document and "run" in document):
        out.append("dataset")
    if "job" in document and "run" not in document:
        out.append("job")
    return out


def _one_of(document: dict[str, Any], first_error: PydanticValidationError | None, context: Any = None) -> Event:
    """The spec's top-level `oneOf`: valid when exactly one event kind accepts the document."""
    valid: list[Event] = []
    errors: list[ValidationError] = []
    for kind in _candidates(document):
        try:
            valid.append(_validate_kind(document, kind, context))
        except ValidationError as exc:
            errors.append(exc)
    if len(valid) == 1:
        return valid[0]
    if len(valid) > 1:
        names = " and ".join(type(event).__name__ for event in valid)
        rule = f"valid as both {names}; an event must be exactly one kind (the spec's oneOf)"
        raise ValidationError([Problem("", rule)])
    if errors:
        raise errors[0]
    if first_error is not None:
        raise ValidationError.from_pydantic(first_error) from None
    raise ValidationError([Problem("", "not an OpenLineage event")])  # pragma: no cover - a kind always matched


def _validate_kind(document: dict[str, Any], kind: EventKind, context: Any = None) -> Event:
    # (Deletion markers, under any key, are typed by the facet maps' own schema.)
    try:
        return cast("Event", EVENT_CLASSES[kind].model_validate(document, context=context))
    except PydanticValidationError as exc:
        raise ValidationError.from_pydantic(exc) from None
