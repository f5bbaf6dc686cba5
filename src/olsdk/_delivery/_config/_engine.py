"""Settings on pydantic, with the official client's leniency and errors naming key, rule, value and source.

A settings class subclasses :class:`Settings` (a frozen pydantic model, ``extra="forbid"``,
bounds as ``Field(ge=..., gt=...)``, secrets as ``SecretStr``, the official spelling of a key
as its ``validation_alias``). Small adapters keep what the official client accepts:

* keys match whatever their case, ``_`` and ``-`` (``apiKey``, ``api_key``, ``APIKEY``);
* environment variables are text: a list may be ``a;b``, a section JSON text; numbers and
  switches in YAML are text where a setting is text; a choice matches in any case;
* numbers are never negative unless a bound says otherwise.

:func:`build` validates a mapping and turns pydantic's first error into a ``ConfigError``
naming the key path, the rule, the value (never a secret, never JSON text) and its source.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import difflib
import functools
import json
import re
import types
import typing
from collections.abc import Mapping
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, SecretStr, TypeAdapter, ValidationError, field_validator, model_validator
from pydantic_core import PydanticCustomError

from olsdk._foundation._exceptions import ConfigError
from olsdk._foundation._secrets import is_secret_key, masked

T = TypeVar("T")
Origins = Mapping[tuple[str, ...], str]  # where each value came from, by normalised key path
MAX_DEPTH = 32  # nesting levels of a configuration document; a real one needs fewer than 10
MAX_NODES = 10_000  # values, counting every alias expansion; a real configuration has a few hundred
MAX_TEXT_BYTES = 1_048_576  # an openlineage.yml or a JSON variable
_RULES = {  # pydantic's error types -> the rule a message states
    "int": "expected an integer",
    "float": "expected a number",
    "bool": "expected true or false",
    "finite_number": "expected a finite number",
    "greater_than": "must be greater than {gt:g}",
    "greater_than_equal": "must be at least {ge:g}",
}
_TYPE_ONLY = {"dict": "a mapping", "model": "a mapping", "dataclass": "a mapping", "list": "a list", "string": "text"}
_VALIDATING: contextvars.ContextVar[bool] = contextvars.ContextVar("olsdk_settings_validating", default=False)
_UNION_TAG = re.compile(r"^(int|bool|str|float|none|(list|dict|function-\w+)\[.*\])$")


def norm(key: str) -> str:
    """The form keys are compared in: lower case, without ``_`` and ``-``."""
    return key.lower().replace("_", "").replace("-", "")


def suggest(key: str, candidates: list[str]) -> str | None:
    """The candidate nearest to ``key``, if any is close enough."""
    by_norm = {norm(c): c for c in candidates}
    hits = difflib.get_close_matches(norm(key), list(by_norm), n=1, cutoff=0.6)
    return by_norm[hits[0]] if hits else None


def _origin_note(path: tuple[str, ...], origins: Origins) -> str:
    full = key = tuple(norm(p) for p in path)
    while key:  # a value may come from a parent key (a JSON section in one variable)...
        if key in origins:
            return f" (from {origins[key]})"
        key = key[:-1]
    # ...or be a section whose leaves carry the origins (a misspelt `tranport:` mapping), or a
    # key missing from a section: the section's sources
    for section in (full, full[:-1]):
        inside = sorted({origin for where, origin in origins.items() if section and where[: len(section)] == section})
        if inside:
            return f" (from {' and '.join(inside)})"
    return ""


def fail(message: str, path: tuple[str, ...], origins: Origins) -> ConfigError:
    """A ConfigError for the key at ``path``, saying where its value came from."""
    return ConfigError(f"{'.'.join(path)}: {message}{_origin_note(path, origins)}", ".".join(path))


def unknown_key(key: str, candidates: list[str]) -> str:
    hint = suggest(key, candidates)
    return f"unknown key{f'; did you mean {hint!r}?' if hint else ''} (valid keys: {', '.join(sorted(candidates))})"


def unknown_key_error(key: str, path: tuple[str, ...], candidates: list[str], origins: Origins) -> ConfigError:
    return fail(unknown_key(key, candidates), (*path, key), origins)


def _no_constant(name: str) -> Any:
    raise ValueError(f"the JSON text holds {name}, which is not JSON")


def json_text(value: str) -> Any:
    """JSON text given for a section; a ValueError never echoes the text (it may hold secrets)."""
    if len(value) > MAX_TEXT_BYTES:
        raise ValueError(f"JSON text of {len(value)} characters, over the limit of {MAX_TEXT_BYTES}")
    try:
        data = json.loads(value, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        raise ValueError(
            f"expected a mapping or JSON text; the text is not valid JSON ({exc.msg} at {where})"
        ) from None
    except RecursionError:
        raise ValueError(f"JSON text nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:
        raise ValueError(f"expected a mapping or JSON text; {exc}") from None
    check_shape(data, "the JSON text")
    return data


def parse_json_text(value: str, path: tuple[str, ...], origins: Origins) -> Any:
    try:
        return json_text(value)
    except ValueError as exc:
        raise fail(str(exc), path, origins) from None


def check_shape(data: Any, what: str = "configuration") -> None:
    """Refuse documents nested deeper than MAX_DEPTH, holding a cycle (a recursive YAML
    alias) or expanding to more than MAX_NODES values (an alias bomb); ConfigError."""
    sizes: dict[int, int] = {}
    ancestors: set[int] = set()

    def size(node: Any, depth: int) -> int:
        if not isinstance(node, dict | list | tuple):
            return 1
        if id(node) in ancestors:
            raise ConfigError(f"{what} refers to itself (a recursive alias)")
        if id(node) not in sizes:
            if depth > MAX_DEPTH:
                raise ConfigError(f"{what} is nested deeper than {MAX_DEPTH} levels")
            ancestors.add(id(node))
            sizes[id(node)] = 1 + sum(size(c, depth + 1) for c in (node.values() if isinstance(node, dict) else node))
            ancestors.discard(id(node))
            if sizes[id(node)] > MAX_NODES:
                raise ConfigError(f"{what} expands to more than {MAX_NODES} values (aliases included)")
        return sizes[id(node)]

    size(data, 0)


def display_names(cls: Any) -> dict[str, str]:
    """Attribute name -> the key's name in configuration (the official client's spelling)."""
    if isinstance(cls, type) and issubclass(cls, BaseModel):
        return {name: str(f.validation_alias or name) for name, f in cls.model_fields.items()}
    return {f.name: f.name for f in dataclasses.fields(cls)}


def respell(cls: Any, data: Any) -> Any:
    """Keys in any spelling as the names pydantic reads; unknown keys an error (or, for a class
    with ``__extra_keys__``, collected into that field: a custom auth provider's own keys)."""
    if isinstance(data, str):
        try:
            data = json_text(data)
        except ValueError as exc:
            raise PydanticCustomError("olsdk", "{message}", {"message": str(exc)}) from None
    if not isinstance(data, Mapping):
        return data
    names = display_names(cls)
    known = {norm(n): shown for name, shown in names.items() for n in (name, shown)}
    extra_field: str | None = getattr(cls, "__extra_keys__", None)
    out: dict[str, Any] = {}
    extras: dict[str, Any] = {}
    for key, value in data.items():
        if norm(str(key)) in known:
            out[known[norm(str(key))]] = value
        elif extra_field:
            extras[str(key)] = value
        else:
            message = unknown_key(str(key), list(names.values()))
            raise PydanticCustomError("unknown_key", "{message}", {"message": message, "key": str(key)})
    if extras and extra_field:
        out[extra_field] = {**out.get(extra_field, {}), **extras}
    return out


def _loosen(tp: Any, value: Any) -> Any:
    """The official client's leniency for the declared type ``tp`` (see the module docstring)."""
    options = [a for a in typing.get_args(tp) if a is not type(None)] if _is_union(tp) else [tp]
    sections = all(typing.get_origin(o) in (dict, list) or _is_settings(o) for o in options)
    if isinstance(value, str) and (len(options) == 1 or sections):
        if len(options) == 1 and typing.get_origin(options[0]) is list and not value.strip().startswith("["):
            return [part.strip() for part in re.split(r"[;,]", value) if part.strip()]
        if sections:  # a section given as JSON text (a variable's value)
            try:
                return json_text(value.strip())
            except ValueError as exc:
                raise PydanticCustomError("olsdk", "{message}", {"message": str(exc)}) from None
    if len(options) != 1 or value is None:
        return value  # a real union: pydantic picks the member
    tp, origin = options[0], typing.get_origin(options[0])
    if origin is Literal and isinstance(value, str):
        return value.lower()
    if tp in (str, SecretStr) and isinstance(value, bool):
        return "true" if value else "false"
    if tp in (int, float) and isinstance(value, bool):
        raise PydanticCustomError(tp.__name__ + "_type", "not a number")
    if origin is list and isinstance(value, list | tuple):
        return [_loosen(typing.get_args(tp)[0], item) for item in value]
    if origin is dict and isinstance(value, Mapping):
        return {key: _loosen(typing.get_args(tp)[1], item) for key, item in value.items()}
    return value


def _is_union(tp: Any) -> bool:
    return typing.get_origin(tp) in (typing.Union, types.UnionType)


def _is_settings(tp: Any) -> bool:
    return isinstance(tp, type) and (issubclass(tp, BaseModel) or dataclasses.is_dataclass(tp))


class Settings(BaseModel):
    """The base of olsdk's settings classes (see the module docstring)."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        validate_by_name=True,
        validate_by_alias=True,
        coerce_numbers_to_str=True,  # YAML reads `apiKey: 123` as a number; the setting is text
        allow_inf_nan=False,
    )

    def __init__(self, /, **data: Any) -> None:
        """Settings made in code: a problem is a ConfigError too (inside a validation, pydantic
        calls this for each nested section: the outermost call reports the whole key path)."""
        nested = _VALIDATING.set(True)
        try:
            super().__init__(**data)
        except ValidationError as exc:
            if nested.old_value is True:
                raise
            raise _config_error(exc.errors()[0], (), {}) from None
        finally:
            _VALIDATING.reset(nested)

    @model_validator(mode="before")
    @classmethod
    def _keys(cls, data: Any) -> Any:
        return respell(cls, data)

    @field_validator("*", mode="before")
    @classmethod
    def _lenient(cls, value: Any, info: Any) -> Any:
        return _loosen(cls.model_fields[info.field_name].annotation, value)

    @field_validator("*", mode="after")
    @classmethod
    def _not_negative(cls, value: Any) -> Any:
        if isinstance(value, int | float) and not isinstance(value, bool) and value < 0:
            raise PydanticCustomError("negative", "must not be negative")
        return value


@functools.cache
def _adapter(cls: Any) -> TypeAdapter[Any]:
    return TypeAdapter(cls)


def build(cls: type[T], data: Any, path: tuple[str, ...] = (), origins: Origins | None = None) -> T:
    """Validate ``data`` (a mapping, JSON text or None) as ``cls``: a :class:`Settings` model,
    or a dataclass (a transport of your own); a ConfigError names key, rule, value and source."""
    data, origins = ({} if data is None else data), origins or {}
    try:
        if not issubclass(cls, BaseModel):  # a dataclass: no validator of ours runs inside it
            data = respell(cls, data)
        validating = _VALIDATING.set(True)
        try:
            built: T = _adapter(typing.cast(Any, cls)).validate_python(data)
        finally:
            _VALIDATING.reset(validating)
        return built
    except ValidationError as exc:
        raise _config_error(exc.errors()[0], path, origins) from None
    except PydanticCustomError as exc:
        error = {"type": exc.type, "loc": (), "msg": "", "input": data, "ctx": exc.context}
        raise _config_error(error, path, origins) from None


def shown(value: Any, path: tuple[str, ...]) -> str:
    """How an error message shows a value: never the value of a secret-looking key."""
    if path and is_secret_key(path[-1]):
        return "*** (hidden: the key holds a secret)"
    text = repr(masked(value))
    return text if len(text) <= 80 else text[:77] + "..."


def _config_error(error: Mapping[str, Any], path: tuple[str, ...], origins: Origins) -> ConfigError:
    ctx, value = error.get("ctx") or {}, error["input"]
    where = (*path, *(str(k) for k in error["loc"] if not _UNION_TAG.match(str(k))))
    if isinstance(own := ctx.get("error"), ConfigError):  # a settings class's own check: it names its key
        return ConfigError(f"{own}{_origin_note((*where, str(own.key).rsplit('.', 1)[-1]), origins)}", own.key)
    kind = error["type"].rsplit("_", 1)[0] if error["type"].endswith(("_type", "_parsing")) else error["type"]
    if kind == "unknown_key":
        return fail(ctx["message"], (*where, ctx["key"]), origins)
    if kind == "missing":
        return fail("required key is missing", where, origins)
    if value is None:
        return fail("a value is required here, got null", where, origins)
    if kind in _TYPE_ONLY or kind in ("olsdk", "json"):
        rule = ctx.get("message") or f"expected {_TYPE_ONLY.get(kind, 'JSON')}, got {type(value).__name__}"
        return fail(rule, where, origins)  # the type only: never a nested secret or JSON text
    if kind in ("greater_than", "greater_than_equal"):  # the value as read: `timeout: 0` is 0.0
        with contextlib.suppress(ValueError):
            value = float(value) if isinstance(next(iter(ctx.values())), float) else int(value)
    if kind == "literal_error":
        rule = "must be one of " + str(ctx["expected"]).replace(" or ", ", ")
    elif kind == "int_from_float":
        rule = _RULES["int"]
    else:
        rule = _RULES.get(kind, "must not be negative" if kind == "negative" else error["msg"]).format(**ctx)
    return fail(f"{rule}, got {shown(value, where)}", where, origins)
