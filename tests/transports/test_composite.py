"""The composite transport: fan-out, partial failures, fail-fast, replay to one child."""

from __future__ import annotations

from pathlib import Path

import pytest

from olsdk.client import ConfigError, DeliveryError, OpenLineageClient, Spool, replay
from olsdk.transports import CallbackTransport, CompositeSettings, CompositeTransport, Payload, create_transport
from tests.support.client_testkit import LineageServer, run_event


@pytest.mark.slow
def test_composite_partial_failure_spools_for_the_failed_child_only(
    server: LineageServer, free_port: int, tmp_path: Path
) -> None:
    log = tmp_path / "events.ndjson"
    spool = tmp_path / "spool"
    config = {
        "type": "composite",
        "transports": {
            "file": {"type": "file", "log_file_path": str(log), "append": True},
            "marquez": {"type": "http", "url": f"http://127.0.0.1:{free_port}", "retry": {"total": 0}},
        },
    }
    with OpenLineageClient(config={"transport": config, "error_policy": "raise"}, spool=spool, environ={}) as client:
        client.emit(run_event())  # partial failure: not raised even in raise mode
    assert len(log.read_text().splitlines()) == 1
    (record,) = Spool(spool).records()
    assert record["target"] == "marquez"

    # replay resends to that child only: the file gets no duplicate
    config["transports"]["marquez"]["url"] = server.url  # type: ignore[index]
    transport = create_transport(config)
    result = replay(spool, transport)
    transport.close()
    assert result.delivered == 1 and len(server.events) == 1
    assert len(log.read_text().splitlines()) == 1


def test_composite_fail_fast(free_port: int, tmp_path: Path) -> None:
    config = {
        "type": "composite",
        "continue_on_failure": False,
        "transports": [
            {"type": "http", "url": f"http://127.0.0.1:{free_port}", "retry": {"total": 0}, "name": "down"},
            {"type": "file", "log_file_path": str(tmp_path / "ev.ndjson"), "name": "file"},
        ],
    }
    client = OpenLineageClient(
        config={"transport": config, "error_policy": "raise"}, spool=tmp_path / "spool", environ={}
    )
    assert isinstance(client.transport, CompositeTransport)
    with pytest.raises(DeliveryError, match="2 of 2 transports failed") as failed:
        client.emit(run_event())
    # not attempted after the failure (the relay's thread may deliver it to `file` at once)...
    assert "file: not attempted after down failed" in str(failed.value)
    client.close()
    # ...but kept for it, so nothing is lost: the store owes it to `file` (its relay delivers
    # it, or a later client does) and gives `down`'s up for `olsdk replay`
    delivered = bool(list(tmp_path.glob("ev.ndjson*")))  # one file per event, suffixed
    targets = sorted(r["target"] for r in Spool(tmp_path / "spool").records())
    assert targets == (["down"] if delivered else ["down", "file"])


def test_children_sorted_by_priority_and_stop_after_first_success() -> None:
    got: dict[str, list[Payload]] = {"low": [], "high": []}
    children = [
        CallbackTransport(got["low"].append, name="low", priority=1),
        CallbackTransport(got["high"].append, name="high", priority=5),
    ]
    settings = CompositeSettings(transports=[], sort_transports=True, continue_on_success=False)
    composite = CompositeTransport(children, settings)
    assert [t.label for t in composite.transports] == ["high", "low"]
    composite.send(Payload.from_json('{"job": {"namespace": "n", "name": "j"}}'))
    assert (len(got["high"]), len(got["low"])) == (1, 0)


def test_configured_children_keep_names_and_order(tmp_path: Path) -> None:
    transport = create_transport(
        {
            "type": "composite",
            "transports": {
                "a": {"type": "file", "log_file_path": str(tmp_path / "a")},
                "gone": None,  # emptied (e.g. overridden to null): skipped
                "b": {"type": "console", "priority": "3"},
            },
        }
    )
    assert isinstance(transport, CompositeTransport)
    assert [(t.label, t.priority) for t in transport.transports] == [("a", 0), ("b", 3)]
    with pytest.raises(ConfigError, match="a composite needs at least one transport"):
        create_transport({"type": "composite", "transports": {}})


def test_a_failing_child_does_not_stop_the_others(tmp_path: Path) -> None:
    delivered: list[Payload] = []

    def broken(payload: Payload) -> None:
        raise RuntimeError("bug in a child")

    composite = CompositeTransport(
        [CallbackTransport(broken, name="broken"), CallbackTransport(delivered.append, name="ok")]
    )
    client = OpenLineageClient(composite, error_policy="raise", spool=tmp_path / "spool", environ={})
    client.emit(run_event())  # a partial failure: not raised even in raise mode
    assert len(delivered) == 1
    (record,) = Spool(tmp_path / "spool").records()
    assert record["target"] == "broken" and "RuntimeError: bug in a child" in record["reason"]
