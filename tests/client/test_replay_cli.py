"""``olsdk replay`` and ``olsdk send``: progress, a summary, a stop when the backend is down, nothing lost."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path
from typing import Any

from olsdk.client import OpenLineageClient, Spool
from olsdk.transports import CallbackTransport, DeliveryError, Payload
from tests.support.client_testkit import run_event
from tests.support.fault_server import FaultServer, Ledger
from tests.support.processes import ROOT, child_env, run_cli


def seq_events(count: int) -> list[dict[str, Any]]:
    return [
        run_event(job=f"j{i % 3}", run_id=f"0190e5c6-0000-7000-8000-{i % 3:012d}", event_type="RUNNING", seq=i)
        for i in range(count)
    ]


def spool_of(events: list[dict[str, Any]], path: Path) -> Path:
    def refuse(payload: Payload) -> None:
        raise DeliveryError("down", target="http")

    client = OpenLineageClient(CallbackTransport(refuse), spool=path, environ={})
    for event in events:
        client.emit(event)
    client.close()
    return path


def test_replay_with_the_backend_down_stops_after_three_failures_and_keeps_the_rest(tmp_path: Path) -> None:
    events = seq_events(12)
    spool = spool_of(events, tmp_path / "spool.ndjson")
    server = FaultServer()
    server.script.extend([503] * 100)  # down for every post
    try:
        done = run_cli(
            "replay", str(spool), home=tmp_path, OPENLINEAGE_URL=server.url, OPENLINEAGE__TRANSPORT__RETRY__TOTAL="0"
        )
        posts = server.posts
    finally:
        server.stop()
    assert done.returncode == 1
    assert posts == 3  # three tries, then it stops instead of trying every event
    assert "replay stopped: 3 failures in a row, the last: HTTP 503" in done.stderr
    assert "delivered 0, kept 12" in done.stdout
    assert [r["event"] for r in Spool(spool).records()] == events  # all kept, in order


def test_replay_of_a_missing_spool_exits_2(tmp_path: Path) -> None:
    done = run_cli("replay", str(tmp_path / "nope.ndjson"), home=tmp_path, OPENLINEAGE_URL="http://127.0.0.1:9")
    assert (done.returncode, done.stdout) == (2, "")
    assert f"no spool file at {tmp_path / 'nope.ndjson'}" in done.stderr


def test_replay_of_plain_events_points_to_send(tmp_path: Path) -> None:
    plain = tmp_path / "events.ndjson"
    plain.write_text("\n".join(json.dumps(e) for e in seq_events(2)) + "\n")
    done = run_cli("replay", str(plain), home=tmp_path, OPENLINEAGE_URL="http://127.0.0.1:9")
    assert done.returncode == 2
    assert f"holds plain events, not spool records; send them with `olsdk send {plain}`" in done.stderr


def test_progress_shows_on_a_terminal_and_the_summary_always(tmp_path: Path) -> None:
    events = seq_events(300)
    spool = spool_of(events, tmp_path / "spool.ndjson")
    server = FaultServer()
    server.latency = 0.005  # long enough for a few progress lines
    primary, replica = pty.openpty()
    try:
        code = "import sys; from olsdk._integrations._cli import main; sys.exit(main(sys.argv[1:]))"
        proc = subprocess.Popen(
            [sys.executable, "-c", code, "replay", str(spool)],
            cwd=tmp_path,
            env=child_env(tmp_path, OPENLINEAGE_URL=server.url),
            stdout=subprocess.PIPE,
            stderr=replica,
            text=True,
        )
        os.close(replica)
        out, _ = proc.communicate(timeout=120)
        shown = b""
        while True:
            try:
                chunk = os.read(primary, 65536)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(primary)
        server.stop()
    assert proc.returncode == 0
    assert b"replay: " in shown and b" delivered, 0 failed (" in shown and b"events/s)" in shown
    assert out.startswith(f"delivered 300, kept 0 in {spool}")
    assert len(server.events()) == 300


def test_send_takes_ndjson_json_and_array_files_and_names_bad_lines(tmp_path: Path) -> None:
    events = seq_events(7)
    (tmp_path / "a.ndjson").write_text("\n".join(json.dumps(e) for e in events[:3]) + "\n\nnot json\n[1]\n")
    (tmp_path / "b.json").write_text(json.dumps(events[3], indent=2))
    (tmp_path / "c.json").write_text(json.dumps(events[4:], indent=2))
    server = FaultServer()
    try:
        done = run_cli("send", "a.ndjson", "b.json", "c.json", home=tmp_path, OPENLINEAGE_URL=server.url)
        stored = server.events()
    finally:
        server.stop()
    assert stored == events
    assert done.returncode == 1  # two lines were not events
    assert "delivered 7, spooled 0, refused 2 (not events)" in done.stdout
    assert "a.ndjson:5: not sent: not valid JSON" in done.stderr
    assert "a.ndjson:6: not sent: an OpenLineage event must be a JSON object, got an array" in done.stderr


def test_send_with_the_backend_down_spools_the_rest_and_replay_finishes(tmp_path: Path) -> None:
    events = seq_events(20)
    (tmp_path / "events.ndjson").write_text("\n".join(json.dumps(e) for e in events) + "\n")
    server = FaultServer()
    server.script.extend([503] * 3)
    try:
        url, no_retries = server.url, "0"
        sent = run_cli(
            "send", "events.ndjson", home=tmp_path, OPENLINEAGE_URL=url, OPENLINEAGE__TRANSPORT__RETRY__TOTAL=no_retries
        )
        spool = tmp_path / "state" / "olsdk" / "spool.db"
        spooled = [r["event"] for r in Spool(spool).records()]
        replayed = run_cli(
            "replay", home=tmp_path, OPENLINEAGE_URL=url, OPENLINEAGE__TRANSPORT__RETRY__TOTAL=no_retries
        )
        ledger = Ledger.count(events, server.events(), spooled)
    finally:
        server.stop()
    assert sent.returncode == 1 and "send stopped: 3 failures in a row" in sent.stderr
    assert "delivered 0, spooled 20 to" in sent.stdout
    assert replayed.returncode == 0 and "delivered 20, kept 0" in replayed.stdout
    assert ledger == Ledger(20, 20, 0, 20, 0)


def test_cli_entry_point_lists_both_commands() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "olsdk._integrations._cli", "--help"], capture_output=True, text=True, cwd=ROOT
    )
    assert "replay" in done.stdout and "send" in done.stdout


def invalid_event() -> dict[str, Any]:
    return run_event(job="broken", run_id="not-a-uuid", event_type="BEGIN")


def test_send_refuses_an_event_that_breaks_the_spec_and_lists_its_problems(tmp_path: Path) -> None:
    good = seq_events(2)
    (tmp_path / "events.ndjson").write_text(
        "\n".join(json.dumps(e) for e in [good[0], invalid_event(), good[1]]) + "\n"
    )
    server = FaultServer()
    try:
        done = run_cli("send", "events.ndjson", home=tmp_path, OPENLINEAGE_URL=server.url)
        stored = server.events()
    finally:
        server.stop()
    assert stored == good  # the invalid one was not sent
    assert done.returncode == 1
    assert "events.ndjson:2: breaks the OpenLineage spec, not sent (--force sends it): 2 problems" in done.stderr
    assert "  run.runId: not a UUID" in done.stderr
    assert "  eventType: must be one of 'START'" in done.stderr  # the problems `olsdk validate` reports
    assert "delivered 2, spooled 0, 1 invalid event (not sent: --force sends them)" in done.stdout


def test_send_force_sends_an_invalid_event_with_a_warning(tmp_path: Path) -> None:
    events = [invalid_event(), *seq_events(1)]
    (tmp_path / "events.json").write_text(json.dumps(events, indent=2))
    server = FaultServer()
    try:
        done = run_cli("send", "--force", "events.json", home=tmp_path, OPENLINEAGE_URL=server.url)
        stored = server.events()
    finally:
        server.stop()
    assert stored == events
    assert done.returncode == 0, done.stderr
    assert "events.json:1: breaks the OpenLineage spec, sent anyway (--force): 2 problems" in done.stderr
    assert "delivered 2, spooled 0, 1 invalid event (sent: --force)" in done.stdout


def test_send_help_is_its_own(tmp_path: Path) -> None:
    done = run_cli("send", "--help", home=tmp_path)
    assert done.returncode == 0
    assert done.stdout.startswith("usage: olsdk send ")
    assert "Send event files through the configured transport" in done.stdout and "--force" in done.stdout
    assert "replay [SPOOL]" not in done.stdout and "``" not in done.stdout
