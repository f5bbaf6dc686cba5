"""From configuration to transports: one static table, kind -> (settings class, builder).

Two steps, so that configuration can be checked without building anything:

* :func:`parse_transport` turns a ``transport:`` mapping (YAML, environment
  variables, code) into a :class:`TransportSpec`: the kind, the common keys
  (``name``, ``priority``), the kind's settings object and the specs of any nested
  transports (a composite's children, a buffered wrapper's inner transport);
* :func:`build_transport` turns a spec into transport objects, children first.

A kind's module is imported the first time a section names it (a client pays for its
own transport only: an ``http`` client never imports the Kafka or cloud SDK modules,
a ``console`` client not even urllib3). No transport module imports this one, so
nothing here is registered at import time and there is no import cycle.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, ConfigDict

from olsdk._delivery._config import Origins, Settings, build, fail, norm, parse_json_text, suggest, unknown_key_error
from olsdk._delivery.transports._base import Transport
from olsdk._foundation._exceptions import ConfigError

if TYPE_CHECKING:
    from olsdk._delivery.transports._official import OfficialSection

__all__ = [
    "TransportBuilder",
    "TransportSpec",
    "build_transport",
    "check_transport",
    "create_transport",
    "parse_transport",
    "register_transport",
    "transport_kinds",
]

# concurrent batch posts by default: one post carries up to 100 events, so two workers
# already deliver ~3,000 events/s against a server answering in 50 ms (bench/reliability.py),
# and fewer batches in flight means fewer duplicates when a connection breaks mid-post
BATCH_WORKERS = 2

# keys every transport accepts (the official client reads them in its factory)
_COMMON = ("type", "name", "priority")

# the transport the official client loads by dotted path to hand its events to olsdk;
# read by olsdk itself, the section stands for the olsdk transport inside it
COMPAT_TRANSPORT = ("olsdk.compat.OlsdkTransport", "olsdk._integrations.compat._transport.OlsdkTransport")


@dataclass(frozen=True)
class TransportSpec:
    """A parsed ``transport:`` section: what :func:`build_transport` needs, all checked."""

    kind: str
    settings: Any = None  # an instance of the kind's settings class (None: it has none)
    name: str | None = None
    priority: int = 0
    children: tuple[TransportSpec, ...] = ()  # nested transports, in configuration order


class TransportBuilder(Protocol):
    """What :func:`register_transport` takes: a transport class fits as it is."""

    def __call__(self, settings: Any, *, name: str | None, priority: int) -> Transport: ...


# (spec, its children already built) -> the transport
_Build = Callable[[TransportSpec, list[Transport]], Transport]
# settings -> (path below the section, raw section) of each nested transport
_Nested = Callable[[Any], list[tuple[tuple[str, ...], Any]]]


def _no_nested(settings: Any) -> list[tuple[tuple[str, ...], Any]]:
    return []


def _no_check(settings: Any, where: str) -> None:
    return None


@dataclass(frozen=True)
class _Kind:
    settings: type[Any] | None
    build: _Build
    nested: _Nested = _no_nested
    # more checks of the parsed settings, when the configuration is loaded (before building)
    check: Callable[[Any, str], None] = _no_check


def _plain(builder: TransportBuilder) -> _Build:
    """A builder of a transport without nested transports."""

    def build_plain(spec: TransportSpec, children: list[Transport]) -> Transport:
        return builder(spec.settings, name=spec.name, priority=spec.priority)

    return build_plain


def _build_noop(spec: TransportSpec, children: list[Transport]) -> Transport:
    from olsdk._delivery.transports._noop import NoopTransport

    return NoopTransport(name=spec.name, priority=spec.priority)


def _build_http(spec: TransportSpec, children: list[Transport]) -> Transport:
    from olsdk._delivery.transports._buffered import BufferedSettings, BufferedTransport
    from olsdk._delivery.transports._http import HttpTransport

    transport = HttpTransport(spec.settings, name=spec.name, priority=spec.priority)
    batch = transport.settings.batch
    if batch is None or not batch.enabled:
        return transport
    # batching needs a background thread: wrap in the buffered transport
    queue = BufferedSettings(
        max_queue_size=batch.max_queue_size,
        on_full=batch.on_full,
        batch_size=batch.max_events,
        batch_bytes=batch.max_bytes,
        linger=batch.linger,
        workers=batch.workers or BATCH_WORKERS,
    )
    return BufferedTransport(transport, queue, name=spec.name, priority=spec.priority)


def _build_composite(spec: TransportSpec, children: list[Transport]) -> Transport:
    from olsdk._delivery.transports._composite import CompositeTransport

    return CompositeTransport(children, spec.settings, name=spec.name, priority=spec.priority)


def _composite_children(settings: Any) -> list[tuple[tuple[str, ...], Any]]:
    if isinstance(settings.transports, dict):
        # a mapping names its children; an emptied entry (e.g. overridden to null) is skipped
        return [
            (("transports", child), {"name": child, **section})
            for child, section in settings.transports.items()
            if section
        ]
    return [(("transports", str(i)), section) for i, section in enumerate(settings.transports)]


def _build_buffered(spec: TransportSpec, children: list[Transport]) -> Transport:
    from olsdk._delivery.transports._buffered import BufferedTransport

    (inner,) = children
    return BufferedTransport(inner, spec.settings, name=spec.name, priority=spec.priority)


def _inner_section(settings: Any) -> list[tuple[tuple[str, ...], Any]]:
    return [(("transport",), settings.transport)]


def _build_transform(spec: TransportSpec, children: list[Transport]) -> Transport:
    from olsdk._delivery.transports._transform import TransformTransport

    (inner,) = children
    return TransformTransport(inner, spec.settings, name=spec.name, priority=spec.priority)


class CompatSettings(Settings):
    """The ``olsdk.compat.OlsdkTransport`` section (see ``olsdk.compat``)."""

    model_config = ConfigDict(defer_build=True)  # built when a section names it, not at import

    transport: dict[str, Any]
    spool: dict[str, Any] | None = None  # used when the official client loads it
    error_policy: str | None = None  # likewise


def _build_unwrapped(spec: TransportSpec, children: list[Transport]) -> Transport:
    (inner,) = children
    return inner


def _class_builder(module: str, name: str) -> _Build:
    """A builder of a plain transport whose class (or factory) ``name`` lives in ``module``."""

    def build_plain(spec: TransportSpec, children: list[Transport]) -> Transport:
        builder = getattr(importlib.import_module(f"olsdk._delivery.transports.{module}"), name)
        built: Transport = builder(spec.settings, name=spec.name, priority=spec.priority)
        return built

    return build_plain


def _lazy(module: str, settings: str | None, build: _Build | str, nested: _Nested = _no_nested) -> Callable[[], _Kind]:
    """A kind whose settings class (and transport) are imported when a section names it."""

    def load() -> _Kind:
        transport_module = importlib.import_module(f"olsdk._delivery.transports.{module}")
        settings_class = getattr(transport_module, settings) if settings else None
        builder = _class_builder(module, build) if isinstance(build, str) else build
        return _Kind(settings_class, builder, nested)

    return load


_BUILT_IN: dict[str, Callable[[], _Kind]] = {
    "http": _lazy("_http", "HttpSettings", _build_http),
    "file": _lazy("_file", "FileSettings", "FileTransport"),
    "console": _lazy("_console", "ConsoleSettings", "ConsoleTransport"),
    "kafka": _lazy("_kafka", "KafkaSettings", "KafkaTransport"),
    "noop": _lazy("_noop", None, _build_noop),
    "composite": _lazy("_composite", "CompositeSettings", _build_composite, _composite_children),
    "buffered": _lazy("_buffered", "BufferedSettings", _build_buffered, _inner_section),
    "async_http": _lazy("_async_http", "AsyncHttpSettings", "build_async_http"),
    "transform": _lazy("_transform", "TransformSettings", _build_transform, _inner_section),
    "datadog": _lazy("_datadog", "DatadogSettings", "DatadogTransport"),
    "msk-iam": _lazy("_msk_iam", "MskIamSettings", "MskIamTransport"),
    "gcplineage": _lazy("_gcplineage", "GcpLineageSettings", "GcpLineageTransport"),
    "amazon_datazone_api": _lazy("_datazone", "DataZoneSettings", "DataZoneTransport"),
    **{path: (lambda: _Kind(CompatSettings, _build_unwrapped, _inner_section)) for path in COMPAT_TRANSPORT},
}
# resolved kinds: built-in ones on first use, and those registered (or named by dotted path)
_KINDS: dict[str, _Kind] = {}


def _entry(kind: str) -> _Kind:
    entry = _KINDS.get(kind)
    if entry is None:
        entry = _KINDS[kind] = _BUILT_IN[kind]()
    return entry


def _known(kind: str) -> bool:
    return kind in _KINDS or kind in _BUILT_IN


def _names() -> list[str]:
    return [k for k in {**_BUILT_IN, **_KINDS} if "." not in k]


def register_transport(kind: str, builder: TransportBuilder, settings: type[Any] | None = None) -> None:
    """Make ``{"type": kind, ...}`` buildable from configuration.

    ``settings`` is a pydantic model (best a subclass of the built-in transports' settings
    base) or a dataclass the section's other keys fill (with the same rules as the built-in
    transports: spelling, coercion, errors naming the key); None means
    the transport takes no keys. ``builder(settings_object, name=..., priority=...)``
    returns the transport; a transport class whose constructor takes that fits as it is.
    Registering a kind again replaces it; the built-in kinds cannot be replaced.
    """
    key = kind.strip().lower() if isinstance(kind, str) else ""
    if not key:
        raise ConfigError(f"register_transport: kind must be a non-empty string, got {kind!r}")
    if key in _BUILT_IN:
        raise ConfigError(f"register_transport: '{key}' is a built-in transport and cannot be replaced")
    settings_class = isinstance(settings, type) and (
        issubclass(settings, BaseModel) or dataclasses.is_dataclass(settings)
    )
    if settings is not None and not settings_class:
        raise ConfigError(f"register_transport: settings must be a dataclass or a pydantic model, got {settings!r}")
    if not callable(builder):
        raise ConfigError(f"register_transport: builder must be callable, got {builder!r}")
    _KINDS[key] = _Kind(settings, _plain(builder))


def transport_kinds() -> dict[str, type[Any] | None]:
    """Every kind ``type:`` may name, with its settings class (None: no keys); dotted
    paths of transport classes are accepted too and not listed."""
    return {kind: _entry(kind).settings for kind in _names()}


def parse_transport(
    config: Any,
    path: tuple[str, ...] = ("transport",),
    origins: Origins | None = None,
) -> TransportSpec:
    """Check a ``transport:`` section (and its nested ones) and return its spec."""
    origins = origins or {}
    if isinstance(config, str):
        config = parse_json_text(config, path, origins)
    if not isinstance(config, Mapping):
        where = ".".join(path)
        raise ConfigError(f"{where}: expected a mapping, got {type(config).__name__}", where)
    fields = {norm(str(k)): v for k, v in config.items()}
    kind = _kind_name(fields.get("type"), path, origins)
    entry = _entry(kind)
    rest = {k: v for k, v in config.items() if norm(str(k)) not in _COMMON}
    if entry.settings is None:
        if rest:
            raise unknown_key_error(str(next(iter(rest))), path, list(_COMMON), origins)
        settings = None
    else:
        settings = build(entry.settings, rest, path, origins)
    entry.check(settings, ".".join(path))
    nested = entry.nested(settings)
    return TransportSpec(
        kind=kind,
        settings=settings,
        name=None if fields.get("name") is None else str(fields["name"]),
        priority=_priority(fields.get("priority", 0), path),
        children=tuple(parse_transport(section, (*path, *below), origins) for below, section in nested),
    )


def _kind_name(value: Any, path: tuple[str, ...], origins: Origins) -> str:
    where = f"{'.'.join(path)}.type"
    if not value:
        raise fail("required key is missing", (*path, "type"), origins)  # names the file or variable
    text = str(value).strip()
    if _known(text):  # dotted paths keep their case
        return text
    kind = text.lower()
    if _known(kind):
        return kind
    if "." in text:
        return _dotted_kind(text, where)
    hint = suggest(kind, _names())
    did_you_mean = f"; did you mean '{hint}'?" if hint else ""
    supported = ", ".join(sorted(_names()))
    message = (
        f"unknown transport '{kind}'{did_you_mean} (supported: {supported}, or the dotted path of a transport class)"
    )
    raise fail(message, (*path, "type"), origins)


def _dotted_kind(dotted: str, where: str) -> str:
    """Register the transport class ``dotted`` names (a subclass of olsdk's Transport whose
    constructor takes ``(settings, *, name, priority)``; ``settings_class`` names its
    settings dataclass, none means the section takes no other keys)."""
    module_name, _, class_name = dotted.rpartition(".")
    try:
        cls = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ConfigError(f"{where}: cannot import transport {dotted!r}: {exc}", where) from None
    # the official client's adapter is imported here: only a dotted path may name one of its transports
    from olsdk._delivery.transports._official import OfficialSection, is_official_transport_class

    if is_official_transport_class(cls):  # written for the official client: built as it builds it
        _KINDS[dotted] = _Kind(OfficialSection, _official_builder(cls, dotted), check=_official_checker(cls, dotted))
        return dotted
    if not (isinstance(cls, type) and issubclass(cls, Transport)):
        raise ConfigError(
            f"{where}: {dotted!r} is not a transport class (a subclass of olsdk.transports.Transport, "
            "or of the official client's openlineage.client.transport.Transport)",
            where,
        )
    settings_class = getattr(cls, "settings_class", None)
    if settings_class is None:
        _KINDS[dotted] = _Kind(None, _no_settings(cls))
    else:
        _KINDS[dotted] = _Kind(settings_class, _plain(cls))  # type: ignore[arg-type]
    return dotted


def _official_checker(cls: type[Any], dotted: str) -> Callable[[Any, str], None]:
    from olsdk._delivery.transports._official import official_config

    def check(settings: OfficialSection, where: str) -> None:
        official_config(cls, settings, dotted, where)

    return check


def _official_builder(cls: type[Any], dotted: str) -> _Build:
    from olsdk._delivery.transports._official import OfficialTransportAdapter, official_config

    def build(spec: TransportSpec, children: list[Transport]) -> Transport:
        where = "transport"
        official = cls(official_config(cls, spec.settings, dotted, where))
        return OfficialTransportAdapter(official, name=spec.name, priority=spec.priority)

    return build


def _no_settings(cls: type[Transport]) -> _Build:
    def build(spec: TransportSpec, children: list[Transport]) -> Transport:
        return cls(name=spec.name, priority=spec.priority)

    return build


def _priority(value: Any, path: tuple[str, ...]) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        where = f"{'.'.join(path)}.priority"
        raise ConfigError(f"{where}: expected an integer, got {value!r}", where) from None


def build_transport(spec: TransportSpec) -> Transport:
    """The transport a spec describes (its nested transports built first)."""
    children: Sequence[Transport] = [build_transport(child) for child in spec.children]
    return _entry(spec.kind).build(spec, list(children))


def create_transport(
    config: Any,
    path: tuple[str, ...] = ("transport",),
    origins: Origins | None = None,
) -> Transport:
    """Build a transport from a mapping such as the ``transport:`` section of openlineage.yml."""
    return build_transport(parse_transport(config, path, origins))


def check_transport(config: Any, path: tuple[str, ...] = ("transport",), origins: Origins | None = None) -> None:
    """Check a transport section (and its nested ones) without building anything."""
    parse_transport(config, path, origins)
