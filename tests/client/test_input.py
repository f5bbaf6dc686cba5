"""What emit() accepts, and what it refuses: refused input is kept in the spool, never sent or dropped."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

import olsdk
from olsdk.client import OpenLineageClient, Spool
from olsdk.transports import CallbackTransport, Payload
from tests.support.client_testkit import collecting_client, run_event


def refused_records(spool: Path) -> list[dict[str, Any]]:
    return [r for r in Spool(spool).records() if "raw" in r]


def emit_and_spool(event: object, tmp_path: Path, **kwargs: Any) -> tuple[list[Payload], list[dict[str, Any]]]:
    client, sent = collecting_client(spool=tmp_path / "spool", **kwargs)
    client.emit(event)
    assert client.close() is False  # something was spooled instead of delivered
    return sent, refused_records(tmp_path / "spool")


@pytest.mark.parametrize(
    ("event", "reason", "kept"),
    [
        ({**run_event(), "seq": float("nan")}, "holds NaN or Infinity", "NaN"),
        (
            {**run_event(), "run": {"runId": run_event()["run"]["runId"], "x": float("inf")}},
            "holds NaN or Infinity",
            "Infinity",
        ),
        (json.dumps(run_event())[:-1] + ', "seq": NaN}', "the JSON text holds NaN", "NaN"),
        ('{"eventType": -Infinity}', "the JSON text holds -Infinity", "-Infinity"),
        ([run_event()], "a list is not an event", '"eventType"'),
        ("[1, 2]", "must be a JSON object, got an array", "[1, 2]"),
        ("just words", "not valid JSON", "just words"),
        ('"a string"', "must be a JSON object, got a string", "a string"),
        (42, "a int is not an event", "42"),
        (object(), "a object is not an event", "object object at"),
        ("job \ud800", "a lone surrogate at character 4", "\\ud800"),
        (b'{"job": "\xff"}', "not UTF-8 text (byte 9)", "\\xff"),
        (run_event(job="\udc80"), "a lone surrogate", "\\udc80"),
    ],
)
def test_what_is_no_event_is_refused_with_a_reason_and_kept(
    event: object, reason: str, kept: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="olsdk"):
        sent, records = emit_and_spool(event, tmp_path)
    assert sent == []  # never sent: a backend would get text that is not an event, or not JSON
    (record,) = records
    assert reason in record["reason"] and record["retriable"] is False and record["target"] == "client"
    assert kept in record["raw"]
    assert "cannot be serialised" in caplog.text and reason in caplog.text and "spooled to" in caplog.text


def test_nan_is_refused_with_its_json_path_under_the_raise_policy(tmp_path: Path) -> None:
    event = run_event()
    event["run"]["facets"] = {"stats": {"_producer": "https://p", "_schemaURL": "https://s", "rows": float("nan")}}
    client, sent = collecting_client(spool=tmp_path / "spool", error_policy="raise")
    with pytest.raises(olsdk.ValidationError, match=r"run\.facets\.stats\.rows: holds NaN or Infinity"):
        client.emit(event)
    assert sent == [] and len(refused_records(tmp_path / "spool")) == 1  # raised and kept


def test_no_recursion_error_escapes(tmp_path: Path) -> None:
    deep: dict[str, Any] = {}
    node = deep
    for _ in range(100_000):
        node["x"] = {}
        node = node["x"]
    text = '{"a":' * 100_000 + "1" + "}" * 100_000
    client, sent = collecting_client(spool=tmp_path / "spool")
    client.emit({**run_event(), "deep": deep})
    client.emit(text)
    strict, _ = collecting_client(error_policy="raise")
    with pytest.raises(olsdk.ValidationError, match="nested deeper than Python"):
        strict.emit(text)
    reasons = [r["reason"] for r in refused_records(tmp_path / "spool")]
    assert sent == [] and len(reasons) == 2 and all("nested deeper than Python can" in r for r in reasons)


def test_an_official_client_event_is_sent_as_its_own_json() -> None:
    pytest.importorskip("openlineage.client")
    from openlineage.client.event_v2 import Job, Run, RunEvent, RunState
    from openlineage.client.serde import Serde

    official = RunEvent(
        eventType=RunState.START,
        eventTime="2024-07-01T12:00:00+00:00",
        run=Run(runId="0190e5c6-5d4a-7b1e-8c3f-1a2b3c4d5e6f"),
        job=Job(namespace="tests", name="job"),
        producer="https://example.com/tests",
    )
    client, sent = collecting_client(error_policy="raise")
    client.emit(official)
    (payload,) = sent
    assert payload.body == Serde.to_json(official).encode()
    assert (payload.run_id, payload.job_name, payload.event_type) == (str(official.run.runId), "job", "START")


def test_max_event_bytes_refuses_larger_events(tmp_path: Path) -> None:
    small = run_event()
    big = run_event(padding="x" * 2000)
    client, sent = collecting_client(spool=tmp_path / "spool", config={"max_event_bytes": 1000})
    client.emit(small)
    client.emit(big)
    assert [p.event() for p in sent] == [small]
    (record,) = refused_records(tmp_path / "spool")
    assert "over max_event_bytes (1000)" in record["reason"] and json.loads(record["raw"]) == big


def test_refused_input_without_a_spool_is_reported_lost(caplog: pytest.LogCaptureFixture) -> None:
    client = OpenLineageClient(CallbackTransport(lambda p: None), spool=False, environ={})
    with caplog.at_level(logging.ERROR, logger="olsdk"):
        client.emit([1])
        assert client.close() is False
    assert "no spool configured: it is lost" in caplog.text
    assert "1 events of this client were neither delivered nor spooled" in caplog.text
