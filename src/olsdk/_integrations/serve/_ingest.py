"""Receiving events: read a request body within bounds, decode it, and sort each event.

An event is *valid* (the spec's JSON Schema accepts it: stored, 2xx), *readable* (it
breaks the spec but the lenient reader reads it: stored with its problems, 2xx with
them), or *refused* (not JSON, or no usable run id, job or dataset name: 422 with its
problems, and its first bytes kept in the `refused` table). Bodies are bounded in size
(as sent and after gzip), in time, and in how many bytes all requests may hold at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import math
import zlib
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from pydantic_core import PydanticSerializationError, to_json

from olsdk._foundation._exceptions import Problem, ValidationError
from olsdk._integrations._graph._facts import extract
from olsdk._integrations.serve._store import Received
from olsdk._readers._events import parse_event
from olsdk._readers._lenient import identity_problem
from olsdk._readers._validate import validate_document
from olsdk._readers._wire import JSONProblem, decode, decode_exact, exact_numbers

__all__ = [
    "Body",
    "BodyBudget",
    "BodyError",
    "Sorted",
    "check_event",
    "problem_dicts",
    "read_body",
    "sort_batch",
    "sort_event",
    "sort_small_event",
    "warm_readers",
]

MAX_VALUE_CHARS: Final = 200  # of a problem's value shown in an answer
INLINE_BYTES: Final = 64 * 1024  # a body sorted on the event loop when it needs no lenient reading
_GZIP: Final = ("gzip", "x-gzip")
_IDENTITY: Final = ("", "identity")
# A number no 64-bit double holds has an exponent of three digits or more than 308 digits.
# Only a body holding such a run (digits as "0", "e" and "E" as "e", "+" dropped, all else a
# space) is searched for the infinities its decoding gave: a few C-speed passes over the bytes.
_DIGIT_SHAPES: Final = bytes(ord("0") if 48 <= c <= 57 else ord("e") if c in b"eE" else 32 for c in range(256))


def _may_hold_huge_numbers(data: bytes) -> bool:
    shapes = data.translate(_DIGIT_SHAPES, b"+")  # "1e+400" reads as "0e000"
    return b"0e000" in shapes or b"0" * 309 in shapes


HUGE_RULE: Final = "a number beyond the range of a 64-bit double (about 1.8e308): olsdk serve keeps numbers as doubles"


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


class _Reader:
    """One body being read: its size as sent, digest, first bytes, the (inflated) parts and the
    bytes it holds of the budget; `BodyError` as soon as a limit is passed."""

    def __init__(self, *, gzip: bool, max_bytes: int, head_bytes: int, budget: BodyBudget) -> None:
        self.inflater = zlib.decompressobj(wbits=31) if gzip else None
        self.max_bytes, self.head_bytes, self.budget = max_bytes, head_bytes, budget
        self.parts: list[bytes] = []
        self.digest = hashlib.sha256()
        self.size = self.inflated = self.held = 0
        self.head = b""

    def error(self, status: int, reason: str, retry_after: int | None = None) -> BodyError:
        return BodyError(status, reason, size=self.size, head=self.head, retry_after=retry_after)

    def hold(self, amount: int) -> None:
        if not self.budget.take(amount):
            raise self.error(503, "too many request bodies at once: retry later", retry_after=1)
        self.held += amount

    def add(self, chunk: bytes) -> None:
        self.size += len(chunk)
        if len(self.head) < self.head_bytes:
            self.head += chunk[: self.head_bytes - len(self.head)]
        if self.size > self.max_bytes:
            raise self.error(413, f"body over the limit of {self.max_bytes} bytes")
        self.digest.update(chunk)
        self.hold(len(chunk))  # a compressed chunk is held while it inflates
        if self.inflater is None:
            self.parts.append(chunk)
        else:
            self._inflate(chunk)

    def _inflate(self, data: bytes) -> None:
        assert self.inflater is not None
        while data:
            out = self.inflater.decompress(data, self.max_bytes - self.inflated + 1)
            self.inflated += len(out)
            if self.inflated > self.max_bytes:
                raise self.error(413, f"gzip body inflates to over the limit of {self.max_bytes} bytes")
            if out:
                self.hold(len(out))
                self.parts.append(out)
            if self.inflater.eof:  # the end of a gzip member: another may follow
                data = self.inflater.unused_data
                if data:
                    self.inflater = zlib.decompressobj(wbits=31)
            else:
                data = self.inflater.unconsumed_tail

    def body(self) -> Body:
        if self.inflater is not None and not self.inflater.eof and self.size:
            raise self.error(400, "Content-Encoding gzip, but the gzip data ends early")
        return Body(b"".join(self.parts), self.size, self.digest.hexdigest(), self.head, self.held)


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
    reader = _Reader(gzip=encoding in _GZIP, max_bytes=max_bytes, head_bytes=head_bytes, budget=budget)
    try:
        async with asyncio.timeout(timeout):
            async for chunk in chunks:
                if chunk:
                    reader.add(chunk)
        return reader.body()
    except TimeoutError:
        budget.give(reader.held)
        raise reader.error(408, f"the body did not arrive within {timeout:g} s") from None
    except zlib.error as exc:
        budget.give(reader.held)
        raise reader.error(400, f"Content-Encoding gzip, but the body is not gzip data ({exc})") from None
    except BodyError:
        budget.give(reader.held)
        raise


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
    """`value` for an answer: as it is when short, else its JSON cut short; always JSON."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except ValueError:  # an infinity (a number too large for a double) somewhere in it
        if isinstance(value, float):
            return "a number beyond the range of a 64-bit double"
        text = json.dumps(value, ensure_ascii=False)
        return text[:MAX_VALUE_CHARS] + ("..." if len(text) > MAX_VALUE_CHARS else "")
    if len(text) <= MAX_VALUE_CHARS:
        return value
    return (value if isinstance(value, str) else text)[:MAX_VALUE_CHARS] + "..."


def _huge_numbers(document: Any) -> list[Problem]:
    """A problem at each number of `document` that decoded to an infinity."""
    problems = []
    stack: list[tuple[Any, str]] = [(document, "")]
    while stack:
        node, path = stack.pop()
        if isinstance(node, float) and not math.isfinite(node):
            problems.append(Problem(path, HUGE_RULE))
        elif isinstance(node, dict):
            stack.extend((value, f"{path}.{key}" if path else key) for key, value in node.items())
        elif isinstance(node, list):
            stack.extend((value, f"{path}[{index}]") for index, value in enumerate(node))
    return sorted(problems, key=lambda p: p.path)


def _with_values(document: Any, problems: list[Problem]) -> list[Problem]:
    out = []
    for problem in problems:
        found, value = _value_at(document, problem.path) if problem.rule != "required field missing" else (False, None)
        out.append(Problem(problem.path, problem.rule, _shown(value) if found else None))
    return out


def problem_dicts(problems: list[Problem]) -> list[dict[str, Any]]:
    return [{"path": p.path, "rule": p.rule, "value": None if p.value is None else _shown(p.value)} for p in problems]


def _producer(document: Any) -> str | None:
    producer = document.get("producer") if isinstance(document, Mapping) else None
    return producer if isinstance(producer, str) else None


def _text(document: Any) -> str:
    """An event of a batch as compact JSON text (pydantic-core's encoder; the standard one for
    what it refuses, such as a lone surrogate)."""
    try:
        return to_json(document).decode("utf-8")
    except (PydanticSerializationError, UnicodeDecodeError):
        return json.dumps(document, ensure_ascii=False, separators=(",", ":"))


def _sort_document(
    document: Any, body: str | None, received_at: str, huge: bool = False, lenient: bool = True
) -> Sorted | None:
    """`document` sorted; None when it breaks the spec and `lenient` is False (the lenient
    reader, which may take long on a large body, is left to the caller's thread)."""
    problem = identity_problem(document)
    if problem is not None:
        return Sorted(None, [problem], _producer(document), document)
    if huge and (found := _huge_numbers(document)):
        return Sorted(None, found, _producer(document), document)
    problems = validate_document(document)
    if problems:
        if not lenient:
            return None
        try:
            parse_event(document, strict=False)  # the lenient reader must read what is stored
        except ValidationError as exc:
            return Sorted(None, _with_values(document, exc.problems), _producer(document), document)
    text = body if body is not None else _text(document)
    problems = _with_values(document, problems)
    return Sorted(Received(text, document, extract(document), problems, received_at), problems, _producer(document))


def sort_event(data: bytes, received_at: str) -> Sorted:
    """The body of ``POST /lineage``: one event."""
    found = _sort_event(data, received_at, lenient=True)
    assert found is not None
    return found


def sort_small_event(data: bytes, received_at: str) -> Sorted | None:
    """`sort_event` of a body of at most `INLINE_BYTES` that needs no lenient reading: what
    costs a few microseconds, done on the event loop rather than handed to a thread; None
    when the body is larger or the event breaks the spec (`sort_event` on a thread then)."""
    if len(data) > INLINE_BYTES:
        return None
    return _sort_event(data, received_at, lenient=False)


def _sort_event(data: bytes, received_at: str, *, lenient: bool) -> Sorted | None:
    try:
        document = decode(data)
    except JSONProblem as exc:
        return Sorted(None, [exc.problem])
    if isinstance(document, list):
        return Sorted(None, [Problem("", "a JSON array: send a list of events to /api/v1/lineage/batch")])
    huge = _may_hold_huge_numbers(data)
    return _sort_document(document, data.decode("utf-8", "replace"), received_at, huge, lenient)


def sort_batch(data: bytes, received_at: str) -> list[Sorted] | Problem:
    """The body of ``POST /lineage/batch``: each event of the array, or the problem of the whole body."""
    try:
        document = decode(data)
    except JSONProblem as exc:
        return exc.problem
    if not isinstance(document, list):
        return Problem("", "a batch is a JSON array of events")
    huge = _may_hold_huge_numbers(data)
    return [found for item in document if (found := _sort_document(item, None, received_at, huge)) is not None]


def warm_readers() -> None:
    """Build the readers' models before requests come: pydantic builds them on first use,
    which would otherwise be paid by the first requests (they arrive together when producers
    are waiting for the server)."""
    sample = {
        "eventType": "START",
        "eventTime": "2024-07-01T12:00:00",  # no offset: read leniently, with a problem
        "run": {"runId": "0190d3a4-7b5c-7a3e-9f00-000000000000", "facets": {}},
        "job": {"namespace": "warm", "name": "warm", "facets": {}},
        "inputs": [{"namespace": "warm", "name": "in", "facets": {}, "inputFacets": {}}],
        "outputs": [{"namespace": "warm", "name": "out", "facets": {}, "outputFacets": {}}],
        "producer": "warm",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    }
    for document in (sample, {**sample, "dataset": {"namespace": "warm", "name": "d"}}):
        with contextlib.suppress(ValidationError):
            parse_event(document, strict=False)
        validate_document(document)


def check_event(data: bytes) -> dict[str, Any]:
    """The body of ``POST /lineage/validate``: the event's problems as ``olsdk validate --format
    json --lenient`` reports them (each with the value shown as printed: cut, secrets masked),
    and whether the event is valid and whether the lenient reader reads it. Nothing is stored."""
    try:
        document = decode_exact(data)  # numbers as written, as validate_event reads them
    except JSONProblem as exc:
        return _check_record([exc.problem], "(not JSON)", readable=False)
    producer = _producer(document) or "(no producer)"
    problems = validate_document(document)
    readable = not problems
    if problems and isinstance(document, dict):
        try:
            parse_event(exact_numbers(document), strict=False)
            readable = True
        except ValidationError:
            readable = False
    return _check_record(problems, producer, readable=readable)


def _check_record(problems: list[Problem], producer: str, *, readable: bool) -> dict[str, Any]:
    records = []
    for problem in problems:
        record = {"path": problem.path, "rule": problem.rule}
        shown = problem.shown_value()
        if shown is not None:
            record["got"] = shown
        records.append(record)
    return {"valid": not problems, "producer": producer, "problems": records, "readable_leniently": readable}
