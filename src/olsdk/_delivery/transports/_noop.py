"""The noop transport: accepts events and drops them (``OPENLINEAGE_DISABLED``)."""

from __future__ import annotations

from olsdk._delivery.transports._base import Payload, Transport

__all__ = ["NoopTransport"]


class NoopTransport(Transport):
    """Sends nothing: for tests, and to switch lineage off by configuration."""

    kind = "noop"

    def send(self, payload: Payload) -> None:
        return None
