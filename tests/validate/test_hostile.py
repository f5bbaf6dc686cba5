"""Hostile documents: refused with `olsdk.ValidationError` in both modes, never a crash.

Nesting at any depth (never `RecursionError`), NaN and Infinity (not JSON), lone UTF-16
surrogates (reported as such, not as a parser's "hex escape" message), text that is not
JSON; from text, bytes and decoded dicts; `validate_event` reports the same problem.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import olsdk
from olsdk._readers._wire import MAX_DEPTH
from tests.corpus.events import CORPUS

EVENT = json.dumps(CORPUS[0].document)


def nested_in_facet(depth: int, leaf: str = "1") -> str:
    # A custom facet holding `depth` nested objects, some with `_deleted` (the old
    # deletion-marker walk recursed into those).
    body = '{"_deleted": true, "a": ' * depth + leaf + "}" * depth
    custom = f'"deep": {{"_producer": "https://p", "_schemaURL": "https://s", "x": {body}}}'
    return EVENT.replace('"spark_properties": {', custom + ', "spark_properties": {', 1)


def nested_dict(depth: int) -> dict[str, Any]:
    document = json.loads(EVENT)
    node: dict[str, Any] = {}
    document["run"]["facets"]["deep"] = {"_producer": "https://p", "_schemaURL": "https://s", "x": node}
    for _ in range(depth):
        node["a"] = {"_deleted": True}
        node = node["a"]
    return document


def assert_refused_everywhere(data: Any, rule: str) -> None:
    for strict in (True, False):
        with pytest.raises(olsdk.ValidationError, match=rule):
            olsdk.parse_event(data, strict=strict)
    problems = olsdk.validate_event(data)
    assert problems and any(rule.lower() in p.rule.lower() for p in problems), problems


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 1_000, 100_000])
def test_any_nesting_depth_is_a_validation_error(depth: int) -> None:
    assert_refused_everywhere(nested_in_facet(depth), "nested more than")
    assert_refused_everywhere(nested_in_facet(depth).encode(), "nested more than")
    assert_refused_everywhere(nested_dict(depth), "nested more than")


def test_nesting_within_the_limit_reads() -> None:
    document = nested_in_facet(50)
    assert olsdk.validate_event(document) == []
    assert olsdk.to_dict(olsdk.parse_event(document)) == json.loads(document)


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_not_json(token: str) -> None:
    # In a field no model types (a custom facet's value), where no number check applies.
    text = EVENT.replace('"spark.master": "local[2]"', f'"spark.master": {token}')
    assert token in text
    assert_refused_everywhere(text, "NaN or Infinity")
    document = json.loads(text)  # Python's json takes them
    assert_refused_everywhere(document, "not a JSON number")


def test_nan_inside_a_string_is_just_text() -> None:
    text = EVENT.replace('"spark.master": "local[2]"', '"spark.master": "NaN and Infinity"')
    assert olsdk.validate_event(text) == []
    assert olsdk.parse_event(text).run.facets is not None


@pytest.mark.parametrize("escape", ["\\ud800", "\\udfff", "\\ud83d x"])
def test_lone_surrogates_are_reported_as_such(escape: str) -> None:
    text = EVENT.replace('"local[2]"', f'"local{escape}"')
    assert_refused_everywhere(text, "surrogate")
    assert_refused_everywhere(json.loads(text), "surrogate")


def test_a_surrogate_pair_is_a_character() -> None:
    text = EVENT.replace('"local[2]"', '"local \\ud83d\\ude00"')
    assert olsdk.validate_event(text) == []
    assert olsdk.to_dict(olsdk.parse_event(text)) == json.loads(text)


@pytest.mark.parametrize(("data", "rule"), [(b"{oops", "not valid JSON"), (b'{"a": "\xff"}', "UTF-8")])
def test_text_that_is_not_json(data: bytes, rule: str) -> None:
    assert_refused_everywhere(data, rule)


def test_event_type_null_and_other_nulls_are_refused_strictly() -> None:
    document = json.loads(EVENT)
    document["eventType"] = None
    with pytest.raises(olsdk.ValidationError, match="eventType"):
        olsdk.parse_event(document)
    assert {p.path for p in olsdk.validate_event(document)} == {"eventType"}
    lenient = olsdk.parse_event(document, strict=False)
    assert olsdk.to_dict(lenient) == document
