"""The spool: the store seen from the outside (inspection, ``olsdk replay``).

The spool is the client's store (a SQLite database, see ``_store``): the events given up
(retrying cannot help, or the retries are spent) and those still owed by a process. It is
read as records of this shape::

    {"id": 7, "spooledAt": "...", "reason": "...", "target": "http", "retriable": true,
     "attempts": 1, "state": "given_up", "event": {...the event exactly as it was sent...}}

``target`` names the transport that failed (a child of a composite, for instance), so a
replay resends to that transport only. Input that is not an event at all is kept as
``"raw": "<the text>"`` instead of ``"event"``: a replay never sends it and never drops it.

:func:`replay` resends, oldest first, the records given up and those that processes now
gone (or closed) left; each delivered record leaves the store as it is delivered, so a
replay killed and run again resends at most the one event that was in flight. One replay
of a spool runs at a time (:class:`ReplayInProgress`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from olsdk._delivery.client._relay import Routes
from olsdk._delivery.client._store import Liveness, Row, SharedBreakers, Store
from olsdk._delivery.transports._base import Payload, Transport
from olsdk._foundation._exceptions import DeliveryError
from olsdk._foundation._secrets import scrub

__all__ = ["ReplayInProgress", "ReplayProgress", "ReplayResult", "Spool", "default_spool_path", "replay"]


log = logging.getLogger("olsdk._delivery.client._spool")

#: records held in memory while the store cannot be written (beyond that they are lost, loudly)
PENDING_LIMIT = 10_000


def default_spool_path(environ: dict[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    state = env.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(state) / "olsdk" / "spool.db"


class Spool:
    """The spool at ``path`` (created on first use; an NDJSON spool of an earlier olsdk there,
    and its outbox folder, are migrated into it when it is first opened)."""

    def __init__(self, path: str | os.PathLike[str], fsync: Literal["never", "always"] = "never") -> None:
        self.store = Store(path, fsync)
        self.path = self.store.path
        self._held: deque[dict[str, Any]] = deque()  # records the store refused (a full disk)
        self._lock = threading.Lock()

    @property
    def pending(self) -> int:
        """Records held in memory because the store could not be written."""
        return len(self._held)

    def append(self, payload: Payload, error: DeliveryError, attempts: int = 1) -> bool:
        """Keep an event given up (``olsdk replay`` resends it); True once committed."""
        return self.keep(
            body=payload.body, run_key=payload.ordering_key, reason=scrub(error.reason),
            attempts=max(attempts, 1), failed_by=error.target, retriable=error.retriable,
        )  # fmt: skip

    def keep(self, **record: Any) -> bool:
        """Add a ``given_up`` record (the keyword arguments of ``Store.add``); True when it is
        committed, False when it is held in memory until the store can be written again (a full
        disk that frees up loses nothing). OSError when the memory backlog is full too."""
        with self._lock:
            self._held.append(record)
            try:
                self._write_held()
            except (OSError, sqlite3.Error) as exc:
                if len(self._held) > PENDING_LIMIT:
                    self._held.pop()
                    raise OSError(f"spool {self.path} not writable and {PENDING_LIMIT} records waiting") from exc
                if len(self._held) == 1 or len(self._held) % 1000 == 0:
                    log.error(
                        "OpenLineage spool %s not writable (%s); %d records held in memory until it is",
                        self.path, exc, len(self._held),
                    )  # fmt: skip
                return False
            return True

    def _write_held(self) -> None:
        while self._held:
            record = dict(self._held[0])
            body, run_key = record.pop("body"), record.pop("run_key")
            targets = (record.pop("target", None),)
            self.store.add(body, run_key, targets, state="given_up", owner=None, **record)
            self._held.popleft()

    def flush(self) -> int:
        """Write the records held in memory; returns how many are still waiting."""
        with self._lock:
            with contextlib.suppress(OSError, sqlite3.Error):
                self._write_held()
            return len(self._held)

    def __len__(self) -> int:
        """The records :meth:`records` shows."""
        return sum(1 for _ in self._shown())

    def records(self) -> Iterator[dict[str, Any]]:
        """Every record (for inspection), oldest first, in the shape of the module docstring:
        given up, or owed; the events a running process has in flight (not failed yet) are not
        shown."""
        for row in self._shown():
            yield _inspection(row)

    def _shown(self) -> Iterator[Row]:
        if not self.path.exists():
            return
        alive = Liveness()
        for row in self.store.rows():
            if row.state == "pending" and row.owner is not None and alive[row.owner]:
                continue  # in flight in a running process
            yield row


def _inspection(row: Row) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": row.id,
        "spooledAt": datetime.fromtimestamp(row.created, UTC).isoformat(),
        "reason": row.reason or "not delivered yet",
        "target": row.target or row.failed_by,
        "retriable": row.retriable,
        "attempts": row.attempts,
        "state": row.state,
    }
    if row.kind == "event":
        try:
            record["event"] = json.loads(row.body)
        except ValueError:
            record["event"] = None
    else:
        record["raw"] = row.body.decode("utf-8", "replace")
    return record


# -- replay ---------------------------------------------------------------------------


class ReplayInProgress(DeliveryError):
    """Another replay of the same spool is running (in this or another process)."""

    __module__ = "olsdk.client"  # where users import it from (tracebacks print this path)


@dataclass
class ReplayResult:
    delivered: int = 0
    kept: int = 0  # still failing (or waiting behind a failing event of their run), still spooled
    unreadable: int = 0  # damaged records of an earlier spool file, kept for a human to look at
    refused: int = 0  # records of input that is no event ("raw"), kept, never sent
    reasons: list[str] = field(default_factory=list)
    stopped: str | None = None  # why the replay stopped before the end, if it did
    resumed_at: int = 0  # kept for compatibility: a replay resumes by itself (delivered records left)
    live: int = 0  # events of processes still running: theirs to deliver, not touched
    from_outbox: int = 0  # of those delivered, how many a process had left owed (not given up)

    @property
    def ok(self) -> bool:
        return self.kept == 0 and self.unreadable == 0 and self.refused == 0 and self.stopped is None


@dataclass(frozen=True)
class ReplayProgress:
    """What a progress callback sees after each record."""

    done: int  # records handled so far
    delivered: int
    kept: int
    elapsed: float  # seconds
    last_error: str | None = None


def replay(
    path: str | os.PathLike[str],
    transport: Transport,
    *,
    dry_run: bool = False,
    wait: bool = False,
    max_failures: int | None = None,
    progress: Callable[[ReplayProgress], None] | None = None,
) -> ReplayResult:
    """Resend the spooled events through ``transport`` (synchronously), oldest first.

    Delivered records leave the spool; failing ones stay (their run's later events
    wait behind them, keeping order). ``max_failures`` consecutive retriable failures
    (the backend is down) stop the replay: what was not tried stays spooled and
    ``result.stopped`` says why. A second replay of the same spool raises
    :class:`ReplayInProgress`, or waits for the first with ``wait=True``.
    ``progress`` is called after every record.
    """
    store = Store(path)
    try:
        _hold_replay_role(store, wait)
    except BaseException:  # refused (another replay runs) or interrupted while waiting
        store.close()
        raise
    try:
        run = _Replay(store, transport, dry_run, max_failures, progress)
        run.run()
        return run.result
    finally:
        store.release()  # the records taken over and not delivered, and the roles
        store.close()


def _hold_replay_role(store: Store, wait: bool) -> None:
    while True:
        with store.transaction() as conn:
            if store.claim_role(conn, "replay"):
                return
            owner = conn.execute("SELECT owner FROM roles WHERE name = 'replay'").fetchone()
        if not wait:
            pid = str(owner[0]).split(":")[0] if owner else "?"
            raise ReplayInProgress(
                f"another replay of {store.path} is running (pid {pid}); wait for it to finish", target="spool"
            )
        time.sleep(0.2)


class _Replay:
    def __init__(
        self,
        store: Store,
        transport: Transport,
        dry_run: bool,
        max_failures: int | None,
        progress: Callable[[ReplayProgress], None] | None,
    ) -> None:
        self.store = store
        self.routes = Routes(transport)
        self.dry_run = dry_run
        self.max_failures = max_failures
        self.progress = progress
        self.result = ReplayResult()
        self.failed_keys: set[str] = set()
        self.failures_in_a_row = 0
        self.started = time.monotonic()
        self.done = 0

    def run(self) -> None:
        store = self.store
        if not self.dry_run:
            store.adopt()  # what processes that are gone left (unless a live client is finishing it)
        alive = Liveness()
        for row in store.rows():
            if row.state != "given_up" and row.owner != store.owner:
                live = row.owner is not None and alive[row.owner]
                if not self.dry_run and (row.owner is None or live):
                    self.result.live += 1  # a running process's (or another finisher's): theirs
                    continue
                if self.dry_run and row.state == "pending" and live:
                    continue  # in flight in a running process
            self._one(row)
            self.done += 1
            self._report()

    def _report(self) -> None:
        if self.progress is not None:
            last = self.result.reasons[-1] if self.result.reasons else None
            elapsed = time.monotonic() - self.started
            self.progress(ReplayProgress(self.done, self.result.delivered, self.result.kept, elapsed, last))

    def _one(self, row: Row) -> None:
        result = self.result
        if row.kind != "event":
            if row.kind == "raw":
                result.refused += 1
            else:
                result.unreadable += 1
            return
        if self.dry_run or result.stopped is not None or row.run_key in self.failed_keys:
            result.kept += 1  # later events of a failed run wait, keeping order
            return
        target = row.target or row.failed_by
        try:
            self.routes.destination(target).send(Payload.from_json(row.body))
        except ValueError as exc:
            self._failed(row, DeliveryError(f"unreadable record: {exc}", target=target, retriable=False))
            return
        except Exception as exc:
            error = exc if isinstance(exc, DeliveryError) else DeliveryError(f"{type(exc).__name__}: {exc}")
            self._failed(row, error)
            return
        self.store.delete([row.id])
        if row.state != "given_up":
            if not result.from_outbox:  # the backend answers: clients need not wait for a probe
                SharedBreakers(self.store).clear_breaker()
            result.from_outbox += 1
        self.failures_in_a_row = 0
        result.delivered += 1

    def _failed(self, row: Row, exc: DeliveryError) -> None:
        reason = scrub(exc.reason)
        self.failed_keys.add(row.run_key)
        self.result.kept += 1
        self.result.reasons.append(reason)
        # owed by a process that is gone and may be retried: it stays owed (released at the end);
        # otherwise it is given up (again), its attempts counted
        state = "retrying" if row.state != "given_up" and exc.retriable else "given_up"
        self.store.failed(
            row.id, state=state, reason=reason, attempts=max(1, exc.attempts),
            failed_by=row.failed_by or exc.target, retriable=exc.retriable,
        )  # fmt: skip
        if exc.retriable:
            self.failures_in_a_row += 1
            if self.max_failures is not None and self.failures_in_a_row >= self.max_failures:
                self.result.stopped = f"{self.failures_in_a_row} failures in a row, the last: {reason}"
