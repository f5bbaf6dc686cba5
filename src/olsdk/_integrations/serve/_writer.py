"""One writer thread: every request's events go through it, many requests per transaction.

A request hands its events over and waits for the commit of their ``events`` rows, so its
2xx answer means they are stored. Requests that arrive while a transaction runs are written
together in the next one (group commit): with 8 producers posting at once, one commit (one
fsync on SQLite) serves several of them. When a group fails, each request of it is written
on its own, so one bad request cannot fail the others. On SQLite, whose commit does not
wait for the disk, a request whose events find the writer idle appends them on the event
loop itself (`Store.append_now`): no thread hop for a lone producer; while other requests
wait for the writer, a request joins them, and their group shares a commit. The event loop
never waits for another process's lock on the file: when one holds it, the request goes
to the writer thread, which waits for it.

The rows derived from the events (namespaces, jobs, datasets, runs, ...) are written by the
same thread afterwards, many events a transaction (`Store.project`): when a thousand are
waiting, a tenth of a second after the first of them, before every read (`caught_up`), and
at start for what a killed server left. With a retention set, the same thread deletes what
is older than it (`Store.retain`) at start and every 15 minutes, between writes.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from olsdk._integrations.serve._retention import EVERY_SECONDS
from olsdk._integrations.serve._store import PROJECT_CHUNK, Received, Refusal, Store

__all__ = ["Writer"]

log = logging.getLogger("olsdk.serve")

MAX_GROUP_EVENTS: Final = 5000
PROJECT_EVENTS: Final = 1000  # events waiting for their derived rows that are derived at once
PROJECT_SECONDS: Final = 0.1  # the longest an event waits for its derived rows when nobody reads
RETENTION_SECONDS: Final = EVERY_SECONDS  # between retention passes, when retention is set


@dataclass(slots=True)
class _Job:
    events: Sequence[Received]
    refusals: Sequence[Refusal]
    future: asyncio.Future[None]
    flush: bool = False  # derive what is waiting, then answer
    tick: bool = False  # events were appended on the event loop: take them over


class Writer:
    """Stores on its own thread; `store_events`, `refuse` and `caught_up` are awaited on the event loop."""

    def __init__(self, store: Store, loop: asyncio.AbstractEventLoop, on_change: Callable[[], None]) -> None:
        self.store = store
        self.loop = loop
        self.on_change = on_change
        self._queue: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._held: dict[int, Received] = {}  # events appended, not derived yet, by number (the thread's)
        self._held_since = 0.0
        # SQLite: a request's events are appended on the event loop itself when the writer
        # is not writing (no thread hop), and handed over to be derived through `_inbox`
        self.inline = store.dialect == "sqlite"
        self._inbox: collections.deque[tuple[int, Sequence[Received]]] = collections.deque()
        self._ticked = False
        self._queued = 0  # requests waiting for the writer thread (the event loop's count)
        self._appended_inline = 0  # events appended on the event loop (its count)
        self._appended = 0  # events appended on the writer thread (its count)
        self._derived = 0  # events of this process whose derived rows are written (the thread's count)
        self.recovered = False  # whether what an earlier server left underived is derived
        self._thread = threading.Thread(target=self._run, name="olsdk-serve-writer", daemon=True)
        self._thread.start()

    async def store_events(self, events: Sequence[Received], refusals: Sequence[Refusal] = ()) -> None:
        """Store `events` (and keep `refusals`); raises what the database raised."""
        if self.inline and events and not refusals and not self._queued:
            try:
                last = self.store.append_now(events)
            except Exception as exc:
                log.error("storing failed: %s", exc)
                raise
            if last is not None:
                self._appended_inline += len(events)
                self._inbox.append((last, events))
                if not self._ticked:  # the writer takes them over (and derives them in time)
                    self._ticked = True
                    self._queue.put(_Job((), (), self.loop.create_future(), tick=True))
                return
        future: asyncio.Future[None] = self.loop.create_future()
        self._queued += 1
        try:
            self._queue.put(_Job(events, refusals, future))
            await future
        finally:
            self._queued -= 1

    async def refuse(self, refusals: Sequence[Refusal]) -> None:
        await self.store_events((), refusals)

    async def caught_up(self) -> None:
        """Return once the derived rows of every event stored so far are written (before a read).
        On SQLite this process is the only writer: nothing to wait for when it holds none."""
        if self.inline and self.recovered and self._appended_inline + self._appended == self._derived:
            return
        future: asyncio.Future[None] = self.loop.create_future()
        self._queue.put(_Job((), (), future, flush=True))
        await future

    def close(self, timeout: float = 30.0) -> None:
        """Write what is queued and derive what is waiting, then stop the thread."""
        self._queue.put(None)
        self._thread.join(timeout)

    def _settle(self, outcomes: list[tuple[_Job, BaseException | None]], changed: bool = True) -> None:
        """Answer the requests of a group and wake the page feeds: one wake-up of the event loop."""

        def settle() -> None:
            for job, error in outcomes:
                if job.future.done():
                    continue
                if error is None:
                    job.future.set_result(None)
                else:
                    job.future.set_exception(error)
            if changed:
                self.on_change()

        with contextlib.suppress(RuntimeError):  # a closed loop: nobody is listening any more
            self.loop.call_soon_threadsafe(settle)

    def _append(self, jobs: list[_Job]) -> None:
        events = [e for job in jobs for e in job.events]
        last = self.store.append(events, [r for job in jobs for r in job.refusals])
        if events:
            self._hold(last, events)
            self._appended += len(events)

    def _hold(self, last: int, events: Sequence[Received]) -> None:
        """Keep appended events (the last numbered `last`) until their derived rows are written."""
        if not self._held:
            self._held_since = time.monotonic()
        self._held.update(zip(range(last - len(events) + 1, last + 1), events, strict=True))

    def _take_over(self) -> None:
        """The events appended on the event loop, held by the writer from now on. While it holds
        events the writer wakes in time to derive them anyway: appends do not wake it one by one."""
        if not self._held and not self._inbox:
            self._ticked = False  # first: what is appended from now on wakes the writer
        while self._inbox:
            last, events = self._inbox.popleft()
            self._hold(last, events)

    def _write(self, jobs: list[_Job]) -> list[tuple[_Job, BaseException | None]]:
        try:
            self._append(jobs)
        except Exception as group_error:
            if len(jobs) == 1:
                log.error("storing failed: %s", group_error)
                return [(jobs[0], group_error)]
            return [
                outcome for job in jobs for outcome in self._write([job])
            ]  # one at a time: one bad request fails alone
        return [(job, None) for job in jobs]

    def _run(self) -> None:
        self._project()  # what a server killed before deriving it left
        self.recovered = True
        stopping = False
        due = time.monotonic() if self.store.retention_days is not None else None  # the next retention pass
        while not stopping:
            if due is not None and time.monotonic() >= due:
                self._project()
                self._retain()
                due = time.monotonic() + RETENTION_SECONDS
            self._take_over()  # before waiting: whether the next append is to wake the writer
            jobs, stopping = self._take(due)
            self._take_over()
            writes = [job for job in jobs if not (job.flush or job.tick)]
            if writes:
                self._settle(self._write(writes), changed=any(job.refusals for job in writes))
            flushes = [job for job in jobs if job.flush]
            if flushes or stopping or self._project_due():
                changed = self._project()
                self._settle([(job, None) for job in flushes], changed=changed)

    def _take(self, due: float | None) -> tuple[list[_Job], bool]:
        """The next group of requests (empty when a projection or retention pass is due first),
        and whether the writer is to stop after it."""
        deadlines = [d for d in (due, self._held_since + PROJECT_SECONDS if self._held else None) if d is not None]
        try:
            first = self._queue.get(timeout=max(0.0, min(deadlines) - time.monotonic()) if deadlines else None)
        except queue.Empty:
            return [], False
        if first is None:
            return [], True
        jobs, count = [first], len(first.events)
        while count < MAX_GROUP_EVENTS:
            try:
                following = self._queue.get_nowait()
            except queue.Empty:
                break
            if following is None:
                return jobs, True
            jobs.append(following)
            count += len(following.events)
        return jobs, False

    def _project_due(self) -> bool:
        return bool(self._held) and (
            len(self._held) >= PROJECT_EVENTS or time.monotonic() >= self._held_since + PROJECT_SECONDS
        )

    def _project(self) -> bool:
        """Derive every event waiting (`Store.project`); whether anything was derived. An event
        whose rows cannot be written is logged and left underived, so that the others are not held up."""
        derived = 0
        more = True
        while more:
            try:
                mark, count = self.store.project(self._held)
            except Exception as exc:
                log.error("deriving the rows of stored events failed: %s", exc)
                more = self._project_alone()
                continue
            derived += count
            more = count >= PROJECT_CHUNK
            for seq in [seq for seq in self._held if seq <= mark]:
                del self._held[seq]
                self._derived += 1
        self._held_since = time.monotonic()
        return derived > 0

    def _project_alone(self) -> bool:
        """After a failed projection: the next event alone, skipped when it fails too; whether to go on."""
        try:
            self.store.project(self._held, limit=1)
        except Exception as exc:
            try:
                skipped = self.store.skip()
            except Exception:
                return False  # the database itself fails: the next projection tries again
            if self._held.pop(skipped, None) is not None:
                self._derived += 1
            log.error("the rows of stored event %d are left underived: %s", skipped, exc)
        return True

    def _retain(self) -> None:
        """A retention pass (`Store.retain`); the page feeds are woken when it deleted anything."""
        assert self.store.retention_days is not None
        try:
            deleted = self.store.retain(self.store.retention_days)
        except Exception as exc:  # the next pass tries again; writes go on
            log.error("retention failed: %s", exc)
            return
        if any(deleted.values()):
            log.info("retention of %g days deleted %s", self.store.retention_days, deleted)
            self._settle([])
