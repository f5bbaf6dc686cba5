"""Declarative, validated settings for transports and the client.

A settings class is a plain dataclass. :func:`build` fills one from a mapping
(YAML, environment variables or code), which gives every configuration source
the same rules:

* keys match case-insensitively and ignoring ``_``/``-``, so the spellings the
  official client accepts (``apiKey``, ``api_key``, ``apikey``; ``sslContext``)
  all work, including the lower-cased keys environment variables produce;
* an unknown key is an error that names the key, where it came from and the
  nearest valid key;
* values are coerced to the declared type (environment variables are strings),
  and string settings stay strings: ``"007"`` is never turned into ``7``.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import re
import types
import typing
from collections.abc import Mapping
from typing import Any, Literal, TypeVar, Union

__all__ = ["ConfigError", "Origins", "build", "display_name", "masked", "meta", "norm"]

T = TypeVar("T")

#: where each value came from, keyed by the normalised key path
Origins = Mapping[tuple[str, ...], str]

_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


class ConfigError(ValueError):
    """Invalid OpenLineage configuration; ``key`` is the dotted path at fault."""

    def __init__(self, message: str, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key


def norm(key: str) -> str:
    """The form keys are compared in: lower case, without ``_`` and ``-``."""
    return key.lower().replace("_", "").replace("-", "")


def meta(name: str | None = None, *, free_keys: bool = False) -> dict[str, Any]:
    """Field metadata: the display ``name`` (the official client's spelling).

    ``free_keys`` marks a mapping whose keys are user data (header names, Kafka
    properties) and therefore not validated.
    """
    return {"name": name, "free_keys": free_keys}


def display_name(field: dataclasses.Field[Any]) -> str:
    return str(field.metadata.get("name") or field.name)


def _dotted(path: tuple[str, ...]) -> str:
    return ".".join(path)


def _origin_note(path: tuple[str, ...], origins: Origins) -> str:
    key = tuple(norm(p) for p in path)
    # a value may come from a parent key (a JSON blob in one environment variable)
    while key:
        if key in origins:
            return f" (from {origins[key]})"
        key = key[:-1]
    return ""


def _fail(message: str, path: tuple[str, ...], origins: Origins) -> ConfigError:
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
    return _fail(f"unknown key{did_you_mean} (valid keys: {valid})", (*path, key), origins)


def parse_json_text(value: str, path: tuple[str, ...], origins: Origins) -> Any:
    try:
        return json.loads(value)
    except json.JSONDecodeError as exc:
        msg = f"expected a mapping or JSON text, got {value!r} ({exc})"
        raise _fail(msg, path, origins) from None


def build(cls: type[T], data: Any, path: tuple[str, ...], origins: Origins | None = None) -> T:
    """Validate ``data`` against the dataclass ``cls`` and return an instance."""
    origins = origins or {}
    if isinstance(data, str):
        data = parse_json_text(data, path, origins)
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise _fail(f"expected a mapping, got {type(data).__name__}", path, origins)
    hints = typing.get_type_hints(cls)
    fields = {norm(f.name): f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    values: dict[str, Any] = {}
    for raw_key, raw_value in data.items():
        key = str(raw_key)
        field = fields.get(norm(key))
        if field is None:
            names = [display_name(f) for f in fields.values()]
            raise unknown_key_error(key, path, names, origins)
        fpath = (*path, display_name(field))
        values[field.name] = coerce(hints[field.name], raw_value, fpath, origins)
    for field in fields.values():
        required = field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING
        if required and field.name not in values:
            raise _fail("required key is missing", (*path, display_name(field)), origins)
    return cls(**values)


def coerce(tp: Any, value: Any, path: tuple[str, ...], origins: Origins) -> Any:
    """Turn ``value`` into type ``tp`` or raise a :class:`ConfigError` naming ``path``."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if tp is Any:
        return value
    if origin in (Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        options = [a for a in args if a is not type(None)]
        errors: list[ConfigError] = []
        for option in options:
            try:
                return coerce(option, value, path, origins)
            except ConfigError as exc:
                errors.append(exc)
        raise errors[0]
    if value is None:
        raise _fail("a value is required here, got null", path, origins)
    if origin is Literal:
        text = str(value).lower() if isinstance(value, str) else value
        if text in args:
            return text
        allowed = ", ".join(repr(a) for a in args)
        raise _fail(f"must be one of {allowed}, got {value!r}", path, origins)
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        return build(tp, value, path, origins)
    if tp is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
            return value.strip().lower() in _TRUE
        raise _fail(f"expected true or false, got {value!r}", path, origins)
    if tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, str) and re.fullmatch(r"\s*[-+]?\d+\s*", value):
            return int(value)
        raise _fail(f"expected an integer, got {value!r}", path, origins)
    if tp is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                pass
        raise _fail(f"expected a number, got {value!r}", path, origins)
    if tp is str:
        if isinstance(value, str):
            return value
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int | float):
            return str(value)  # YAML reads `apiKey: 123` as a number; the setting is text
        raise _fail(f"expected text, got {type(value).__name__}", path, origins)
    if origin is dict:
        if isinstance(value, str):
            value = parse_json_text(value, path, origins)
        if not isinstance(value, Mapping):
            raise _fail(f"expected a mapping, got {type(value).__name__}", path, origins)
        _, value_tp = args
        return {str(k): coerce(value_tp, v, (*path, str(k)), origins) for k, v in value.items()}
    if origin is list:
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                value = parse_json_text(text, path, origins)
            else:  # the official client splits list settings on ";"
                value = [part.strip() for part in re.split(r"[;,]", text) if part.strip()]
        if not isinstance(value, list | tuple):
            raise _fail(f"expected a list, got {type(value).__name__}", path, origins)
        (item_tp,) = args
        return [coerce(item_tp, v, (*path, str(i)), origins) for i, v in enumerate(value)]
    raise TypeError(f"unsupported settings type {tp!r} at {_dotted(path)}")  # programming error


_SECRET_KEY = re.compile(r"(api_?key|secret|password|passwd|token|credential|authorization)", re.IGNORECASE)


def _mask_url(text: str) -> str:
    return re.sub(r"(://[^:/@\s]+:)[^@/\s]+@", r"\1***@", text)


def masked(value: Any, key: str = "") -> Any:
    """A copy of ``value`` with secrets (by key name, or URL passwords) replaced by ``***``."""
    if isinstance(value, dict):
        return {k: masked(v, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [masked(v, key) for v in value]
    if key and _SECRET_KEY.search(key) and value not in (None, ""):
        return "***"
    if isinstance(value, str):
        return _mask_url(value)
    return value
