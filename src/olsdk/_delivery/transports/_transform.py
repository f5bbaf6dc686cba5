"""``type: transform``: change or drop each event before an inner transport sends it.

The official client's keys: ``transformer_class`` (dotted path), ``transformer_properties``
(a mapping handed to it) and ``transport`` (the inner transport's section). A
transformer subclasses :class:`EventTransformer`: ``transform(event)`` gets the event
as an olsdk model (a copy of its own) and returns the event to send, or None to drop
it (logged). The official ``JobNamespaceReplaceTransformer`` path names
:class:`JobNamespaceReplaceTransformer` here, with the same semantics: the job
namespace is replaced, and, unless ``include_parent_facet`` is false, the parent's
and the root's job namespace too.

The official client's transformers work on its own event classes; a transformer
written for them cannot run here and is a configuration error that says so.
"""

from __future__ import annotations

import dataclasses
import importlib
import logging
from typing import Any

from pydantic import Field

from olsdk._delivery._config import Settings
from olsdk._delivery.transports._base import DeliveryHandler, FailureHandler, Payload, Transport, describe_event
from olsdk._foundation._exceptions import ConfigError, DeliveryError, ValidationError
from olsdk._readers._events import Event, parse_event, to_json

__all__ = [
    "EventTransformer",
    "JobNamespaceReplaceTransformer",
    "TransformSettings",
    "TransformTransport",
    "load_transformer",
]

log = logging.getLogger("olsdk._delivery.transports._transform")

_OFFICIAL_NAMESPACE_REPLACE = (
    "openlineage.client.transport.transform.transformers.job_namespace_replace_transformer."
    "JobNamespaceReplaceTransformer"
)


class EventTransformer:
    """Base class of transformers; ``properties`` is the ``transformer_properties`` mapping."""

    def __init__(self, properties: dict[str, Any]) -> None:
        self.properties = properties

    def transform(self, event: Event) -> Event | None:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__}({self.properties})>"


class JobNamespaceReplaceTransformer(EventTransformer):
    """The official transformer: ``new_job_namespace`` replaces the job namespace of run
    and job events, and (``include_parent_facet``, default true) of the parent and root."""

    def __init__(self, properties: dict[str, Any]) -> None:
        if not properties.get("new_job_namespace"):
            raise ConfigError(
                "transport.transformer_properties.new_job_namespace: required by JobNamespaceReplaceTransformer",
                "transport.transformer_properties.new_job_namespace",
            )
        super().__init__(properties)
        self.namespace = str(properties["new_job_namespace"])
        self.include_parent = str(properties.get("include_parent_facet", "true")).lower() == "true"

    def transform(self, event: Event) -> Event | None:
        job = getattr(event, "job", None)
        if job is None:  # a dataset event has no job: sent unchanged, as by the official client
            return event
        job.namespace = self.namespace
        run = getattr(event, "run", None)
        facets = getattr(run, "facets", None) if run is not None else None
        parent = getattr(facets, "parent", None) if facets is not None else None
        if not self.include_parent or parent is None:
            return event
        parent.job.namespace = self.namespace
        if parent.root is not None:
            parent.root.job.namespace = self.namespace
        return event


class TransformSettings(Settings):
    transformer_class: str
    # the inner transport's section (the factory builds it and hands it to the constructor)
    transport: dict[str, Any]
    transformer_properties: dict[str, Any] = Field(default_factory=dict)


def load_transformer(dotted: str, properties: dict[str, Any]) -> EventTransformer:
    """The transformer ``dotted`` names, built with ``properties``."""
    if dotted == _OFFICIAL_NAMESPACE_REPLACE:
        return JobNamespaceReplaceTransformer(properties)
    where = "transport.transformer_class"
    module_name, _, class_name = dotted.rpartition(".")
    try:
        cls = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ConfigError(f"{where}: cannot import {dotted!r}: {exc}", where) from None
    if not (isinstance(cls, type) and issubclass(cls, EventTransformer)):
        official = any(base.__module__.startswith("openlineage.") for base in getattr(cls, "__mro__", ()))
        why = " (a transformer of the official client's event classes)" if official else ""
        raise ConfigError(
            f"{where}: {dotted!r} is not a subclass of olsdk.transports.EventTransformer{why}",
            where,
        )
    return cls(properties)


class TransformTransport(Transport):
    """Sends ``transformer.transform(event)`` through ``inner``; None drops the event."""

    kind = "transform"

    def __init__(
        self,
        inner: Transport,
        settings: TransformSettings,
        *,
        transformer: EventTransformer | None = None,
        name: str | None = None,
        priority: int = 0,
    ) -> None:
        super().__init__(name=name, priority=priority)
        self.inner = inner
        self.settings = settings
        self.transformer = transformer or load_transformer(settings.transformer_class, settings.transformer_properties)

    def set_failure_handler(self, handler: FailureHandler) -> None:
        super().set_failure_handler(handler)
        self.inner.set_failure_handler(handler)

    def set_delivery_handler(self, handler: DeliveryHandler) -> None:
        super().set_delivery_handler(handler)
        self.inner.set_delivery_handler(self._inner_delivered)

    def _inner_delivered(self, payload: Payload, label: str | None) -> None:
        self.report_delivered(payload, self.label)

    @property
    def asynchronous(self) -> bool:
        return self.inner.asynchronous

    def children(self) -> list[Transport]:
        return [self.inner]

    def send(self, payload: Payload) -> None:
        try:
            event = parse_event(payload.body)
        except ValidationError as exc:
            raise DeliveryError(f"transform: not a valid event: {exc}", target=self.label, retriable=False) from None
        try:
            changed = self.transformer.transform(event)
        except Exception as exc:
            raise DeliveryError(
                f"transform: {self.transformer!r} raised {type(exc).__name__}: {exc}",
                target=self.label,
                retriable=False,
            ) from None
        if changed is None:
            log.info("OpenLineage event dropped by %r", self.transformer)
            if self.inner.asynchronous:  # nobody else will tell: dropped on purpose is settled
                self.report_delivered(payload, self.label)
            return
        body = to_json(changed).encode("utf-8")
        # the new payload carries the outbox record of the one emitted
        self.inner.deliver(dataclasses.replace(describe_event(changed, body), ref=payload.ref))

    def flush(self, timeout: float | None = None) -> bool:
        return self.inner.flush(timeout)

    def close(self, timeout: float | None = None) -> bool:
        return self.inner.close(timeout)

    def find(self, label: str) -> Transport | None:
        # spool records hold the event as emitted, before the transformer: resend through it
        return self if label == self.label or self.inner.find(label) is not None else None

    def synchronous(self) -> Transport:
        inner = self.inner.synchronous()
        if inner is self.inner:
            return self
        return TransformTransport(inner, self.settings, transformer=self.transformer, name=self.name)

    def __repr__(self) -> str:
        return f"<TransformTransport {self.transformer!r} inner={self.inner!r}>"
