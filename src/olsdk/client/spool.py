"""The spool: events that could not be delivered, kept as NDJSON for replay.

One record per line::

    {"spooledAt": "...", "reason": "...", "target": "http", "retriable": true,
     "attempts": 1, "event": {...the event exactly as it was serialised...}}

``target`` names the transport that failed (a child of a composite, for instance),
so a replay resends to that transport only. :func:`replay` first renames the spool
aside, so events spooled meanwhile land in a fresh file; it appends back only the
records that still fail (or that it cannot read) and deletes the rest.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from olsdk.transports.base import DeliveryError, Payload, Transport

__all__ = ["ReplayResult", "Spool", "default_spool_path", "replay"]

log = logging.getLogger("olsdk.client.spool")

_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


def default_spool_path(environ: dict[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    state = env.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(state) / "olsdk" / "spool.ndjson"


def _compact(body: bytes) -> bytes:
    """The event as one JSON line (it is inserted into the record verbatim)."""
    if b"\n" in body or b"\r" in body:
        return json.dumps(json.loads(body), separators=(",", ":"), ensure_ascii=False).encode()
    return body.strip()


def record_line(payload: Payload, error: DeliveryError, attempts: int = 1) -> bytes:
    head = {
        "spooledAt": datetime.now(UTC).isoformat(),
        "reason": error.reason,
        "target": error.target,
        "retriable": error.retriable,
        "attempts": attempts,
    }
    # the event bytes go in unchanged: no re-serialisation, nothing lost
    line = json.dumps(head, ensure_ascii=False).encode()[:-1]
    return line + b',"event":' + _compact(payload.body) + b"}\n"


class Spool:
    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path).expanduser().absolute()
        with _LOCKS_GUARD:
            self._lock = _LOCKS.setdefault(str(self.path), threading.Lock())

    def append(self, payload: Payload, error: DeliveryError, attempts: int = 1) -> None:
        self._write(record_line(payload, error, attempts))

    def _write(self, data: bytes) -> None:
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # opened per write so a replay's rename never strands an open descriptor
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
            finally:
                os.close(fd)

    def __len__(self) -> int:
        try:
            with open(self.path, "rb") as handle:
                return sum(1 for line in handle if line.strip())
        except FileNotFoundError:
            return 0

    def records(self) -> Iterator[dict[str, Any]]:
        """The readable records (for inspection; replay keeps unreadable lines too)."""
        try:
            with open(self.path, "rb") as handle:
                for line in handle:
                    try:
                        yield json.loads(line)
                    except ValueError:
                        continue
        except FileNotFoundError:
            return


@dataclass
class ReplayResult:
    delivered: int = 0
    kept: int = 0
    unreadable: int = 0
    reasons: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.kept == 0 and self.unreadable == 0


def _event_bytes(line: bytes) -> tuple[dict[str, Any], bytes]:
    record = json.loads(line)
    if not isinstance(record, dict) or not isinstance(record.get("event"), dict):
        raise ValueError("not a spool record")
    body = json.dumps(record["event"], separators=(",", ":"), ensure_ascii=False).encode()
    return record, body


def replay(
    path: str | os.PathLike[str], transport: Transport, *, dry_run: bool = False
) -> ReplayResult:
    """Resend the spooled events through ``transport`` (synchronously)."""
    spool = Spool(path)
    work = spool.path.with_name(spool.path.name + ".replaying")
    result = ReplayResult()
    with spool._lock:
        if spool.path.exists():
            if work.exists():  # left over by an interrupted replay: join the two
                with open(work, "ab") as dst, open(spool.path, "rb") as src:
                    dst.write(src.read())
                spool.path.unlink()
            else:
                os.replace(spool.path, work)
    if not work.exists():
        return result
    sender = transport.synchronous()
    failed_keys: set[str] = set()
    keep: list[bytes] = []
    with open(work, "rb") as handle:
        lines = [line.rstrip(b"\n") for line in handle if line.strip()]
    for line in lines:
        try:
            record, body = _event_bytes(line)
            payload = Payload.from_json(body)
        except ValueError:
            result.unreadable += 1
            keep.append(line + b"\n")
            continue
        key = payload.ordering_key
        if dry_run or key in failed_keys:  # later events of a failed run wait, keeping order
            result.kept += 1
            keep.append(line + b"\n")
            continue
        target = record.get("target")
        destination = (sender.find(target) if isinstance(target, str) else None) or sender
        try:
            destination.send(payload)
        except DeliveryError as exc:
            failed_keys.add(key)
            result.kept += 1
            result.reasons.append(exc.reason)
            attempts = int(record.get("attempts") or 1) + 1
            error = DeliveryError(
                exc.reason, target=record.get("target") or exc.target, retriable=exc.retriable
            )
            keep.append(record_line(payload, error, attempts))
            continue
        result.delivered += 1
    if keep:
        spool._write(b"".join(keep))
    work.unlink()
    return result
