"""The console transport."""

from __future__ import annotations

import json

import pytest

from olsdk.transports import ConsoleSettings, ConsoleTransport, Payload
from tests.support.client_testkit import run_event


def test_console_transport(capsys: pytest.CaptureFixture[str]) -> None:
    event = run_event()
    ConsoleTransport().send(Payload.from_json(json.dumps(event)))
    ConsoleTransport(ConsoleSettings(pretty=True)).send(Payload.from_json(json.dumps(event)))
    out = capsys.readouterr().out
    first, rest = out.split("\n", 1)
    assert json.loads(first) == event
    assert json.loads(rest) == event and "\n  " in rest
