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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from olsdk._foundation._exceptions import DeliveryError
from olsdk._models._spec import EventKind, event_kind

if TYPE_CHECKING:
    from olsdk._delivery.transports._breaker import Breaker

log = logging.getLogger("olsdk.transports")

__all__ = [
    "DeliveryError",
    "DeliveryHandler",
    "FailureHandler",
    "Payload",
    "Transport",
    "describe_event",
    "try_deliver",
]


@dataclass(frozen=True, slots=True)
class Payload:
    """One serialised event plus the routing facts transports may need.

    ``ref`` is the client's outbox record of the event (opaque): a transport that makes a
    new payload from this one (a transformer) passes it on, so that the delivery of the new
    payload settles the record.
    """

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
    ref: Any = field(default=None, compare=False, repr=False)

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
#: called with a payload and the label of the transport that delivered it (None: the whole tree)
DeliveryHandler = Callable[[Payload, "str | None"], None]


def _log_failure(payload: Payload, error: DeliveryError) -> None:
    log.warning("OpenLineage event could not be delivered: %s", error.reason)


def _ignore_delivery(payload: Payload, label: str | None) -> None:
    return None


def _circuit_open(transport: Transport, breaker: Breaker) -> DeliveryError:
    reason = breaker.last_reason or "unreachable"
    return DeliveryError(
        f"not tried: {transport.label} is unreachable (circuit open after: {reason})",
        target=transport.label,
        attempts=0,
        unreachable=True,
    )


def try_deliver(transport: Transport, payload: Payload) -> DeliveryError | None:
    """``transport.deliver(payload)``: its failure, or None when it was delivered (or accepted).
    Any other exception is a bug of that transport: a failure of this delivery, never raised,
    so that it cannot break the caller's pipeline."""
    try:
        transport.deliver(payload)
    except DeliveryError as exc:
        return exc
    except Exception as exc:
        return DeliveryError(f"{type(exc).__name__}: {exc}", target=transport.label)
    return None


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
        self._on_delivered: DeliveryHandler = _ignore_delivery
        #: the client installs one on every transport without children (see ``deliver``)
        self.breaker: Breaker | None = None
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

    def set_delivery_handler(self, handler: DeliveryHandler) -> None:
        """Who hears of deliveries that happen after ``send`` returned (asynchronous transports),
        and of each child's delivery inside a composite. Wrappers pass it down."""
        self._on_delivered = handler

    def report_delivered(self, payload: Payload, label: str | None = None) -> None:
        """Tell the installed handler ``payload`` was delivered (by ``label``), never raising."""
        try:
            self._on_delivered(payload, label)
        except Exception:
            log.exception("OpenLineage delivery handler raised")

    @property
    def asynchronous(self) -> bool:
        """True when ``send`` returning means accepted, not delivered: the transport then
        reports each delivery with :meth:`report_delivered` (and each failure as before)."""
        return False

    def children(self) -> list[Transport]:
        """The transports this one hands events to (wrappers); none for a destination."""
        return []

    @property
    def breaker_identity(self) -> str:
        """What one breaker stands for (processes share its state by this): the destination."""
        return f"{self.kind}:{self.label}"

    def deliver(self, payload: Payload) -> None:
        """``send`` behind this transport's breaker: not tried while it is open, and its
        outcome told to it. Callers of transports (the client, wrappers) use this."""
        breaker = self.breaker
        if breaker is None:
            self.send(payload)
            return
        if not breaker.permits():
            raise _circuit_open(self, breaker)
        try:
            self.send(payload)
        except DeliveryError as exc:
            if not exc.counted:  # the http transport tells its breaker as soon as an attempt fails
                breaker.failure(exc)
            raise
        breaker.success()

    def deliver_many(self, payloads: Sequence[Payload]) -> list[tuple[Payload, DeliveryError]]:
        """``send_many`` behind the breaker (see :meth:`deliver`)."""
        breaker = self.breaker
        if breaker is None:
            return self.send_many(payloads)
        if not breaker.permits():
            error = _circuit_open(self, breaker)
            return [(p, error) for p in payloads]
        failed = self.send_many(payloads)
        unreachable = [error for _, error in failed if error.unreachable]
        if unreachable:
            if not unreachable[-1].counted:
                breaker.failure(unreachable[-1])
        else:
            breaker.success()  # delivered, or answered
        return failed

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
