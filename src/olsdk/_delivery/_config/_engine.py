"""The settings engine: declarative, validated settings for the client and the transports.

A settings class is a plain dataclass. :func:`build` fills one from a mapping
(YAML, environment variables or code), which gives every configuration source
the same rules:

* keys match case-insensitively and ignoring ``_``/``-``, so the spellings the
  official client accepts (``apiKey``, ``api_key``, ``apikey``; ``sslContext``)
  all work, including the lower-cased keys environment variables produce;
* an unknown key is an error that names the key, where it came from and the
  nearest valid key;
* values are coerced to the declared type (environment variables are strings),
  and string settings stay strings: ``"007"`` is never turned into ``7``;
* numbers must be finite and not negative; a field's metadata may ask for more
  (``meta(ge=1)``, ``meta(gt=0)``), and ``meta(signed=True)`` allows negatives;
* an error never echoes the value of a secret-looking key (``apiKey``, ``token``...),
  and JSON text (an environment variable holding a whole section) is never echoed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import json
import math
import re
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Literal, TypeVar, Union

from olsdk._foundation._exceptions import ConfigError
from olsdk._foundation._secrets import is_secret_key, masked

__all__ = [
    "MAX_DEPTH",
    "MAX_NODES",
    "MAX_TEXT_BYTES",
    "Origins",
    "build",
    "check_shape",
    "coerce",
    "display_name",
    "fail",
    "meta",
    "norm",
    "parse_json_text",
    "suggest",
    "unknown_key_error",
]

T = TypeVar("T")

#: where each value came from, keyed by the normalised key path
Origins = Mapping[tuple[str, ...], str]

#: limits on configuration documents (YAML files, JSON text in variables, code mappings)
MAX_DEPTH = 32  # nesting levels; a real configuration needs fewer than 10
MAX_NODES = 10_000  # values, counting every alias expansion; a real configuration has a few hundred
MAX_TEXT_BYTES = 1_048_576  # an openlineage.yml or a JSON variable

_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


def norm(key: str) -> str:
    """The form keys are compared in: lower case, without ``_`` and ``-``."""
    return key.lower().replace("_", "").replace("-", "")


def meta(
    name: str | None = None,
    *,
    free_keys: bool = False,
    ge: float | None = None,
    gt: float | None = None,
    signed: bool = False,
) -> dict[str, Any]:
    """Field metadata: the display ``name`` (the official client's spelling).

    ``free_keys`` marks a mapping whose keys are user data (header names, Kafka
    properties) and therefore not validated. ``ge``/``gt`` bound a number from below
    (every number must be ``>= 0`` unless ``signed``).
    """
    return {"name": name, "free_keys": free_keys, "ge": ge, "gt": gt, "signed": signed}


def display_name(field: dataclasses.Field[Any]) -> str:
    return str(field.metadata.get("name") or field.name)


def _dotted(path: tuple[str, ...]) -> str:
    return ".".join(path)


def _origin_note(path: tuple[str, ...], origins: Origins) -> str:
    full = key = tuple(norm(p) for p in path)
    # a value may come from a parent key (a JSON blob in one environment variable)
    while key:
        if key in origins:
            return f" (from {origins[key]})"
        key = key[:-1]
    # ...or be a section whose leaves carry the origins (a misspelt `tranport:` mapping)
    inside = sorted({origin for where, origin in origins.items() if full and where[: len(full)] == full})
    return f" (from {' and '.join(inside)})" if inside else ""


def fail(message: str, path: tuple[str, ...], origins: Origins) -> ConfigError:
    """A ConfigError for the key at ``path``, saying where its value came from."""
    return ConfigError(f"{_dotted(path)}: {message}{_origin_note(path, origins)}", _dotted(path))


def suggest(key: str, candidates: list[str]) -> str | None:
    """The candidate nearest to ``key``, if any is close enough."""
    by_norm = {norm(c): c for c in candidates}
    hits = difflib.get_close_matches(norm(key), list(by_norm), n=1, cutoff=0.6)
    return by_norm[hits[0]] if hits else None


def unknown_key_error(key: str, path: tuple[str, ...], candidates: list[str], origins: Origins) -> ConfigError:
    hint = suggest(key, candidates)
    did_you_mean = f"; did you mean '{hint}'?" if hint else ""
    valid = ", ".join(sorted(candidates))
    return fail(f"unknown key{did_you_mean} (valid keys: {valid})", (*path, key), origins)


def parse_json_text(value: str, path: tuple[str, ...], origins: Origins) -> Any:
    """JSON text given for a section; errors never echo the text (it may hold secrets)."""
    if len(value) > MAX_TEXT_BYTES:
        raise fail(f"JSON text of {len(value)} characters, over the limit of {MAX_TEXT_BYTES}", path, origins)
    try:
        data = json.loads(value, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        msg = f"expected a mapping or JSON text; the text is not valid JSON ({exc.msg} at {where})"
        raise fail(msg, path, origins) from None
    except RecursionError:
        raise fail(f"JSON text nested deeper than {MAX_DEPTH} levels", path, origins) from None
    except ValueError as exc:
        raise fail(f"expected a mapping or JSON text; {exc}", path, origins) from None
    try:
        check_shape(data, "the JSON text")
    except ConfigError as exc:
        raise fail(str(exc), path, origins) from None
    return data


def _no_constant(name: str) -> Any:
    raise ValueError(f"the JSON text holds {name}, which is not JSON")


def check_shape(data: Any, what: str = "configuration") -> None:
    """Refuse documents nested deeper than MAX_DEPTH, holding a cycle (a recursive YAML
    alias) or expanding to more than MAX_NODES values (an alias bomb); ConfigError."""
    sizes: dict[int, int] = {}
    ancestors: set[int] = set()

    def size(node: Any, depth: int) -> int:
        if not isinstance(node, dict | list | tuple):
            return 1
        key = id(node)
        if key in ancestors:
            raise ConfigError(f"{what} refers to itself (a recursive alias)")
        if key in sizes:
            return sizes[key]
        if depth > MAX_DEPTH:
            raise ConfigError(f"{what} is nested deeper than {MAX_DEPTH} levels")
        ancestors.add(key)
        children = node.values() if isinstance(node, dict) else node
        total = 1 + sum(size(child, depth + 1) for child in children)
        ancestors.discard(key)
        if total > MAX_NODES:
            raise ConfigError(f"{what} expands to more than {MAX_NODES} values (aliases included)")
        sizes[key] = total
        return total

    size(data, 0)


def build(cls: type[T], data: Any, path: tuple[str, ...], origins: Origins | None = None) -> T:
    """Validate ``data`` against the dataclass ``cls`` and return an instance."""
    origins = origins or {}
    if isinstance(data, str):
        data = parse_json_text(data, path, origins)
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise fail(f"expected a mapping, got {type(data).__name__}", path, origins)
    hints = typing.get_type_hints(cls)
    fields = {norm(f.name): f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    values: dict[str, Any] = {}
    # a class may collect the keys it does not declare into one field (custom auth keys)
    extra_field = getattr(cls, "__extra_keys__", None)
    extras: dict[str, Any] = {}
    for raw_key, raw_value in data.items():
        key = str(raw_key)
        field = fields.get(norm(key))
        if field is None and extra_field:
            extras[key] = raw_value
            continue
        if field is None:
            names = [display_name(f) for f in fields.values()]
            raise unknown_key_error(key, path, names, origins)
        fpath = (*path, display_name(field))
        values[field.name] = coerce(hints[field.name], raw_value, fpath, origins)
        _check_bounds(field, values[field.name], fpath, origins)
    if extras:
        values[str(extra_field)] = {**values.get(str(extra_field), {}), **extras}
    for field in fields.values():
        required = field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING
        if required and field.name not in values:
            raise fail("required key is missing", (*path, display_name(field)), origins)
    return cls(**values)


def _check_bounds(field: dataclasses.Field[Any], value: Any, path: tuple[str, ...], origins: Origins) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return
    ge, gt = field.metadata.get("ge"), field.metadata.get("gt")
    if gt is not None and not value > gt:
        raise fail(f"must be greater than {gt:g}, got {value!r}", path, origins)
    if ge is not None and not value >= ge:
        raise fail(f"must be at least {ge:g}, got {value!r}", path, origins)
    if value < 0 and not field.metadata.get("signed"):
        raise fail(f"must not be negative, got {value!r}", path, origins)


def shown(value: Any, path: tuple[str, ...]) -> str:
    """How an error message shows a value: never the value of a secret-looking key."""
    if path and is_secret_key(path[-1]):
        return "*** (hidden: the key holds a secret)"
    text = repr(masked(value))
    return text if len(text) <= 80 else text[:77] + "..."


def coerce(tp: Any, value: Any, path: tuple[str, ...], origins: Origins) -> Any:
    """Turn ``value`` into type ``tp`` or raise a :class:`ConfigError` naming ``path``."""
    origin = typing.get_origin(tp)
    if tp is Any:
        return value
    if origin in (Union, types.UnionType):
        return _to_union(typing.get_args(tp), value, path, origins)
    if value is None:
        raise fail("a value is required here, got null", path, origins)
    if origin is Literal:
        return _to_literal(typing.get_args(tp), value, path, origins)
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        return build(tp, value, path, origins)
    if origin is dict:
        return _to_dict(typing.get_args(tp)[1], value, path, origins)
    if origin is list:
        return _to_list(typing.get_args(tp)[0], value, path, origins)
    scalar = _SCALARS.get(tp)
    if scalar is None:
        raise TypeError(f"unsupported settings type {tp!r} at {_dotted(path)}")  # programming error
    converted, expected = scalar(value)
    if converted is _INVALID:
        message = expected if ", got " in expected else f"{expected}, got {shown(value, path)}"
        raise fail(message, path, origins)
    return converted


def _to_union(options: tuple[Any, ...], value: Any, path: tuple[str, ...], origins: Origins) -> Any:
    if value is None and type(None) in options:
        return None
    errors: list[ConfigError] = []
    for option in (a for a in options if a is not type(None)):
        try:
            return coerce(option, value, path, origins)
        except ConfigError as exc:
            errors.append(exc)
    raise errors[0]


def _to_literal(allowed: tuple[Any, ...], value: Any, path: tuple[str, ...], origins: Origins) -> Any:
    text = str(value).lower() if isinstance(value, str) else value
    if text in allowed:
        return text
    listed = ", ".join(repr(a) for a in allowed)
    raise fail(f"must be one of {listed}, got {shown(value, path)}", path, origins)


def _to_dict(value_tp: Any, value: Any, path: tuple[str, ...], origins: Origins) -> dict[str, Any]:
    if isinstance(value, str):
        value = parse_json_text(value, path, origins)
    if not isinstance(value, Mapping):
        raise fail(f"expected a mapping, got {type(value).__name__}", path, origins)
    return {str(k): coerce(value_tp, v, (*path, str(k)), origins) for k, v in value.items()}


def _to_list(item_tp: Any, value: Any, path: tuple[str, ...], origins: Origins) -> list[Any]:
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            value = parse_json_text(text, path, origins)
        else:  # the official client splits list settings on ";"
            value = [part.strip() for part in re.split(r"[;,]", text) if part.strip()]
    if not isinstance(value, list | tuple):
        raise fail(f"expected a list, got {type(value).__name__}", path, origins)
    return [coerce(item_tp, v, (*path, str(i)), origins) for i, v in enumerate(value)]


# Scalar converters return (value, "") or (_INVALID, what was expected).
_INVALID = object()


def _to_bool(value: Any) -> tuple[Any, str]:
    if isinstance(value, bool):
        return value, ""
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE, ""
    return _INVALID, "expected true or false"


def _to_int(value: Any) -> tuple[Any, str]:
    if isinstance(value, int) and not isinstance(value, bool):
        return value, ""
    if isinstance(value, str) and len(value) < 40 and re.fullmatch(r"\s*[-+]?\d+\s*", value):
        return int(value), ""
    return _INVALID, "expected an integer"


def _to_float(value: Any) -> tuple[Any, str]:
    number: float | None = None
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str) and len(value) < 40:
        with contextlib.suppress(ValueError):
            number = float(value)
    if number is None:
        return _INVALID, "expected a number"
    if not math.isfinite(number):
        return _INVALID, "expected a finite number"
    return number, ""


def _to_str(value: Any) -> tuple[Any, str]:
    if isinstance(value, str):
        return value, ""
    if isinstance(value, bool):
        return ("true" if value else "false"), ""
    if isinstance(value, int | float):
        return str(value), ""  # YAML reads `apiKey: 123` as a number; the setting is text
    return _INVALID, f"expected text, got {type(value).__name__}"  # the type only: never a nested secret


_SCALARS: dict[Any, Callable[[Any], tuple[Any, str]]] = {bool: _to_bool, int: _to_int, float: _to_float, str: _to_str}
