"""A non-blocking wrapper: a bounded queue drained by one background thread.

``emit`` only appends to an in-memory queue; a daemon thread delivers through the
wrapped transport, optionally in groups (``batch_size``/``batch_bytes``/``linger``,
used by HTTP batch mode). One thread and one FIFO queue keep the events of a run
in the order they were emitted.

When the queue is full (``on_full``):

* ``spool`` (default): ``send`` raises :class:`DeliveryError` at once and the
  client writes the event to the spool; the caller never waits.
* ``block``: the caller waits up to ``block_timeout`` seconds for room, then the
  event is spooled as above.

``flush()`` waits for the queue to drain. ``close()`` (also run at interpreter exit)
drains for up to ``close_timeout`` seconds; whatever is still queued then is
reported as undeliverable, so the client spools it rather than losing it.
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
import weakref
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from olsdk.transports.base import DeliveryError, FailureHandler, Payload, Transport
from olsdk.transports.registry import check_transport, create_transport, register_transport
from olsdk.transports.settings import Origins, build

__all__ = ["BufferedSettings", "BufferedTransport"]

log = logging.getLogger("olsdk.transports.buffered")

_LIVE: weakref.WeakSet[BufferedTransport] = weakref.WeakSet()


@dataclass(frozen=True)
class BufferedSettings:
    max_queue_size: int = 10_000
    on_full: Literal["spool", "block"] = "spool"
    block_timeout: float = 5.0
    batch_size: int = 1  # events handed to the wrapped transport at once
    batch_bytes: int = 1_000_000
    linger: float = 0.0  # seconds to wait for a group to fill up
    close_timeout: float = 5.0
    # the wrapped transport's own configuration (only when built from configuration)
    transport: dict[str, Any] = field(default_factory=dict)


@register_transport
class BufferedTransport(Transport):
    kind = "buffered"
    settings_class = BufferedSettings

    def __init__(
        self,
        inner: Transport,
        settings: BufferedSettings | None = None,
        *,
        name: str | None = None,
        priority: int = 0,
    ) -> None:
        super().__init__(name=name, priority=priority)
        self.inner = inner
        self.settings = settings or BufferedSettings()
        self._queue: deque[Payload] = deque()
        self._cond = threading.Condition()
        self._unfinished = 0  # queued + in flight
        self._flushing = 0  # callers waiting in flush(): cut linger short
        self._accepting = True
        self._stopping = False
        self._worker = threading.Thread(target=self._run, name="olsdk-buffered", daemon=True)
        self._worker.start()
        _LIVE.add(self)

    @classmethod
    def from_settings(
        cls,
        data: Mapping[str, Any],
        path: tuple[str, ...] = ("transport",),
        origins: Origins | None = None,
        *,
        name: str | None = None,
        priority: int = 0,
    ) -> Transport:
        settings = build(BufferedSettings, data, path, origins)
        inner = create_transport(settings.transport, (*path, "transport"), origins)
        return cls(inner, settings, name=name, priority=priority)

    @classmethod
    def check_settings(cls, data: Mapping[str, Any], path: tuple[str, ...], origins: Origins | None = None) -> Any:
        settings = build(BufferedSettings, data, path, origins)
        check_transport(settings.transport, (*path, "transport"), origins)
        return settings

    @property
    def label(self) -> str:
        return self.name or self.inner.label

    def set_failure_handler(self, handler: FailureHandler) -> None:
        super().set_failure_handler(handler)
        self.inner.set_failure_handler(handler)

    def find(self, label: str) -> Transport | None:
        return self if label == self.label else self.inner.find(label)

    def synchronous(self) -> Transport:
        return self.inner.synchronous()

    @property
    def queued(self) -> int:
        with self._cond:
            return self._unfinished

    def send(self, payload: Payload) -> None:
        with self._cond:
            if not self._accepting:
                raise DeliveryError("transport is closed", target=self.label)
            if len(self._queue) >= self.settings.max_queue_size:
                if self.settings.on_full == "block":
                    self._cond.wait_for(
                        lambda: len(self._queue) < self.settings.max_queue_size or not self._accepting,
                        self.settings.block_timeout,
                    )
                if len(self._queue) >= self.settings.max_queue_size or not self._accepting:
                    raise DeliveryError(
                        f"buffer full ({self.settings.max_queue_size} events queued)",
                        target=self.label,
                    )
            self._queue.append(payload)
            self._unfinished += 1
            self._cond.notify_all()

    def _take_group(self) -> list[Payload] | None:
        """Block for the next group of events; None once stopped and drained."""
        s = self.settings
        with self._cond:
            self._cond.wait_for(lambda: bool(self._queue) or self._stopping)
            if not self._queue:
                return None
            first = self._queue.popleft()
            group, size = [first], len(first.body)
            deadline = time.monotonic() + s.linger
            while len(group) < s.batch_size:
                if self._queue:
                    if size + len(self._queue[0].body) > s.batch_bytes:
                        break
                    item = self._queue.popleft()
                    group.append(item)
                    size += len(item.body)
                    continue
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self._stopping or self._flushing:
                    break
                self._cond.wait(remaining)
            self._cond.notify_all()  # room for producers waiting on a full queue
            return group

    def _run(self) -> None:
        while True:
            group = self._take_group()
            if group is None:
                return
            try:
                if len(group) == 1:
                    failures: list[tuple[Payload, DeliveryError]] = []
                    try:
                        self.inner.send(group[0])
                    except DeliveryError as exc:
                        failures = [(group[0], exc)]
                else:
                    failures = self.inner.send_many(group)
            except Exception as exc:  # a transport bug must not kill the worker
                log.exception("OpenLineage transport %s failed", self.inner)
                error = DeliveryError(f"{type(exc).__name__}: {exc}", target=self.inner.label)
                failures = [(p, error) for p in group]
            for payload, error in failures:
                self.report_failure(payload, error)
            with self._cond:
                self._unfinished -= len(group)
                self._cond.notify_all()

    def flush(self, timeout: float | None = None) -> bool:
        with self._cond:
            self._flushing += 1
            self._cond.notify_all()
            try:
                done = self._cond.wait_for(lambda: self._unfinished == 0, timeout)
            finally:
                self._flushing -= 1
        return done and self.inner.flush(timeout)

    def close(self, timeout: float | None = None) -> bool:
        if timeout is None:
            timeout = self.settings.close_timeout
        with self._cond:
            if not self._accepting and not self._worker.is_alive():
                return True
            self._accepting = False
            self._cond.notify_all()
        drained = self.flush(timeout)
        with self._cond:
            self._stopping = True
            left = list(self._queue)
            self._queue.clear()
            self._unfinished -= len(left)
            self._cond.notify_all()
        for payload in left:  # never drop: the failure handler spools them
            self.report_failure(payload, DeliveryError("not delivered before close timeout", target=self.label))
        inner_ok = self.inner.close(timeout)  # also cuts short retry sleeps of an in-flight group
        self._worker.join(timeout)
        _LIVE.discard(self)
        return drained and not left and inner_ok

    def __repr__(self) -> str:
        return f"<BufferedTransport inner={self.inner!r}>"


def _close_all_at_exit() -> None:
    for transport in list(_LIVE):
        try:
            transport.close()
        except Exception:
            log.exception("closing %r at exit failed", transport)


atexit.register(_close_all_at_exit)
