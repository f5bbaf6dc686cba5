"""Receiving events: read a request body within bounds, decode it, and sort each event.

An event is *valid* (the spec's JSON Schema accepts it: stored, 2xx), *readable* (it
breaks the spec but the lenient reader reads it: stored with its problems, 2xx with
them), or *refused* (not JSON, or no usable run id, job or dataset name: 422 with its
problems, and its first bytes kept in the `refused` table). Bodies are bounded in size
(as sent and after gzip), in time, and in how many bytes all requests may hold at once.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import zlib
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from olsdk._foundation._exceptions import Problem, ValidationError
from olsdk._integrations._graph._facts import extract
from olsdk._integrations.serve._store import Received
from olsdk._readers._events import parse_event
from olsdk._readers._lenient import identity_problem
from olsdk._readers._validate import validate_document
from olsdk._readers._wire import JSONProblem, decode

__all__ = [
    "Body",
    "BodyBudget",
    "BodyError",
    "Sorted",
    "problem_dicts",
    "read_body",
    "sort_batch",
    "sort_event",
]

MAX_VALUE_CHARS: Final = 200  # of a problem's value shown in an answer
_GZIP: Final = ("gzip", "x-gzip")
_IDENTITY: Final = ("", "identity")


class BodyError(Exception):
    """A body that is not read to the end: too large, too slow, badly compressed."""

    def __init__(self, status: int, reason: str, *, size: int, head: bytes, retry_after: int | None = None) -> None:
        super().__init__(reason)
        self.status, self.reason, self.size, self.head, self.retry_after = status, reason, size, head, retry_after


class BodyBudget:
    """Bytes that all request bodies being read may hold at once (one event loop, no lock)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0

    def take(self, size: int) -> bool:
        if self.used + size > self.limit:
            return False
        self.used += size
        return True

    def give(self, size: int) -> None:
        self.used -= size


@dataclass(slots=True)
class Body:
    data: bytes  # decompressed
    size: int  # bytes as sent
    sha256: str  # of the bytes as sent
    head: bytes  # the first bytes as sent
    held: int  # bytes taken from the budget, given back by the caller


async def read_body(
    chunks: AsyncIterator[bytes],
    *,
    encoding: str,
    declared: int | None,
    max_bytes: int,
    timeout: float,
    head_bytes: int,
    budget: BodyBudget,
) -> Body:
    """The whole body of a request, or `BodyError` (413, 408, 415, 400, 503)."""
    encoding = encoding.strip().lower()
    if encoding not in _GZIP and encoding not in _IDENTITY:
        raise BodyError(415, f"Content-Encoding {encoding!r}: only gzip or none", size=declared or 0, head=b"")
    if declared is not None and declared > max_bytes:
        raise BodyError(413, f"body of {declared} bytes: the limit is {max_bytes}", size=declared, head=b"")
    gzip = encoding in _GZIP
    inflater = zlib.decompressobj(wbits=31) if gzip else None
    parts: list[bytes] = []
    digest = hashlib.sha256()
    size = inflated = held = 0
    head = b""

    def hold(amount: int) -> None:
        nonlocal held
        if not budget.take(amount):
            raise BodyError(503, "too many request bodies at once: retry later", size=size, head=head, retry_after=1)
        held += amount

    try:
        async with asyncio.timeout(timeout):
            async for chunk in chunks:
                if not chunk:
                    continue
                size += len(chunk)
                if len(head) < head_bytes:
                    head += chunk[: head_bytes - len(head)]
                if size > max_bytes:
                    raise BodyError(413, f"body over the limit of {max_bytes} bytes", size=size, head=head)
                digest.update(chunk)
                if inflater is None:
                    hold(len(chunk))
                    parts.append(chunk)
                    continue
                hold(len(chunk))  # the compressed chunk is held while it inflates
                data = chunk
                while data:
                    out = inflater.decompress(data, max_bytes - inflated + 1)
                    inflated += len(out)
                    if inflated > max_bytes:
                        raise BodyError(
                            413, f"gzip body inflates to over the limit of {max_bytes} bytes", size=size, head=head
                        )
                    if out:
                        hold(len(out))
                        parts.append(out)
                    if inflater.eof:  # the end of a gzip member: another may follow
                        data = inflater.unused_data
                        if data:
                            inflater = zlib.decompressobj(wbits=31)
                    else:
                        data = inflater.unconsumed_tail
    except TimeoutError:
        budget.give(held)
        raise BodyError(408, f"the body did not arrive within {timeout:g} s", size=size, head=head) from None
    except zlib.error as exc:
        budget.give(held)
        raise BodyError(
            400, f"Content-Encoding gzip, but the body is not gzip data ({exc})", size=size, head=head
        ) from None
    except BodyError:
        budget.give(held)
        raise
    if inflater is not None and not inflater.eof and size:
        budget.give(held)
        raise BodyError(400, "Content-Encoding gzip, but the gzip data ends early", size=size, head=head)
    return Body(b"".join(parts), size, digest.hexdigest(), head, held)


@dataclass(slots=True)
class Sorted:
    """One event, sorted: stored (`received`, with its problems) or refused (`problems`)."""

    received: Received | None
    problems: list[Problem] = field(default_factory=list)
    producer: str | None = None
    document: Any = None  # the decoded event, kept for a refused one of a batch


def _value_at(document: Any, path: str) -> tuple[bool, Any]:
    """The value at a problem's path (keys may hold dots: the longest key that fits wins)."""
    node, rest = document, path
    while rest:
        if rest.startswith("["):
            end = rest.find("]")
            if end < 0 or not isinstance(node, list):
                return False, None
            try:
                index = int(rest[1:end])
            except ValueError:
                return False, None
            if not 0 <= index < len(node):
                return False, None
            node, rest = node[index], rest[end + 1 :].removeprefix(".")
            continue
        if not isinstance(node, Mapping):
            return False, None
        for key in sorted((k for k in node if rest.startswith(k)), key=len, reverse=True):
            after = rest[len(key) :]
            if after == "" or after[0] in ".[":
                node, rest = node[key], after.removeprefix(".")
                break
        else:
            return False, None
    return True, node


def _shown(value: Any) -> Any:
    text = json.dumps(value, ensure_ascii=False)
    if len(text) <= MAX_VALUE_CHARS:
        return value
    return (value if isinstance(value, str) else text)[:MAX_VALUE_CHARS] + "..."


def _with_values(document: Any, problems: list[Problem]) -> list[Problem]:
    out = []
    for problem in problems:
        found, value = _value_at(document, problem.path) if problem.rule != "required field missing" else (False, None)
        out.append(Problem(problem.path, problem.rule, _shown(value) if found else None))
    return out


def problem_dicts(problems: list[Problem]) -> list[dict[str, Any]]:
    return [{"path": p.path, "rule": p.rule, "value": p.value} for p in problems]


def _producer(document: Any) -> str | None:
    producer = document.get("producer") if isinstance(document, Mapping) else None
    return producer if isinstance(producer, str) else None


def _sort_document(document: Any, body: str | None, received_at: str) -> Sorted:
    problem = identity_problem(document)
    if problem is not None:
        return Sorted(None, [problem], _producer(document), document)
    problems = validate_document(document)
    if problems:
        try:
            parse_event(document, strict=False)  # the lenient reader must read what is stored
        except ValidationError as exc:
            return Sorted(None, _with_values(document, exc.problems), _producer(document), document)
    text = body if body is not None else json.dumps(document, ensure_ascii=False, separators=(",", ":"))
    problems = _with_values(document, problems)
    return Sorted(Received(text, document, extract(document), problems, received_at), problems, _producer(document))


def sort_event(data: bytes, received_at: str) -> Sorted:
    """The body of ``POST /lineage``: one event."""
    try:
        document = decode(data)
    except JSONProblem as exc:
        return Sorted(None, [exc.problem])
    if isinstance(document, list):
        return Sorted(None, [Problem("", "a JSON array: send a list of events to /api/v1/lineage/batch")])
    return _sort_document(document, data.decode("utf-8", "replace"), received_at)


def sort_batch(data: bytes, received_at: str) -> list[Sorted] | Problem:
    """The body of ``POST /lineage/batch``: each event of the array, or the problem of the whole body."""
    try:
        document = decode(data)
    except JSONProblem as exc:
        return exc.problem
    if not isinstance(document, list):
        return Problem("", "a batch is a JSON array of events")
    return [_sort_document(item, None, received_at) for item in document]
