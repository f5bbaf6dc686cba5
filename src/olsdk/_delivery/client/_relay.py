"""The relay: the client's one background thread, delivering what the caller did not.

When the client's transport sends over a network, ``emit`` hands each event to the relay
(see ``_handoff``), whose thread makes its first attempt, in emit order; otherwise ``emit``
makes that attempt itself. Either way one attempt is made (none while the destination's
breaker is open or an earlier event of the same run is owed). Whatever is not delivered
then is a ``retrying`` record of the store, owned by this process; the relay tries each
again when it is due (its backoff, ``Retry-After``, or the breaker's next probe), one attempt at a
time, oldest first, and never an event of a run before the earlier ones of that run.

While a destination is unreachable (its breaker is open) nothing is tried but one probe
after the breaker's cooldown; the probe's success closes the breaker and the backlog goes,
oldest first. The relay also *finishes* what processes that are gone left in the store:
``finish_delay`` seconds after it starts, and every minute after that (see
:meth:`Store.adopt`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable

from olsdk._delivery.client._handoff import Handed, Handoffs
from olsdk._delivery.client._store import Row, Store
from olsdk._delivery.client._targets import leaves
from olsdk._delivery.transports._attempts import Resume, single_attempt
from olsdk._delivery.transports._base import Payload, Transport, try_deliver
from olsdk._delivery.transports._breaker import Breaker
from olsdk._foundation._exceptions import DeliveryError

__all__ = ["Relay", "Routes", "owes"]

log = logging.getLogger("olsdk._delivery.client._relay")

_RESCAN_EVERY = 60.0  # seconds between looks for records of processes that are gone
FailureHandler = Callable[[Payload, DeliveryError], None]


def owes(error: DeliveryError) -> bool:
    """Whether a failure is retried by the relay: it may be retried (retries left), the
    destination is unreachable (wait for it), or it was not tried yet. Other failures are final."""
    if not error.retriable:
        return False
    return isinstance(error.resume, Resume) or error.unreachable or error.attempts == 0


class Relay:
    """See the module docstring. Created by the client; its thread starts on demand."""

    def __init__(
        self,
        transport: Transport,
        store: Store,
        *,
        breakers: list[Breaker],
        on_failure: FailureHandler,
        first_attempt: Callable[[Handed], None],
        finish: bool,
        finish_delay: float,
    ) -> None:
        self.transport = transport
        self.store = store
        self.breakers = breakers
        self.on_failure = on_failure
        self.first_attempt = first_attempt
        self.finish = finish
        self.finish_delay = finish_delay
        self._routes = Routes(transport)
        self._reset()
        for breaker in breakers:
            breaker.on_close(self._unpark)

    def _reset(self) -> None:
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._owed = _Owed()
        self.handed = Handoffs(self._wake, self.first_attempt)  # events for their first attempt
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._deadline: float | None = None
        self._begun = 0  # passes begun
        self._idle_pass = 0  # the last pass that attempted nothing (flush and close wait for one)
        self._idle_until: float | None = None  # when the last such pass found the next one due
        self._next_scan = time.monotonic() + self.finish_delay
        self._checkpointed = 0.0
        self.delivered = 0
        self.adopted = 0

    def after_fork_in_child(self) -> None:
        """The parent's records stay the parent's; the child starts with none."""
        self._reset()

    # -- owing --------------------------------------------------------------------------

    def holds(self, key: str) -> bool:
        """True while an event of this run is owed here (later ones queue behind it)."""
        return key in self._owed.keys

    def reason_of(self, key: str) -> str:
        """Why the first event of this run that is owed here is owed."""
        return self._owed.reasons.get(key) or "not delivered yet"

    @property
    def pending(self) -> int:
        return len(self._owed) + len(self.handed)

    def hand(self, handed: Handed) -> bool:
        """Make the first attempt of an event in the thread, after those handed before it;
        whether it is the next one (none handed before it waits or is being tried)."""
        with self._lock:
            first = not self.handed
            self.handed.queue.append(handed)
            self._start()
            self._wake.notify()
            return first

    def owe(self, record_id: int, key: str, error: DeliveryError, target: str | None, failed_by: str | None) -> None:
        """Keep retrying the record after ``error`` (the store says so first)."""
        resume = error.resume if isinstance(error.resume, Resume) else None
        wait = self._routes.wait_after(error, resume, target)
        self.store.failed(
            record_id, state="retrying", reason=error.reason, attempts=error.attempts, next_try=time.time() + wait,
            failed_by=failed_by, retriable=True, target=target,
        )  # fmt: skip
        with self._lock:
            behind = self._owed.add(record_id, key, error, resume)  # it cannot go before the earlier one
            self._start()
            due = time.monotonic() + wait
            if not behind and (self._idle_until is None or due < self._idle_until):
                self._wake.notify()  # sooner than the thread's next look: wake it

    def settled(self, record_id: int) -> None:
        """The record left the store (delivered or given up)."""
        with self._lock:
            self._owed.remove(record_id)
            self._wake.notify_all()

    # -- the thread ----------------------------------------------------------------------

    def start(self) -> None:
        with self._lock:
            self._start()

    def _start(self) -> None:
        if self._thread is None and not self._stopping:
            self._thread = threading.Thread(target=self._run, name="olsdk-relay", daemon=True)
            self._thread.start()

    @property
    def started(self) -> bool:
        return self._thread is not None

    def _run(self) -> None:
        while not self._stopping:
            with self._lock:
                self._begun += 1
                number = self._begun
            try:
                self._checkpointed = _checkpoint(self.store, self._checkpointed)
                self._maybe_finish()
                first = self.handed.run(self._ending)  # the events handed by emit, then the retries
                attempted, wait = self._pass()
            except Exception:  # never let the thread die: the records stay in the store
                log.exception("OpenLineage relay failed; the events stay in the store")
                first, attempted, wait = False, False, 5.0
            with self._lock:
                if first or attempted or self.handed.queue:
                    continue
                self._idle_pass = number
                self._idle_until = None if wait is None else time.monotonic() + wait
                self._wake.notify_all()
                if self.finish and self._deadline is None:
                    until_scan = max(0.0, self._next_scan - time.monotonic())
                    wait = until_scan if wait is None else min(wait, until_scan)
                if self._deadline is not None:
                    wait = min(0.5 if wait is None else wait, max(0.01, self._deadline - time.monotonic()))
                wait = 1.0 if wait is None else min(wait, 1.0)  # the next checkpoint, at the latest
                if not self._stopping:
                    self._wake.wait(wait)

    def _ending(self) -> bool:
        """Whether to stop trying: the thread stops, or ``close``'s deadline passed."""
        return self._stopping or (self._deadline is not None and time.monotonic() >= self._deadline)

    def _pass(self) -> tuple[bool, float | None]:
        """Try every record due now (one per run); whether any was tried, and how long until one is due."""
        if not self._owed:
            return False, None
        closing = self._deadline
        blocked: dict[str | None, float] = {}
        attempted = False
        for row in self.store.due(time.time()):
            if self._ending():
                break
            if row.target in blocked:
                continue
            probe = self._routes.probe_wait(row.target)
            if probe is not None:
                blocked[row.target] = probe
                continue
            self._attempt(row)
            attempted = True
        if attempted:
            return True, 0.0
        # Closing, a backend known to be down (its breaker open) is not waited for: what waits
        # for it stays in the store, for a later client or a replay.
        waits = list(blocked.values()) if closing is None else []
        now = time.time()
        for target, due in self.store.next_due().items():
            if target not in blocked and (closing is None or not self._routes.down(target)):
                waits.append(max(0.0, due - now))
        wait = min(waits) if waits else None
        if closing is not None and wait is not None and time.monotonic() + wait > closing:
            return False, None  # nothing more can be tried before close's deadline
        return False, wait

    def _attempt(self, row: Row) -> None:
        try:
            payload = Payload.from_json(row.body)
        except ValueError as exc:
            self.on_failure(
                Payload(body=row.body, ref={row.target: row.id}),
                DeliveryError(f"unreadable record: {exc}", target=row.target, retriable=False),
            )
            return
        object.__setattr__(payload, "ref", {row.target: row.id})  # a fresh payload: ours to mark
        destination = self._routes.destination(row.target)
        with self._lock:
            resume = self._owed.resumes.pop(row.id, None)
        with single_attempt(resume):
            error = try_deliver(destination, payload)
        if error is not None:  # a transport bug too: the event stays, the bug is told
            self.on_failure(payload, error)
            return
        self.store.delete([row.id])
        self.delivered += 1
        self.settled(row.id)

    def _unpark(self) -> None:
        """A destination came back: what waited for it goes now (backoffs excepted)."""
        with self._lock:
            keep = list(self._owed.resumes)
        if self._owed:
            self.store.unpark(keep)
        with self._lock:
            self._wake.notify_all()

    # -- finishing what processes that are gone left ---------------------------------------

    def _maybe_finish(self) -> None:
        if not self.finish or self._deadline is not None or time.monotonic() < self._next_scan:
            return
        self._next_scan = time.monotonic() + _RESCAN_EVERY
        taken, owners = self.store.adopt()
        if taken:
            with self._lock:
                for row in self.store.rows("owner = ? AND state = 'retrying'", (self.store.owner,)):
                    self._owed.track(row.id, row.run_key)
            self.adopted += taken
            where = f"{', '.join(sorted(owners)[:10])}) left in the store {self.store.path}"
            log.info("OpenLineage: delivering %d events that processes now gone (%s", taken, where)

    # -- flushing and closing --------------------------------------------------------------

    def flush(self, timeout: float | None) -> bool:
        """Wait until nothing is left to try before the deadline (events waiting for an
        unreachable backend past it excepted); True when nothing is owed."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            if self._thread is None:
                return not self.pending
            target = self._begun + 1  # a pass that begins after this call
            self._wake.notify_all()  # the thread's next pass now (it tells each one it ends)
            while self.pending and self._thread.is_alive():
                now = time.monotonic()
                until = self._idle_until
                idle = self._idle_pass >= target and not self.handed
                if idle and (until is None or (deadline is not None and until > deadline)):
                    break
                if deadline is not None and now >= deadline:
                    return False
                self._wake.wait(0.05 if deadline is None else min(0.05, deadline - now))
            return not self.pending

    def close(self, deadline: float) -> tuple[list[Handed], bool]:
        """Deliver what is due before ``deadline``, then stop the thread (never waiting past it).
        Returns the handed events never tried, and whether one is still being tried."""
        with self._lock:
            self._deadline = deadline
            self._wake.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            self.flush(max(0.0, deadline - time.monotonic()))
        with self._lock:
            self._stopping = True
            self._wake.notify_all()
        if thread is not None and thread is not threading.current_thread():
            thread.join(max(0.0, min(0.5, deadline - time.monotonic())))
        with self._lock:
            return self.handed.take()


class _Owed:
    """The records this process owes a delivery, by run (guarded by the relay's lock)."""

    def __init__(self) -> None:
        self.runs: dict[int, str] = {}  # record id -> its run's ordering key
        self.keys: Counter[str] = Counter()
        self.resumes: dict[int, Resume] = {}  # where a record's retries stand
        self.reasons: dict[str, str] = {}  # run -> why its first owed event is owed

    def __len__(self) -> int:
        return len(self.runs)

    def add(self, record_id: int, key: str, error: DeliveryError, resume: Resume | None) -> bool:
        """Owe the record after ``error``; whether an earlier record of its run was owed already."""
        if resume is not None:
            self.resumes[record_id] = resume
        behind = key in self.keys
        self.track(record_id, key)
        if error.attempts or key not in self.reasons:
            self.reasons[key] = error.reason
        return behind

    def track(self, record_id: int, key: str) -> None:
        if record_id not in self.runs:
            self.runs[record_id] = key
            self.keys[key] += 1

    def remove(self, record_id: int) -> None:
        key = self.runs.pop(record_id, None)
        self.resumes.pop(record_id, None)
        if key is not None:
            self.keys[key] -= 1
            if self.keys[key] <= 0:
                del self.keys[key]
                self.reasons.pop(key, None)


def _checkpoint(store: Store, last: float) -> float:
    """The store's checkpoints are made in the relay's thread, never in an emit (see
    ``Store.checkpoint``): at most once a second, or every thousand commits. Returns when."""
    unchecked, now = store.unchecked, time.monotonic()
    if unchecked >= 1000 or (unchecked and now - last >= 1.0):
        store.checkpoint()
        return now
    return last


class Routes:
    """Where a record goes (a composite's child, or the whole transport), synchronously, and
    the breakers on the way."""

    def __init__(self, transport: Transport) -> None:
        self.transport = transport
        self._sync: dict[str | None, Transport] = {}

    def destination(self, target: str | None) -> Transport:
        """The synchronous form of ``target`` (a composite's child: found before the tree is
        made synchronous, where a wrapper's name is gone), or of the whole transport."""
        found = self._sync.get(target)
        if found is None:
            node = (self.transport.find(target) if target is not None else None) or self.transport
            found = self._sync[target] = node.synchronous()
        return found

    def breakers_of(self, target: str | None) -> list[Breaker]:
        return [leaf.breaker for leaf in leaves(self.destination(target)) if leaf.breaker is not None]

    def breaker_for(self, target: str | None) -> Breaker | None:
        found = self.breakers_of(target)
        open_ones = [b for b in found if not b.closed]
        return open_ones[0] if open_ones else (found[0] if found else None)

    def down(self, target: str | None) -> bool:
        """Whether a breaker on the way to ``target`` is open (its backend known unreachable)."""
        return any(not breaker.closed for breaker in self.breakers_of(target))

    def wait_after(self, error: DeliveryError, resume: Resume | None, target: str | None) -> float:
        """Seconds before the next attempt after ``error``: its backoff (``Retry-After``), the
        breaker's next probe, or none (not tried yet: in turn)."""
        breaker = self.breaker_for(target)
        if resume is not None:
            if breaker is not None and not breaker.closed:
                return max(resume.wait, breaker.probe_delay())
            return resume.wait
        if error.unreachable:  # a fresh retry budget with each probe
            return breaker.probe_delay() if breaker is not None else 1.0
        return 0.0

    def probe_wait(self, target: str | None) -> float | None:
        """None when a delivery to ``target`` may be tried now; else seconds until a probe may."""
        open_ones = [b for b in self.breakers_of(target) if not b.closed]
        if not open_ones or all([b.try_probe() for b in open_ones]):
            return None
        return max(0.05, min(b.probe_delay() for b in open_ones))
