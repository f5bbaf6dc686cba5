"""One writer thread: every request's events go through it, many requests per transaction.

A request hands its events over and waits for the commit, so its 2xx answer means they
are stored. Requests that arrive while a transaction runs are written together in the
next one (group commit): with 8 producers posting at once, one commit (one fsync on
SQLite) serves several of them. When a group fails, each request of it is written on
its own, so one bad request cannot fail the others. With a retention set, the same thread
deletes what is older than it (`Store.retain`) at start and every 15 minutes, between writes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from olsdk._integrations.serve._retention import EVERY_SECONDS
from olsdk._integrations.serve._store import Received, Refusal, Store

__all__ = ["Writer"]

log = logging.getLogger("olsdk.serve")

MAX_GROUP_EVENTS: Final = 5000
RETENTION_SECONDS: Final = EVERY_SECONDS  # between retention passes, when retention is set


@dataclass(slots=True)
class _Job:
    events: Sequence[Received]
    refusals: Sequence[Refusal]
    future: asyncio.Future[None]


class Writer:
    """Stores on its own thread; `store` and `refuse` are awaited on the event loop."""

    def __init__(self, store: Store, loop: asyncio.AbstractEventLoop, on_change: Callable[[], None]) -> None:
        self.store = store
        self.loop = loop
        self.on_change = on_change
        self._queue: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="olsdk-serve-writer", daemon=True)
        self._thread.start()

    async def store_events(self, events: Sequence[Received], refusals: Sequence[Refusal] = ()) -> None:
        """Store `events` (and keep `refusals`); raises what the database raised."""
        future: asyncio.Future[None] = self.loop.create_future()
        self._queue.put(_Job(events, refusals, future))
        await future

    async def refuse(self, refusals: Sequence[Refusal]) -> None:
        await self.store_events((), refusals)

    def close(self, timeout: float = 30.0) -> None:
        """Write what is queued, then stop the thread."""
        self._queue.put(None)
        self._thread.join(timeout)

    def _settle(self, outcomes: list[tuple[_Job, BaseException | None]]) -> None:
        """Answer the requests of a group and wake the page feeds: one wake-up of the event loop."""

        def settle() -> None:
            for job, error in outcomes:
                if job.future.done():
                    continue
                if error is None:
                    job.future.set_result(None)
                else:
                    job.future.set_exception(error)
            self.on_change()

        with contextlib.suppress(RuntimeError):  # a closed loop: nobody is listening any more
            self.loop.call_soon_threadsafe(settle)

    def _write(self, jobs: list[_Job]) -> list[tuple[_Job, BaseException | None]]:
        try:
            self.store.write([e for job in jobs for e in job.events], [r for job in jobs for r in job.refusals])
        except Exception as group_error:
            if len(jobs) == 1:
                log.error("storing failed: %s", group_error)
                return [(jobs[0], group_error)]
            return [
                outcome for job in jobs for outcome in self._write([job])
            ]  # one at a time: one bad request fails alone
        return [(job, None) for job in jobs]

    def _run(self) -> None:
        stopping = False
        due = time.monotonic() if self.store.retention_days is not None else None  # the next retention pass
        while not stopping:
            if due is not None and time.monotonic() >= due:
                self._retain()
                due = time.monotonic() + RETENTION_SECONDS
            try:
                first = self._queue.get(timeout=None if due is None else max(0.0, due - time.monotonic()))
            except queue.Empty:
                continue
            if first is None:
                break
            jobs, count = [first], len(first.events)
            while count < MAX_GROUP_EVENTS:
                try:
                    following = self._queue.get_nowait()
                except queue.Empty:
                    break
                if following is None:
                    stopping = True
                    break
                jobs.append(following)
                count += len(following.events)
            self._settle(self._write(jobs))

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
