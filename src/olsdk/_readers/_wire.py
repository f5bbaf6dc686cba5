"""What "JSON" means for olsdk's readers, in one place: the checks below the spec.

An event is a JSON document (RFC 8259) of UTF-8 text. Refused, with a `Problem` that
says where and why: text that is not JSON, `NaN`/`Infinity` (Python's `json` writes
them; they are not JSON), a lone UTF-16 surrogate escape (`"\\ud800"`: no Unicode
character, so no UTF-8 either), and documents nested deeper than `MAX_DEPTH` levels.

Text is decoded by pydantic-core's JSON parser (the one the strict parser validates
with), so every reader agrees on what parses. Already decoded Python data (a `dict`
given to `parse_event`) is checked by `check_data`, which applies the same rules
without recursion: no input can raise `RecursionError`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any, Final

import jiter
from pydantic_core import from_json

from olsdk._foundation._exceptions import Problem

__all__ = [
    "MAX_DEPTH",
    "JSONProblem",
    "WholeNumber",
    "check_data",
    "decode",
    "decode_exact",
    "describe_json_error",
    "exact_numbers",
    "may_hold_non_json_numbers",
]

MAX_DEPTH: Final = 200
"""How deeply objects and arrays may nest (pydantic-core's JSON parser's limit)."""

_LINE_COLUMN = re.compile(r" at line (\d+) column (\d+)$")
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")


class JSONProblem(ValueError):
    """A document that is not JSON olsdk reads; `problem` says where and why."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(str(problem))
        self.problem = problem


def may_hold_non_json_numbers(data: str | bytes | bytearray) -> bool:
    """A cheap first look: could `data` hold `NaN`/`Infinity` tokens? (False: it cannot.)"""
    if isinstance(data, str):
        return "NaN" in data or "Infinity" in data
    return b"NaN" in data or b"Infinity" in data


def describe_json_error(message: str, data: str | bytes | bytearray) -> str:
    """The rule for a JSON parser error message, in words a user can act on."""
    where = _LINE_COLUMN.search(message)
    at = f" at line {where[1]} column {where[2]}" if where else ""
    if "recursion limit" in message:
        return f"nested more than {MAX_DEPTH} levels deep{at}"
    if "surrogate" in message or ("hex escape" in message and _has_surrogate_escape(data)):
        return (
            f"a lone UTF-16 surrogate escape (such as \\ud800){at}: it stands for no Unicode character, "
            "so the text cannot be UTF-8"
        )
    if message.startswith(("expected value", "invalid number")) and may_hold_non_json_numbers(data):
        return f"NaN or Infinity{at}: not JSON numbers (RFC 8259 has no such values)"
    if "unicode" in message or "utf-8" in message.lower():
        return f"not UTF-8 text{at}"
    return f"not valid JSON ({message})"


def _has_surrogate_escape(data: str | bytes | bytearray) -> bool:
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    return _SURROGATE_ESCAPE.search(raw) is not None


def decode(data: str | bytes | bytearray) -> Any:
    """JSON text -> Python data, or `JSONProblem` (at the document's root path)."""
    try:
        if isinstance(data, str) and not data.isascii() and _SURROGATE.search(data):
            raise ValueError("lone surrogate in the text")
        # Keys repeat (every facet has `_producer`, `_schemaURL`): caching their Python
        # strings, and only theirs, decodes an event about a tenth faster than the default.
        return from_json(data, allow_inf_nan=False, cache_strings="keys")
    except ValueError as exc:
        raise JSONProblem(Problem("", describe_json_error(str(exc), data))) from None


def decode_exact(data: str | bytes | bytearray) -> Any:
    """`decode` with every number exact: a number written with a fraction or an exponent
    becomes the `decimal.Decimal` of what was written (`1e-400` is not 0.0, `1E+308` is
    10**308), so that `integer` and the bounds are judged as JSON Schema judges them.

    The parser is jiter (pydantic-core's own JSON parser, as a package of its own, which
    can hand out decimals): what parses, and every error, is what `decode` says; a
    document without such numbers costs what `decode` costs.
    """
    if isinstance(data, str):
        if not data.isascii() and _SURROGATE.search(data):
            return decode(data)  # raises the problem `decode` reports
        data = data.encode()
    try:
        return jiter.from_json(bytes(data), allow_inf_nan=False, cache_mode="keys", float_mode="decimal")
    except ValueError as exc:
        raise JSONProblem(Problem("", describe_json_error(str(exc), data))) from None


class WholeNumber(float):
    """The nearest double of a whole number no double holds exactly (`1E+308`,
    `9007199254740993.0`), carrying the number itself in `exact`: an integer field takes
    `exact`, a number field or a free-form value the double (pydantic makes it a plain
    `float`), as the fast path would have read it."""

    exact: int

    def __new__(cls, exact: int) -> WholeNumber:
        number = super().__new__(cls, exact)
        number.exact = exact
        return number


def exact_numbers(document: Any, *, keep_inexact: bool = False, plain: bool = False) -> Any:
    """`document` (from `decode_exact`) with its decimals as the models take them: a whole
    number is a `float` where a double holds it exactly (`3.0`), a `WholeNumber` where
    none does (`1E+308`) and an `int` beyond any double (`1e400`); any other decimal is
    its nearest double (`0.5`, `1e-400` -> 0.0). With `keep_inexact`, a decimal whose
    nearest double would say something else of it (a whole double from a fraction,
    `1e-400` or `1.0000000000000001`; or none at all) stays a `Decimal`: an integer field
    refuses it, a number field and a free-form value hold its nearest double. `plain`:
    only `float` and `int` (for values kept outside the models)."""
    stack: list[Any] = [document]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in items:
            if isinstance(value, Decimal):
                node[key] = _held(value, keep_inexact, plain)
            elif plain and isinstance(value, WholeNumber):
                node[key] = float(value)
            elif isinstance(value, dict | list):
                stack.append(value)
    if isinstance(document, Decimal):
        return _held(document, keep_inexact, plain)
    return float(document) if plain and isinstance(document, WholeNumber) else document


def _held(value: Decimal, keep_inexact: bool, plain: bool) -> Any:
    nearest = float(value)
    if value == value.to_integral_value():
        if not math.isfinite(nearest):
            return int(value)
        if plain or nearest == value:
            return nearest
        return WholeNumber(int(value))
    if keep_inexact and (not math.isfinite(nearest) or nearest.is_integer()):
        return value
    return nearest


def check_data(data: Any) -> None:
    """Raise `JSONProblem` unless `data` is what decoding some JSON document gives.

    Objects are mappings with string keys; values are objects, lists, strings without
    lone surrogates, finite numbers, booleans or None; nesting is at most `MAX_DEPTH`.
    """
    stack: list[tuple[Any, str, int]] = [(data, "", 1)]
    while stack:
        value, path, depth = stack.pop()
        if isinstance(value, str):
            if not value.isascii() and _SURROGATE.search(value):
                raise JSONProblem(Problem(path, "a lone UTF-16 surrogate: no Unicode character, so not UTF-8"))
            continue
        if value is None or isinstance(value, bool | int):
            continue
        if isinstance(value, float):
            if not math.isfinite(value):
                raise JSONProblem(Problem(path, f"{value!r}: not a JSON number (JSON has no NaN or Infinity)"))
            continue
        if isinstance(value, Mapping | list | tuple):
            if depth > MAX_DEPTH:
                raise JSONProblem(Problem(path, f"nested more than {MAX_DEPTH} levels deep"))
            if isinstance(value, Mapping):
                for key, item in value.items():
                    if not isinstance(key, str):
                        raise JSONProblem(Problem(path, f"key {key!r}: JSON object keys are strings"))
                    stack.append((item, f"{path}.{key}" if path else key, depth + 1))
            else:
                stack.extend((item, f"{path}[{index}]", depth + 1) for index, item in enumerate(value))
            continue
        if hasattr(value, "model_dump"):  # a model given in place of its JSON object: pydantic checks it
            continue
        raise JSONProblem(Problem(path, f"a {type(value).__name__} is not JSON data"))
