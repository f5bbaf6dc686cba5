"""Transports written for the official client, named by dotted ``type:``.

A subclass of ``openlineage.client.transport.Transport`` (with its ``kind``,
``config_class`` and ``emit(event)``) is built the way the official factory builds it,
``cls(config_class.from_dict(section))`` with ``name``/``priority`` set afterwards, and
receives each event as the official client would hand it over: an event object of the
official client (``openlineage.client.event_v2``, attrs classes), with typed official
facet classes for the facets the spec defines (``run.facets["parent"]`` is a
``ParentRunFacet``) and the official base facet class, extended with the facet's own
keys (``with_additional_properties``), for any other key. Values the official classes
do not declare are kept the same way, and ``_schemaURL``/``schemaURL`` keep the wire
value, so ``Serde.to_json(event)`` gives back the event as emitted.

Whatever ``emit`` raises makes the event undeliverable (kept by the client), and a
return value is ignored, as the official client ignores it. ``openlineage-python`` is
imported only when such a transport is configured.
"""

from __future__ import annotations

import enum
import functools
import importlib
import pkgutil
import types
import typing
from collections.abc import Callable
from typing import Any, ClassVar

from pydantic import Field

from olsdk._delivery._config import Settings
from olsdk._delivery.transports._base import Payload, Transport
from olsdk._foundation._exceptions import ConfigError, DeliveryError

__all__ = ["OfficialSection", "OfficialTransportAdapter", "is_official_transport_class", "to_official_event"]


def is_official_transport_class(cls: Any) -> bool:
    """True for a subclass of the official client's ``Transport`` (without importing it needlessly)."""
    if not isinstance(cls, type) or not any(base.__module__.startswith("openlineage.") for base in cls.__mro__):
        return False
    from openlineage.client.transport.transport import Transport as OfficialTransport

    return issubclass(cls, OfficialTransport)


class OfficialSection(Settings):
    """The section's keys, handed to the transport's ``config_class.from_dict`` as they are."""

    __extra_keys__: ClassVar[str] = "keys"
    keys: dict[str, Any] = Field(default_factory=dict)


def official_config(cls: type[Any], section: OfficialSection, type_name: str, where: str) -> Any:
    """``cls.config_class.from_dict(section)``, its errors as ``ConfigError`` naming the section."""
    from openlineage.client.transport.transport import Config

    config_class = getattr(cls, "config_class", Config)
    if isinstance(config_class, str):
        try:
            module_name, _, class_name = config_class.rpartition(".")
            config_class = getattr(importlib.import_module(module_name), class_name)
        except (ImportError, AttributeError, ValueError) as exc:
            raise ConfigError(f"{where}: cannot import config class {config_class!r}: {exc}", where) from None
    if not (isinstance(config_class, type) and issubclass(config_class, Config)):
        raise ConfigError(f"{where}: {config_class!r} is not a subclass of the official client's Config", where)
    try:
        return config_class.from_dict({"type": type_name, **section.keys})
    except Exception as exc:
        raise ConfigError(f"{where}: {config_class.__name__}.from_dict refused the section: {exc}", where) from None


class OfficialTransportAdapter(Transport):
    """Hands each event to a transport of the official client, as an official event object."""

    kind = "official"

    def __init__(self, official: Any, *, name: str | None = None, priority: int = 0) -> None:
        super().__init__(name=name, priority=priority)
        self.official = official
        if name and not getattr(official, "name", None):
            official.name = name  # as the official factory does
        if priority and not getattr(official, "priority", 0):
            official.priority = priority

    @property
    def label(self) -> str:
        return self.name or getattr(self.official, "name", None) or getattr(self.official, "kind", None) or "official"

    def send(self, payload: Payload) -> None:
        try:
            event = to_official_event(payload.event())
        except Exception as exc:
            raise DeliveryError(
                f"cannot build the official client's event object: {type(exc).__name__}: {exc}",
                target=self.label,
                retriable=False,
            ) from None
        try:
            self.official.emit(event)
        except DeliveryError:
            raise
        except Exception as exc:
            raise DeliveryError(f"{type(exc).__name__}: {exc}", target=self.label) from None

    def close(self, timeout: float | None = None) -> bool:
        try:
            return bool(self.official.close(-1 if timeout is None else timeout))
        except Exception:
            return False

    def __repr__(self) -> str:
        return f"<OfficialTransportAdapter {type(self.official).__module__}.{type(self.official).__qualname__}>"


# -- JSON -> the official client's event objects ---------------------------------------------


@functools.cache
def _official_facets() -> dict[tuple[str, str], type[Any]]:
    """(entity, facet key) -> the official facet class of that spec definition (same class name)."""
    import openlineage.client.generated as generated

    from olsdk._models._generated import _meta

    by_name: dict[str, type[Any]] = {}
    for module_info in pkgutil.iter_modules(generated.__path__):
        module = importlib.import_module(f"{generated.__name__}.{module_info.name}")
        for name, value in vars(module).items():
            if isinstance(value, type) and value.__module__ == module.__name__:
                by_name.setdefault(name, value)
    return {place: by_name[cls.__name__] for place, cls in _meta.FACET_KEYS.items() if cls.__name__ in by_name}


@functools.cache
def _entity_of_base() -> dict[type[Any], str]:
    """The official client's base facet classes -> the spec's entity names; both name their base
    classes after the spec's definitions (`InputDatasetFacet`), so the spec's table maps them."""
    from openlineage.client.generated import base

    from olsdk._models._generated import _meta

    return {
        getattr(base, spec_base.__name__): entity
        for entity, (spec_base, *_held) in _meta.ENTITIES.items()
        if hasattr(base, spec_base.__name__)
    }


_HINTS: dict[type[Any], dict[str, Any]] = {}


def _hints(cls: type[Any]) -> dict[str, Any]:
    hints = _HINTS.get(cls)
    if hints is None:
        # each class's annotations are evaluated in its own module (the default for classes)
        try:
            hints = typing.get_type_hints(cls)
        except Exception:  # an annotation that does not resolve: its values are kept as plain data
            hints = {}
        _HINTS[cls] = hints
    return hints


def to_official_event(data: dict[str, Any]) -> Any:
    """An event given as JSON data, as an event object of the official client."""
    from openlineage.client.generated import base

    from olsdk._models._spec import event_kind

    kind = event_kind(data)
    cls = {"run": base.RunEvent, "dataset": base.DatasetEvent}.get(kind or "", base.JobEvent)
    return _build(cls, data)


def _build(cls: type[Any], data: Any) -> Any:
    """An instance of the attrs class ``cls`` from JSON data; keys it does not declare kept."""
    import attr
    from openlineage.client.utils import add_additional_properties

    if not isinstance(data, dict):
        raise ValueError(f"{cls.__name__}: expected an object, got {type(data).__name__}")
    hints = _hints(cls)
    kwargs: dict[str, Any] = {}
    late: dict[str, Any] = {}
    known: set[str] = set()
    for attribute in attr.fields(cls):
        known.add(attribute.name)
        if attribute.name not in data:
            continue
        value = _convert(hints.get(attribute.name, Any), data[attribute.name])
        if attribute.init:
            kwargs[attribute.alias or attribute.name] = value
        else:
            late[attribute.name] = value  # schemaURL: the class computes one; the wire value wins
    instance = cls(**kwargs)
    extras = {k: v for k, v in data.items() if k not in known}
    if extras:
        instance = add_additional_properties(instance, **extras)
    for name, value in late.items():
        setattr(instance, name, value)
    return instance


def _convert(hint: Any, value: Any) -> Any:
    if value is None:
        return None
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        return _convert(options[0], value) if len(options) == 1 else value
    if origin is list and isinstance(value, list):
        return [_convert(args[0] if args else Any, v) for v in value]
    if origin is dict and isinstance(value, dict):
        item = args[1] if len(args) == 2 else Any
        entity = _entity_of_base().get(item) if isinstance(item, type) else None
        if entity is not None:
            return {key: _facet(entity, item, key, v) for key, v in value.items()}
        return {key: _convert(item, v) for key, v in value.items()}
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        try:
            return hint(value)
        except ValueError:
            return value
    if isinstance(hint, type) and hasattr(hint, "__attrs_attrs__") and isinstance(value, dict):
        return _build(hint, value)
    return value


def _facet(entity: str, base_class: type[Any], key: str, value: Any) -> Any:
    """A facet under ``key``: its official class where the spec defines one, else the base class."""
    if not isinstance(value, dict):
        return value
    typed = _official_facets().get((entity, key))
    candidates: list[Callable[[], Any]] = []
    if typed is not None:
        candidates.append(lambda: _build(typed, value))
    candidates.append(lambda: _build(base_class, value))
    error: Exception | None = None
    for make in candidates:
        try:
            return make()
        except Exception as exc:  # a facet the official class refuses: the base class keeps it
            error = error or exc
    raise ValueError(f"facet {key!r}: {error}")
