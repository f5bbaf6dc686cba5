"""A non-blocking wrapper: a bounded queue drained by background workers.

``emit`` only appends to an in-memory queue; ``workers`` background threads deliver
through the wrapped transport, optionally in groups (``batch_size``/``batch_bytes``/
``linger``, used by HTTP batch mode). Events are queued per ordering key (the run
they belong to; see ``Payload.ordering_key``); a key is handled by one worker at a
time and its events are taken in emit order, so the events of a run are delivered
in the order they were emitted, while any idle worker takes the next key that is
waiting: different runs are delivered concurrently and no worker idles while
another has a backlog. ``workers: 1`` gives one FIFO for everything.

When the queue is full (``on_full``):

* ``spool`` (default): ``send`` raises :class:`DeliveryError` at once and the
  client writes the event to the spool; the caller never waits.
* ``block``: the caller waits up to ``block_timeout`` seconds for room, then the
  event is spooled as above.

``flush()`` waits for the queue to drain. ``close()`` (the client's: at interpreter
exit and when a ``multiprocessing`` child ends, its process hooks close it) drains for
up to ``close_timeout`` seconds in all; then every event still held, queued or in flight, is reported as
undeliverable so the client spools it (an event in flight may still arrive: its
spool record says so), a warning says how many, and ``close()`` returns False.

After ``os.fork()`` the child starts with an empty queue and its own workers: the
parent's events stay the parent's (never sent or spooled twice), the child's own
are delivered or spooled like any others.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from typing import Any, Literal, TypeAlias

from pydantic import Field

from olsdk._delivery._config import Settings
from olsdk._delivery.transports._base import FailureHandler, Payload, Transport
from olsdk._foundation._exceptions import DeliveryError

__all__ = ["DEFAULT_WORKERS", "BufferedSettings", "BufferedTransport", "OnFull"]

log = logging.getLogger("olsdk._delivery.transports._buffered")

#: what ``send`` does when the queue is full (see the module docstring)
OnFull: TypeAlias = Literal["spool", "block"]

#: workers per buffered transport, chosen with `bench/reliability.py`: against a server
#: answering in 50 ms, 8 workers deliver ~145 events/s, 16 ~270, 32 ~390 (diminishing);
#: against a fast local server the client's CPU is the limit and 8, 16 or 32 do the same
#: (1 worker: half as much)
DEFAULT_WORKERS = 16


class BufferedSettings(Settings):
    """The `buffered` wrapper: a bounded queue in front of another transport, and what a full queue does."""

    max_queue_size: int = Field(default=10_000, ge=1)
    on_full: OnFull = "spool"
    block_timeout: float = Field(default=5.0, ge=0)
    batch_size: int = Field(default=1, ge=1)  # events handed to the wrapped transport at once
    batch_bytes: int = Field(default=1_000_000, ge=1)
    linger: float = Field(default=0.0, ge=0)  # seconds to wait for a group to fill up
    close_timeout: float = Field(default=5.0, ge=0)
    # concurrent deliveries; the events of one run are never delivered concurrently
    workers: int = Field(default=DEFAULT_WORKERS, ge=1)
    # the wrapped transport's own section (only when built from configuration: the
    # factory builds it and hands the transport to the constructor)
    transport: dict[str, Any] = Field(default_factory=dict)


class _Worker:
    """A delivery thread and the group it is delivering (the group is "in flight")."""

    def __init__(self) -> None:
        self.in_flight: list[Payload] = []
        self.keys: list[str] = []  # the ordering keys of the group in flight
        self.abandoned = False  # close() gave up on the group in flight and reported it
        self.reporting = False  # the worker is reporting the group's outcome
        self.thread: threading.Thread | None = None


class BufferedTransport(Transport):
    """Wraps ``inner``: ``send`` queues, background workers deliver."""

    kind = "buffered"

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
        self._reset_state()

    def _reset_state(self, accepting: bool = True) -> None:
        """Fresh queues and locks, no workers yet (they start with the first event)."""
        self._lock = threading.Lock()
        self._room = threading.Condition(self._lock)  # producers waiting for room
        self._idle = threading.Condition(self._lock)  # flush() waiting for the queues to drain
        self._ready_cond = threading.Condition(self._lock)  # workers waiting for a key to take
        self._by_key: dict[str, deque[Payload]] = {}  # queued events, per ordering key, in emit order
        self._ready: deque[str] = deque()  # keys with queued events that no worker holds
        self._busy: set[str] = set()  # keys a worker is delivering
        self._workers = [_Worker() for _ in range(self.settings.workers)]
        self._queued = 0
        self._unfinished = 0  # queued + in flight
        self._flushing = 0  # callers waiting in flush(): cut linger short
        self._accepting = accepting
        self._stopping = not accepting
        self._started = False

    @property
    def label(self) -> str:
        return self.name or self.inner.label

    @property
    def asynchronous(self) -> bool:
        return True  # each delivery is reported by the worker that made it

    def children(self) -> list[Transport]:
        return [self.inner]

    def set_failure_handler(self, handler: FailureHandler) -> None:
        super().set_failure_handler(handler)
        self.inner.set_failure_handler(handler)

    def find(self, label: str) -> Transport | None:
        return self if label == self.label else self.inner.find(label)

    def synchronous(self) -> Transport:
        return self.inner.synchronous()

    @property
    def queued(self) -> int:
        """Events accepted and not yet handled (queued or in flight)."""
        with self._lock:
            return self._unfinished

    # -- accepting ------------------------------------------------------------------

    def _key(self, payload: Payload) -> str:
        # one worker: one FIFO for every event (the order of emission, globally)
        return payload.ordering_key if len(self._workers) > 1 else ""

    def send(self, payload: Payload) -> None:
        s = self.settings
        with self._lock:
            if not self._accepting:
                raise DeliveryError("transport is closed", target=self.label)
            if self._queued >= s.max_queue_size:
                if s.on_full == "block":
                    self._room.wait_for(lambda: self._queued < s.max_queue_size or not self._accepting, s.block_timeout)
                if self._queued >= s.max_queue_size or not self._accepting:
                    # overload: the event goes to the spool file at once (documented), not to the relay
                    raise DeliveryError(f"buffer full ({s.max_queue_size} events queued)", target=self.label)
            if not self._started:
                _start_workers(self)
            key = self._key(payload)
            queue = self._by_key.get(key)
            if queue is None:
                queue = self._by_key[key] = deque()
                if key not in self._busy:
                    self._ready.append(key)
            queue.append(payload)
            self._queued += 1
            self._unfinished += 1
            self._ready_cond.notify()

    # -- delivering -----------------------------------------------------------------

    def _take_group(self, worker: _Worker) -> list[Payload] | None:
        """Block for the next group; None once stopped and drained. Called with no lock held."""
        s = self.settings
        with self._lock:
            self._ready_cond.wait_for(lambda: bool(self._ready) or self._stopping)
            if not self._ready:
                return None
            group: list[Payload] = []
            keys: list[str] = []
            size = 0

            def fits(payload: Payload) -> bool:
                return not group or (len(group) < s.batch_size and size + len(payload.body) <= s.batch_bytes)

            def take(key: str) -> bool:
                """Move the key's events that fit into the group; False when one did not fit."""
                nonlocal size
                queue = self._by_key.get(key)
                while queue and fits(queue[0]):
                    item = queue.popleft()
                    group.append(item)
                    size += len(item.body)
                if queue is not None and not queue:
                    del self._by_key[key]
                return not queue

            deadline = time.monotonic() + s.linger
            while True:
                # later events of the keys this group holds follow their earlier ones
                full = not all([take(key) for key in keys])
                while not full and self._ready and fits(self._by_key[self._ready[0]][0]):
                    key = self._ready.popleft()
                    self._busy.add(key)  # no other worker takes this key until the group is done
                    keys.append(key)
                    full = not take(key)
                full = full or len(group) >= s.batch_size or bool(self._ready)
                if full or self._stopping or self._flushing:
                    break
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                self._ready_cond.wait(remaining)  # linger: wait for more events to fill the group
            self._queued -= len(group)
            worker.in_flight, worker.keys = group, keys
            worker.abandoned = False
            self._room.notify_all()
            return group

    def _release(self, keys: list[str]) -> None:
        """The group of these keys is done: their later events may go (called with the lock)."""
        for key in keys:
            self._busy.discard(key)
            if key in self._by_key:
                self._ready.append(key)
                self._ready_cond.notify()

    def _work(self, worker: _Worker) -> None:
        while True:
            group = self._take_group(worker)
            if group is None:
                return
            failures = _deliver(self.inner, self.settings.batch_size, group)
            with self._lock:
                if worker.abandoned:  # close() gave up on this group and reported it already
                    continue
                worker.reporting = True  # close() leaves a group alone from here on
                # the later queued events of a run whose event failed wait behind it (the
                # client's relay delivers them in order once the failed one is through)
                behind = _take_behind(self, {p.ordering_key for p, e in failures if e.retriable})
            failed_ids = {id(p) for p, _ in failures}
            for payload in group:  # reported before flush() can see the group done
                if id(payload) not in failed_ids:
                    self.report_delivered(payload, self.label)
            for payload, error in failures:
                self.report_failure(payload, error)
            for payload in behind:
                self.report_failure(
                    payload,
                    DeliveryError("not tried: behind an undelivered event of its run", target=self.label, attempts=0),
                )
            with self._lock:
                self._unfinished -= len(behind)
                self._release(worker.keys)
                worker.in_flight, worker.keys = [], []
                worker.reporting = False
                self._unfinished -= len(group)
                if self._unfinished == 0:
                    self._idle.notify_all()

    # -- flushing and closing -------------------------------------------------------

    def flush(self, timeout: float | None = None) -> bool:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            self._flushing += 1
            self._ready_cond.notify_all()  # cut linger short
            try:
                done = self._idle.wait_for(lambda: self._unfinished == 0, timeout)
            finally:
                self._flushing -= 1
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        return done and self.inner.flush(left)

    def close(self, timeout: float | None = None) -> bool:
        if timeout is None:
            timeout = self.settings.close_timeout
        deadline = time.monotonic() + timeout
        with self._lock:
            if not self._accepting and self._stopping:
                return True
            self._accepting = False
            self._room.notify_all()
        drained = self.flush(timeout)
        with self._lock:
            self._stopping = True
            queued = [p for queue in self._by_key.values() for p in queue]  # each run's events in order
            self._by_key.clear()
            self._ready.clear()
            in_flight: list[Payload] = []
            for worker in self._workers:
                if worker.in_flight and not worker.abandoned and not worker.reporting:
                    worker.abandoned = True  # from now on the worker's outcome is not reported
                    in_flight.extend(worker.in_flight)
            self._ready_cond.notify_all()
            self._queued = 0
            self._unfinished -= len(queued) + len(in_flight)
            self._idle.notify_all()
        _hand_back(self, queued, in_flight, timeout)
        inner_ok = self.inner.close(max(0.0, deadline - time.monotonic()))  # also cuts retry sleeps short
        for worker in self._workers:  # daemon threads: past the deadline, nobody waits for them
            remaining = deadline - time.monotonic()
            if worker.thread is not None and worker.thread is not threading.current_thread() and remaining > 0:
                worker.thread.join(remaining)
        return drained and not queued and not in_flight and inner_ok

    def after_fork_in_child(self) -> None:
        # the parent's queued events stay the parent's; this process starts empty
        self._reset_state(accepting=self._accepting)

    def __repr__(self) -> str:
        return f"<BufferedTransport inner={self.inner!r} workers={len(self._workers)}>"


def _take_behind(self: BufferedTransport, failed_keys: set[str]) -> list[Payload]:
    """Take the queued events of these runs out of the queue (called with the lock)."""
    if not failed_keys:
        return []
    taken: list[Payload] = []
    for key in list(self._by_key):
        queue = self._by_key[key]
        keep: deque[Payload] = deque()
        for payload in queue:
            (taken if payload.ordering_key in failed_keys else keep).append(payload)
        if len(keep) != len(queue):
            if keep:
                self._by_key[key] = keep
            else:
                del self._by_key[key]
                if key in self._ready:
                    self._ready.remove(key)
    self._queued -= len(taken)
    if taken:
        self._room.notify_all()
    return taken


def _deliver(inner: Transport, batch_size: int, group: list[Payload]) -> list[tuple[Payload, DeliveryError]]:
    """One delivery of ``group`` by ``inner``: the failures (a transport bug fails them all)."""
    try:
        if len(group) == 1 and batch_size == 1:
            try:
                inner.deliver(group[0])
            except DeliveryError as exc:
                return [(group[0], exc)]
            return []
        return inner.deliver_many(group)
    except Exception as exc:  # a transport bug must not kill the worker
        log.exception("OpenLineage transport %s failed", inner)
        error = DeliveryError(f"{type(exc).__name__}: {exc}", target=inner.label)
        return [(p, error) for p in group]


def _hand_back(transport: BufferedTransport, queued: list[Payload], in_flight: list[Payload], timeout: float) -> None:
    """What close() gave up on goes to the failure handler (the client keeps it), never dropped."""
    if queued or in_flight:
        log.warning(
            "OpenLineage: %d events not delivered within the close timeout (%gs): %d queued, %d in flight; "
            "they are handed to the spool",
            len(queued) + len(in_flight), timeout, len(queued), len(in_flight),
        )  # fmt: skip
    for payload in in_flight:  # the request may still arrive: the reason says so
        reason = f"in flight when close gave up after {timeout:g}s; the server may have received it"
        transport.report_failure(payload, DeliveryError(reason, target=transport.label))
    for payload in queued:
        error = DeliveryError("not delivered before close timeout", target=transport.label, attempts=0)
        transport.report_failure(payload, error)


def _start_workers(transport: BufferedTransport) -> None:
    """The delivery threads, with the first event."""
    transport._started = True
    transport.inner.prepare_concurrency(len(transport._workers))
    for index, worker in enumerate(transport._workers):
        name = f"olsdk-buffered-{index}"
        worker.thread = threading.Thread(target=transport._work, args=(worker,), name=name, daemon=True)
        worker.thread.start()
