"""Settings on pydantic, with the official client's leniency and errors naming key, rule, value and source.

A settings class subclasses :class:`Settings`: a frozen pydantic model (``extra="forbid"``, bounds as
``Field(ge=..., gt=...)``, secrets as ``SecretStr``, the official spelling of a key as its
``validation_alias``). Small adapters keep what the official client accepts: keys match whatever their
case, ``_`` and ``-`` (``apiKey``, ``api_key``, ``APIKEY``); a list may be the text ``a;b`` and a section
JSON text (variables are text); YAML's numbers and switches are text where a setting is text; a choice
matches in any case; numbers are never negative unless a bound says otherwise. :func:`build` turns
pydantic's first error into a ``ConfigError`` naming key path, rule, value (never a secret, never JSON
text) and where the value came from.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import functools
import re
import types
import typing
from collections.abc import Mapping
from functools import partial
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, SecretStr, TypeAdapter, ValidationError, field_validator, model_validator
from pydantic.functional_validators import BeforeValidator
from pydantic_core import PydanticCustomError

from olsdk._foundation._documents import json_text
from olsdk._foundation._exceptions import ConfigError
from olsdk._foundation._secrets import is_secret_key, masked

T = TypeVar("T")
Origins = Mapping[tuple[str, ...], str]  # where each value came from, by normalised key path
_RULES = {  # pydantic's error types -> the rule a message states
    **dict.fromkeys(("int", "int_from_float"), "expected an integer"),
    "float": "expected a number",
    "bool": "expected true or false",
    "finite_number": "expected a finite number",
    "greater_than": "must be greater than {gt:g}",
    "greater_than_equal": "must be at least {ge:g}",
    "literal_error": "must be one of {expected}",
    "negative": "must not be negative",
}
# errors that state the expected type only: the value may be a section holding secrets, or JSON text
_TYPE_ONLY = {"dict": "a mapping", "model": "a mapping", "dataclass": "a mapping", "list": "a list", "string": "text"}
_UNION_TAG = re.compile(r"^(int|bool|str|float|none|(list|dict|function-\w+)\[.*\])$")  # loc parts naming no key
_VALIDATING: contextvars.ContextVar[bool] = contextvars.ContextVar("olsdk_settings_validating", default=False)


def norm(key: str) -> str:
    """The form keys are compared in: lower case, without ``_`` and ``-``."""
    return key.lower().replace("_", "").replace("-", "")


def suggest(key: str, candidates: list[str]) -> str | None:
    """The candidate nearest to ``key``, if any is close enough."""
    import difflib  # (only when a key is unknown: not at import)

    by_norm = {norm(c): c for c in candidates}
    hits = difflib.get_close_matches(norm(key), list(by_norm), n=1, cutoff=0.6)
    return by_norm[hits[0]] if hits else None


def origin_of(origins: Origins, path: tuple[str, ...]) -> str | None:
    """Where the value at ``path`` came from (a parent's origin covers its leaves: a JSON section)."""
    key = tuple(norm(p) for p in path)
    while key and key not in origins:
        key = key[:-1]
    return origins[key] if key else None


def _note(path: tuple[str, ...], origins: Origins) -> str:
    """`` (from ...)``: the value's origin; for a section, or a key missing from one, its keys' origins."""
    keys, found = tuple(norm(p) for p in path), origin_of(origins, path)
    sources = [found] if found else []
    for section in (keys, keys[:-1]):
        sources = sources or sorted({o for at, o in origins.items() if section and at[: len(section)] == section})
    return f" (from {' and '.join(sources)})" if sources else ""


def fail(message: str, path: tuple[str, ...], origins: Origins) -> ConfigError:
    """A ConfigError for the key at ``path``, saying where its value came from."""
    return ConfigError(f"{'.'.join(path)}: {message}{_note(path, origins)}", ".".join(path))


def unknown_key(key: str, candidates: list[str]) -> str:
    hint = suggest(key, candidates)
    return f"unknown key{f'; did you mean {hint!r}?' if hint else ''} (valid keys: {', '.join(sorted(candidates))})"


def unknown_key_error(key: str, path: tuple[str, ...], candidates: list[str], origins: Origins) -> ConfigError:
    return fail(unknown_key(key, candidates), (*path, key), origins)


def parse_json_text(value: str, path: tuple[str, ...], origins: Origins) -> Any:
    try:
        return json_text(value)
    except ValueError as exc:
        raise fail(str(exc), path, origins) from None


def display_names(cls: Any) -> dict[str, str]:
    """Attribute name -> the key's name in configuration (the official client's spelling)."""
    if isinstance(cls, type) and issubclass(cls, BaseModel):
        return {name: str(f.validation_alias or name) for name, f in cls.model_fields.items()}
    return {f.name: f.name for f in dataclasses.fields(cls)}


def _custom_error(exc: ValueError) -> PydanticCustomError:
    return PydanticCustomError("olsdk", "{message}", {"message": str(exc)})


def respell(cls: Any, data: Any) -> Any:
    """Keys in any spelling as the names pydantic reads; unknown keys an error (or, for a class
    with ``__extra_keys__``, collected into that field: a custom auth provider's own keys)."""
    try:
        data = json_text(data) if isinstance(data, str) else data
    except ValueError as exc:
        raise _custom_error(exc) from None
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
    return {**out, extra_field: {**out.get(extra_field, {}), **extras}} if extras and extra_field else out


def _loosen(tp: Any, value: Any) -> Any:
    """The official client's leniency for the declared type ``tp`` (see the module docstring)."""
    union = typing.get_origin(tp) in (typing.Union, types.UnionType)
    options = [a for a in typing.get_args(tp) if a is not type(None)] if union else [tp]
    sections = all(typing.get_origin(o) in (dict, list) or _is_settings(o) for o in options)
    one, origin = len(options) == 1, typing.get_origin(options[0])
    if isinstance(value, str) and one and origin in (list, tuple) and not value.strip().startswith("["):
        return [part.strip() for part in re.split(r"[;,]", value) if part.strip()]
    if isinstance(value, str) and sections:  # a section given as JSON text (a variable's value)
        try:
            return json_text(value.strip())
        except ValueError as exc:
            raise _custom_error(exc) from None
    if not one or value is None:
        return value  # a real union: pydantic picks the member
    if origin is Literal and isinstance(value, str):
        return value.lower()
    if options[0] in (str, SecretStr) and isinstance(value, bool):
        return "true" if value else "false"
    if options[0] in (int, float) and isinstance(value, bool):
        raise PydanticCustomError(options[0].__name__ + "_type", "not a number")
    if origin is list and isinstance(value, list | tuple):
        return [_loosen(typing.get_args(options[0])[0], item) for item in value]
    if origin is dict and isinstance(value, Mapping):
        return {key: _loosen(typing.get_args(options[0])[1], item) for key, item in value.items()}
    return value


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
        defer_build=True,  # built when first validated: a process builds only the settings it reads
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
    """A model respells its keys itself; a dataclass (a transport of your own) has them respelt first."""
    if issubclass(cls, BaseModel):
        _defaults_built_first(cls)
        return TypeAdapter(cls)
    return TypeAdapter(Annotated[cls, BeforeValidator(partial(respell, cls))])


def _defaults_built_first(cls: type[BaseModel]) -> None:
    """Build the settings classes that ``cls`` makes for a section left out (``default_factory``)
    before ``cls``: its schema then takes theirs as built, instead of making each one twice (once
    inside its own, once when the default is made)."""
    for info in cls.model_fields.values():
        section = info.default_factory
        if isinstance(section, type) and issubclass(section, Settings):
            _defaults_built_first(section)
            section.model_rebuild()


def build(cls: type[T], data: Any, path: tuple[str, ...] = (), origins: Origins | None = None) -> T:
    """Validate ``data`` (a mapping, JSON text or None) as ``cls``: a :class:`Settings` model,
    or a dataclass (a transport of your own); a ConfigError names key, rule, value and source."""
    validating = _VALIDATING.set(True)
    try:
        return typing.cast(T, _adapter(typing.cast(Any, cls)).validate_python({} if data is None else data))
    except ValidationError as exc:
        raise _config_error(exc.errors()[0], path, origins or {}) from None
    finally:
        _VALIDATING.reset(validating)


def _config_error(error: Mapping[str, Any], path: tuple[str, ...], origins: Origins) -> ConfigError:
    ctx, value = error.get("ctx") or {}, error["input"]
    where = (*path, *(str(k) for k in error["loc"] if not _UNION_TAG.match(str(k))))
    if isinstance(own := ctx.get("error"), ConfigError):  # a settings class's own check: it names its key
        return ConfigError(f"{own}{_note((*where, str(own.key).rsplit('.', 1)[-1]), origins)}", own.key)
    kind = error["type"].rsplit("_", 1)[0] if error["type"].endswith(("_type", "_parsing")) else error["type"]
    if kind == "unknown_key":
        return fail(ctx["message"], (*where, ctx["key"]), origins)
    if kind == "missing":
        return fail("required key is missing", where, origins)
    if value is None:
        return fail("a value is required here, got null", where, origins)
    if kind in _TYPE_ONLY or kind in ("olsdk", "json"):
        rule = ctx.get("message") or f"expected {_TYPE_ONLY.get(kind, 'JSON')}, got {type(value).__name__}"
        return fail(rule, where, origins)
    if kind in ("greater_than", "greater_than_equal"):  # the value as read: `timeout: 0` is 0.0
        with contextlib.suppress(ValueError):
            value = float(value) if isinstance(next(iter(ctx.values())), float) else int(value)
    choices = str(ctx.get("expected")).replace(" or ", ", ")  # a Literal's: 'a', 'b' or 'c'
    rule = _RULES[kind].format(**{**ctx, "expected": choices}) if kind in _RULES else error["msg"]
    shown = "*** (hidden: the key holds a secret)" if where and is_secret_key(where[-1]) else repr(masked(value))
    return fail(f"{rule}, got {shown if len(shown) <= 80 else shown[:77] + '...'}", where, origins)
