"""Transports: how serialised OpenLineage events leave the process.

Each transport is a small module behind :class:`~olsdk.transports.base.Transport`;
:func:`create_transport` builds one from an ``openlineage.yml`` ``transport:``
mapping.
"""

from olsdk.transports.base import DeliveryError, Payload, Transport, describe_event
from olsdk.transports.buffered import BufferedSettings, BufferedTransport
from olsdk.transports.composite import CompositeSettings, CompositeTransport
from olsdk.transports.console import ConsoleSettings, ConsoleTransport
from olsdk.transports.file import FileSettings, FileTransport
from olsdk.transports.http import HttpSettings, HttpTransport
from olsdk.transports.kafka import KafkaSettings, KafkaTransport
from olsdk.transports.noop import NoopTransport
from olsdk.transports.registry import create_transport, register_transport, transport_kinds
from olsdk.transports.settings import ConfigError

__all__ = [
    "BufferedSettings",
    "BufferedTransport",
    "CompositeSettings",
    "CompositeTransport",
    "ConfigError",
    "ConsoleSettings",
    "ConsoleTransport",
    "DeliveryError",
    "FileSettings",
    "FileTransport",
    "HttpSettings",
    "HttpTransport",
    "KafkaSettings",
    "KafkaTransport",
    "NoopTransport",
    "Payload",
    "Transport",
    "create_transport",
    "describe_event",
    "register_transport",
    "transport_kinds",
]
