"""CallbackTransport: every event to a function, failures spooled like any transport's."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

import olsdk
from olsdk.client import DeliveryError, OpenLineageClient, Spool
from olsdk.models import EventType, Job, Run, RunEvent
from olsdk.transports import CallbackTransport, Payload
from tests.support.client_testkit import collecting_client, run_event


def test_fn_gets_the_payload_with_body_and_routing_facts() -> None:
    client, sent = collecting_client()
    event = RunEvent(
        eventType=EventType.START,
        run=Run(runId="0190e5c6-5d4a-7b1e-8c3f-1a2b3c4d5e6f"),
        job=Job(namespace="n", name="j"),
    )
    client.emit(event)
    client.emit(run_event(job="as-dict", event_type="COMPLETE"))
    first, second = sent
    assert first.body == olsdk.to_json(event).encode()  # exactly what the client serialised
    assert (first.kind, first.run_id, first.event_type, first.job_name) == (
        "run",
        "0190e5c6-5d4a-7b1e-8c3f-1a2b3c4d5e6f",
        "START",
        "j",
    )
    assert olsdk.parse_event(first.body) == event
    assert second.event() == run_event(job="as-dict", event_type="COMPLETE")


def test_an_exception_in_fn_is_a_delivery_failure_that_is_spooled(tmp_path: Path) -> None:
    def broken(payload: Payload) -> None:
        raise KeyError("no table")

    client = OpenLineageClient(CallbackTransport(broken), spool=tmp_path / "spool", environ={})
    client.emit(run_event())  # the default policy logs: the caller's job goes on
    (record,) = Spool(tmp_path / "spool").records()
    assert record["target"] == "callback"
    where = "test_an_exception_in_fn_is_a_delivery_failure_that_is_spooled.<locals>.broken"
    assert record["reason"] == f"callback {where} raised KeyError: 'no table'"
    assert record["event"] == run_event()
    raising = OpenLineageClient(CallbackTransport(broken, name="sink"), error_policy="raise", spool=False, environ={})
    with pytest.raises(DeliveryError, match="raised KeyError") as err:
        raising.emit(run_event())
    assert err.value.target == "sink" and isinstance(err.value.__cause__, KeyError)


def test_a_delivery_error_from_fn_is_passed_on_as_it_is() -> None:
    def refuse(payload: Payload) -> None:
        raise DeliveryError("quota exceeded", target="warehouse", retriable=False)

    with pytest.raises(DeliveryError) as err:
        CallbackTransport(refuse).send(Payload.from_json(json.dumps(run_event())))
    assert (err.value.reason, err.value.target, err.value.retriable) == ("quota exceeded", "warehouse", False)


def test_calls_are_serialised_and_reentrant() -> None:
    inside = 0
    most_inside = 0
    seen: list[str | None] = []
    guard = threading.Lock()

    def record(payload: Payload) -> None:
        nonlocal inside, most_inside
        with guard:
            inside += 1
            most_inside = max(most_inside, inside)
        seen.append(payload.job_name)
        threading.Event().wait(0.001)  # give another thread the chance to enter
        with guard:
            inside -= 1

    transport = CallbackTransport(record)
    body = Payload.from_json(json.dumps(run_event()))

    def send_50() -> None:
        for _ in range(50):
            transport.send(body)

    threads = [threading.Thread(target=send_50) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seen) == 200 and most_inside == 1

    nested: list[str] = []

    def forward(payload: Payload) -> None:  # a callback that emits again on the same thread
        nested.append("outer")
        if len(nested) == 1:
            again.send(payload)

    again = CallbackTransport(forward)
    again.send(body)
    assert nested == ["outer", "outer"]


def test_fn_must_be_callable() -> None:
    with pytest.raises(TypeError, match="fn must be callable, got str"):
        CallbackTransport("print")  # type: ignore[arg-type]
