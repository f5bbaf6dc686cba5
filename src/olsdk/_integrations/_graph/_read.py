"""A lenient reader of collected OpenLineage events, as decoded JSON objects.

Everything that reads events for `olsdk graph`, `olsdk inspect` and `olsdk.spark`'s
page goes through :func:`read_events` and :func:`identity_problem`, so that the
tolerant parser (`olsdk.parse_event(data, strict=False)`) can replace this module
alone. Events are not checked against the spec: real producers break it in small
ways, and a graph only needs an event's identity (run id, job and dataset names).

Sources are NDJSON files (one event a line), files holding one JSON document (an
event, or a list of events, pretty-printed or not), folders of such files (their
``.json``, ``.ndjson`` and ``.jsonl`` files, recursively, in name order) and ``-``
for standard input. A line that is not a usable event is reported, never fatal.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from olsdk._foundation._documents import EVENT_FILE_SUFFIXES, event_files
from olsdk._foundation._exceptions import ConfigError
from olsdk._readers._lenient import identity_problem as _usable_identity

__all__ = [
    "EVENT_FILE_SUFFIXES",
    "ReadItem",
    "event_files",
    "identity_problem",
    "read_events",
    "read_lines",
    "source_paths",
]

STDIN = "-"


@dataclass(frozen=True, slots=True)
class ReadItem:
    """One event read from a source: the decoded object, or why it is unusable."""

    location: str  # "path:line", "path" for a whole-file document, "<stdin>:line"
    event: dict[str, Any] | None
    problem: str | None = None


def identity_problem(event: Any) -> str | None:
    """Why `event` (decoded JSON) has no usable identity, or None when it has one.

    Run events need ``run.runId``, ``job.namespace`` and ``job.name``; dataset events
    ``dataset.namespace`` and ``dataset.name``; job events ``job.namespace`` and
    ``job.name``: each a non-empty string. Nothing else is required. The rule is the
    tolerant parser's (`olsdk.parse_event(data, strict=False)`).
    """
    problem = _usable_identity(event)
    # Where and which rule, not the value: the page counts unreadable events by this text.
    return None if problem is None else f"{problem.path or '(event)'}: {problem.rule}"


def _decode_problem(exc: Exception) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return "not UTF-8 text"
    if isinstance(exc, json.JSONDecodeError):
        return f"not JSON ({exc.msg})"
    return f"not JSON ({type(exc).__name__})"


def _items(location: str, document: Any) -> Iterator[ReadItem]:
    # A JSON array holds events; anything else is one event.
    for index, value in enumerate(document if isinstance(document, list) else [document]):
        where = f"{location}[{index}]" if isinstance(document, list) else location
        problem = identity_problem(value)
        yield ReadItem(where, value if problem is None else None, problem)


def read_lines(label: str, lines: Iterable[bytes], documents: bool = True) -> Iterator[ReadItem]:
    """Events of one stream: NDJSON, or a single JSON document over several lines.

    With `documents`, a document is recognised when the first non-blank line starts
    with ``{`` or ``[`` but is not JSON by itself; then the whole stream is decoded at
    once, and read as NDJSON after all when that fails too.
    """
    iterator = iter(lines)
    number = 0
    first = True
    for raw in iterator:
        number += 1
        if not raw.strip():
            continue
        try:
            document = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            if documents and first and raw.lstrip()[:1] in (b"{", b"["):
                consumed = raw + b"".join(iterator)  # the rest of the stream
                try:
                    whole = json.loads(consumed)
                except (ValueError, UnicodeDecodeError):
                    yield from read_lines(label, _numbered_from(consumed, number), documents=False)
                    return
                yield from _items(label, whole)
                return
            yield ReadItem(f"{label}:{number}", None, _decode_problem(exc))
            first = False
            continue
        first = False
        yield from _items(f"{label}:{number}", document)


def _numbered_from(text: bytes, first_number: int) -> Iterator[bytes]:
    # Re-read a stream line by line after a failed whole-document attempt, keeping the
    # line numbers: blank placeholders stand for the lines before `first_number`.
    for _ in range(first_number - 1):
        yield b""
    yield from text.splitlines(keepends=True)


def source_paths(sources: Sequence[str]) -> list[str | Path]:
    """The files `sources` name (folders expanded), ``-`` kept for standard input.

    Raises `ConfigError` naming the source when a path does not exist.
    """
    paths: list[str | Path] = []
    for source in sources:
        if source == STDIN:
            paths.append(STDIN)
            continue
        path = Path(source)
        if not path.exists():
            raise ConfigError(f"{source}: no such file or folder")
        paths.extend(event_files(path))
    return paths


def read_events(
    sources: Sequence[str], stdin: IO[bytes] | None = None, on_bytes: Callable[[int], None] | None = None
) -> Iterator[ReadItem]:
    """Every event of `sources` (paths, folders, ``-`` for `stdin`), in order.

    Raises `ConfigError` naming the source when a path does not exist; everything
    inside the sources that is not a usable event is yielded with its problem.
    `on_bytes`, when given, is told the size of every line read (for a progress bar).
    """
    for entry in source_paths(sources):
        if isinstance(entry, str):  # STDIN
            stream = stdin if stdin is not None else sys.stdin.buffer
            yield from read_lines("<stdin>", _told(stream, on_bytes))
            continue
        with open(entry, "rb") as handle:
            yield from read_lines(str(entry), _told(handle, on_bytes))


def _told(lines: Iterable[bytes], on_bytes: Callable[[int], None] | None) -> Iterable[bytes]:
    if on_bytes is None:
        return lines
    return _telling(lines, on_bytes)


def _telling(lines: Iterable[bytes], on_bytes: Callable[[int], None]) -> Iterator[bytes]:
    for line in lines:
        on_bytes(len(line))
        yield line
