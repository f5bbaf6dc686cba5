"""``olsdk config show`` and ``olsdk replay``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from olsdk._cli import main
from olsdk.client import OpenLineageClient
from tests.support.client_testkit import LineageServer, run_event, write_yml
from tests.support.client_testkit import http_config as http


def test_config_show_masks_secrets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    write_yml(
        tmp_path / "openlineage.yml",
        http("https://u:hunter2@lineage.example", auth={"type": "api_key", "apiKey": "abc"}),
    )
    monkeypatch.setenv("OPENLINEAGE__TRANSPORT__TIMEOUT", "9")
    assert main(["config", "show"]) == 0
    out = capsys.readouterr().out
    assert "hunter2" not in out and "abc" not in out.replace("# ", "")
    assert "apiKey: '***'" in out
    assert "timeout: 9.0    # environment variable OPENLINEAGE__TRANSPORT__TIMEOUT" in out
    assert str(tmp_path / "openlineage.yml") in out
    monkeypatch.setenv("OPENLINEAGE__TRANSPORT__TIMEOUT", "later")
    assert main(["config", "show"]) == 2
    assert "OPENLINEAGE__TRANSPORT__TIMEOUT" in capsys.readouterr().err


def test_config_show_prints_every_effective_value_with_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    for key in [k for k in os.environ if k.startswith("OPENLINEAGE")]:
        monkeypatch.delenv(key)
    write_yml(tmp_path / "openlineage.yml", http("https://lineage.example", timeout=3))
    monkeypatch.setenv("OPENLINEAGE__TRANSPORT__TIMEOUT", "9")  # the file wins, as in the official client
    assert main(["config", "show"]) == 0
    out = capsys.readouterr().out
    assert f"timeout: 3.0    # {tmp_path / 'openlineage.yml'}" in out
    assert "endpoint: api/v1/lineage    # default" in out
    assert f"path: {tmp_path / 'state' / 'olsdk' / 'spool.ndjson'}    # default" in out
    assert "total: 5    # default" in out and "status_forcelist: [429, 500, 502, 503, 504]    # default" in out
    assert "producer: https://github.com/olsdk/olsdk    # default" in out
    (tmp_path / "openlineage.yml").unlink()
    monkeypatch.delenv("OPENLINEAGE__TRANSPORT__TIMEOUT")
    assert main(["config", "show", "--format", "json"]) == 0
    shown = json.loads(capsys.readouterr().out)["effective"]
    assert shown["transport.type"] == {"value": "console", "origin": "default (no transport configured)"}


def test_config_show_json_names_each_origin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    for key in [k for k in os.environ if k.startswith("OPENLINEAGE")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("OPENLINEAGE_URL", "https://u:pw@lineage.example")
    assert main(["config", "show", "--format", "json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["config"]["transport"]["url"] == "https://u:***@lineage.example"
    assert shown["origins"]["transport.url"] == "environment variable OPENLINEAGE_URL"
    assert shown["file"] is None and shown["disabled"] is False


def test_cli_replay(
    server: LineageServer,
    free_port: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    spool = tmp_path / "spool.ndjson"
    down = OpenLineageClient(
        config={"transport": {"type": "http", "retry": {"total": 0}, "url": f"http://127.0.0.1:{free_port}"}},
        spool=spool,
        environ={},
    )
    down.emit(run_event())
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("OPENLINEAGE_URL", server.url)
    assert main(["replay", str(spool), "--dry-run"]) == 0
    assert "would resend 1" in capsys.readouterr().out
    assert main(["replay", str(spool)]) == 0
    assert "delivered 1, kept 0" in capsys.readouterr().out
    assert server.events == [run_event()]
