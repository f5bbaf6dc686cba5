"""`olsdk._foundation._formats`: the exact uuid, uri and date-time patterns, in all three engines.

Each value is checked by the strict parser (pydantic-core's Rust regex), by
`validate_event` (jsonschema-rs) and by `olsdk._foundation._formats.matches` (Python `re`), and by
the independent checks of tests/support/spec_schema.py: all four must agree.
"""

from __future__ import annotations

import pytest

import olsdk
from olsdk._foundation._formats import DATETIME_PATTERN, URI_PATTERN, UUID_PATTERN, matches
from tests.support.spec_schema import is_date_time, is_uri, is_uuid

RUN = "0190d3a4-7b5c-7a3e-9f00-1234567890ab"

DATE_TIMES = {
    "2024-02-29T10:00:00Z": True,  # leap year
    "2000-02-29T00:00:00z": True,  # divisible by 400; lower-case T/Z allowed by RFC 3339
    "1900-02-29T00:00:00Z": False,  # divisible by 100 only
    "2023-02-29T10:00:00Z": False,
    "2024-02-30T10:00:00Z": False,
    "2024-04-31T10:00:00Z": False,
    "2024-13-01T10:00:00Z": False,
    "2024-00-10T10:00:00Z": False,
    "2024-01-01T25:00:00Z": False,
    "2024-01-01T23:60:00Z": False,
    "2024-01-01T23:59:60Z": True,  # leap second: the last second of a UTC day
    "1998-12-31T15:59:60.123-08:00": True,  # 23:59:60 UTC (the JSON-Schema-Test-Suite's cases)
    "1998-12-31T01:29:60+01:30": True,
    "1998-12-31T00:29:60-23:30": True,
    "1998-12-31T23:29:60+23:30": True,
    "1998-12-31T23:58:60Z": False,  # a leap second at the wrong minute...
    "1998-12-31T22:59:60Z": False,  # ...or hour
    "2026-11-20T12:30:60Z": False,
    "1998-12-31T23:59:60+01:00": False,  # 22:59:60 UTC
    "2024-01-01T23:59:61Z": False,
    "2024-01-01T10:00:00+23:59": True,
    "2024-01-01T10:00:00+24:00": False,
    "2024-01-01T10:00:00-00:60": False,
    "2024-01-01T10:00:00.123456789+01:00": True,
    "2021-11-03T10:53:52.427343": False,  # naive
    "2021-11-03": False,  # date only
    "2024-01-01 10:00:00Z": False,  # a space is not RFC 3339's T
    "2024-01-01T10:00:00Z\n": False,
    "2024-01-01T10:00Z": False,
    "\uff12\uff10\uff12\uff14-01-01T10:00:00Z": False,  # full-width (non-ASCII) digits
}
URIS = {
    "https://github.com/OpenLineage/OpenLineage/tree/1.40.0/integration/spark": True,
    "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent": True,
    "file:/tmp/warehouse": True,
    "file:///tmp/x": True,
    "urn:x": True,
    "mailto:a@b.c": True,
    "x:": True,
    "http://[::1]:8080/a?b#c": True,
    "http://[v1.x]/": True,
    "http://user:pw@host/": True,
    "file": False,  # the Spark agent's dataSource.uri
    "bigquery": False,
    "s3://bucket/a key": False,
    "https://ex.com/%zz": False,
    "https://ex.com/ü": False,  # an IRI, not a URI
    "http://[1::2::3]/": False,
    "1http://x": False,
    "": False,
}
UUIDS = {
    RUN: True,
    RUN.upper(): True,
    RUN[:-1]: False,
    RUN.replace("-", ""): False,
    "{" + RUN + "}": False,
    "urn:uuid:" + RUN: False,
    RUN[:-1] + "g": False,
}


def parses(field: str, value: str) -> bool:
    document = {
        "eventTime": "2024-01-01T00:00:00Z",
        "producer": "https://p",
        "schemaURL": "https://s",
        "run": {"runId": RUN},
        "job": {"namespace": "n", "name": "j"},
    }
    if field == "runId":
        document["run"] = {"runId": value}
    else:
        document[field] = value
    try:
        olsdk.parse_event(document)
    except olsdk.ValidationError:
        parsed = False
    else:
        parsed = True
    assert parsed == (olsdk.validate_event(document) == [])
    return parsed


@pytest.mark.parametrize(("value", "valid"), DATE_TIMES.items())
def test_date_time(value: str, valid: bool) -> None:
    assert matches(DATETIME_PATTERN, value) is valid
    assert is_date_time(value) is valid
    assert parses("eventTime", value) is valid


@pytest.mark.parametrize(("value", "valid"), URIS.items())
def test_uri(value: str, valid: bool) -> None:
    assert matches(URI_PATTERN, value) is valid
    assert is_uri(value) is valid
    assert parses("producer", value) is valid


@pytest.mark.parametrize(("value", "valid"), UUIDS.items())
def test_uuid(value: str, valid: bool) -> None:
    assert matches(UUID_PATTERN, value) is valid
    assert is_uuid(value) is valid
    assert parses("runId", value) is valid


def test_rules_say_what_is_wrong() -> None:
    problems = olsdk.validate_event(
        {
            "eventTime": "2024-02-30T00:00:00Z",
            "producer": "file",
            "schemaURL": "https://s",
            "run": {"runId": "nope"},
            "job": {"namespace": "n", "name": "j"},
        }
    )
    rules = {p.path: p.rule for p in problems}
    assert "RFC 3339" in rules["eventTime"]
    assert "absolute URI" in rules["producer"]
    assert "UUID" in rules["run.runId"]
