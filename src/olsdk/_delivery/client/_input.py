"""What ``emit`` accepts, turned into event JSON bytes; anything else refused with a reason.

Accepted: a generated model (``RunEvent``, ``DatasetEvent``, ``JobEvent``), a mapping,
JSON text as ``str``/``bytes``/``bytearray``, and an event object of the official
``openlineage-python`` client (through its own ``Serde.to_json``). Text is sent byte
for byte as given, once it is known to be one JSON object.

Refused, with a reason naming what is wrong (and, where there is one, the JSON path):
text that is not JSON or not UTF-8, ``NaN``/``Infinity`` (Python's ``json`` writes
them, JSON does not have them), a JSON value that is not an object, values that
cannot be serialised, nesting deeper than Python can serialise, and events over the
configured ``max_event_bytes``. A refusal carries the input as text so the client can
keep it in the spool; nothing is silently dropped.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any, Protocol, TypeAlias

from pydantic import BaseModel

from olsdk._foundation._exceptions import Problem, ValidationError
from olsdk._models._runtime import dump_json
from olsdk._models._spec import Event  # not the readers': an emit of a model never parses

__all__ = ["EventInput", "OfficialClientEvent", "Refused", "serialise"]


class OfficialClientEvent(Protocol):
    """What type checkers accept as an event object of the official ``openlineage-python``
    client (``openlineage.client.event_v2.RunEvent``, ``DatasetEvent``, ``JobEvent``, and
    the older ``openlineage.client.run`` classes): their common attributes. At run time
    only that client's own classes are taken (through its ``Serde.to_json``)."""

    @property
    def eventTime(self) -> str: ...
    @property
    def producer(self) -> str: ...
    @property
    def schemaURL(self) -> str: ...


EventInput: TypeAlias = Event | OfficialClientEvent | Mapping[str, Any] | str | bytes | bytearray
"""What ``OpenLineageClient.emit`` takes: an olsdk event model, an official-client event,
or event JSON (a mapping, or text as ``str``/``bytes``)."""

_KEEP_CHARS = 1_000_000  # of an unserialisable object's repr, kept in the spool


class Refused(ValidationError):
    """Input that is no event; ``text`` is what the spool keeps of it."""

    def __init__(self, reason: str, text: str, path: str = "") -> None:
        super().__init__([Problem(path, reason)], title="OpenLineage event refused")
        self.reason = reason
        self.text = text
        self.path = path


def _no_constant(name: str) -> Any:
    raise ValueError(name)


def _text_of(event: Any) -> str:
    """Some text that represents ``event``, for the spool (never raises)."""
    try:
        return json.dumps(event, ensure_ascii=True, default=repr)[:_KEEP_CHARS]
    except (ValueError, TypeError, RecursionError):
        pass
    try:
        return repr(event)[:_KEEP_CHARS]
    except Exception:  # a hostile __repr__, a recursion: say what it was at least
        return f"<{type(event).__qualname__} object that cannot be shown>"


def _non_finite_path(data: Any) -> str:
    """The JSON path of the first NaN/Infinity in ``data`` (iterative; bounded)."""
    stack: list[tuple[Any, str]] = [(data, "")]
    seen = 0
    while stack and seen < 1_000_000:
        node, path = stack.pop()
        seen += 1
        if isinstance(node, float) and not math.isfinite(node):
            return path
        if isinstance(node, Mapping):
            stack.extend((v, f"{path}.{k}" if path else str(k)) for k, v in node.items())
        elif isinstance(node, list | tuple):
            stack.extend((v, f"{path}[{i}]") for i, v in enumerate(node))
    return ""


def _check_size(raw: bytes, limit: int, text: str | None = None) -> None:
    if len(raw) > limit:
        shown = text if text is not None else raw.decode("utf-8", "backslashreplace")
        raise Refused(f"the event is {len(raw)} bytes, over max_event_bytes ({limit})", shown)


def _from_text(raw: bytes, shown: str, limit: int) -> tuple[bytes, dict[str, Any]]:
    _check_size(raw, limit, shown)
    try:
        data = json.loads(raw, parse_constant=_no_constant)
    except RecursionError:
        raise Refused("the JSON text is nested deeper than Python can read", shown) from None
    except json.JSONDecodeError as exc:
        raise Refused(f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})", shown) from None
    except ValueError as exc:  # parse_constant: NaN, Infinity, -Infinity
        raise Refused(f"the JSON text holds {exc}, which JSON does not allow", shown) from None
    if not isinstance(data, dict):
        raise Refused(f"an OpenLineage event must be a JSON object, got {_json_kind(data)}", shown)
    return raw, data


def _json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return "a number"


def _official_json(event: Any) -> str | None:
    """The official client's JSON of one of its event objects, or None if it is not one."""
    module = type(event).__module__ or ""
    if not module.startswith("openlineage.client"):
        return None
    try:
        from openlineage.client.serde import Serde
    except ImportError:
        return None
    text: str = Serde.to_json(event)
    return text


def serialise(event: Any, max_bytes: int) -> tuple[bytes, dict[str, Any] | None]:
    """``(body, data)``: the JSON bytes to send, and the decoded event (None for a model,
    which needs no further check). Raises :class:`Refused`."""
    if isinstance(event, BaseModel):
        try:
            raw = dump_json(event)
        except Exception as exc:  # e.g. a lone surrogate in a string field
            raise Refused(f"the model cannot be serialised: {exc}", _text_of(event)) from None
        _check_size(raw, max_bytes)
        return raw, None
    if isinstance(event, str):
        try:
            raw = event.encode("utf-8")
        except UnicodeEncodeError as exc:
            shown = event.encode("utf-8", "backslashreplace").decode("utf-8")
            raise Refused(f"not valid Unicode text (a lone surrogate at character {exc.start})", shown) from None
        return _from_text(raw, event, max_bytes)
    if isinstance(event, bytes | bytearray):
        raw = bytes(event)
        try:
            shown = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise Refused(f"not UTF-8 text (byte {exc.start})", raw.decode("utf-8", "backslashreplace")) from None
        return _from_text(raw, shown, max_bytes)
    if isinstance(event, Mapping):
        return _from_mapping(event, max_bytes)
    try:
        official = _official_json(event)
    except Exception as exc:
        raise Refused(
            f"the official client could not serialise it: {type(exc).__name__}: {exc}", _text_of(event)
        ) from None
    if official is not None:
        return _from_text(official.encode("utf-8"), official, max_bytes)
    raise Refused(
        f"a {type(event).__qualname__} is not an event: pass a RunEvent, DatasetEvent or JobEvent, "
        "an official-client event, a dict, or JSON text",
        _text_of(event),
    )


def _from_mapping(event: Mapping[str, Any], max_bytes: int) -> tuple[bytes, dict[str, Any]]:
    data = dict(event)
    try:
        text = json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except ValueError:
        path = _non_finite_path(data)
        raise Refused("holds NaN or Infinity, which JSON does not allow", _text_of(data), path) from None
    except RecursionError:
        raise Refused(
            "nested deeper than Python can serialise", f"<{type(event).__qualname__} nested too deeply to keep>"
        ) from None
    except TypeError as exc:
        raise Refused(f"not JSON-serialisable: {exc}", _text_of(data)) from None
    try:
        raw = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        shown = text.encode("utf-8", "backslashreplace").decode("utf-8")
        raise Refused(f"not valid Unicode text (a lone surrogate at character {exc.start})", shown) from None
    _check_size(raw, max_bytes, text)
    return raw, data
