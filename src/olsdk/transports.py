"""Transports: how serialised OpenLineage events leave the process.

A transport implements ``send(payload)`` (``send_many``, ``flush(timeout)`` and
``close(timeout)`` have defaults) and is built from a settings object, e.g.
``HttpTransport(HttpSettings(url=...))``. :func:`create_transport` builds one from an
``openlineage.yml`` ``transport:`` mapping; :func:`register_transport` adds a kind of
your own to the table it reads. :class:`CallbackTransport` hands every event to a
function.

Only what a transport needs is imported: the classes below load on first use.
"""

from typing import TYPE_CHECKING, Any

from olsdk._delivery.transports._base import Payload, Transport, describe_event
from olsdk._delivery.transports._callback import CallbackTransport
from olsdk._delivery.transports._factory import TransportBuilder, create_transport, register_transport, transport_kinds
from olsdk._foundation._exceptions import ConfigError, DeliveryError

if TYPE_CHECKING:  # the classes below are imported on first use: a client loads only its own transport
    from olsdk._delivery.transports._auth import AuthSettings, TokenProvider
    from olsdk._delivery.transports._buffered import BufferedSettings, BufferedTransport
    from olsdk._delivery.transports._composite import CompositeSettings, CompositeTransport
    from olsdk._delivery.transports._console import ConsoleSettings, ConsoleTransport
    from olsdk._delivery.transports._file import FileSettings, FileTransport
    from olsdk._delivery.transports._http import BatchSettings, HttpSettings, HttpTransport, SslContextSettings
    from olsdk._delivery.transports._kafka import KafkaSettings, KafkaTransport
    from olsdk._delivery.transports._noop import NoopTransport
    from olsdk._delivery.transports._retry import RetrySettings
    from olsdk._delivery.transports._transform import EventTransformer, JobNamespaceReplaceTransformer

_LAZY = {
    "AuthSettings": "_auth",
    "TokenProvider": "_auth",
    "BufferedSettings": "_buffered",
    "BufferedTransport": "_buffered",
    "CompositeSettings": "_composite",
    "CompositeTransport": "_composite",
    "ConsoleSettings": "_console",
    "ConsoleTransport": "_console",
    "FileSettings": "_file",
    "FileTransport": "_file",
    "BatchSettings": "_http",
    "HttpSettings": "_http",
    "HttpTransport": "_http",
    "SslContextSettings": "_http",
    "KafkaSettings": "_kafka",
    "KafkaTransport": "_kafka",
    "NoopTransport": "_noop",
    "RetrySettings": "_retry",
    "EventTransformer": "_transform",
    "JobNamespaceReplaceTransformer": "_transform",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"olsdk._delivery.transports.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "AuthSettings",
    "BatchSettings",
    "BufferedSettings",
    "BufferedTransport",
    "CallbackTransport",
    "CompositeSettings",
    "CompositeTransport",
    "ConfigError",
    "ConsoleSettings",
    "ConsoleTransport",
    "DeliveryError",
    "EventTransformer",
    "FileSettings",
    "FileTransport",
    "HttpSettings",
    "HttpTransport",
    "JobNamespaceReplaceTransformer",
    "KafkaSettings",
    "KafkaTransport",
    "NoopTransport",
    "Payload",
    "RetrySettings",
    "SslContextSettings",
    "TokenProvider",
    "Transport",
    "TransportBuilder",
    "create_transport",
    "describe_event",
    "register_transport",
    "transport_kinds",
]
