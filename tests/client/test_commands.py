"""``olsdk config show`` and ``olsdk replay``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from olsdk._integrations._cli import main
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
    assert f"path: {tmp_path / 'state' / 'olsdk' / 'spool.db'}    # default" in out
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


REFERENCE = Path(__file__).resolve().parents[2] / "docs" / "reference" / "configuration.md"


def readme_yml() -> str:
    """The openlineage.yml example of the configuration reference ("An example")."""
    section = REFERENCE.read_text(encoding="utf-8").split("\n## An example\n", 1)[1].split("\n## ", 1)[0]
    return section.split("```yaml\n", 1)[1].split("```", 1)[0]


def test_config_show_on_the_readme_example_names_each_true_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    for key in [k for k in os.environ if k.startswith("OPENLINEAGE")]:
        monkeypatch.delenv(key)
    example = readme_yml()
    assert "filters:" in example and "producer:" in example
    yml = tmp_path / "openlineage.yml"
    yml.write_text(example + "tags:\n  job: {team: data}\n")
    monkeypatch.setenv("OPENLINEAGE__TAGS__JOB__OWNER", "platform")
    assert main(["config", "show"]) == 0  # the filters entry was a RepresenterError
    out = capsys.readouterr().out
    assert f"filters: [{{type: regex, regex: tmp_.*}}]    # {yml}" in out
    assert f"producer: https://github.com/acme/pipelines    # {yml}" in out
    assert f"    team: data    # {yml}" in out  # was `job: {...}    # default`
    assert "    owner: platform    # environment variable OPENLINEAGE__TAGS__JOB__OWNER" in out
    assert f"  url: https://lineage.example.com/marquez/    # {yml}" in out
    assert "  timeout: 5.0    # default" in out and f"    total: 5    # {yml}" in out
    assert f"    apiKey: '***'    # {yml}" in out and "change-me" not in out
    assert "    tokenRefreshBuffer: 120    # default" in out  # a number is no secret
    assert "  run: {}    # default" in out
    assert main(["config", "show", "--format", "json"]) == 0
    shown = json.loads(capsys.readouterr().out)["effective"]
    assert shown["filters"] == {"value": [{"type": "regex", "regex": "tmp_.*"}], "origin": str(yml)}
    assert shown["tags.job.owner"]["origin"] == "environment variable OPENLINEAGE__TAGS__JOB__OWNER"


def test_a_misspelt_section_names_the_file_it_is_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    for key in [k for k in os.environ if k.startswith("OPENLINEAGE")]:
        monkeypatch.delenv(key)
    yml = tmp_path / "openlineage.yml"
    yml.write_text("tranport:\n  type: http\n  url: https://lineage.example\n")
    assert main(["config", "show"]) == 2
    err = capsys.readouterr().err
    assert "tranport: unknown key; did you mean 'transport'?" in err
    assert err.rstrip().endswith(f"(from {yml})")
    yml.write_text("transport: {type: console}\n")
    monkeypatch.setenv("OPENLINEAGE__TRANPORT__TYPE", "http")
    assert main(["config", "show"]) == 2
    assert capsys.readouterr().err.rstrip().endswith("(from environment variable OPENLINEAGE__TRANPORT__TYPE)")


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
    assert down.relay is not None and down.relay.handed.tried(30)  # its attempt failed
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("OPENLINEAGE_URL", server.url)
    assert main(["replay", str(spool), "--dry-run"]) == 0
    assert "would resend 1" in capsys.readouterr().out
    # the event is owed by a client that is still open: it is that client's to deliver (its
    # relay retries), and replay leaves it alone, saying so
    assert main(["replay", str(spool)]) == 0
    assert "1 events belong to processes still running" in capsys.readouterr().out
    assert server.events == []
    down.close(0)
    assert main(["replay", str(spool)]) == 0
    assert "delivered 1, kept 0" in capsys.readouterr().out
    assert server.events == [run_event()]
