"""`olsdk send FOLDER`: a folder sends its event files, as validate, graph and inspect read them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.client_testkit import LineageServer, run_event
from tests.support.processes import run_cli


def events(count: int) -> list[dict[str, Any]]:
    return [
        run_event(job="j", run_id="0190e5c6-0000-7000-8000-000000000001", event_type="RUNNING", seq=i)
        for i in range(count)
    ]


def test_send_takes_a_folder_and_sends_its_event_files_in_name_order(tmp_path: Path) -> None:
    sent = events(5)
    folder = tmp_path / "lineage"
    (folder / "later").mkdir(parents=True)
    (folder / "a.ndjson").write_text("\n".join(json.dumps(e) for e in sent[:2]) + "\n")
    (folder / "b.json").write_text(json.dumps(sent[2], indent=2))
    (folder / "later" / "c.jsonl").write_text("\n".join(json.dumps(e) for e in sent[3:]) + "\n")
    (folder / "notes.txt").write_text("not an event file: never read\n")
    server = LineageServer()
    try:
        done = run_cli("send", "lineage", home=tmp_path, OPENLINEAGE_URL=server.url)
        received = list(server.events)
    finally:
        server.stop()
    assert done.returncode == 0, done.stderr
    assert received == sent
    assert "delivered 5, spooled 0" in done.stdout


def test_a_folder_and_files_mix(tmp_path: Path) -> None:
    sent = events(3)
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "x.json").write_text(json.dumps(sent[1]))
    (tmp_path / "first.json").write_text(json.dumps(sent[0]))
    (tmp_path / "last.ndjson").write_text(json.dumps(sent[2]) + "\n")
    server = LineageServer()
    try:
        done = run_cli("send", "first.json", "dir", "last.ndjson", home=tmp_path, OPENLINEAGE_URL=server.url)
        received = list(server.events)
    finally:
        server.stop()
    assert done.returncode == 0, done.stderr
    assert received == sent


def test_a_missing_path_or_a_folder_without_event_files_exits_2(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "readme.txt").write_text("nothing to send")
    server = LineageServer()
    try:
        missing = run_cli("send", "nowhere", home=tmp_path, OPENLINEAGE_URL=server.url)
        empty = run_cli("send", "empty", home=tmp_path, OPENLINEAGE_URL=server.url)
        posts = len(server.requests)
    finally:
        server.stop()
    assert missing.returncode == 2 and "no such file or folder: nowhere" in missing.stderr
    assert empty.returncode == 2
    assert "empty: a folder with no event files (.json, .ndjson, .jsonl) in it" in empty.stderr
    assert posts == 0
