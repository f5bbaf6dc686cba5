"""The composite transport: fan one event out to several transports.

Semantics follow the official client's keys: children are tried in order
(``sort_transports`` orders them by ``priority``, highest first);
``continue_on_success: false`` stops after the first delivery and
``continue_on_failure: false`` stops at the first failure. Unlike the official
client, children skipped after a failure are reported as failed too, so the
client spools the event for each of them (each spool record names its child)
and nothing is lost.

Whether a failure fails the emit: with ``continue_on_failure: true`` (default)
the emit only counts as failed when no child received the event; with
``false`` any child failure fails it (``partial`` is not set on the error).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from olsdk._delivery._config import Settings
from olsdk._delivery.transports._base import DeliveryHandler, FailureHandler, Payload, Transport, try_deliver
from olsdk._foundation._exceptions import ConfigError, DeliveryError

__all__ = ["CompositeSettings", "CompositeTransport"]


class CompositeSettings(Settings):
    """The `composite` transport: several transports, each event sent to every one of them."""

    # the children's sections, as a list or as a mapping name -> section (only when
    # built from configuration: the factory builds them and hands them to the constructor)
    transports: list[dict[str, Any]] | dict[str, dict[str, Any] | None]
    continue_on_failure: bool = True
    continue_on_success: bool = True
    sort_transports: bool = False


class CompositeTransport(Transport):
    """Sends each event to every child transport (see the module docstring)."""

    kind = "composite"

    def __init__(
        self,
        transports: Sequence[Transport],
        settings: CompositeSettings | None = None,
        *,
        name: str | None = None,
        priority: int = 0,
    ) -> None:
        super().__init__(name=name, priority=priority)
        if not transports:
            raise ConfigError(
                "transport.transports: a composite needs at least one transport",
                "transport.transports",
            )
        self.settings = settings or CompositeSettings(transports=[])
        if self.settings.sort_transports:
            transports = sorted(transports, key=lambda t: t.priority, reverse=True)
        self.transports = list(transports)

    def set_failure_handler(self, handler: FailureHandler) -> None:
        super().set_failure_handler(handler)
        for child in self.transports:
            child.set_failure_handler(handler)

    def set_delivery_handler(self, handler: DeliveryHandler) -> None:
        super().set_delivery_handler(handler)
        for child in self.transports:  # a child's late deliveries are told under the child's label
            child.set_delivery_handler(functools.partial(self._child_delivered, child))

    def _child_delivered(self, child: Transport, payload: Payload, label: str | None) -> None:
        self.report_delivered(payload, child.label)

    @property
    def asynchronous(self) -> bool:
        return any(child.asynchronous for child in self.transports)

    def children(self) -> list[Transport]:
        return list(self.transports)

    def find(self, label: str) -> Transport | None:
        if label == self.label:
            return self
        for child in self.transports:
            found = child.find(label)
            if found is not None:
                return found
        return None

    def send(self, payload: Payload) -> None:
        failures: list[DeliveryError] = []
        delivered = 0
        for index, child in enumerate(self.transports):
            error = try_deliver(child, payload)  # a child's bug is that child's failure only
            if error is None:
                delivered += 1
                if not child.asynchronous:  # an asynchronous child tells of its delivery itself
                    self.report_delivered(payload, child.label)
                if not self.settings.continue_on_success:
                    for skipped in self.transports[index + 1 :]:  # not needed: settled for them
                        self.report_delivered(payload, skipped.label)
                    break
                continue
            failures.append(error)
            if not self.settings.continue_on_failure:
                for skipped in self.transports[index + 1 :]:
                    failures.append(
                        DeliveryError(f"not attempted after {child.label} failed", target=skipped.label, attempts=0)
                    )
                break
        if failures:
            reasons = "; ".join(f"{f.target}: {f.reason}" for f in failures)
            raise DeliveryError(
                f"{len(failures)} of {len(self.transports)} transports failed: {reasons}",
                target=self.label,
                partial=self.settings.continue_on_failure and delivered > 0,
                causes=failures,
            )

    def flush(self, timeout: float | None = None) -> bool:
        return all([child.flush(timeout) for child in self.transports])

    def close(self, timeout: float | None = None) -> bool:
        return all([child.close(timeout) for child in self.transports])

    def synchronous(self) -> Transport:
        return CompositeTransport([child.synchronous() for child in self.transports], self.settings, name=self.name)

    def __repr__(self) -> str:
        return f"<CompositeTransport transports={self.transports!r}>"
