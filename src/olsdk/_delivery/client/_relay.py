"""The relay: the client's one background thread for everything the caller did not deliver.

The caller's ``emit`` makes at most one attempt (and none while the destination's breaker
is open or an earlier event of the same run is waiting). Whatever is not delivered there,
or by a buffered worker, is handed here:

* a failure the transport may retry (its ``retry:`` budget is not spent) is attempted
  again after its backoff (``Retry-After`` honoured), one attempt at a time, each
  journaled in the outbox as it happens;
* while a destination is unreachable (its breaker is open) nothing is tried but one probe
  after the breaker's cooldown; the probe's success closes the breaker and the backlog is
  delivered, oldest first;
* a failure that the backend answered and that has no retry left (a 503 after every
  retry), one that retrying cannot fix (a 4xx, too large), or one of a transport that
  does not retry, is final here: the event is moved to the spool file, where ``olsdk
  replay`` (a human) finds it. The outbox holds only what is still being delivered.

The events of one run (one ordering key) are delivered in emit order: a later event
waits behind an earlier one that is held here, and the client hands new events of that
run straight here too.

The relay also *finishes* what processes that are gone left in the outbox: after
``finish_delay`` seconds, and every minute after that, it takes the outbox-wide finisher
lock (one process at a time), adopts every segment whose writer is gone (its lock is
free) and delivers their records, oldest first, acknowledging each in that segment.
"""

from __future__ import annotations

import contextlib
import heapq
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from olsdk._delivery.client._outbox import Outbox, OutboxRecord
from olsdk._delivery.transports._attempts import Resume, single_attempt
from olsdk._delivery.transports._base import Payload, Transport
from olsdk._delivery.transports._breaker import Breaker
from olsdk._foundation._exceptions import DeliveryError

if TYPE_CHECKING:
    from olsdk._delivery.client._spool import Spool

__all__ = ["Held", "Relay"]

log = logging.getLogger("olsdk._delivery.client._relay")

_RESCAN_EVERY = 60.0  # seconds between looks for segments of processes that are gone


@dataclass(eq=False)
class Held:
    """One delivery the relay owes: an event (on disk, or in memory without write-ahead) to a target."""

    key: str  # the ordering key: a run's events go in emit order
    order: int  # when it was written (ns): oldest first
    record: OutboxRecord | None
    payload: Payload | None
    target: str | None  # a composite's child, or None for the whole transport
    reason: str = ""
    resume: Resume | None = None
    due: float = 0.0  # monotonic time of the next attempt
    adopted: bool = False  # left by a process that is gone
    sort_key: tuple[int, int] = field(default=(0, 0))


class Relay:
    """See the module docstring. Created by the client; thread started on demand."""

    def __init__(
        self,
        transport: Transport,
        outbox: Outbox | None,
        spool: Spool | None,
        *,
        breakers: list[Breaker],
        target_of: Callable[[str | None], str | None],
        on_dead_letter: Callable[[Payload, DeliveryError, str | None], None],
        finish: bool,
        finish_delay: float,
    ) -> None:
        self.transport = transport
        self.outbox = outbox
        self.spool = spool
        self.breakers = breakers
        self.target_of = target_of
        self.on_dead_letter = on_dead_letter
        self.finish = finish and outbox is not None
        self.finish_delay = finish_delay
        self._sync: Transport | None = None
        self._breaker_cache: dict[str | None, list[Breaker]] = {}
        self._reset()
        for breaker in breakers:
            breaker.on_close(self._unpark)

    def _reset(self) -> None:
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._queues: dict[str, deque[Held]] = {}  # per key, oldest first
        # the heads of the queues by (when due, age): entries are checked against _versions
        # when they come up (a head that changed leaves a stale entry behind)
        self._heap: list[tuple[float, tuple[int, int], int, str]] = []
        self._versions: dict[str, int] = {}
        self._count = 0
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._deadline: float | None = None  # close(): deliver only what is due before it
        self._busy = False
        self._started_at = time.monotonic()
        self._next_scan = self._started_at + self.finish_delay
        self._finisher = False  # holds the outbox-wide finisher lock
        self._seq = 0
        self.delivered = 0
        self.adopted = 0
        self.last_reason = ""

    def after_fork_in_child(self) -> None:
        """The parent's deliveries stay the parent's; the child starts empty."""
        self._reset()

    # -- taking -------------------------------------------------------------------------

    def reason_of(self, key: str) -> str:
        """Why the first event of this run that waits here is waiting."""
        queue = self._queues.get(key)
        return (queue[0].reason if queue else "") or "not delivered yet"

    def holds(self, key: str) -> bool:
        """True while an event of this run waits here (later ones must queue behind it)."""
        return key in self._queues

    def take(
        self,
        payload: Payload,
        record: OutboxRecord | None,
        target: str | None,
        error: DeliveryError | None,
    ) -> Held:
        """Owe a delivery of ``payload`` (to ``target``), after ``error`` (None: not tried yet)."""
        now = time.monotonic()
        held = Held(
            key=payload.ordering_key,
            order=record.t if record is not None else time.time_ns(),
            record=record,
            payload=None if record is not None else payload,
            target=target,
        )
        if error is not None:
            self._after_failure(held, error, now)
        self._add(held)
        return held

    def _add(self, held: Held) -> None:
        with self._lock:
            self._seq += 1
            held.sort_key = (held.order, self._seq)
            self._enqueue(held)
            self._start()
            self._wake.notify()

    def _enqueue(self, held: Held) -> None:
        """Put ``held`` in its run's queue, in emit order (called with the lock)."""
        queue = self._queues.get(held.key)
        if queue is None:
            queue = self._queues[held.key] = deque()
        if not queue or queue[-1].sort_key <= held.sort_key:
            queue.append(held)
        else:  # an earlier event of the run, reported late by a worker: keep emit order
            queue.append(held)
            ordered = sorted(queue, key=lambda h: h.sort_key)
            queue.clear()
            queue.extend(ordered)
        self._count += 1
        if queue[0] is held:
            self._push_head(held.key)

    def _push_head(self, key: str, due: float | None = None) -> None:
        """(Re)announce the head of ``key``'s queue (called with the lock)."""
        queue = self._queues.get(key)
        if not queue:
            return
        version = self._versions.get(key, 0) + 1
        self._versions[key] = version
        head = queue[0]
        heapq.heappush(self._heap, (head.due if due is None else due, head.sort_key, version, key))

    @staticmethod
    def owes(error: DeliveryError) -> bool:
        """Whether the relay takes a delivery after ``error``: it may be retried (retries
        left), the destination is unreachable (wait for it), or it was not tried yet. Other
        failures are final here: the event goes to the spool file, for ``olsdk replay``."""
        if not error.retriable:
            return False
        return isinstance(error.resume, Resume) or error.unreachable or error.attempts == 0

    def _after_failure(self, held: Held, error: DeliveryError, now: float) -> None:
        held.reason = error.reason
        self.last_reason = error.reason
        resume = error.resume if isinstance(error.resume, Resume) else None
        breaker = self._breaker_for(held.target)
        held.resume = resume
        if resume is not None:
            held.due = now + resume.wait
            if breaker is not None and not breaker.closed:
                held.due = max(held.due, now + breaker.probe_delay())
        elif error.unreachable:  # a fresh retry budget with each probe
            held.due = now + (breaker.probe_delay() if breaker is not None else 1.0)
        else:  # not tried yet (behind an earlier event of its run, a full buffer): in turn
            held.due = now

    def start(self) -> None:
        """Start the thread now (to finish what processes that are gone left)."""
        with self._lock:
            self._start()

    def _start(self) -> None:
        if self._thread is None and not self._stopping:
            self._thread = threading.Thread(target=self._run, name="olsdk-relay", daemon=True)
            self._thread.start()

    @property
    def started(self) -> bool:
        return self._thread is not None

    @property
    def pending(self) -> int:
        return self._count

    def counts(self) -> tuple[int, int]:
        """(own, adopted) deliveries still owed."""
        with self._lock:
            adopted = sum(1 for q in self._queues.values() for h in q if h.adopted)
            return self._count - adopted, adopted

    # -- delivering ---------------------------------------------------------------------

    def _sync_transport(self) -> Transport:
        if self._sync is None:
            self._sync = self.transport.synchronous()
        return self._sync

    def _destination(self, target: str | None) -> Transport:
        sync = self._sync_transport()
        if target is None:
            return sync
        return sync.find(target) or sync

    def _breakers_of(self, target: str | None) -> list[Breaker]:
        found = self._breaker_cache.get(target)
        if found is None:
            found = self._breaker_cache[target] = [
                b for b in _leaf_breakers(self._destination(target)) if b is not None
            ]
        return found

    def _breaker_for(self, target: str | None) -> Breaker | None:
        found = self._breakers_of(target)
        open_ones = [b for b in found if not b.closed]
        return open_ones[0] if open_ones else (found[0] if found else None)

    def _next(self, now: float) -> tuple[Held | None, float | None]:
        """The head that may go now, or how long to wait for one (called with the lock).

        O(log n) per event: the heads wait in a heap by when they are due; one whose
        destination's breaker is open is put back at its probe time."""
        closing = self._deadline is not None
        skipped: list[tuple[float, tuple[int, int], int, str]] = []
        try:
            while self._heap:
                due, _age, version, key = self._heap[0]
                queue = self._queues.get(key)
                if not queue or self._versions.get(key) != version:
                    heapq.heappop(self._heap)  # stale: that head changed or left
                    continue
                head = queue[0]
                effective = due
                breaker = self._breaker_for(head.target)
                if breaker is not None and not breaker.closed:
                    # a probe may go while closing too, if due before the deadline; close()
                    # does not wait for it past the deadline (a probe that never gets an
                    # answer then leaves its event in the outbox, for a later client)
                    effective = max(due, now + breaker.probe_delay())
                if closing and self._deadline is not None and effective > self._deadline:
                    skipped.append(heapq.heappop(self._heap))
                    continue
                if effective <= now:
                    return head, None
                if effective > due:  # wait for the probe: back in the heap at that time
                    heapq.heappop(self._heap)
                    self._push_head(key, effective)
                    continue
                return None, effective - now
            return None, None
        finally:
            for entry in skipped:
                heapq.heappush(self._heap, entry)

    def _run(self) -> None:
        while True:
            self._maybe_finish()
            with self._lock:
                now = time.monotonic()
                held, wait = self._next(now)
                if held is None:
                    if self._stopping or (self._deadline is not None and wait is None):
                        self._busy = False
                        self._wake.notify_all()
                        if self._stopping:
                            return
                    timeout = wait
                    if self.finish:
                        until_scan = max(0.0, self._next_scan - now)
                        timeout = until_scan if timeout is None else min(timeout, until_scan)
                    if self._deadline is not None:
                        timeout = min(timeout if timeout is not None else 0.5, max(0.01, self._deadline - now))
                    self._busy = False
                    self._wake.notify_all()
                    self._wake.wait(timeout)
                    continue
                self._busy = True
            try:
                self._attempt(held)
            except Exception:  # never let the thread die: the record stays in the outbox
                log.exception("OpenLineage relay failed on an event; it stays in the outbox")
                with self._lock:
                    held.due = time.monotonic() + 60.0
                    self._push_head(held.key)

    def _attempt(self, held: Held) -> None:
        payload = self._payload(held)
        if payload is None:  # unreadable on disk: give it up loudly (kept in the segment)
            self._done(held)
            return
        destination = self._destination(held.target)
        breakers = [b for b in self._breakers_of(held.target) if not b.closed]
        if breakers and not all([b.try_probe() for b in breakers]):
            with self._lock:
                held.due = time.monotonic() + max(0.05, min(b.probe_delay() for b in breakers))
                self._push_head(held.key)
            return
        try:
            with single_attempt(held.resume):
                destination.deliver(payload)
        except DeliveryError as exc:
            self._failed(held, payload, exc)
            return
        except Exception as exc:  # a transport bug: the event stays, the bug is told
            self._failed(held, payload, DeliveryError(f"{type(exc).__name__}: {exc}", target=destination.label))
            return
        if held.record is not None and self.outbox is not None:
            self.outbox.ack(held.record, held.target)
        self.delivered += 1
        self._done(held)

    def _payload(self, held: Held) -> Payload | None:
        if held.payload is not None:
            return held.payload
        assert held.record is not None and self.outbox is not None
        try:
            body = self.outbox.body(held.record)
            payload = Payload.from_json(body)
        except (OSError, ValueError) as exc:
            log.error("OpenLineage outbox record %s cannot be read (%s); it stays in its segment", held.record.id, exc)
            return None
        object.__setattr__(payload, "ref", held.record)
        return payload

    def _failed(self, held: Held, payload: Payload, error: DeliveryError) -> None:
        now = time.monotonic()
        leaves = error.leaves()
        for leaf in leaves:
            target = self.target_of(leaf.target) if held.target is None and len(leaves) > 1 else held.target
            if held.record is not None and self.outbox is not None:
                self.outbox.fail(held.record, leaf, target)
            if not self.owes(leaf):
                self.on_dead_letter(payload, leaf, target)
        retriable = [leaf for leaf in leaves if self.owes(leaf)]
        if not retriable:
            self._done(held)
            return
        with self._lock:
            self._after_failure(held, retriable[0], now)
            if len(retriable) < len(leaves) or (len(leaves) > 1 and held.target is None):
                # a composite: only the children that failed are owed now
                first, *rest = retriable
                held.target = self.target_of(first.target)
                for leaf in rest:
                    extra = Held(held.key, held.order, held.record, held.payload, self.target_of(leaf.target))
                    self._after_failure(extra, leaf, now)
                    self._seq += 1
                    extra.sort_key = (held.order, self._seq)
                    extra.adopted = held.adopted
                    self._enqueue(extra)
            self._push_head(held.key)  # its head waits until its new due time

    def _done(self, held: Held) -> None:
        with self._lock:
            queue = self._queues.get(held.key)
            if queue is not None:
                was_head = bool(queue) and queue[0] is held
                with contextlib.suppress(ValueError):
                    queue.remove(held)
                    self._count -= 1
                if not queue:
                    del self._queues[held.key]
                    self._versions.pop(held.key, None)
                elif was_head:
                    self._push_head(held.key)
            self._wake.notify_all()

    def _unpark(self) -> None:
        """A destination came back after being unreachable: what waits for it goes now."""
        with self._lock:
            now = time.monotonic()
            for key, queue in self._queues.items():
                for held in queue:
                    if held.resume is None:
                        held.due = min(held.due, now)
                self._push_head(key)
            self._wake.notify_all()

    # -- finishing what processes that are gone left ------------------------------------

    def _maybe_finish(self) -> None:
        if not self.finish or self.outbox is None or self._deadline is not None:
            return
        now = time.monotonic()
        if now < self._next_scan:
            return
        self._next_scan = now + _RESCAN_EVERY
        outbox = self.outbox
        if not self._finisher:
            if not outbox.acquire_finisher():
                return  # another process is finishing: it keeps the order of what it took
            self._finisher = True
        segments = outbox.adopt()
        if not segments:
            if not self._holds_adopted():
                outbox.release_finisher()
                self._finisher = False
            return
        records = sorted((r for s in segments for r in s.records.values()), key=lambda r: (r.t, r.seq))
        for record in records:
            try:
                key = Payload.from_json(outbox.body(record)).ordering_key
            except (OSError, ValueError):
                log.error("OpenLineage outbox record %s cannot be read; it stays in its segment", record.id)
                continue
            for target in record.open_targets():
                held = Held(key=key, order=record.t, record=record, payload=None, target=target, adopted=True)
                held.reason = record.last_reason
                self._add(held)
        self.adopted += len(records)
        pids = sorted({s.pid for s in segments})
        log.info(
            "OpenLineage: delivering %d events that processes now gone (pids %s) left in the outbox %s",
            len(records),
            ", ".join(map(str, pids[:10])),
            outbox.directory,
        )

    def _holds_adopted(self) -> bool:
        with self._lock:
            return any(h.adopted for q in self._queues.values() for h in q)

    # -- flushing and closing -------------------------------------------------------------

    def flush(self, timeout: float | None) -> bool:
        """Wait until nothing due is left to try (events waiting for an unreachable backend excepted)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while True:
                now = time.monotonic()
                held, wait = self._next(now)
                if (
                    held is None
                    and not self._busy
                    and (wait is None or (deadline is not None and now + wait > deadline))
                ):
                    return self._count == 0
                left = None if deadline is None else deadline - now
                if left is not None and left <= 0:
                    return False
                self._wake.notify_all()
                self._wake.wait(0.05 if left is None else min(0.05, left))

    def close(self, deadline: float) -> None:
        """Deliver what is due before ``deadline``, then stop the thread (never waiting past it)."""
        with self._lock:
            self._deadline = deadline
            self._wake.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            with self._lock:
                while self._thread is not None:
                    now = time.monotonic()
                    held, wait = self._next(now)
                    if not self._busy and held is None and (wait is None or now + wait > deadline):
                        break  # nothing more can be tried before the deadline
                    left = deadline - now
                    if left <= 0:
                        break
                    self._wake.notify_all()
                    self._wake.wait(min(0.05, left))
                self._stopping = True
                self._wake.notify_all()
            thread.join(max(0.0, min(0.5, deadline - time.monotonic())))
        else:
            with self._lock:
                self._stopping = True
        if self._finisher and self.outbox is not None:
            self.outbox.release_finisher()
            self._finisher = False

    def drain(self) -> list[Held]:
        """Everything still owed, taken out (at close, without write-ahead: for the spool file)."""
        with self._lock:
            items = [h for q in self._queues.values() for h in q]
            self._queues.clear()
            self._heap.clear()
            self._versions.clear()
            self._count = 0
            return sorted(items, key=lambda h: h.sort_key)

    @property
    def thread_alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def describe(self) -> dict[str, Any]:
        own, adopted = self.counts()
        return {"owed": own, "adopted": adopted, "delivered": self.delivered, "pid": os.getpid()}


def _leaf_breakers(transport: Transport) -> list[Breaker | None]:
    children = transport.children()
    if not children:
        return [transport.breaker]
    found: list[Breaker | None] = []
    for child in children:
        found.extend(_leaf_breakers(child))
    return found
