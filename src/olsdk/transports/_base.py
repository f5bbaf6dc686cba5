"""The transport interface: transports move already-serialised events.

A transport implements ``send(payload)``; ``send_many``, ``flush(timeout)`` and
``close(timeout)`` have defaults for transports that deliver synchronously and hold
no resources. Transports are built from settings objects (see ``_factory`` for the
table that turns configuration into them); they know nothing of configuration files.

The client serialises an event once (``olsdk.to_json``) and hands the bytes to a
transport inside a :class:`Payload`, together with the few facts some transports
need for routing (Kafka message keys, ordering, spool records). Transports never
see model objects, so any transport can also resend raw JSON read back from a spool.
"""

from __future__ import annotations

import abc
import json
import logging
import os
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from olsdk._exceptions import DeliveryError
from olsdk._spec import EventKind, event_kind

log = logging.getLogger("olsdk.transports")

__all__ = [
    "DeliveryError",
    "FailureHandler",
    "Payload",
    "Transport",
    "describe_event",
]


@dataclass(frozen=True, slots=True)
class Payload:
    """One serialised event plus the routing facts transports may need."""

    body: bytes
    kind: EventKind = "run"
    run_id: str | None = None
    event_type: str | None = None
    job_namespace: str | None = None
    job_name: str | None = None
    # the job at the top of the parent chain (parent.root.job, else parent.job)
    root_job_namespace: str | None = None
    root_job_name: str | None = None
    dataset_namespace: str | None = None
    dataset_name: str | None = None

    @property
    def ordering_key(self) -> str:
        """Events sharing this key must be delivered in emit order (one run)."""
        if self.run_id:
            return f"run:{self.run_id}"
        if self.kind == "dataset":
            return f"dataset:{self.dataset_namespace}/{self.dataset_name}"
        return f"job:{self.job_namespace}/{self.job_name}"

    @classmethod
    def from_json(cls, body: str | bytes) -> Payload:
        """Build a payload from event JSON (used by replay and for raw events)."""
        raw = body.encode("utf-8") if isinstance(body, str) else body
        data = json.loads(raw)
        if not isinstance(data, dict):
            raise ValueError("an OpenLineage event must be a JSON object")
        return describe_event(data, raw)

    def event(self) -> dict[str, Any]:
        """The event as decoded JSON (a new dict on every call)."""
        data: dict[str, Any] = json.loads(self.body)
        return data


def _get(obj: Any, key: str) -> Any:
    """Read ``key`` from a mapping or an attribute of a model, tolerating absence."""
    if obj is None:
        return None
    if isinstance(obj, Mapping):
        return obj.get(key)
    return getattr(obj, key, None)


def _text(value: Any) -> str | None:
    if value is None:
        return None
    enum_value = getattr(value, "value", None)  # enums carry the wire string in .value
    return str(enum_value if enum_value is not None else value)


def describe_event(event: Any, body: bytes) -> Payload:
    """Extract routing facts from an event given as a dict or as a model object."""
    run = _get(event, "run")
    job = _get(event, "job")
    dataset = _get(event, "dataset")
    kind = event_kind(event) or "job"
    root_ns = root_name = None
    parent = _get(_get(run, "facets"), "parent")
    if parent is not None:
        root_job = _get(_get(parent, "root"), "job") or _get(parent, "job")
        root_ns, root_name = _text(_get(root_job, "namespace")), _text(_get(root_job, "name"))
    return Payload(
        body=body,
        kind=kind,
        run_id=_text(_get(run, "runId")),
        event_type=_text(_get(event, "eventType")),
        job_namespace=_text(_get(job, "namespace")),
        job_name=_text(_get(job, "name")),
        root_job_namespace=root_ns,
        root_job_name=root_name,
        dataset_namespace=_text(_get(dataset, "namespace")),
        dataset_name=_text(_get(dataset, "name")),
    )


FailureHandler = Callable[[Payload, DeliveryError], None]


def _log_failure(payload: Payload, error: DeliveryError) -> None:
    log.warning("OpenLineage event could not be delivered: %s", error.reason)


class Transport(abc.ABC):
    """Base class of every transport.

    ``send`` delivers synchronously or raises :class:`DeliveryError`. Asynchronous
    transports (the buffered wrapper, Kafka without per-event flush) accept the
    event and report later failures to the handler installed with
    :meth:`set_failure_handler` (the client installs one that spools).

    Wrappers (composite, buffered) also override ``find`` and ``synchronous``, which
    replay uses to resend to the one child a spool record names.
    """

    #: the default label: spool records and errors name a transport by it
    kind: ClassVar[str] = "base"

    def __init__(self, *, name: str | None = None, priority: int = 0) -> None:
        self.name = name
        self.priority = priority
        self._on_failure: FailureHandler = _log_failure
        _ALL.add(self)

    @property
    def label(self) -> str:
        """How errors and spool records name this transport."""
        return self.name or self.kind

    def set_failure_handler(self, handler: FailureHandler) -> None:
        self._on_failure = handler

    def report_failure(self, payload: Payload, error: DeliveryError) -> None:
        """Hand an asynchronous failure to the installed handler, never raising."""
        try:
            self._on_failure(payload, error)
        except Exception:  # a broken handler must not kill a worker thread
            log.exception("OpenLineage failure handler raised")

    @abc.abstractmethod
    def send(self, payload: Payload) -> None:
        """Deliver one event, or raise :class:`DeliveryError`."""

    def send_many(self, payloads: Sequence[Payload]) -> list[tuple[Payload, DeliveryError]]:
        """Send several events; return the ones that failed. Batching transports override."""
        failed: list[tuple[Payload, DeliveryError]] = []
        for payload in payloads:
            try:
                self.send(payload)
            except DeliveryError as exc:
                failed.append((payload, exc))
        return failed

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until accepted events are delivered; True when nothing is pending."""
        return True

    def close(self, timeout: float | None = None) -> bool:
        """Flush and release resources; True when nothing was left undelivered."""
        return self.flush(timeout)

    def prepare_concurrency(self, senders: int) -> None:
        """``senders`` threads will call ``send``/``send_many`` at once (a buffered wrapper's
        workers): size connection pools and the like. Thread safety itself is required anyway."""
        return None  # most transports have nothing to size

    def after_fork_in_child(self) -> None:
        """Called in a child process after ``os.fork()``: drop what belongs to the parent
        (threads, queued events, pooled connections). Called once for every live transport."""
        return None  # most transports hold nothing of the parent's

    def find(self, label: str) -> Transport | None:
        """The transport (this one or a child) that spool records name ``label``."""
        return self if label == self.label else None

    def synchronous(self) -> Transport:
        """A transport that delivers in ``send`` itself (wrappers unwrap). Used by replay."""
        return self

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name!r}>"


# every transport of the process, so that a forked child can reset each one once
_ALL: weakref.WeakSet[Transport] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    for transport in list(_ALL):
        try:
            transport.after_fork_in_child()
        except Exception:
            log.exception("OpenLineage transport %r could not be reset after fork", transport)


os.register_at_fork(after_in_child=_after_fork_in_child)
