"""Transport registry: builds a transport from its configuration mapping."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from olsdk.transports.base import Transport
from olsdk.transports.settings import ConfigError, Origins, norm, parse_json_text, suggest

__all__ = ["check_transport", "create_transport", "register_transport", "transport_kinds"]

_KINDS: dict[str, type[Transport]] = {}

# keys every transport accepts (the official client reads them in its factory)
_COMMON = ("type", "name", "priority")

# transports of the official client that olsdk does not implement
_OFFICIAL_ONLY = ("async_http", "msk_iam", "transform", "amazon_datazone", "datadog", "gcplineage")


def register_transport(cls: type[Transport]) -> type[Transport]:
    """Class decorator: make ``cls`` buildable from ``{"type": cls.kind, ...}``."""
    _KINDS[cls.kind] = cls
    return cls


def transport_kinds() -> dict[str, type[Transport]]:
    _load_builtins()
    return dict(_KINDS)


def _load_builtins() -> None:
    # imported here so that each module registers itself without import cycles
    from olsdk.transports import (  # noqa: F401
        buffered,
        composite,
        console,
        file,
        http,
        kafka,
        noop,
    )


def _resolve(
    config: Any, path: tuple[str, ...], origins: Origins
) -> tuple[type[Transport], dict[str, Any], str | None, int]:
    if isinstance(config, str):
        config = parse_json_text(config, path, origins)
    if not isinstance(config, Mapping):
        where = ".".join(path)
        raise ConfigError(f"{where}: expected a mapping, got {type(config).__name__}", where)
    _load_builtins()
    fields = {norm(k): v for k, v in config.items()}
    kind = fields.get("type")
    if not kind:
        raise ConfigError(f"{'.'.join(path)}.type: required key is missing", f"{'.'.join(path)}.type")
    kind = str(kind).lower()
    cls = _KINDS.get(kind)
    if cls is None:
        where = f"{'.'.join(path)}.type"
        if kind in _OFFICIAL_ONLY:
            msg = f"{where}: transport '{kind}' of the official client is not supported by olsdk"
        else:
            msg = f"{where}: unknown transport '{kind}'"
        hint = suggest(kind, list(_KINDS))
        did_you_mean = f"; did you mean '{hint}'?" if hint else ""
        supported = ", ".join(sorted(_KINDS))
        raise ConfigError(f"{msg}{did_you_mean} (supported: {supported})", where)
    rest = {k: v for k, v in config.items() if norm(k) not in _COMMON}
    name = fields.get("name")
    priority = fields.get("priority", 0)
    try:
        priority = int(priority)
    except (TypeError, ValueError):
        where = f"{'.'.join(path)}.priority"
        raise ConfigError(f"{where}: expected an integer, got {priority!r}", where) from None
    return cls, rest, None if name is None else str(name), priority


def create_transport(
    config: Any,
    path: tuple[str, ...] = ("transport",),
    origins: Origins | None = None,
) -> Transport:
    """Build a transport from a mapping such as the ``transport:`` section of openlineage.yml."""
    origins = origins or {}
    cls, rest, label, priority = _resolve(config, path, origins)
    return cls.from_settings(rest, path, origins, name=label, priority=priority)


def check_transport(config: Any, path: tuple[str, ...] = ("transport",), origins: Origins | None = None) -> None:
    """Validate a transport mapping (and its children) without building anything."""
    origins = origins or {}
    cls, rest, _, _ = _resolve(config, path, origins)
    cls.check_settings(rest, path, origins)
