"""The outbox: every event is on local disk before ``emit`` returns, until it is delivered.

The outbox is a folder beside the spool file (``<spool>.outbox/``). Each process writes
its own *segment* file there (``<pid>-<random>.ndjson``), append-only, one JSON object a
line, and holds an exclusive ``flock`` on it for as long as it lives; the kernel releases
the lock when the process ends, however it ends (``SIGKILL``, ``os._exit``), so a segment
whose lock can be taken belongs to a process that is gone.

Lines of a segment (format version 2; every line is one JSON object)::

    {"v":2,"segment":"4242-9f1c2a7b","pid":4242,"host":"worker-1","startedAt":"..."}   first line
    {"v":2,"seq":1,"t":1767268800123456789,"event":{...}}       an event, before delivery
    {"v":2,"seq":2,"t":...,"targets":["a","b"],"event":{...}}    ...to be delivered to each child
    {"ack":1}                                                    delivered (to every target)
    {"ack":2,"target":"a"}                                       delivered to one target
    {"fail":2,"target":"b","by":"b","reason":"...","retriable":true,"attempts":1,"at":"..."}
    {"moved":3,"to":"/path/spool.ndjson"}                        given up: now a spool record

``seq`` numbers the segment's events in emit order; ``t`` is the wall-clock time of the
write in nanoseconds (strictly increasing within a process), which orders the events of
several segments. ``event`` is the event exactly as serialised for delivery. A ``fail``
line is written as each attempt fails (``attempts`` counts that delivery's tries), so a
record's attempts are known even when its process was killed.

The owner appends and never rewrites; a segment whose records are all settled (acked or
moved) and that is no longer written to is deleted. A segment is *adopted* by a later
process (see ``Outbox.adopt``) once its owner is gone: the adopter takes the segment's
lock, so one process at most owns a record at any time, and writes its own acks there.

Durability: with ``fsync: never`` (default) a record is in the page cache when ``emit``
returns: it survives the process being killed or ending with ``os._exit``, not a power
loss or a kernel crash. ``fsync: always`` syncs every record (and each new segment's
folder entry) before ``emit`` returns: it survives power loss too, for the price of a
disk flush per event.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import socket
import threading
import time
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from olsdk._foundation._exceptions import DeliveryError

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: segments are not locked across processes
    fcntl = None  # type: ignore[assignment]

__all__ = ["FORMAT_VERSION", "Outbox", "OutboxRecord", "Segment", "outbox_dir", "read_segment"]

log = logging.getLogger("olsdk._delivery.client._outbox")

FORMAT_VERSION = 2
#: a segment is closed for writing past this size; it is deleted once its records are settled
SEGMENT_BYTES = 4 * 1024 * 1024
_FINISH_LOCK = "finish.lock"

Fsync = Literal["never", "always"]

_HOST = socket.gethostname()


def outbox_dir(spool_path: Path) -> Path:
    """The outbox folder of a spool file: ``<spool>.outbox``."""
    return spool_path.with_name(spool_path.name + ".outbox")


def _now_iso() -> str:
    return datetime.now(UTC).isoformat()


def _compact(body: bytes) -> bytes:
    """The event as one JSON line (it goes into the record verbatim)."""
    if b"\n" in body or b"\r" in body:
        return json.dumps(json.loads(body), separators=(",", ":"), ensure_ascii=False).encode()
    return body.strip()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _try_lock(fd: int) -> bool:
    if fcntl is None:  # pragma: no cover
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


class OutboxRecord:
    """One event of a segment, as far as delivery is concerned (a plain slotted class: one
    is made per event, on ``emit``'s path)."""

    __slots__ = (
        "acked",
        "attempts",
        "failed_by",
        "failed_targets",
        "last_failure_at",
        "last_reason",
        "length",
        "offset",
        "reasons",
        "retriable",
        "segment",
        "seq",
        "settled",
        "t",
        "targets",
    )

    def __init__(
        self,
        segment: Segment,
        seq: int,
        t: int,
        offset: int,
        length: int,
        targets: tuple[str, ...] | None = None,
    ) -> None:
        self.segment = segment
        self.seq = seq
        self.t = t  # ns, orders records of several segments
        self.offset = offset  # where the event's JSON starts in the segment file
        self.length = length  # its length
        self.targets = targets  # the children a composite delivers to; None: the whole transport
        self.acked: set[str] = set()
        self.failed_targets: set[str] = set()
        self.reasons: dict[str, str] = {}  # the last failure per target ("": the whole)
        self.failed_by: str | None = None  # the label of the transport that failed last
        self.attempts = 0
        self.last_reason = ""
        self.last_failure_at = ""
        self.retriable = True
        self.settled = False

    @property
    def id(self) -> str:
        return f"{self.segment.token}:{self.seq}"

    def open_targets(self) -> Sequence[str | None]:
        """The targets still to deliver to (None: the whole transport)."""
        if self.targets is None:
            if self.failed_targets and "" not in self.failed_targets:
                return sorted(t for t in self.failed_targets if t not in self.acked)
            return [None]
        return [t for t in self.targets if t not in self.acked]


class Segment:
    """One segment file, open and locked by this process (its writer or its adopter)."""

    def __init__(self, path: Path, fd: int, token: str, pid: int, size: int) -> None:
        self.path = path
        self.fd = fd
        self.token = token
        self.pid = pid  # of the process that wrote it
        self.size = size
        self.sealed = False  # no more records are written to it
        self.records: dict[int, OutboxRecord] = {}  # not yet settled
        self.torn = False  # its last line was cut short (a crash, a full disk)

    def append(self, data: bytes, fsync: bool = False) -> int:
        """Append ``data`` (whole lines); return the offset it starts at. OSError: nothing written."""
        if self.torn:
            data = b"\n" + data
        start = self.size
        try:
            written = os.write(self.fd, data)  # one call for a line, nearly always
            if written != len(data):
                _write_all(self.fd, data[written:])
        except OSError:
            with contextlib.suppress(OSError):
                os.ftruncate(self.fd, start)  # take back a partial line
            raise
        if fsync:
            os.fdatasync(self.fd)
        self.size = start + len(data)
        if self.torn:
            self.torn = False
            return start + 1
        return start

    def read(self, offset: int, length: int) -> bytes:
        return os.pread(self.fd, length, offset)

    def close(self, remove: bool) -> None:
        if self.fd < 0:
            return
        if remove:
            with contextlib.suppress(OSError):
                self.path.unlink()  # while still holding its lock
        with contextlib.suppress(OSError):
            os.close(self.fd)  # releases the lock
        self.fd = -1


def read_segment(segment: Segment) -> None:
    """Fill ``segment.records`` with its records that are not settled, from the file."""
    with open(segment.fd, "rb", closefd=False) as handle:
        handle.seek(0)
        offset = 0
        records: dict[int, OutboxRecord] = {}
        for line in handle:
            start = offset
            offset += len(line)
            if not line.endswith(b"\n"):
                segment.torn = bool(line.strip())
            text = line.strip()
            if not text:
                continue
            try:
                item = json.loads(text)
            except ValueError:
                continue  # torn or foreign: skipped (a torn record was never acknowledged to its caller)
            if not isinstance(item, dict):
                continue
            _apply(records, segment, item, text, start + (len(line) - len(line.lstrip())))
    segment.records = {seq: r for seq, r in records.items() if not r.settled}


def _apply(records: dict[int, OutboxRecord], segment: Segment, item: dict[str, Any], text: bytes, start: int) -> None:
    seq = item.get("seq")
    if isinstance(seq, int) and "event" in item:
        marker = text.find(b',"event":')
        if marker < 0 or not isinstance(item["event"], dict):
            return
        body_start = marker + len(b',"event":')
        targets = item.get("targets")
        records[seq] = OutboxRecord(
            segment,
            seq,
            int(item.get("t") or 0),
            start + body_start,
            len(text) - body_start - 1,
            tuple(str(t) for t in targets) if isinstance(targets, list) and targets else None,
        )
        return
    for key in ("ack", "fail", "moved"):
        number = item.get(key)
        if isinstance(number, int):
            record = records.get(number)
            if record is None:
                return
            target = item.get("target")
            if key == "ack":
                if target is None or (record.targets is None and not record.failed_targets):
                    record.settled = True
                else:
                    record.acked.add(str(target))
                    record.settled = not record.open_targets()
            elif key == "moved":
                if target is None:
                    record.settled = True
                else:
                    record.acked.add(str(target))
                    record.settled = not record.open_targets()
            else:
                attempts = item.get("attempts")
                record.attempts += attempts if isinstance(attempts, int) and attempts > 0 else 1
                record.last_reason = str(item.get("reason") or "")
                record.last_failure_at = str(item.get("at") or "")
                record.retriable = item.get("retriable") is not False
                record.failed_targets.add(str(target) if target is not None else "")
                record.reasons[str(target) if target is not None else ""] = record.last_reason
                by = item.get("by")
                record.failed_by = str(by) if by is not None else record.failed_by
            return


class Outbox:
    """This process's segments in one outbox folder (see the module docstring). Thread-safe."""

    def __init__(self, directory: Path, fsync: Fsync = "never") -> None:
        self.directory = Path(directory)
        self.fsync = fsync
        self._reset()

    def _reset(self) -> None:
        self._lock = threading.Lock()
        self._current: Segment | None = None
        self._segments: list[Segment] = []  # written by this process, not yet removed
        self._adopted: list[Segment] = []
        self._seq = 0
        self._last_t = 0
        self._pid = os.getpid()
        self._finisher_fd: int | None = None
        self.written = 0
        self.write_errors = 0

    # -- writing ------------------------------------------------------------------------

    def _new_segment(self) -> Segment:
        self._ensure_folder()
        token = f"{os.getpid()}-{secrets.token_hex(4)}"
        path = self.directory / f"{token}.ndjson"
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_EXCL, 0o600)
        if not _try_lock(fd):  # pragma: no cover - a fresh name nobody else knows
            os.close(fd)
            raise OSError(f"outbox segment {path} is locked by another process")
        segment = Segment(path, fd, token, os.getpid(), 0)
        header = {"v": FORMAT_VERSION, "segment": token, "pid": os.getpid(), "host": _HOST, "startedAt": _now_iso()}
        segment.append(json.dumps(header).encode() + b"\n")
        if self.fsync == "always":
            os.fsync(fd)
            dir_fd = os.open(self.directory, os.O_RDONLY)
            try:
                os.fsync(dir_fd)  # the new file's name survives a power loss too
            finally:
                os.close(dir_fd)
        self._segments.append(segment)
        return segment

    def _ensure_folder(self) -> None:
        if not self.directory.is_dir():
            spool_folder = self.directory.parent  # private like the outbox: events hold anything
            if not spool_folder.is_dir():
                spool_folder.parent.mkdir(parents=True, exist_ok=True)
                with contextlib.suppress(FileExistsError):
                    spool_folder.mkdir(mode=0o700)
            with contextlib.suppress(FileExistsError):
                self.directory.mkdir(mode=0o700)

    def write(self, body: bytes, targets: tuple[str, ...] | None = None) -> OutboxRecord:
        """Write one event ahead of its delivery. Raises OSError when it could not be written."""
        event = _compact(body)
        with self._lock:
            if self._pid != os.getpid():  # pragma: no cover - the fork hook resets first
                self._reset()
            segment = self._current
            if segment is None or segment.sealed:
                segment = self._current = self._new_segment()
            self._seq += 1
            seq = self._seq
            t = max(time.time_ns(), self._last_t + 1)
            self._last_t = t
            head = b'{"v":2,"seq":%d,"t":%d' % (seq, t)
            if targets is not None:
                head += b',"targets":' + json.dumps(list(targets)).encode()
            head += b',"event":'
            try:
                start = segment.append(head + event + b"}\n", fsync=self.fsync == "always")
            except OSError:
                self._seq -= 1
                self.write_errors += 1
                raise
            record = OutboxRecord(segment, seq, t, start + len(head), len(event), targets)
            segment.records[seq] = record
            self.written += 1
            if segment.size > SEGMENT_BYTES:
                segment.sealed = True
            return record

    def _journal(self, record: OutboxRecord, line: dict[str, Any]) -> None:
        """Append a journal line for ``record`` (called with the lock held); never raises."""
        segment = record.segment
        if segment.fd < 0:
            return
        try:
            segment.append(json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode() + b"\n")
        except OSError as exc:  # the ack is lost: the event may be sent again, never lost
            log.warning("OpenLineage outbox %s: cannot record an outcome (%s)", segment.path, exc.strerror or exc)

    def ack(self, record: OutboxRecord, target: str | None = None) -> None:
        """``record`` was delivered (to ``target``, or to everything)."""
        with self._lock:
            if record.settled:
                return
            if target is not None and (record.targets is not None or record.failed_targets - {""}):
                if target in record.acked:
                    return
                record.acked.add(target)
                if record.open_targets():
                    self._journal(record, {"ack": record.seq, "target": target})
                    return
            record.settled = True
            line = b'{"ack":%d}\n' % record.seq
            segment = record.segment
            if segment.fd >= 0:
                try:
                    segment.append(line)
                except OSError as exc:
                    log.warning("OpenLineage outbox %s: cannot record a delivery (%s)", segment.path, exc)
            self._forget(record)

    def fail(self, record: OutboxRecord, error: DeliveryError, target: str | None = None) -> None:
        """A delivery attempt of ``record`` failed: journal it as it happens."""
        with self._lock:
            if record.settled:
                return
            record.attempts += max(error.attempts, 0)
            record.last_reason = error.reason
            record.retriable = error.retriable
            record.last_failure_at = _now_iso()
            record.failed_targets.add(target or "")
            record.reasons[target or ""] = error.reason
            record.failed_by = error.target
            line: dict[str, Any] = {"fail": record.seq}
            if target is not None:
                line["target"] = target
            if error.target is not None:
                line["by"] = error.target
            line.update(
                reason=error.reason,
                retriable=error.retriable,
                attempts=error.attempts,
                at=record.last_failure_at,
            )
            self._journal(record, line)

    def moved(self, record: OutboxRecord, to: Path, target: str | None = None) -> None:
        """``record`` (for ``target``) is now a spool record: settled here."""
        with self._lock:
            if record.settled:
                return
            line: dict[str, Any] = {"moved": record.seq, "to": str(to)}
            if target is not None and (record.targets is not None or record.failed_targets - {""}):
                line["target"] = target
                record.acked.add(target)
                if record.open_targets():
                    self._journal(record, line)
                    return
                line.pop("target")
            record.settled = True
            self._journal(record, line)
            self._forget(record)

    def _forget(self, record: OutboxRecord) -> None:
        """A settled record leaves memory; its segment goes once it is sealed and empty."""
        segment = record.segment
        segment.records.pop(record.seq, None)
        if not segment.records and segment.sealed:
            self._drop(segment)

    def _drop(self, segment: Segment) -> None:
        segment.close(remove=True)
        if segment in self._segments:
            self._segments.remove(segment)
        if segment in self._adopted:
            self._adopted.remove(segment)
        if self._current is segment:
            self._current = None

    def body(self, record: OutboxRecord) -> bytes:
        """The event of ``record`` as written."""
        return record.segment.read(record.offset, record.length)

    # -- state --------------------------------------------------------------------------

    def pending(self) -> int:
        """Records of this process (written or adopted) not settled yet."""
        with self._lock:
            return sum(len(s.records) for s in (*self._segments, *self._adopted))

    def close(self) -> tuple[int, int]:
        """Release every segment; delete those whose records are all settled. Returns how
        many records are left for a later process (or ``olsdk replay``): (this process's own,
        adopted ones)."""
        with self._lock:
            own = sum(len(s.records) for s in self._segments)
            adopted = sum(len(s.records) for s in self._adopted)
            for segment in [*self._segments, *self._adopted]:
                segment.sealed = True
                segment.close(remove=not segment.records)
            self._segments, self._adopted, self._current = [], [], None
        self.release_finisher()
        return own, adopted

    def after_fork_in_child(self) -> None:
        """The parent's segments stay the parent's: close the inherited descriptors (the
        parent keeps its locks) and start afresh; the child writes segments of its own."""
        for segment in [*self._segments, *self._adopted]:
            if segment.fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(segment.fd)
                segment.fd = -1
        if self._finisher_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._finisher_fd)
        self._reset()

    # -- segments of processes that are gone -------------------------------------------

    def segment_files(self) -> list[Path]:
        try:
            return sorted(p for p in self.directory.iterdir() if p.suffix == ".ndjson")
        except FileNotFoundError:
            return []

    def acquire_finisher(self) -> bool:
        """Take the outbox-wide finisher lock (non-blocking): one process at a time delivers
        what processes that are gone left, so a run's events in several segments stay in order."""
        if self._finisher_fd is not None:
            return True
        try:
            self._ensure_folder()
            fd = os.open(self.directory / _FINISH_LOCK, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            return False
        if not _try_lock(fd):
            os.close(fd)
            return False
        self._finisher_fd = fd
        return True

    def release_finisher(self) -> None:
        if self._finisher_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._finisher_fd)
            self._finisher_fd = None

    def adopt(self) -> list[Segment]:
        """Take over every segment whose writer is gone (its lock is free): read its records
        that are not settled. The caller should hold :meth:`finishing`."""
        mine = {s.path for s in (*self._segments, *self._adopted)}
        taken: list[Segment] = []
        for path in self.segment_files():
            if path in mine:
                continue
            segment = _open_dead(path)
            if segment is None:
                continue
            read_segment(segment)
            if not segment.records:
                segment.close(remove=True)  # everything was settled: the writer died before removing it
                continue
            segment.sealed = True
            taken.append(segment)
        with self._lock:
            self._adopted.extend(taken)
        return taken

    def release_adopted(self) -> None:
        """Give the adopted segments back (still holding records): another process may take them."""
        with self._lock:
            for segment in self._adopted:
                segment.close(remove=not segment.records)
            self._adopted = []


def _open_dead(path: Path) -> Segment | None:
    """``path`` opened and locked when its writer is gone; None while it is alive (or gone)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND)
    except OSError:
        return None
    if not _try_lock(fd):
        os.close(fd)
        return None
    try:
        if os.fstat(fd).st_nlink == 0:  # removed by its writer between our listing and our lock
            os.close(fd)
            return None
        size = os.fstat(fd).st_size
    except OSError:
        os.close(fd)
        return None
    token = path.stem
    pid_text = token.split("-", 1)[0]
    return Segment(path, fd, token, int(pid_text) if pid_text.isdigit() else 0, size)


def inspect_segments(directory: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    """The records not delivered of every segment (for inspection): all of a process that
    is gone, and those that failed at least once of a running one (its events in flight
    are not shown). Takes a segment's lock only for an instant, to see whether its writer lives."""
    try:
        paths = sorted(p for p in directory.iterdir() if p.suffix == ".ndjson")
    except FileNotFoundError:
        return
    for path in paths:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            gone = _try_lock(fd)  # closing the descriptor below releases it again
            segment = Segment(path, fd, path.stem, 0, 0)
            read_segment(segment)
            for record in sorted(segment.records.values(), key=lambda r: r.seq):
                if not gone and not record.failed_targets:
                    continue  # in flight in a running process
                for target in record.open_targets():  # one per child a composite still owes
                    yield path, _inspection_record(segment, record, target)
        finally:
            os.close(fd)


def _inspection_record(segment: Segment, record: OutboxRecord, target: str | None) -> dict[str, Any]:
    """A pending outbox record in the shape of a spool record (plus its outbox fields)."""
    body = segment.read(record.offset, record.length)
    try:
        event = json.loads(body)
    except ValueError:
        event = None
    reason = record.reasons.get(target or "") or record.last_reason
    return {
        "v": FORMAT_VERSION,
        "id": record.id,
        "spooledAt": record.last_failure_at or datetime.fromtimestamp(record.t / 1e9, UTC).isoformat(),
        "reason": reason or "not delivered yet (written ahead, its process did not report)",
        "target": target or record.failed_by,
        "retriable": record.retriable,
        "attempts": record.attempts,
        "state": "failed" if record.attempts else "pending",
        "event": event,
    }
