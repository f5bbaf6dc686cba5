"""``olsdk replay [SPOOL]`` and ``olsdk send FILE...``: resend events, say how it goes, stop in time.

Both send synchronously through the configured transport, show progress on stderr
when it is a terminal (count and rate), always end with a summary, and stop after
``--max-failures`` retriable failures in a row (the backend is down) instead of
trying every event for seconds. Nothing is lost on the way:

* ``replay`` leaves what it did not deliver in the spool (see ``olsdk.client.replay``);
* ``send`` writes what it could not deliver, and what it did not try after stopping,
  to the configured spool, so ``olsdk replay`` can finish the job; lines that are not
  events are named (file and line) and counted, never sent.

Exit status: 0 all delivered; 1 something was kept, spooled or refused; 2 a usage or
configuration problem (no transport, a missing file); 3 another replay of the spool
is running.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from olsdk._delivery.client._config import LoadedConfig, load_config, spool_setting
from olsdk._delivery.client._input import Refused, serialise
from olsdk._delivery.client._spool import (
    ReplayInProgress,
    ReplayProgress,
    ReplayResult,
    Spool,
    default_spool_path,
    replay,
)
from olsdk._delivery.transports._base import Payload, Transport, describe_event
from olsdk._delivery.transports._factory import create_transport
from olsdk._foundation._documents import EVENT_FILE_SUFFIXES, event_files
from olsdk._foundation._exceptions import ConfigError, DeliveryError, Problem
from olsdk._foundation._secrets import scrub
from olsdk._integrations._airflow_config import airflow_config
from olsdk._readers._validate import validate_event

__all__ = ["register"]

DEFAULT_MAX_FAILURES = 3


REPLAY_DESCRIPTION = """\
Resend the events a client could not deliver (its spool) through the configured
transport (openlineage.yml, OPENLINEAGE_* variables). Delivered events leave the
spool; the others stay, in order. Progress goes to stderr on a terminal; a summary
is always printed. The replay stops after --max-failures failures in a row (the
backend is down) and keeps the rest for later.

exit status: 0 all delivered, 1 some kept, 2 no spool file or a configuration
problem, 3 another replay of the spool is running (see --wait)."""

SEND_DESCRIPTION = """\
Send event files through the configured transport (openlineage.yml, OPENLINEAGE_*
variables): NDJSON (one event a line), one JSON event, or a JSON array of events;
a folder sends its .json, .ndjson and .jsonl files (recursively, in name order);
'-' reads standard input. Each event is checked against the spec first: an event
that breaks it is not sent, and its problems are listed (--force sends it anyway).
Lines that are not events are named (file:line) and never sent. Events that fail
to deliver, and those not tried after a stop, go to the configured spool, so
'olsdk replay' can finish the job.

exit status: 0 everything delivered, 1 something refused, invalid or spooled,
2 a missing file or a configuration problem."""


def register(subparsers: Any) -> None:
    rep = subparsers.add_parser(
        "replay",
        help="resend spooled events; delivered ones are removed from the spool",
        description=REPLAY_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rep.add_argument("spool", nargs="?", help="spool file (default: the configured spool)")
    rep.add_argument("--dry-run", action="store_true", help="only count the spooled events")
    rep.add_argument("--wait", action="store_true", help="wait for another replay of this spool instead of exiting")
    _common(rep)
    rep.set_defaults(handler=_replay)

    send = subparsers.add_parser(
        "send",
        help="send event files or folders of them (NDJSON, JSON events or arrays) through the configured transport",
        description=SEND_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    send.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="event files, or folders of them (.json, .ndjson, .jsonl, recursively); '-' reads standard input",
    )
    send.add_argument("--force", action="store_true", help="send events that break the spec too (with a warning)")
    _common(send)
    send.set_defaults(handler=_send)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--max-failures",
        type=int,
        default=DEFAULT_MAX_FAILURES,
        metavar="N",
        help=f"stop after N failures in a row (default {DEFAULT_MAX_FAILURES}; 0: never stop)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress line, even on a terminal")


class _Meter:
    """Progress on stderr (only when it is a terminal), at most a few times a second."""

    def __init__(self, verb: str, stream: TextIO, quiet: bool) -> None:
        self.verb = verb
        self.stream = stream
        self.live = not quiet and stream.isatty()
        self.started = time.monotonic()
        self.shown_at = 0.0

    def rate(self, count: int) -> str:
        elapsed = time.monotonic() - self.started
        return f"{elapsed:.1f} s, {count / elapsed:.0f} events/s" if elapsed > 0 and count else f"{elapsed:.1f} s"

    def show(self, done: int, delivered: int, failed: int) -> None:
        now = time.monotonic()
        if not self.live or now - self.shown_at < 0.25:
            return
        self.shown_at = now
        self.stream.write(f"\r{self.verb}: {done} done, {delivered} delivered, {failed} failed ({self.rate(done)})  ")
        self.stream.flush()

    def end(self) -> None:
        if self.live and self.shown_at:
            self.stream.write("\n")


def _transport(loaded: LoadedConfig) -> Transport:
    if not loaded.settings.transport:
        raise ConfigError("no transport configured to send to (set OPENLINEAGE_URL or a transport section)")
    return create_transport(loaded.settings.transport, ("transport",), loaded.origins)


def _looks_like_plain_events(path: Path) -> bool:
    """True when the file's first record is an event rather than a spool record."""
    with open(path, "rb") as handle:
        for line in handle:
            if not line.strip():
                continue
            try:
                first = json.loads(line)
            except ValueError:
                return False
            return isinstance(first, dict) and "event" not in first and "raw" not in first and "eventType" in first
    return False


def _spool_to_replay(args: argparse.Namespace, loaded: LoadedConfig) -> Path | int:
    """The spool's path, or the exit status when there is nothing to replay (or it is no spool)."""
    explicit = args.spool is not None
    path = Path(args.spool or spool_setting(loaded)[0] or default_spool_path(dict(os.environ)))
    if path.suffix == ".outbox" and path.is_dir():  # an earlier olsdk's outbox folder named itself
        path = path.with_suffix("")
    earlier = [path.with_name(path.name + ".outbox")]
    if path.suffix == ".db":
        earlier += [path.with_suffix(".ndjson"), path.with_suffix(".ndjson.outbox")]
    if not path.exists() and not any(p.exists() for p in earlier):
        if explicit:
            print(f"olsdk: no spool file at {path}", file=sys.stderr)
            return 2
        print(f"nothing to replay: no spool file at {path}")
        return 0
    if path.is_file() and _looks_like_plain_events(path):
        print(
            f"olsdk: {path} holds plain events, not spool records; send them with `olsdk send {path}`",
            file=sys.stderr,
        )
        return 2
    return path


def _replay(args: argparse.Namespace) -> int:
    try:
        loaded = load_config(host=airflow_config(os.environ))
        path = _spool_to_replay(args, loaded)
        if isinstance(path, int):
            return path
        transport = _transport(loaded)
    except ConfigError as exc:
        print(f"olsdk: invalid OpenLineage configuration: {exc}", file=sys.stderr)
        return 2
    meter = _Meter("replay", sys.stderr, args.quiet)

    def progress(p: ReplayProgress) -> None:
        meter.show(p.done, p.delivered, p.kept)

    try:
        result = replay(
            path, transport, dry_run=args.dry_run, wait=args.wait, max_failures=args.max_failures or None,
            progress=progress,
        )  # fmt: skip
    except ReplayInProgress as exc:
        print(f"olsdk: {exc} (or pass --wait)", file=sys.stderr)
        return 3
    finally:
        transport.close()
        meter.end()
    return _replay_summary(args, path, result, meter)


def _replay_summary(args: argparse.Namespace, path: Path, result: ReplayResult, meter: _Meter) -> int:
    if args.dry_run:
        print(f"would resend {result.kept}, kept 0 in {path}" + _extra(result.unreadable, result.refused))
        return 0
    print(
        f"delivered {result.delivered}, kept {result.kept} in {path} ({meter.rate(result.delivered + result.kept)})"
        + _extra(result.unreadable, result.refused)
        + (
            f"; {result.from_outbox} of those delivered were left owed by processes now gone"
            if result.from_outbox
            else ""
        )
    )
    if result.live:
        print(
            f"  {result.live} events belong to processes still running (or finishing them): "
            "they deliver them; run again after they end to resend what they leave"
        )
    for reason in sorted(set(result.reasons))[:5]:
        print(f"  still failing: {reason}")
    if result.stopped:
        print(f"olsdk: replay stopped: {result.stopped}; the rest stays in {path}", file=sys.stderr)
    return 0 if result.ok else 1


def _extra(unreadable: int, refused: int) -> str:
    return (f", {unreadable} unreadable lines kept" if unreadable else "") + (
        f", {refused} refused inputs kept (not events)" if refused else ""
    )


# -- send -------------------------------------------------------------------------


def _send_files(names: list[str]) -> list[str] | str:
    """The files to send (a folder: its event files, recursively, sorted), or the problem."""
    files: list[str] = []
    for name in names:
        if name == "-" or os.path.isfile(name):
            files.append(name)
        elif os.path.isdir(name):
            found = [str(p) for p in event_files(Path(name))]
            if not found:
                return f"{name}: a folder with no event files ({', '.join(EVENT_FILE_SUFFIXES)}) in it"
            files.extend(found)
        else:
            return f"no such file or folder: {name}"
    return files


def _lines(name: str) -> Iterator[tuple[int, bytes]]:
    """(line number, event JSON) of a file: NDJSON, one JSON event, or a JSON array."""
    if name == "-":
        data = sys.stdin.buffer.read()
        yield from _split(data)
        return
    with open(name, "rb") as handle:
        head = handle.read(1 << 16)
        rest = handle.read() if head.lstrip()[:1] in (b"[", b"{") and not _is_ndjson(head) else None
        if rest is not None:  # a whole JSON document
            yield from _split(head + rest)
            return
        handle.seek(0)
        for number, line in enumerate(handle, 1):
            if line.strip():
                yield number, line.strip()


def _is_ndjson(head: bytes) -> bool:
    first = head.lstrip().split(b"\n", 1)[0]
    try:
        return isinstance(json.loads(first), dict)
    except ValueError:
        return False


def _split(data: bytes) -> Iterator[tuple[int, bytes]]:
    text = data.strip()
    if text[:1] == b"[":
        try:
            items = json.loads(text)
        except ValueError:
            items = None
        if isinstance(items, list):
            for index, item in enumerate(items, 1):
                yield index, json.dumps(item, separators=(",", ":"), ensure_ascii=False).encode()
            return
    if text[:1] == b"{" and not _is_ndjson(text):
        yield 1, text
        return
    for number, line in enumerate(text.split(b"\n"), 1):
        if line.strip():
            yield number, line.strip()


@dataclass
class _Sending:
    """What ``olsdk send`` did so far."""

    args: argparse.Namespace
    sender: Transport
    spool: Spool
    max_event_bytes: int
    delivered: int = 0
    spooled: int = 0
    refused: int = 0
    invalid: int = 0
    in_a_row: int = 0
    done: int = 0
    stopped: str | None = None
    reasons: set[str] = field(default_factory=set)

    def one(self, location: str, line: bytes) -> None:
        self.done += 1
        try:
            body, data = serialise(line, self.max_event_bytes)
        except Refused as exc:
            self.refused += 1
            if self.refused <= 10:
                print(f"olsdk: {location}: not sent: {exc.reason}", file=sys.stderr)
            return
        problems = validate_event(body)
        if problems:
            self.invalid += 1
            if self.invalid <= SHOWN_INVALID:
                _say_invalid(location, problems, self.args.force)
            if not self.args.force:
                return
        payload = describe_event(data, body) if data is not None else Payload(body=body)
        if self.stopped is not None:
            self.spool.append(payload, DeliveryError(f"not tried: {self.stopped}", target=self.sender.label))
            self.spooled += 1
            return
        try:
            self.sender.send(payload)
        except DeliveryError as exc:
            self.failed(payload, exc)
        else:
            self.delivered += 1
            self.in_a_row = 0

    def failed(self, payload: Payload, exc: DeliveryError) -> None:
        reason = scrub(exc.reason)
        self.reasons.add(reason)
        self.spool.append(payload, DeliveryError(reason, target=exc.target, retriable=exc.retriable))
        self.spooled += 1
        self.in_a_row = self.in_a_row + 1 if exc.retriable else 0
        if self.args.max_failures and self.in_a_row >= self.args.max_failures:
            self.stopped = f"{self.in_a_row} failures in a row, the last: {reason}"

    def summary(self, meter: _Meter) -> int:
        invalid, force = self.invalid, self.args.force
        if invalid > SHOWN_INVALID:
            more = invalid - SHOWN_INVALID
            print(f"olsdk: ... and {more} more invalid events (`olsdk validate` lists all)", file=sys.stderr)
        print(
            f"delivered {self.delivered}, spooled {self.spooled}"
            + (f" to {self.spool.path}" if self.spooled else "")
            + (f", refused {self.refused} (not events)" if self.refused else "")
            + (f", {_plural(invalid, 'invalid event')} " if invalid else "")
            + (("(sent: --force)" if force else "(not sent: --force sends them)") if invalid else "")
            + f" ({meter.rate(self.delivered + self.spooled)})"
        )
        for reason in sorted(self.reasons)[:5]:
            print(f"  failed: {reason}")
        if self.stopped:
            where = f"`olsdk replay {self.spool.path}`"
            print(f"olsdk: send stopped: {self.stopped}; the rest went to the spool: {where}", file=sys.stderr)
        return 0 if not (self.spooled or self.refused or (invalid and not force)) else 1


def _send(args: argparse.Namespace) -> int:
    try:
        loaded = load_config(host=airflow_config(os.environ))
        files = _send_files(args.files)
        if isinstance(files, str):
            print(f"olsdk: {files}", file=sys.stderr)
            return 2
        transport = _transport(loaded)
        spool = Spool(spool_setting(loaded)[0] or default_spool_path(dict(os.environ)))
    except ConfigError as exc:
        print(f"olsdk: invalid OpenLineage configuration: {exc}", file=sys.stderr)
        return 2
    sending = _Sending(args, transport.synchronous(), spool, loaded.settings.max_event_bytes)
    meter = _Meter("send", sys.stderr, args.quiet)
    try:
        for name in files:
            for number, line in _lines(name):
                sending.one(f"{name}:{number}", line)
                meter.show(sending.done, sending.delivered, sending.spooled)
    finally:
        transport.close()
        meter.end()
    return sending.summary(meter)


SHOWN_INVALID = 10  # invalid events whose problems are printed; the count covers all
SHOWN_PROBLEMS = 5  # problems printed per invalid event


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _say_invalid(location: str, problems: list[Problem], forced: bool) -> None:
    verdict = "sent anyway (--force)" if forced else "not sent (--force sends it)"
    lines = [f"olsdk: {location}: breaks the OpenLineage spec, {verdict}: {_plural(len(problems), 'problem')}"]
    lines += [f"  {problem}" for problem in problems[:SHOWN_PROBLEMS]]
    if len(problems) > SHOWN_PROBLEMS:
        lines.append(f"  ... and {len(problems) - SHOWN_PROBLEMS} more")
    print("\n".join(lines), file=sys.stderr)
