"""The noop transport: accepts events and drops them (``OPENLINEAGE_DISABLED``)."""

from __future__ import annotations

from olsdk.transports.base import Payload, Transport
from olsdk.transports.registry import register_transport

__all__ = ["NoopTransport"]


@register_transport
class NoopTransport(Transport):
    kind = "noop"

    def send(self, payload: Payload) -> None:
        return None
