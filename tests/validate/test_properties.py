"""Property tests: olsdk's readers against the independent JSON Schema yardstick.

Valid events (the corpus, and events carrying facets that hypothesis-jsonschema draws
from each facet file's schema) are mutated: a string becomes a tricky format value
(valid or not), a key or list item is dropped, a value gets another JSON type. On every
mutated document:
- strict `parse_event` accepts it exactly when the independent validator does
  (tests/support/spec_schema.py: python-jsonschema, RFC 3986 by `rfc3986-validator`,
  RFC 3339 and UUID by the stdlib), from text and from a dict alike;
- `validate_event` reports exactly the validator's error paths (empty exactly when
  strict parsing accepts);
- lenient parsing reads every valid event and every event with a usable identity, dumps
  it back unchanged, and on a valid event gives the model strict parsing gives.
Example counts are bounded (CI runs on 2 cores).
"""

from __future__ import annotations

import copy
import functools
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

import olsdk
from olsdk._readers._lenient import identity_problem
from tests.corpus.events import CORPUS
from tests.support.facet_places import facet_keys_by_file, run_event_with
from tests.support.selection import examples
from tests.support.spec_schema import core, exact_errors, inline

VALID = [sample.document for sample in CORPUS if sample.problems == ()]

FORMAT_VALUES = [
    "2024-02-29T23:59:60.5+23:59",
    "2023-02-29T10:00:00Z",
    "2024-13-01T10:00:00Z",
    "2024-04-31T10:00:00Z",
    "2024-01-01T24:00:00Z",
    "2024-01-01T10:00:00+24:00",
    "2021-11-03T10:53:52.427343",
    "2021-11-03",
    "2024-01-01 10:00:00Z",
    "file",
    "bigquery",
    "file:/tmp/x",
    "urn:x",
    "s3://bucket/a key",
    "http://[::1]:80/p?q#f",
    "https://ex.com/%zz",
    "0190d3a4-7b5c-7a3e-9f00-1234567890AB",
    "0190d3a4-7b5c-7a3e-9f00-1234567890a",
    "{0190d3a4-7b5c-7a3e-9f00-1234567890ab}",
    "",
]
OTHER_TYPES: list[Any] = [None, 0, -3, 1.5, 2.0, True, "text", [], {}, {"a": 1}]

SETTINGS = settings(
    max_examples=examples(60),
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)


def paths_of(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else []
    for key, value in items:
        out.append((*prefix, key))
        out.extend(paths_of(value, (*prefix, key)))
    return out


@st.composite
def mutations(draw: st.DrawFn, base: Any) -> dict[str, Any]:
    document = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, 3))):
        paths = paths_of(document)
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = document
        for step in path[:-1]:
            parent = parent[step]
        operation = draw(st.sampled_from(["format", "drop", "type"]))
        if operation == "format":
            parent[path[-1]] = draw(st.sampled_from(FORMAT_VALUES))
        elif operation == "drop":
            del parent[path[-1]]
        else:
            # A fresh copy: the shared dict would otherwise be mutated by later steps
            # (and tests), even into a cycle.
            parent[path[-1]] = copy.deepcopy(draw(st.sampled_from(OTHER_TYPES)))
    return document


def check(document: dict[str, Any]) -> None:
    text = json.dumps(document)
    independent = exact_errors(document)
    valid = not independent
    problems = olsdk.validate_event(text)
    assert {p.path for p in problems} == {path for path, _ in independent}, (problems, independent)
    for data in (text, document):
        try:
            strict = olsdk.parse_event(data)
        except olsdk.ValidationError as exc:
            assert not valid, exc
            strict = None
        else:
            assert valid, independent
    usable = identity_problem(document) is None
    try:
        lenient = olsdk.parse_event(text, strict=False)
    except olsdk.ValidationError as exc:
        assert not usable and not valid, exc
        return
    assert usable or valid  # a valid event is read whatever its identity (an empty name is valid)
    assert olsdk.to_dict(lenient) == document
    if valid:
        assert lenient == strict


@pytest.mark.parametrize("index", range(len(VALID)), ids=[s.name for s in CORPUS if s.problems == ()])
def test_mutated_corpus_events_agree_with_the_independent_validator(index: int) -> None:
    @SETTINGS
    @given(mutations(VALID[index]))
    def run(document: dict[str, Any]) -> None:
        check(document)

    run()


@functools.cache
def facet_strategy(file_id: str, def_name: str) -> Any:
    return from_schema(inline(file_id, def_name))


@pytest.mark.parametrize(("file_id", "def_name", "entity", "key"), facet_keys_by_file())
def test_mutated_schema_drawn_facets_agree_with_the_independent_validator(
    file_id: str, def_name: str, entity: str, key: str
) -> None:
    @settings(SETTINGS, max_examples=examples(12))
    @given(st.data())
    def run(data: st.DataObject) -> None:
        facet = data.draw(facet_strategy(file_id, def_name))
        document = {
            "eventTime": "2026-11-22T10:00:00Z",
            "producer": "https://example.com/producer",
            "schemaURL": f"{core()['$id']}#/$defs/RunEvent",
            **run_event_with(entity, key, facet),
        }
        check(document)
        check(data.draw(mutations(document)))

    run()


def test_an_empty_key_stays_in_the_problem_path() -> None:
    # jsonschema-rs leaves `""` out of its instance paths; the path must still name the value.
    document = {
        "eventTime": "2026-11-22T10:00:00Z",
        "producer": "https://example.com/producer",
        "schemaURL": f"{core()['$id']}#/$defs/RunEvent",
        **run_event_with(
            "inputDataset",
            "dataQualityMetrics",
            {"_producer": "https://a.com", "_schemaURL": "https://a.com", "columnMetrics": {"": "2024", "a": {}}},
        ),
    }
    check(document)
    (problem,) = olsdk.validate_event(json.dumps(document))
    assert problem.path.endswith("dataQualityMetrics.columnMetrics.")
