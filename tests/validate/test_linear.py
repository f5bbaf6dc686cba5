"""Every reader is linear in its input: a megabyte in a format-checked field is refused fast.

A value of 1 MB in each field the spec checks a format of (uri, uuid, date-time), shaped
the way that makes a backtracking pattern slow (a long valid-looking run, then the one
character that breaks it; or a long run that only almost holds a secret to mask), goes
through strict `parse_event`, the lenient reader and `validate_event`. Each must give
its verdict; a quadratic check takes hours on such input, so each test runs under a
generous deadline (an interval timer: Python's regular expressions stop for signals)
instead of a timing assertion.
"""

from __future__ import annotations

import copy
import json
import signal
from collections.abc import Iterator
from typing import Any

import pytest

import olsdk
from olsdk._foundation._secrets import scrub

MB = 1_000_000
DEADLINE = 60
EVENT: dict[str, Any] = {
    "eventType": "START",
    "eventTime": "2024-07-01T12:00:00Z",
    "run": {"runId": "0190d3a4-7b5c-7a3e-9f00-0000000000a1"},
    "job": {"namespace": "etl", "name": "daily"},
    "producer": "https://example.com/producer",
    "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
}

# (field's path, its format, a 1 MB value that breaks it only at its end)
LONG_VALUES = [
    ("producer", "uri", "https://example.com/" + "a" * MB + " "),
    ("producer", "uri", "a" * MB + "token"),
    ("producer", "uri", "https://user:" + "p" * MB + " @"),
    ("producer", "uri", "a://:" * (MB // 5)),
    ("schemaURL", "uri", "https://example.com/?" + "?" * MB + " "),
    ("run.runId", "uuid", "0190d3a4-" + "a" * MB),
    ("run.runId", "uuid", "token-" * (MB // 6)),
    ("eventTime", "date-time", "2024-07-01T12:00:00." + "1" * MB + "Zx"),
    ("eventTime", "date-time", "2024-07-01T12:00:00Z" + " Bearer" * (MB // 7)),
]


@pytest.fixture(autouse=True)
def deadline() -> Iterator[None]:
    """Each test fails (TimeoutError) after DEADLINE seconds: linear work takes a few."""

    def expired(_signum: int, _frame: Any) -> None:
        raise TimeoutError(f"not done within {DEADLINE} s: a check is not linear in its input")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, DEADLINE)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def event_with(path: str, value: str) -> bytes:
    event = copy.deepcopy(EVENT)
    *parents, last = path.split(".")
    node = event
    for key in parents:
        node = node[key]
    node[last] = value
    return json.dumps(event).encode()


@pytest.mark.parametrize(("path", "kind", "value"), LONG_VALUES, ids=lambda v: v if len(v) < 20 else None)
def test_a_megabyte_in_a_format_checked_field_is_judged_in_linear_time(path: str, kind: str, value: str) -> None:
    data = event_with(path, value)
    with pytest.raises(olsdk.ValidationError) as strict:
        olsdk.parse_event(data)
    assert [p.path for p in strict.value.problems] == [path]
    assert strict.value.problems[0].rule.startswith("not a" if kind != "uri" else "not an absolute URI")
    assert len(str(strict.value)) < 1000  # the value is shown cut short
    lenient = olsdk.parse_event(data, strict=False)
    assert isinstance(lenient, olsdk.RunEvent) and lenient.job.name == "daily"
    problems = olsdk.validate_event(data)
    assert [p.path for p in problems] == [path]


@pytest.mark.parametrize(
    "text",
    [
        "a" * MB,
        "token" * (MB // 5),
        "?" * MB,
        "a://:" * (MB // 5),
        "a://:@b" * (MB // 7),
        "@" + "a" * MB,
        "Basic " * (MB // 6),
        "tok: " * (MB // 5),
        "x-api-key" * (MB // 9) + ": secret",
    ],
    ids=lambda text: repr(text[:8]),
)
def test_masking_secrets_in_a_megabyte_is_linear(text: str) -> None:
    assert len(scrub(text, limit=80)) < 200


def test_masking_still_finds_each_kind_of_secret() -> None:
    shown = scrub("https://user:s3cr@t@host.example/x?api_key=k3y&q=1 Bearer t0ken x-api-key: v4lue", limit=10_000)
    for secret in ("s3cr", "k3y", "t0ken", "v4lue"):
        assert secret not in shown
    assert "https://user:***@host.example/x?api_key=***&q=1" in shown
    assert "_http://u:p4ss@h" not in scrub("_http://u:p4ss@h x", limit=100)  # a scheme after other characters
