"""Reading what olsdk kept before the store: an NDJSON spool file and its outbox folder.

Migrated into the store the first time it is opened, in one transaction, then removed:

* the spool file (one JSON record a line: ``{"spooledAt", "reason", "target", "retriable",
  "attempts", "event" | "raw"}``): each record becomes a ``given_up`` record; a line that
  cannot be read is kept as an ``unreadable`` record, never sent; lines an interrupted
  replay had already handled (its ``<spool>.progress`` marker) are skipped;
* the outbox folder ``<spool>.outbox/``: the events of every segment whose writer is gone
  (its ``flock`` is free) and that were neither acknowledged nor moved become records owed
  again (``retrying``, owned by nobody, so a client or ``olsdk replay`` takes them over);
  the breakers' shared files are dropped (the store keeps that state now).
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

from olsdk._delivery.transports._base import Payload

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no earlier outbox to migrate
    fcntl = None  # type: ignore[assignment]

__all__ = ["migrate", "set_aside"]

_SQLITE_HEADER = b"SQLite format 3\x00"
_ASIDE = ".ndjson-migrating"


def _aside(path: Path) -> Path:
    return path.with_name(path.name + _ASIDE)


def set_aside(path: Path) -> None:
    """An NDJSON spool at ``path`` (or beside a ``.db`` path) is renamed, to be migrated."""
    candidates = [path] + ([path.with_suffix(".ndjson")] if path.suffix == ".db" else [])
    for legacy in candidates:
        try:
            with open(legacy, "rb") as handle:
                head = handle.read(len(_SQLITE_HEADER))
        except OSError:
            continue
        if head and head != _SQLITE_HEADER:
            with contextlib.suppress(OSError):  # another process set it aside first
                os.replace(legacy, _aside(legacy))


class Store(Protocol):
    """The store being opened (``_store.Store``)."""

    path: Path

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]: ...


def migrate(store: Store) -> bool:
    """Import the spool files set aside and the outbox segments of processes that are gone;
    whether there was anything to import."""
    spools = [_aside(store.path)] + ([_aside(store.path.with_suffix(".ndjson"))] if store.path.suffix == ".db" else [])
    outboxes = [p.with_name(p.name[: -len(_ASIDE)] + ".outbox") for p in spools]
    if not any(p.exists() for p in spools) and not any(p.is_dir() for p in outboxes):
        return False
    done: list[Path] = []
    locks: list[int] = []
    try:
        with store.transaction() as conn:
            for spool in spools:
                if spool.exists() and _import_spool(conn, spool):
                    done.append(spool)
            for outbox in outboxes:
                if outbox.is_dir():
                    done.extend(_import_outbox(conn, outbox, locks))
        for path in done:  # after the commit: imported once
            with contextlib.suppress(OSError):
                path.unlink()
    finally:
        for fd in locks:
            os.close(fd)
    for spool in spools:
        base = spool.with_name(spool.name[: -len(_ASIDE)])
        for extra in (".lock", ".progress", ".replay.lock"):
            with contextlib.suppress(OSError):
                base.with_name(base.name + extra).unlink()
    for outbox in outboxes:
        for extra in ("finish.lock", *(p.name for p in outbox.glob("breaker-*.json"))):
            with contextlib.suppress(OSError):
                (outbox / extra).unlink()
        with contextlib.suppress(OSError):
            outbox.rmdir()
    return True


def _seen(conn: sqlite3.Connection, marker: str) -> bool:
    """Whether the file with this identity was imported already (a crash before its removal)."""
    if conn.execute("SELECT 1 FROM roles WHERE name = ?", (marker,)).fetchone():
        return True
    conn.execute("INSERT INTO roles (name, owner) VALUES (?, 'migrated')", (marker,))
    return False


def _insert(conn: sqlite3.Connection, **values: Any) -> None:
    values.setdefault("created", time.time())
    names = ", ".join(values)
    conn.execute(f"INSERT INTO records ({names}) VALUES ({', '.join('?' * len(values))})", tuple(values.values()))


def _start_offset(spool: Path, st: os.stat_result) -> int:
    base = spool.with_name(spool.name[: -len(_ASIDE)])
    try:
        data = json.loads(base.with_name(base.name + ".progress").read_bytes() or b"{}")
    except (OSError, ValueError):
        return 0
    offset = data.get("offset")
    if data.get("dev") == st.st_dev and data.get("ino") == st.st_ino and isinstance(offset, int):
        return max(0, min(offset, st.st_size))
    return 0


def _import_spool(conn: sqlite3.Connection, spool: Path) -> bool:
    st = spool.stat()
    if _seen(conn, f"migrated:{st.st_dev}:{st.st_ino}:{st.st_size}"):
        return True
    with open(spool, "rb") as handle:
        handle.seek(_start_offset(spool, st))
        for line in handle:
            text = line.strip()
            if text:
                _insert(conn, **_spool_record(text))
    return True


def _spool_record(text: bytes) -> dict[str, Any]:
    """The store's columns for one line of a spool file."""
    unreadable = {"run_key": "unreadable", "kind": "unreadable", "body": text, "state": "given_up", "retriable": 0}
    try:
        record = json.loads(text)
    except ValueError:
        return unreadable
    if not isinstance(record, dict):
        return unreadable
    attempts = record.get("attempts")
    common = {
        "state": "given_up",
        "reason": str(record.get("reason") or ""),
        "target": record.get("target") if isinstance(record.get("target"), str) else None,
        "retriable": record.get("retriable") is not False,
        "attempts": attempts if isinstance(attempts, int) and not isinstance(attempts, bool) and attempts > 0 else 1,
    }
    if "raw" in record and "event" not in record:
        raw = str(record["raw"]).encode("utf-8", "backslashreplace")
        return {**common, "run_key": "raw", "kind": "raw", "body": raw, "retriable": 0}
    event = record.get("event")
    if not isinstance(event, dict):
        return unreadable
    body = json.dumps(event, separators=(",", ":"), ensure_ascii=False).encode()
    return {**common, "run_key": Payload.from_json(body).ordering_key, "body": body}


# -- outbox segments ------------------------------------------------------------------------


def _import_outbox(conn: sqlite3.Connection, outbox: Path, locks: list[int]) -> list[Path]:
    """The segments of processes that are gone, imported; their paths (to remove after the commit)."""
    done = []
    for path in sorted(outbox.glob("*.ndjson")):
        try:
            fd = os.open(path, os.O_RDWR)
        except OSError:
            continue
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:  # its writer (an earlier olsdk) still runs: left to it
                os.close(fd)
                continue
        locks.append(fd)  # held until the import is committed and the file removed
        for record in _segment_records(path):
            _insert(conn, **record)
        done.append(path)
    return done


def _segment_records(path: Path) -> list[dict[str, Any]]:
    """The store's columns for each delivery a segment still owes, in emit order."""
    events: dict[int, dict[str, Any]] = {}
    with open(path, "rb") as handle:
        for line in handle:
            try:
                item = json.loads(line)
            except ValueError:
                continue  # a torn line: never acknowledged to its caller
            if isinstance(item, dict):
                _apply(events, item, line.strip())
    rows = []
    for seq in sorted(events):
        event = events[seq]
        targets = event["targets"] or [None]
        for target in targets:
            if target in event["done"] or (None in event["done"]):
                continue
            rows.append(
                {
                    "run_key": Payload.from_json(event["body"]).ordering_key,
                    "target": target,
                    "body": event["body"],
                    "state": "retrying",
                    "attempts": event["attempts"],
                    "reason": event["reason"],
                    "created": event["t"] / 1e9,
                }
            )
    return rows


def _apply(events: dict[int, dict[str, Any]], item: dict[str, Any], text: bytes) -> None:
    seq = item.get("seq")
    if isinstance(seq, int) and isinstance(item.get("event"), dict):
        marker = text.find(b',"event":')
        targets = item.get("targets")
        events[seq] = {
            "body": text[marker + len(b',"event":') : -1],
            "t": int(item.get("t") or time.time_ns()),
            "targets": [str(t) for t in targets] if isinstance(targets, list) and targets else None,
            "done": set(),
            "attempts": 0,
            "reason": "",
        }
        return
    for key in ("ack", "moved", "fail"):
        number = item.get(key)
        event = events.get(number) if isinstance(number, int) else None
        if event is None:
            continue
        target = item.get("target")
        if key != "fail":
            event["done"].add(str(target) if target is not None else None)
        else:
            attempts = item.get("attempts")
            event["attempts"] += attempts if isinstance(attempts, int) and attempts > 0 else 1
            event["reason"] = str(item.get("reason") or "")
            if target is not None and event["targets"] is None:
                event["targets"] = [str(target)]
        return
