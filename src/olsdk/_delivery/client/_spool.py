"""The spool: events that could not be delivered, kept as NDJSON for replay.

One record per line::

    {"spooledAt": "...", "reason": "...", "target": "http", "retriable": true,
     "attempts": 1, "event": {...the event exactly as it was serialised...}}

``target`` names the transport that failed (a child of a composite, for instance),
so a replay resends to that transport only. Input that is not an event at all (text
that is not JSON, ``NaN``, a list...) is kept as ``"raw": "<the text>"`` instead of
``"event"``, with ``retriable: false``: a replay never sends it and never drops it.

Crash safety (several processes may share one spool):

* every append takes a cross-process lock (``flock`` on ``<spool>.lock``) and starts
  on a fresh line, so a record torn by a crash or a full disk never swallows the
  next one; a write that fails half-way is taken back (truncated);
* a record that cannot be written (disk full, file not writable) is held in memory
  and written before the next one (and on :meth:`Spool.flush`), so a full disk
  that frees up loses nothing;
* the cost of an append does not depend on the spool's size (nothing is reread);
* :func:`replay` holds ``<spool>.replay.lock`` for its whole run (a second replay
  waits or stops with :class:`ReplayInProgress`), records its progress after every
  event in ``<spool>.progress``, so a replay killed and run again resends at most the
  one event that was in flight, and appends what still fails to the spool's end;
  delivered records are cut from the front of the file when it finishes.

The folder is created ``0700`` and the files ``0600``: spooled events may hold
anything a user's lineage holds.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from olsdk._delivery.client._outbox import Outbox, OutboxRecord, inspect_segments
from olsdk._delivery.transports._base import Payload, Transport
from olsdk._foundation._exceptions import DeliveryError
from olsdk._foundation._secrets import scrub

try:  # POSIX; elsewhere the spool is shared safely by the threads of one process only
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "ReplayInProgress",
    "ReplayProgress",
    "ReplayResult",
    "Spool",
    "default_spool_path",
    "record_line",
    "replay",
]

log = logging.getLogger("olsdk._delivery.client._spool")

#: records held in memory while the spool cannot be written (beyond that they are lost, loudly)
PENDING_LIMIT = 10_000

_thread_locks: dict[str, threading.Lock] = {}
_thread_locks_guard = threading.Lock()


def _thread_lock(path: str) -> threading.Lock:
    # looked up on every use (not kept on the Spool) so a fork can start afresh
    with _thread_locks_guard:
        return _thread_locks.setdefault(path, threading.Lock())


def _reset_locks_after_fork() -> None:
    global _thread_locks, _thread_locks_guard
    _thread_locks = {}  # a lock another thread held at fork time would never be released
    _thread_locks_guard = threading.Lock()


os.register_at_fork(after_in_child=_reset_locks_after_fork)


def default_spool_path(environ: dict[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    state = env.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(state) / "olsdk" / "spool.ndjson"


def _compact(body: bytes) -> bytes:
    """The event as one JSON line (it is inserted into the record verbatim)."""
    if b"\n" in body or b"\r" in body:
        return json.dumps(json.loads(body), separators=(",", ":"), ensure_ascii=False).encode()
    return body.strip()


def _head(error: DeliveryError, attempts: int) -> bytes:
    head = {
        "spooledAt": datetime.now(UTC).isoformat(),
        "reason": scrub(error.reason),
        "target": error.target,
        "retriable": error.retriable,
        "attempts": attempts,
    }
    return json.dumps(head, ensure_ascii=False).encode()[:-1]


def record_line(payload: Payload, error: DeliveryError, attempts: int = 1) -> bytes:
    """The spool record of an event (the event bytes go in unchanged: nothing re-serialised)."""
    return _head(error, attempts) + b',"event":' + _compact(payload.body) + b"}\n"


def raw_record_line(text: str, error: DeliveryError) -> bytes:
    """The spool record of input that is no event: kept as text, never resent."""
    return _head(error, 1) + b',"raw":' + json.dumps(text, ensure_ascii=True).encode() + b"}\n"


@contextlib.contextmanager
def _flock(path: Path, *, blocking: bool = True) -> Iterator[int | None]:
    """An exclusive ``flock`` on ``path`` (created 0600); yields None when not blocking and busy."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
            except BlockingIOError:
                yield None
                return
        yield fd
    finally:
        os.close(fd)  # closing releases the lock


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:  # os.write may write less than asked
        view = view[os.write(fd, view) :]


class Spool:
    """An append-only NDJSON file of undeliverable events (see the module docstring)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path).expanduser().absolute()
        self.lock_path = self.path.with_name(self.path.name + ".lock")
        #: the outbox beside it: events written ahead of their delivery (see ``_outbox``)
        self.outbox_dir = self.path.with_name(self.path.name + ".outbox")
        #: records written by this object (this process), and those waiting in memory
        self.written = 0
        self._pending: deque[bytes] = deque()
        self._pending_dropped = 0

    def after_fork_in_child(self) -> None:
        """Records held in memory are the parent's to write: the child starts without them."""
        self._pending = deque()
        self.written = 0

    @property
    def pending(self) -> int:
        """Records held in memory because the file could not be written."""
        return len(self._pending)

    def append(self, payload: Payload, error: DeliveryError, attempts: int = 1) -> bool:
        """Add one record; True when it is on disk, False when it is held in memory for now.

        Raises OSError only when the memory backlog is full as well (the record is lost).
        """
        return self.append_line(record_line(payload, error, attempts))

    def append_raw(self, text: str, error: DeliveryError) -> bool:
        """Keep input that is not an event (see :func:`raw_record_line`)."""
        return self.append_line(raw_record_line(text, error))

    def append_line(self, line: bytes) -> bool:
        with _thread_lock(str(self.path)):
            self._pending.append(line)
            try:
                self._write_pending()
            except OSError as exc:
                if len(self._pending) > PENDING_LIMIT:
                    self._pending.pop()
                    self._pending_dropped += 1
                    raise OSError(
                        exc.errno, f"spool {self.path} not writable and {PENDING_LIMIT} records waiting"
                    ) from exc
                if len(self._pending) == 1 or len(self._pending) % 1000 == 0:
                    log.error(
                        "OpenLineage spool %s not writable (%s); %d records held in memory until it is",
                        self.path,
                        exc.strerror or exc,
                        len(self._pending),
                    )
                return False
            return True

    def flush(self) -> int:
        """Write the records held in memory; returns how many are still waiting."""
        with _thread_lock(str(self.path)):
            if self._pending:
                with contextlib.suppress(OSError):
                    self._write_pending()
            return len(self._pending)

    def _write_pending(self) -> None:
        """Append every pending record in one write, under the cross-process lock."""
        if not self._pending:
            return
        self._ensure_folder()
        data = b"".join(self._pending)
        with _flock(self.lock_path):
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                size = os.fstat(fd).st_size
                if size and os.pread(fd, 1, size - 1) != b"\n":
                    data = b"\n" + data  # the last record was torn: start on a fresh line
                try:
                    _write_all(fd, data)
                except OSError:
                    with contextlib.suppress(OSError):
                        os.ftruncate(fd, size)  # take back a partial record
                    raise
            finally:
                os.close(fd)
        self.written += len(self._pending)
        self._pending.clear()

    def _ensure_folder(self) -> None:
        folder = self.path.parent
        if not folder.is_dir():
            folder.parent.mkdir(parents=True, exist_ok=True)
            with contextlib.suppress(FileExistsError):
                folder.mkdir(mode=0o700)

    def __len__(self) -> int:
        """The records of the file plus the events its outbox still holds (reads them all:
        for inspection only)."""
        try:
            with open(self.path, "rb") as handle:
                in_file = sum(1 for line in handle if line.strip())
        except FileNotFoundError:
            in_file = 0
        return in_file + sum(1 for _ in inspect_segments(self.outbox_dir))

    def records(self) -> Iterator[dict[str, Any]]:
        """The readable records (for inspection; replay keeps unreadable lines too): the
        file's, then every event its outbox holds undelivered, in the same shape (with the
        outbox's ``v``, ``id`` and ``state``)."""
        try:
            with open(self.path, "rb") as handle:
                for line in handle:
                    try:
                        record = json.loads(line)
                    except ValueError:
                        continue
                    if isinstance(record, dict):
                        yield record
        except FileNotFoundError:
            pass
        for _path, record in inspect_segments(self.outbox_dir):
            yield record


# -- replay ---------------------------------------------------------------------------


class ReplayInProgress(DeliveryError):
    """Another replay of the same spool is running (in this or another process)."""

    __module__ = "olsdk.client"  # where users import it from (tracebacks print this path)


@dataclass
class ReplayResult:
    delivered: int = 0
    kept: int = 0  # still failing (or waiting behind a failing event of their run), still spooled
    unreadable: int = 0  # lines that are not records, kept for a human to look at
    refused: int = 0  # records of input that is no event ("raw"), kept, never sent
    reasons: list[str] = field(default_factory=list)
    stopped: str | None = None  # why the replay stopped before the end, if it did
    resumed_at: int = 0  # byte offset an interrupted replay was resumed from
    live: int = 0  # outbox events of processes still running: theirs to deliver, not touched
    from_outbox: int = 0  # of those delivered, how many came from the outbox

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


class _Progress:
    """``<spool>.progress``: the spool file's identity and the offset of the next record."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd: int | None = None

    def read(self, st: os.stat_result) -> int:
        try:
            data = json.loads(self.path.read_bytes() or b"{}")
        except (OSError, ValueError):
            return 0
        same_file = data.get("dev") == st.st_dev and data.get("ino") == st.st_ino
        offset = data.get("offset")
        if same_file and isinstance(offset, int) and 0 <= offset <= st.st_size:
            return offset
        return 0

    def write(self, st: os.stat_result, offset: int) -> None:
        if self.fd is None:
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        # one small pwrite at offset 0: a process killed around it leaves the old or the new value
        data = json.dumps({"dev": st.st_dev, "ino": st.st_ino, "offset": offset}).encode().ljust(120)
        os.pwrite(self.fd, data, 0)

    def remove(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()


def _parse_record(line: bytes) -> tuple[dict[str, Any], Payload | None]:
    """A record and its payload (None for a kept raw input); ValueError when unreadable."""
    record = json.loads(line)
    if not isinstance(record, dict):
        raise ValueError("not a spool record")
    if "raw" in record and "event" not in record:
        return record, None
    event = record.get("event")
    if not isinstance(event, dict):
        raise ValueError("not a spool record")
    body = json.dumps(event, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()
    return record, Payload.from_json(body)


def _attempts(record: dict[str, Any]) -> int:
    """The attempts a record says were made (at least 1: it was spooled after one)."""
    value = record.get("attempts")
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 1


def _take_over_legacy(spool: Spool) -> None:
    """A ``.replaying`` file left by an interrupted replay of olsdk 0.1: put it back in front."""
    legacy = spool.path.with_name(spool.path.name + ".replaying")
    if not legacy.exists():
        return
    joined = spool.path.with_name(spool.path.name + ".joining")
    with open(joined, "wb") as out:
        os.chmod(joined, 0o600)
        for part in (legacy, spool.path):
            with contextlib.suppress(FileNotFoundError), open(part, "rb") as src:
                data = src.read()
                out.write(data if data.endswith(b"\n") or not data else data + b"\n")
    os.replace(joined, spool.path)
    legacy.unlink()


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
    spool = Spool(path)
    spool._ensure_folder()
    busy_path = spool.path.with_name(spool.path.name + ".replay.lock")
    with _flock(busy_path, blocking=wait) as busy:
        if busy is None:
            owner = busy_path.read_text(errors="replace").strip() or "?"
            raise ReplayInProgress(
                f"another replay of {spool.path} is running (pid {owner}); wait for it to finish",
                target="spool",
            )
        os.ftruncate(busy, 0)
        os.pwrite(busy, str(os.getpid()).encode(), 0)
        run = _Replay(spool, transport, dry_run, max_failures, progress)
        run.run()
        if spool.outbox_dir.is_dir():
            run.finish_outbox()
        return run.result


class _Replay:
    def __init__(
        self,
        spool: Spool,
        transport: Transport,
        dry_run: bool,
        max_failures: int | None,
        progress: Callable[[ReplayProgress], None] | None,
    ) -> None:
        self.spool = spool
        self.sender = transport.synchronous()
        self.dry_run = dry_run
        self.max_failures = max_failures
        self.progress = progress
        self.result = ReplayResult()
        self.failed_keys: set[str] = set()
        self.failures_in_a_row = 0
        self.started = time.monotonic()
        self.done = 0
        self._offset = 0
        self.marker = _Progress(spool.path.with_name(spool.path.name + ".progress"))

    def run(self) -> ReplayResult:
        spool = self.spool
        with _flock(spool.lock_path):
            if not self.dry_run:
                _take_over_legacy(spool)
            try:
                st = os.stat(spool.path)
            except FileNotFoundError:
                self.marker.remove()
                return self.result
        # records appended from now on (new failures, and what this replay keeps) lie
        # beyond `end`: this replay handles [start, end) once
        end = st.st_size
        start = 0 if self.dry_run else self.marker.read(st)
        self.result.resumed_at = start
        try:
            with open(spool.path, "rb") as handle:
                handle.seek(start)
                self._run_lines(handle, st, start, end)
        finally:
            if not self.dry_run:
                self.marker.write(st, self._offset)
        if not self.dry_run:
            self._cut_front(st, end)
        return self.result

    def _run_lines(self, handle: IO[bytes], st: os.stat_result, start: int, end: int) -> None:
        self._offset = start
        while self._offset < end:
            line = handle.readline()
            if not line:
                break
            line = line[: end - self._offset]  # a torn last line: stop at `end`
            next_offset = self._offset + len(line)
            text = line.strip()
            if text:
                if self.result.stopped is not None:
                    self._keep_unchanged(text, count_as="kept")
                else:
                    self._one(text)
                self.done += 1
            self._offset = next_offset
            if not self.dry_run:
                self.marker.write(st, self._offset)
            if text:
                self._report()

    def _report(self) -> None:
        """Tell the progress callback, if any, how far the replay is."""
        if self.progress is not None:
            last = self.result.reasons[-1] if self.result.reasons else None
            done = ReplayProgress(
                self.done, self.result.delivered, self.result.kept, time.monotonic() - self.started, last
            )
            self.progress(done)

    def _one(self, line: bytes) -> None:
        try:
            record, payload = _parse_record(line)
        except ValueError:
            self._keep_unchanged(line, count_as="unreadable")
            return
        if payload is None:
            self._keep_unchanged(line, count_as="refused")
            return
        key = payload.ordering_key
        if self.dry_run or key in self.failed_keys:  # later events of a failed run wait, keeping order
            self._keep_unchanged(line, count_as="kept")
            return
        target = record.get("target")
        destination = (self.sender.find(target) if isinstance(target, str) else None) or self.sender
        try:
            destination.send(payload)
        except DeliveryError as exc:
            self._failed(record, payload, exc)
            return
        except Exception as exc:  # a transport bug: keep the event, report the bug
            self._failed(record, payload, DeliveryError(f"{type(exc).__name__}: {exc}", target=destination.label))
            return
        self.failures_in_a_row = 0
        self.result.delivered += 1

    def _failed(self, record: dict[str, Any], payload: Payload, exc: DeliveryError) -> None:
        reason = scrub(exc.reason)
        self.failed_keys.add(payload.ordering_key)
        self.result.kept += 1
        self.result.reasons.append(reason)
        attempts = _attempts(record) + max(1, exc.attempts)
        error = DeliveryError(reason, target=record.get("target") or exc.target, retriable=exc.retriable)
        self.spool.append_line(record_line(payload, error, attempts))
        if exc.retriable:
            self.failures_in_a_row += 1
            if self.max_failures is not None and self.failures_in_a_row >= self.max_failures:
                self.result.stopped = f"{self.failures_in_a_row} failures in a row, the last: {reason}"

    # -- the outbox: what processes that are gone left ---------------------------------

    def finish_outbox(self) -> None:
        """Deliver the outbox records of processes that are gone, oldest first, each run in
        order; records of running processes are theirs and only counted."""
        outbox = Outbox(self.spool.outbox_dir)
        if self.dry_run:
            for _ in inspect_segments(self.spool.outbox_dir):
                self.result.kept += 1
                self.done += 1
            return
        got_lock = outbox.acquire_finisher()
        try:
            segments = outbox.adopt() if got_lock else []
            adopted = {s.path for s in segments}
            for path, _seen in inspect_segments(self.spool.outbox_dir):
                if path not in adopted:
                    self.result.live += 1  # a running process's (or another finisher's)
            records = sorted((r for s in segments for r in s.records.values()), key=lambda r: (r.t, r.seq))
            for record in records:
                for target in record.open_targets():
                    self._one_from_outbox(outbox, record, target)
                    self.done += 1
                    self._report()
        finally:
            outbox.close()

    def _one_from_outbox(self, outbox: Outbox, record: OutboxRecord, target: str | None) -> None:
        try:
            payload = Payload.from_json(outbox.body(record))
        except (OSError, ValueError):
            self.result.unreadable += 1
            return
        object.__setattr__(payload, "ref", record)
        key = payload.ordering_key
        if self.result.stopped is not None or key in self.failed_keys:
            self.result.kept += 1
            return
        destination = (self.sender.find(target) if target is not None else None) or self.sender
        try:
            destination.send(payload)
        except Exception as exc:
            error = exc if isinstance(exc, DeliveryError) else DeliveryError(f"{type(exc).__name__}: {exc}")
            reason = scrub(error.reason)
            error = DeliveryError(
                reason, target=target or error.target, retriable=error.retriable, attempts=error.attempts
            )
            outbox.fail(record, error, target)
            self.failed_keys.add(key)
            self.result.kept += 1
            self.result.reasons.append(reason)
            if not error.retriable:  # retrying cannot help: a spool record, as the client does
                if self.spool.append(payload, error, attempts=record.attempts):
                    outbox.moved(record, self.spool.path, target)
            else:
                self.failures_in_a_row += 1
                if self.max_failures is not None and self.failures_in_a_row >= self.max_failures:
                    self.result.stopped = f"{self.failures_in_a_row} failures in a row, the last: {reason}"
            return
        outbox.ack(record, target)
        if not self.result.from_outbox:  # the backend answers: clients need not wait for a probe
            for shared in self.spool.outbox_dir.glob("breaker-*.json"):
                with contextlib.suppress(OSError):
                    shared.unlink()
        self.failures_in_a_row = 0
        self.result.delivered += 1
        self.result.from_outbox += 1

    def _keep_unchanged(self, line: bytes, *, count_as: str) -> None:
        setattr(self.result, count_as, getattr(self.result, count_as) + 1)
        if not self.dry_run:
            self.spool.append_line(line + b"\n")

    def _cut_front(self, st: os.stat_result, end: int) -> None:
        """Drop the handled records [0, end): keep what was appended since (a short tail)."""
        spool = self.spool
        if self.spool.pending:
            return  # kept records are still in memory: leave the file as it is, resume later
        with _flock(spool.lock_path):
            try:
                now = os.stat(spool.path)
            except FileNotFoundError:
                self.marker.remove()
                return
            if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
                return
            fresh = spool.path.with_name(spool.path.name + ".compacting")
            with open(spool.path, "rb") as src:
                src.seek(end)
                tail = src.read()
            if tail:
                fd = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                try:
                    _write_all(fd, tail)
                    os.fsync(fd)
                finally:
                    os.close(fd)
                os.replace(fresh, spool.path)  # a new file: the old progress no longer matches it
            else:
                try:
                    spool.path.unlink()
                except OSError as exc:  # pragma: no cover
                    if exc.errno != errno.ENOENT:
                        raise
            self.marker.remove()
