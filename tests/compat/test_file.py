"""The file transport writes what the official client's file transport writes: one file
per event by default, the same names (plain and debug mode), appending on request, and
remote paths through fsspec with the official keys."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from olsdk.transports import Payload, create_transport
from tests.support.official import official_run_event, to_json


def official_file(config: dict[str, Any]) -> Any:
    from openlineage.client.transport.file import FileConfig, FileTransport

    return FileTransport(FileConfig.from_dict(config))


def shapes(folder: Path, stem: str) -> list[str]:
    """File names with their timestamps replaced by T (compared as shapes)."""
    names = (p.name for p in folder.iterdir() if p.name.startswith(stem))
    return sorted(re.sub(r"\d{6,8}(-|T)\d{6}\.\d{6}", "T", n) for n in names)


@pytest.mark.parametrize("debug_mode", [False, True])
def test_default_is_one_file_per_event_named_like_the_official_client(tmp_path: Path, debug_mode: bool) -> None:
    events = [official_run_event("a.b/c", "START"), official_run_event("a.b/c", "COMPLETE")]
    theirs, ours = tmp_path / "theirs", tmp_path / "ours"
    theirs.mkdir(), ours.mkdir()
    official = official_file({"log_file_path": str(theirs / "ol"), "debug_mode": debug_mode})
    mine = create_transport({"type": "file", "log_file_path": str(ours / "ol"), "debug_mode": debug_mode})
    for event in events:
        official.emit(event)
        mine.send(Payload.from_json(to_json(event)))
    assert shapes(ours, "ol") == shapes(theirs, "ol")
    assert len(shapes(ours, "ol")) == 2
    if debug_mode:
        assert shapes(ours, "ol") == ["ol-T-a.b__c-COMPLETE.json", "ol-T-a.b__c-START.json"]
    for mine_file, their_file in zip(sorted(ours.iterdir()), sorted(theirs.iterdir()), strict=True):
        mine_text, their_text = mine_file.read_text(), their_file.read_text()
        assert json.loads(mine_text) == json.loads(their_text)
        assert mine_text.count("\n") > 2 if debug_mode else mine_text.count("\n") == 1  # indented in debug mode


def test_append_writes_ndjson_like_the_official_client(tmp_path: Path) -> None:
    official = official_file({"log_file_path": str(tmp_path / "theirs.ndjson"), "append": True})
    mine = create_transport({"type": "file", "log_file_path": str(tmp_path / "ours.ndjson"), "append": True})
    for event_type in ("START", "COMPLETE"):
        event = official_run_event("job", event_type)
        official.emit(event)
        mine.send(Payload.from_json(to_json(event)))
    mine.close()
    ours = [json.loads(line) for line in (tmp_path / "ours.ndjson").read_text().splitlines()]
    theirs = [json.loads(line) for line in (tmp_path / "theirs.ndjson").read_text().splitlines()]
    assert ours == theirs and len(ours) == 2


def test_remote_paths_go_through_fsspec_with_the_official_keys() -> None:
    import fsspec

    memory = fsspec.filesystem("memory")
    event = official_run_event("remote", "START")
    official_file({"log_file_path": "memory://theirs/ol", "append": False}).emit(event)
    mine = create_transport({"type": "file", "log_file_path": "memory://ours/ol"})
    mine.send(Payload.from_json(to_json(event)))
    theirs, ours = memory.ls("/theirs", detail=False), memory.ls("/ours", detail=False)
    assert len(theirs) == len(ours) == 1
    assert json.loads(memory.cat(ours[0])) == json.loads(memory.cat(theirs[0]))
    # an explicit file system by dotted path, built with fs_kwargs
    explicit = create_transport(
        {
            "type": "file",
            "log_file_path": "/explicit/ol.ndjson",
            "append": True,
            "filesystem": "fsspec.implementations.memory.MemoryFileSystem",
            "fs_kwargs": {},
        }
    )
    explicit.send(Payload.from_json(to_json(event)))
    explicit.send(Payload.from_json(to_json(event)))
    assert memory.cat("/explicit/ol.ndjson").count(b"\n") == 2
    for path in ("/theirs", "/ours", "/explicit"):
        memory.rm(path, recursive=True)
