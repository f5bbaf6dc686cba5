"""``olsdk replay``, ``send`` and ``config show`` read the configuration of Airflow's OpenLineage provider.

The provider takes ``[openlineage] config_path`` (a yml file) before ``[openlineage] transport``
(JSON), each from ``AIRFLOW__OPENLINEAGE__*`` before ``airflow.cfg``, and hands the result to
the official client over its own lookup (``OPENLINEAGE_CONFIG``, ``OPENLINEAGE__*``). The
scenarios below run the real provider in .venv-airflow as the peer: olsdk must resolve the
same transport. The error cases run olsdk in this process.
"""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from olsdk._integrations._cli import main
from olsdk.client import OpenLineageClient, Spool
from tests.airflow.harness import Site, Sites, compat, venv_bin
from tests.support.client_testkit import LineageServer, run_event

A, B, C, D = (f"http://{name}.lineage.example:5000" for name in ("a", "b", "c", "d"))


@dataclass
class Scenario:
    name: str
    expected: tuple[str, str]  # (url, endpoint) the provider's client sends to
    env: dict[str, str] = field(default_factory=dict)
    cfg: str | None = None  # [openlineage] section of $AIRFLOW_HOME/airflow.cfg
    files: dict[str, str] = field(default_factory=dict)  # written under HOME


def http(url: str, **extra: Any) -> str:
    return json.dumps({"type": "http", "url": url, **extra})


def yml(url: str, **extra: Any) -> str:
    return json.dumps({"transport": {"type": "http", "url": url, **extra}})  # JSON is YAML


SCENARIOS = [
    Scenario("transport variable", (A, "api/v1/lineage"), env={"AIRFLOW__OPENLINEAGE__TRANSPORT": http(A)}),
    Scenario("transport in airflow.cfg", (B, "api/v1/lineage"), cfg=f"transport = {http(B)}"),
    Scenario(
        "the variable over airflow.cfg",
        (A, "api/v1/lineage"),
        env={"AIRFLOW__OPENLINEAGE__TRANSPORT": http(A)},
        cfg=f"transport = {http(B)}",
    ),
    Scenario(
        "config_path over transport",
        (C, "api/v1/lineage"),
        env={"AIRFLOW__OPENLINEAGE__CONFIG_PATH": "{home}/ol.yml", "AIRFLOW__OPENLINEAGE__TRANSPORT": http(A)},
        files={"ol.yml": yml(C)},
    ),
    Scenario(
        "config_path in airflow.cfg ($HOME expanded) over the transport variable",
        (C, "api/v1/lineage"),
        env={"AIRFLOW__OPENLINEAGE__TRANSPORT": http(A)},
        cfg="config_path = $HOME/ol.yml",
        files={"ol.yml": yml(C)},
    ),
    Scenario(
        "Airflow's transport over OPENLINEAGE_CONFIG, merged key by key",
        (A, "custom/v1/lineage"),
        env={"AIRFLOW__OPENLINEAGE__TRANSPORT": http(A), "OPENLINEAGE_CONFIG": "{home}/official.yml"},
        files={"official.yml": yml(D, endpoint="custom/v1/lineage")},
    ),
    Scenario(
        "AIRFLOW_CONFIG names the file",
        (B, "api/v1/lineage"),
        env={"AIRFLOW_CONFIG": "{home}/elsewhere.cfg"},
        cfg=f"transport = {http(D)}",
        files={"elsewhere.cfg": f"[openlineage]\ntransport = {http(B)}\n"},
    ),
    Scenario(
        "%% and ${VAR} in airflow.cfg",
        ("http://b.lineage.example:5000", "api/v1/lineage%7Cq"),
        env={"LINEAGE_HOST": "b.lineage.example"},
        cfg='transport = {"type": "http", "url": "http://${LINEAGE_HOST}:5000", "endpoint": "api/v1/lineage%%7Cq"}',
    ),
    Scenario("no Airflow option: the official lookup", (D, "api/v1/lineage"), env={"OPENLINEAGE_URL": D}),
]

PROVIDER = textwrap.dedent(
    """
    import json
    from airflow.providers.openlineage.plugins.adapter import OpenLineageAdapter
    transport = OpenLineageAdapter().get_or_create_openlineage_client().transport
    print("RESOLVED " + json.dumps([transport.kind, transport.url, transport.endpoint]))
    """
)


def prepare(site: Site, scenario: Scenario) -> dict[str, str]:
    home = str(site.home)
    for name, text in scenario.files.items():
        (site.home / name).write_text(text)
    if scenario.cfg is not None:
        (site.airflow_home / "airflow.cfg").write_text(f"[openlineage]\n{scenario.cfg}\n")
    return site.env(**{k: v.replace("{home}", home) for k, v in scenario.env.items()})


@pytest.mark.airflow
def test_olsdk_resolves_what_the_provider_resolves(sites: Sites) -> None:
    python = str(venv_bin("python"))
    runs = []
    for scenario in SCENARIOS:  # the provider's processes side by side (each imports Airflow: seconds)
        site = sites.new()
        env = prepare(site, scenario)
        provider = subprocess.Popen(
            [python, "-c", PROVIDER],
            cwd=site.root,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        runs.append((scenario, site, env, provider))
    for scenario, site, env, provider in runs:
        try:
            out, _ = provider.communicate(timeout=300)
        finally:
            provider.kill()
        resolved = [line for line in out.splitlines() if line.startswith("RESOLVED ")]
        assert resolved, f"{scenario.name}: the provider printed no transport\n{out[-3000:]}"
        kind, url, endpoint = json.loads(resolved[-1].removeprefix("RESOLVED "))
        assert (kind, url, endpoint) == ("http", *scenario.expected), scenario.name
        shown = subprocess.run(
            [str(venv_bin("olsdk")), "config", "show", "--format", "json"],
            cwd=site.root,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert shown.returncode == 0, f"{scenario.name}: {shown.stderr}"
        effective = json.loads(shown.stdout)["effective"]
        got = (effective["transport.url"]["value"], effective["transport.endpoint"]["value"])
        assert got == scenario.expected, f"{scenario.name}: olsdk resolved {got}, the provider {scenario.expected}"


# -- olsdk alone (no Airflow needed) -------------------------------------------------


@pytest.fixture
def airflow_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A clean environment: HOME, AIRFLOW_HOME and the working directory in ``tmp_path``."""
    for key in [k for k in os.environ if k.startswith(("OPENLINEAGE", "AIRFLOW", "XDG_"))]:
        monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("AIRFLOW_HOME", str(tmp_path / "airflow"))
    (tmp_path / "airflow").mkdir()
    return tmp_path


def show(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["config", "show", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_config_show_names_the_airflow_source_and_masks_secrets(
    airflow_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = "s3cr3t-key-9f8e"
    (airflow_env / "airflow" / "airflow.cfg").write_text(
        "[core]\nload_examples = False\n[openlineage]\n"
        f'transport = {{"type": "http", "url": "{A}", "auth": {{"type": "api_key", "apiKey": "{secret}"}}}}\n'
    )
    code, out, _ = show(capsys)
    cfg = airflow_env / "airflow" / "airflow.cfg"
    assert code == 0
    assert f"# Airflow's OpenLineage provider: [openlineage] transport ([openlineage] transport in {cfg})" in out
    assert f"url: {A}    # [openlineage] transport ([openlineage] transport in {cfg})" in out
    assert secret not in out
    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__TRANSPORT", http(B))
    code, out, _ = show(capsys)
    assert "url: http://b.lineage.example:5000    # [openlineage] transport (environment variable" in out


def test_bad_airflow_configuration_is_an_error_naming_where_it_is(
    airflow_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__TRANSPORT", '{"type": "http", "url": "x", "apiKey": "tok-123",')
    code, _, err = show(capsys)
    assert code == 2
    assert "AIRFLOW__OPENLINEAGE__TRANSPORT" in err and "not valid JSON" in err and "tok-123" not in err
    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__TRANSPORT", '["http"]')
    code, _, err = show(capsys)
    assert code == 2 and "must be a JSON object, got list" in err
    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__CONFIG_PATH", str(airflow_env / "missing.yml"))
    code, _, err = show(capsys)
    assert code == 2
    assert f"{airflow_env / 'missing.yml'} (from [openlineage] config_path" in err and "does not exist" in err
    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__CONFIG_PATH", "")  # empty: unset, as the provider reads it
    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__TRANSPORT", http(C))
    code, out, _ = show(capsys)
    assert code == 0 and f"url: {C}" in out


def test_a_connection_config_is_not_readable_and_says_so(
    airflow_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__CONFIG_CONN_ID", "lineage_conn")
    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__TRANSPORT", http(A))  # the provider ignores it then
    monkeypatch.setenv("OPENLINEAGE_URL", D)
    code, out, _ = show(capsys)
    assert code == 0
    assert "# warning: [openlineage] config_conn_id = lineage_conn (environment variable" in out
    assert "olsdk cannot read" in out
    assert f"url: {D}" in out and A not in out


def test_disabled_in_airflow_is_shown(
    airflow_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (airflow_env / "airflow" / "airflow.cfg").write_text(f"[openlineage]\ndisabled = True\ntransport = {http(A)}\n")
    code, out, _ = show(capsys)
    assert code == 0 and "# [openlineage] disabled = True ([openlineage] disabled in" in out
    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__DISABLED", "false")
    code, out, _ = show(capsys)
    assert code == 0 and "disabled =" not in out


@pytest.mark.slow
def test_replay_finds_the_provider_transport_and_its_spool(
    airflow_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], free_port: int
) -> None:
    """What a provider's forked child left in olsdk.compat.OlsdkTransport's spool: `olsdk replay`
    with no argument finds that spool and sends it where the provider's transport points."""
    spool = airflow_env / "provider-spool.ndjson"
    down = {"type": "http", "url": f"http://127.0.0.1:{free_port}", "retry": {"total": 0}, "timeout": 2}
    client = OpenLineageClient(config={"transport": down}, spool=spool, environ={})
    for number in range(3):
        client.emit(run_event(job=f"task_{number}"))
    client.close(5)
    # written ahead: the undelivered events wait in the spool's store
    waiting = [record["event"]["job"]["name"] for record in Spool(spool).records()]
    assert sorted(waiting) == ["task_0", "task_1", "task_2"]
    server = LineageServer()
    try:
        monkeypatch.setenv(
            "AIRFLOW__OPENLINEAGE__TRANSPORT", json.dumps(compat({"type": "http", "url": server.url}, spool))
        )
        assert main(["replay"]) == 0
        out = capsys.readouterr().out
    finally:
        server.stop()
    assert f"delivered 3, kept 0 in {spool}" in out
    assert len(Spool(spool)) == 0  # finished: the store is empty
    assert sorted(e["job"]["name"] for e in server.events) == ["task_0", "task_1", "task_2"]
    code, out, _ = show(capsys)
    origin = "[openlineage] transport (environment variable AIRFLOW__OPENLINEAGE__TRANSPORT)"
    assert code == 0 and f"path: {spool}    # {origin} (the olsdk.compat.OlsdkTransport's spool)" in out
