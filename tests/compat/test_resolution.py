"""The same configuration sends events to the same place in olsdk and the official client.

Every combination of a yml transport (file / http / console / none) x
``OPENLINEAGE_URL`` (set / unset) x ``OPENLINEAGE__TRANSPORT__TYPE`` (unset / http
with its URL / console): one event through each client, and where it arrived is
compared: which of three real HTTP servers on 127.0.0.1, the file, or the console.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from olsdk.client import OpenLineageClient
from tests.support.client_testkit import LineageServer, write_yml
from tests.support.official import official_env, official_run_event, to_json

YML = ("file", "http", "console", None)
URL = (True, False)
TYPE = (None, "http", "console")


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, LineageServer]]:
    started = {name: LineageServer() for name in ("OPENLINEAGE_URL", "yml http", "env http")}
    yield started
    for srv in started.values():
        srv.stop()


def setup(
    tmp_path: Path, servers: dict[str, LineageServer], yml: str | None, url: bool, kind: str | None
) -> dict[str, str]:
    env: dict[str, str] = {}
    sections: dict[str, Any] = {
        "file": {"type": "file", "log_file_path": str(tmp_path / "events")},
        "http": {"type": "http", "url": servers["yml http"].url, "retry": {"total": 0}},
        "console": {"type": "console"},
    }
    if yml is not None:
        write_yml(tmp_path / "openlineage.yml", {"transport": sections[yml]})
    if url:
        env["OPENLINEAGE_URL"] = servers["OPENLINEAGE_URL"].url
    if kind is not None:
        env["OPENLINEAGE__TRANSPORT__TYPE"] = kind
    if kind == "http":
        env["OPENLINEAGE__TRANSPORT__URL"] = servers["env http"].url
    return env


def where(tmp_path: Path, servers: dict[str, LineageServer], before: dict[str, int], console: bool) -> list[str]:
    places = [name for name, srv in servers.items() if len(srv.events) > before[name]]
    files = list(tmp_path.glob("events*"))
    if files:
        places.append("file")
        for file in files:
            file.unlink()
    if console:
        places.append("console")
    return places


@pytest.mark.parametrize(("yml", "url", "kind"), list(itertools.product(YML, URL, TYPE)))
def test_same_destination_as_the_official_client(
    yml: str | None,
    url: bool,
    kind: str | None,
    tmp_path: Path,
    servers: dict[str, LineageServer],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    restore_environ: None,
) -> None:
    from openlineage.client import OpenLineageClient as Official

    env = setup(tmp_path, servers, yml, url, kind)
    official_env(monkeypatch, tmp_path, env)
    event = official_run_event()

    # olsdk first: the official client writes variables of its own into os.environ
    before = {name: len(srv.events) for name, srv in servers.items()}
    capsys.readouterr()
    ours = OpenLineageClient(spool=False)
    ours.emit(to_json(event))
    ours.close(5)
    olsdk_went = where(tmp_path, servers, before, console='"eventType"' in capsys.readouterr().out)

    before = {name: len(srv.events) for name, srv in servers.items()}
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="openlineage.client.transport.console"):
        official = Official()
        official.emit(event)
        official.close(5)
    console = any('"eventType"' in r.getMessage() for r in caplog.records if r.name.endswith("console"))
    official_went = where(tmp_path, servers, before, console=console)

    assert official_went, "the official client delivered nowhere"
    assert olsdk_went == official_went
