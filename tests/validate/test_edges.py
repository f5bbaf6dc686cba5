"""The edges of the readers: every reader against the exact yardstick, on the same bytes.

Real events (the corpus) are mutated at the level of JSON text, so that number literals
no Python float can write (`1e-400`, `1e400`, `1E+308`, `1.0000000000000001`) reach the
readers as a producer would send them; date-times get leap seconds at the right and the
wrong minute; unknown keys get values of every JSON type. On each mutant:

- the yardstick (tests/support/spec_schema.py: python-jsonschema with formats asserted,
  numbers exact) decides: valid or the set of error paths, with olsdk's one documented
  number limit (a `number` field holds a 64-bit double: beyond about 1.8e308 is refused);
- strict `parse_event`, `validate_event` and `olsdk validate` (the CLI's own code on
  the bytes as standard input) say the same, the last two with the same paths;
- the lenient reader raises nothing but `olsdk.ValidationError`, reads every valid event
  as strict parsing does and every event whose identity is usable, and keeps every value
  (a number as the value written, or its nearest double where a double is what is kept).

Each case the issue measured has a test of its own below. Example counts are bounded.
"""

from __future__ import annotations

import argparse
import copy
import decimal
import io
import json
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import olsdk
from olsdk._integrations._validate_cli import run_validate
from olsdk._readers._lenient import identity_problem
from tests.corpus.events import CORPUS
from tests.support.selection import examples
from tests.support.spec_schema import exact_errors, loads_exact

VALID = [sample.document for sample in CORPUS if sample.problems == ()]

NUMBER_LITERALS = [
    "1e400",
    "-1e400",
    "1E+308",
    "1e-400",
    "-1e-400",
    "3.0",
    "1e2",
    "1.0000000000000001",
    "0.5",
    "-0.0",
    "2.5e-3",
    "9007199254740993",
    "9007199254740993.0",
    "123456789012345678901234567890",
    "0",
    "-7",
]
DATE_TIMES = [
    "1998-12-31T23:59:60Z",
    "1998-12-31T15:59:60.123-08:00",
    "1998-12-31T01:29:60+01:30",
    "1998-12-31T00:29:60-23:30",
    "2026-11-20T12:30:60Z",
    "1998-12-31T23:58:60Z",
    "1998-12-31T22:59:60Z",
    "1998-12-31T23:59:61Z",
    "1998-12-31T23:59:60+01:00",
    "2024-02-29T23:59:59.999999999999999Z",
    "2023-02-29T10:00:00Z",
    "1963-06-19t08:30:06.283185z",
    "1990-12-31T15:59:59-24:00",
]
OTHER_VALUES: list[Any] = [None, True, "text", [], {}, {"a": 1}, [1, "b"]]

SETTINGS = settings(
    max_examples=examples(40),
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)


# ---------------------------------------------------------------- what the readers say


def cli_verdict(text: bytes) -> tuple[int, set[str]]:
    """`olsdk validate -` on `text`: its exit status and the problem paths it prints."""
    args = argparse.Namespace(sources=["-"], format="json", lenient=False, quiet=False, facets=[])
    out = io.StringIO()
    status = run_validate(args, stdin=io.BytesIO(text + b"\n"), out=out)
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    return status, {problem["path"] for record in records[:-1] for problem in record["problems"]}


def same_json(kept: Any, sent: Any) -> bool:
    """Whether `kept` (what a reader dumps) is `sent` (read exactly): numbers equal as
    written, or as the nearest double of what was written."""
    if isinstance(sent, dict):
        return isinstance(kept, dict) and kept.keys() == sent.keys() and all(same_json(kept[k], sent[k]) for k in sent)
    if isinstance(sent, list):
        return isinstance(kept, list) and len(kept) == len(sent) and all(map(same_json, kept, sent))
    if isinstance(sent, decimal.Decimal):
        if isinstance(kept, bool) or not isinstance(kept, int | float):
            return False
        return decimal.Decimal(kept) == sent or kept == float(sent)
    return type(kept) is type(sent) and kept == sent


def check(text: bytes) -> None:
    exact = loads_exact(text)
    expected = exact_errors(exact, olsdk_limits=True)
    valid = not expected
    paths = {path for path, _ in expected}

    problems = olsdk.validate_event(text)
    assert {p.path for p in problems} == paths, (problems, expected)
    try:
        strict = olsdk.parse_event(text)
    except olsdk.ValidationError as exc:
        assert not valid, exc
        strict = None
    else:
        assert valid, expected
    status, printed = cli_verdict(text)
    assert (status, printed) == (0 if valid else 1, paths)

    usable = identity_problem(exact) is None
    try:
        lenient = olsdk.parse_event(text, strict=False)
    except olsdk.ValidationError as exc:
        assert not usable and not valid, exc
        return
    assert usable or valid
    assert same_json(olsdk.to_dict(lenient), exact), olsdk.to_json(lenient)
    if valid:
        assert lenient == strict


# ---------------------------------------------------------------- mutants of real events


def paths_of(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else []
    for key, value in items:
        out.append((*prefix, key))
        out.extend(paths_of(value, (*prefix, key)))
    return out


def at(document: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        document = document[step]
    return document


@st.composite
def mutants(draw: st.DrawFn, base: dict[str, Any]) -> bytes:
    document = copy.deepcopy(base)
    literals: dict[str, str] = {}

    def literal(text: str) -> str:
        sentinel = f"@@number{len(literals)}@@"
        literals[sentinel] = text
        return sentinel

    for _ in range(draw(st.integers(1, 3))):
        paths = paths_of(document)
        numbers = [
            p for p in paths if isinstance(at(document, p), int | float) and not isinstance(at(document, p), bool)
        ]
        strings = [p for p in paths if isinstance(at(document, p), str) and not at(document, p).startswith("@@")]
        objects = [(), *(p for p in paths if isinstance(at(document, p), dict))]
        operation = draw(st.sampled_from(["number", "extra", "date-time", "drop"]))
        if operation == "number" and (numbers or paths):
            path = draw(st.sampled_from(numbers or paths))
            at(document, path[:-1])[path[-1]] = literal(draw(st.sampled_from(NUMBER_LITERALS)))
        elif operation == "extra":
            owner = at(document, draw(st.sampled_from(objects)))
            value = draw(st.sampled_from([*NUMBER_LITERALS, *range(len(OTHER_VALUES))]))
            owner[draw(st.sampled_from(["x", "rowCount", "_x"]))] = (
                literal(value) if isinstance(value, str) else copy.deepcopy(OTHER_VALUES[value])
            )
        elif operation == "date-time" and strings:
            path = draw(st.sampled_from(strings))
            at(document, path[:-1])[path[-1]] = draw(st.sampled_from(DATE_TIMES))
        elif operation == "drop" and paths:
            path = draw(st.sampled_from(paths))
            del at(document, path[:-1])[path[-1]]
    text = json.dumps(document)
    for sentinel, written in literals.items():
        text = text.replace(json.dumps(sentinel), written)
    return text.encode()


@pytest.mark.parametrize("index", range(len(VALID)), ids=[s.name for s in CORPUS if s.problems == ()])
def test_every_reader_agrees_with_the_exact_yardstick_on_mutants(index: int) -> None:
    @SETTINGS
    @given(mutants(VALID[index]))
    def run(text: bytes) -> None:
        check(text)

    run()


# ---------------------------------------------------------------- the measured cases


def run_event(**changes: Any) -> dict[str, Any]:
    event = copy.deepcopy(VALID[0])  # the Spark agent's COMPLETE event
    event.update(changes)
    return event


def with_literal(document: dict[str, Any], place: tuple[Any, ...], written: str) -> bytes:
    at(document, place[:-1])[place[-1]] = "@@literal@@"
    return json.dumps(document).replace('"@@literal@@"', written).encode()


ROW_COUNT = ("outputs", 0, "outputFacets", "outputStatistics", "rowCount")


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        ("1998-12-31T23:59:60Z", True),
        ("1998-12-31T15:59:60.123-08:00", True),
        ("1998-12-31T01:29:60+01:30", True),
        ("2026-11-20T12:30:60Z", False),  # the case: a leap second at any minute
        ("1998-12-31T23:58:60Z", False),
        ("1998-12-31T22:59:60Z", False),
        ("1998-12-31T23:59:60+01:00", False),
    ],
)
def test_a_leap_second_only_at_23_59_60_utc(value: str, valid: bool) -> None:
    text = json.dumps(run_event(eventTime=value)).encode()
    assert (not exact_errors(loads_exact(text))) == valid
    check(text)
    problems = olsdk.validate_event(text)
    assert [p.path for p in problems] == ([] if valid else ["eventTime"])


def test_1e_minus_400_is_no_integer() -> None:
    text = with_literal(run_event(), ROW_COUNT, "1e-400")
    check(text)
    (problem,) = olsdk.validate_event(text)
    assert problem.path == "outputs[0].outputFacets.outputStatistics.rowCount"
    assert problem.rule == "must be integer"
    assert "1e-400" in str(problem).lower()
    assert "rowCount: 0" not in olsdk.to_json(olsdk.parse_event(text, strict=False))


@pytest.mark.parametrize("written", ["1E+308", "1e400", "3.0", "9007199254740993.0"])
def test_an_integer_written_with_an_exponent_or_fraction_is_kept_exactly(written: str) -> None:
    text = with_literal(run_event(), ROW_COUNT, written)
    check(text)
    event = olsdk.parse_event(text)
    kept = at(olsdk.to_dict(event), ROW_COUNT)
    assert type(kept) is int and decimal.Decimal(kept) == decimal.Decimal(written)


def test_1e400_under_an_unknown_key_is_valid_and_kept() -> None:
    text = json.dumps(run_event())[:-1].encode() + b', "x": 1e400}'
    check(text)
    for event in (olsdk.parse_event(text), olsdk.parse_event(text, strict=False)):
        assert olsdk.to_json(event).endswith(',"x":1' + "0" * 400 + "}")


def test_1e400_in_a_number_field_is_the_documented_double_limit() -> None:
    place = ("inputs", 0, "inputFacets", "dataQualityMetrics", "columnMetrics", "a", "sum")
    document = run_event()
    document["inputs"][0]["inputFacets"] = {
        "dataQualityMetrics": {
            "_producer": "https://p.example",
            "_schemaURL": "https://openlineage.io/spec/facets/1-0-2/DataQualityMetricsInputDatasetFacet.json",
            "columnMetrics": {"a": {"sum": 0}},
        }
    }
    text = with_literal(document, place, "1e400")
    assert not exact_errors(loads_exact(text))  # the schema accepts it...
    check(text)  # ...olsdk refuses it everywhere, by its documented limit
    (problem,) = olsdk.validate_event(text)
    assert problem.path == "inputs[0].inputFacets.dataQualityMetrics.columnMetrics.a.sum"
    assert "64-bit" in problem.rule


def test_the_lenient_reader_reads_a_valid_dataset_event_that_carries_a_run() -> None:
    dataset_event = next(s.document for s in CORPUS if s.name == "dataset-event-with-deletion")
    document = {**copy.deepcopy(dataset_event), "run": {"runId": "not checked: a DatasetEvent has no run"}}
    text = json.dumps(document).encode()
    check(text)
    assert type(olsdk.parse_event(text, strict=False)).__name__ == "DatasetEvent"


# ---------------------------------------------------------------- problem texts

# Python's and pydantic's words, and olsdk's own class names: none belongs in a problem
# (the spec's definitions, `RunEvent` or `SchemaDatasetFacet`, are the spec's words).
_NOT_SPEC_WORDS = re.compile(
    r"\bmodel\b|input should|valid dictionary|instance of|\bdict\b|\bstr\b|\bint\b|\bfloat\b|\bbool\b"
    r"|\bNone\b|\bNoneType\b|pydantic|\bBaseModel\b|\bDeletedFacet\b|\bFacetContainer\b|\bOLModel\b"
    r"|\bOLRecord\b|\bTypedDict\b|registered class|datetime with|uuid\.UUID"
)


def spec_words_only(problem: olsdk.Problem) -> bool:
    return _NOT_SPEC_WORDS.search(problem.rule) is None


@pytest.mark.parametrize("index", range(len(VALID)), ids=[s.name for s in CORPUS if s.problems == ()])
def test_problem_texts_use_the_specs_words_and_show_the_value(index: int) -> None:
    @settings(SETTINGS, max_examples=examples(25))
    @given(mutants(VALID[index]))
    def run(text: bytes) -> None:
        problems = olsdk.validate_event(text)
        try:
            olsdk.parse_event(text)
        except olsdk.ValidationError as exc:
            problems = [*problems, *exc.problems]
        for problem in problems:
            assert spec_words_only(problem), problem
            if problem.rule != "required field missing" and problem.path:
                assert ", got " in str(problem), problem

    run()


@pytest.mark.slow
def test_a_problem_shows_the_value_cut_and_without_secrets() -> None:
    secret_url = "https://etl:s3cr3t-passw0rd@db.example.com/orders"
    document = run_event()
    document["run"]["runId"] = secret_url
    document["job"]["namespace"] = 12345
    document["producer"] = "x" * 5000
    text = json.dumps(document).encode()
    with pytest.raises(olsdk.ValidationError) as refused:
        olsdk.parse_event(text)
    for problems in (olsdk.validate_event(text), refused.value.problems):
        by_path = {p.path: p for p in problems}
        shown = str(by_path["run.runId"])
        assert "s3cr3t-passw0rd" not in shown and "***" in shown and "db.example.com" in shown
        assert by_path["run.runId"].value == secret_url  # the value itself, for code that reads it
        assert str(by_path["job.namespace"]).endswith(", got 12345")
        assert len(str(by_path["producer"])) < 300
