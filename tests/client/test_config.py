"""The client's configuration (``load_config``): every section checked, parity with the
official client, and the documentation kept true."""

from __future__ import annotations

import copy
import os
import typing
from pathlib import Path
from typing import Any

import pytest

from olsdk._delivery._config import Settings, display_names
from olsdk._delivery.client._settings import ClientSettings
from olsdk.client import ConfigError, OpenLineageClient, load_config
from olsdk.transports import (
    CompositeTransport,
    FileTransport,
    HttpTransport,
    KafkaTransport,
    transport_kinds,
)
from tests.support.client_testkit import http_config as http
from tests.support.client_testkit import write_yml


@pytest.mark.kafka
def test_a_different_transport_type_replaces_the_section(tmp_path: Path) -> None:
    kafka = {"type": "kafka", "topic": "t", "config": {"bootstrap.servers": "127.0.0.1:9"}, "flush": False}
    yml = write_yml(tmp_path / "ol.yml", {"transport": kafka})
    env = {
        "OPENLINEAGE_CONFIG": str(yml),
        "OPENLINEAGE__TRANSPORT__TYPE": "http",
        "OPENLINEAGE__TRANSPORT__URL": "http://127.0.0.1:5000",
        "OPENLINEAGE__TRANSPORT__TIMEOUT": "3",
    }
    client = OpenLineageClient(environ=env, spool=False)  # the file's type wins; no http key leaks into it
    assert isinstance(client.transport, KafkaTransport)
    assert client.transport.settings.topic == "t"
    client.close(0)


def test_unknown_key_names_key_source_and_suggestion(tmp_path: Path) -> None:
    yml = write_yml(tmp_path / "ol.yml", http("http://x", timout=3))
    with pytest.raises(ConfigError) as err:
        OpenLineageClient(environ={"OPENLINEAGE_CONFIG": str(yml)}, spool=False)
    assert err.value.key == "transport.timout"
    assert "did you mean 'timeout'?" in str(err.value)
    assert str(yml) in str(err.value)


def test_unknown_nested_and_top_level_keys() -> None:
    with pytest.raises(ConfigError, match=r"transport\.retry\.totl: unknown key; did you mean 'total'"):
        load_config(http("http://x", retry={"totl": 2}), environ={})
    with pytest.raises(ConfigError, match=r"^transprt: unknown key; did you mean 'transport'"):
        load_config({"transprt": {}}, environ={})
    with pytest.raises(ConfigError, match=r"transport\.type: unknown transport 'htpp'; did you mean 'http'"):
        OpenLineageClient(config={"transport": {"type": "htpp"}}, environ={})


def test_bad_env_value_names_the_variable() -> None:
    env = {
        "OPENLINEAGE__TRANSPORT__TYPE": "http",
        "OPENLINEAGE__TRANSPORT__URL": "http://x",
        "OPENLINEAGE__TRANSPORT__TIMEOUT": "soon",
    }
    with pytest.raises(ConfigError) as err:
        OpenLineageClient(environ=env, spool=False)
    assert err.value.key == "transport.timeout"
    assert "OPENLINEAGE__TRANSPORT__TIMEOUT" in str(err.value)
    assert "expected a number" in str(err.value)


def test_missing_required_key_and_bad_url() -> None:
    with pytest.raises(ConfigError, match=r"transport\.url: required key is missing"):
        OpenLineageClient(config={"transport": {"type": "http"}}, environ={})
    with pytest.raises(ConfigError, match=r"transport\.url: need an http\(s\) URL"):
        OpenLineageClient(config=http("localhost:5000"), environ={})
    with pytest.raises(ConfigError, match=r"transport\.sslContext\.caCertPath: no such file"):
        OpenLineageClient(config=http("https://x", sslContext={"caCertPath": "/nope.pem"}), environ={})


def test_string_values_stay_strings() -> None:
    env = {
        "OPENLINEAGE__TRANSPORT__TYPE": "http",
        "OPENLINEAGE__TRANSPORT__URL": "http://x",
        "OPENLINEAGE__TRANSPORT__AUTH__TYPE": "api_key",
        "OPENLINEAGE__TRANSPORT__AUTH__APIKEY": "007",
        "OPENLINEAGE__TRANSPORT__CUSTOM_HEADERS__X_VERSION": "0123",
        "OPENLINEAGE__PRODUCER": "https://example.com/p",
    }
    client = OpenLineageClient(environ=env, spool=False)
    assert isinstance(client.transport, HttpTransport)
    assert client.transport._headers["Authorization"] == "Bearer 007"
    assert client.transport._headers["x_version"] == "0123"
    assert client.producer == "https://example.com/p"


def test_client_mutates_neither_environ_nor_config(tmp_path: Path, restore_environ: None) -> None:
    os.environ["OPENLINEAGE_URL"] = "http://127.0.0.1:9"
    before_env = dict(os.environ)
    config = {
        "transport": {
            "type": "composite",
            "transports": {"f": {"type": "file", "log_file_path": str(tmp_path / "ev.ndjson")}},
        }
    }
    before_config = copy.deepcopy(config)
    client = OpenLineageClient(config=config, spool=False)
    assert isinstance(client.transport, CompositeTransport)
    # OPENLINEAGE_URL became the composite's `default_http` child, as in the official client
    assert sorted(t.label for t in client.transport.transports) == ["default_http", "f"]
    assert dict(os.environ) == before_env
    assert config == before_config


def test_a_given_transport_object_still_reads_the_rest(tmp_path: Path) -> None:
    from olsdk.transports import NoopTransport

    yml = write_yml(tmp_path / "ol.yml", {"transport": {"type": "bogus"}, "error_policy": "raise"})
    with pytest.raises(ConfigError, match=r"transport\.type: unknown transport 'bogus'"):
        OpenLineageClient(NoopTransport(), environ={"OPENLINEAGE_CONFIG": str(yml)})
    yml = write_yml(tmp_path / "ol.yml", {"error_policy": "raise", "producer": "https://example.com/p"})
    client = OpenLineageClient(NoopTransport(), environ={"OPENLINEAGE_CONFIG": str(yml)}, spool=False)
    assert (client.error_policy, client.producer) == ("raise", "https://example.com/p")
    import olsdk

    olsdk.set_default_producer("https://github.com/olsdk/olsdk")


# -- parity with the official client (openlineage-python) -----------------------------

OFFICIAL_YML = {
    "transport": {
        "type": "http",
        "url": "http://127.0.0.1:5000",
        "endpoint": "api/v1/lineage",
        "timeout": 7.5,
        "verify": False,
        "compression": "gzip",
        "auth": {"type": "api_key", "apiKey": "secret-key"},
        "custom_headers": {"X-Team": "data"},
        "retry": {"total": 4, "connect": 3, "read": 2, "backoff_factor": 0.5, "status_forcelist": [500, 503]},
    },
    "filters": [{"type": "exact", "match": "skip_me"}, {"type": "regex", "regex": "tmp_.*"}],
}


def official_client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> Any:
    from openlineage.client import OpenLineageClient as Official

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for key in list(os.environ):
        if key.startswith("OPENLINEAGE"):
            monkeypatch.delenv(key)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return Official()


def assert_same_http(official: Any, ours: HttpTransport, retry_given: bool = True) -> None:
    from urllib.parse import urljoin

    cfg = official.config
    assert urljoin(cfg.url, cfg.endpoint) == ours.url
    assert (cfg.timeout, cfg.timeout) == ours.timeout
    assert cfg.verify == ours.verify
    assert (cfg.compression.value if cfg.compression else None) == ours.settings.compression
    assert official._auth_headers(cfg.auth) == {"Authorization": ours._headers["Authorization"]}
    for key, value in cfg.custom_headers.items():
        assert ours._headers[key] == str(value)
    retry = ours.settings.retry
    if not retry_given:  # defaults differ on purpose: olsdk also retries 429
        assert retry.status_forcelist == [429, *cfg.retry["status_forcelist"]]
        return
    for key in ("total", "connect", "read", "backoff_factor", "status_forcelist"):
        assert cfg.retry[key] == getattr(retry, key), key


def test_parity_same_yml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, restore_environ: None) -> None:
    write_yml(tmp_path / "openlineage.yml", OFFICIAL_YML)
    official = official_client(tmp_path, monkeypatch, {})
    ours = OpenLineageClient(spool=False)
    assert isinstance(ours.transport, HttpTransport)
    assert_same_http(official.transport, ours.transport)
    # the filters drop the same job names
    from openlineage.client.event_v2 import Job, Run, RunEvent, RunState

    for name in ("skip_me", "skip_me_not", "tmp_x", "x_tmp_y", "keep"):
        event = RunEvent(
            eventType=RunState.START,
            eventTime="2024-01-01T00:00:00Z",
            run=Run(runId="0190e5c6-5d4a-7b1e-8c3f-1a2b3c4d5e6f"),
            job=Job(namespace="n", name=name),
            producer="https://x",
        )
        dropped_official = official.filter_event(event) is None
        from olsdk._delivery.client._filters import JobNameFilter
        from olsdk._delivery.transports._base import Payload

        dropped_ours = JobNameFilter.any_drops(ours._prepare.filters, Payload(b"", job_name=name))
        assert dropped_official == dropped_ours, name


def test_parity_same_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, restore_environ: None) -> None:
    env = {
        "OPENLINEAGE__TRANSPORT__TYPE": "http",
        "OPENLINEAGE__TRANSPORT__URL": "http://127.0.0.1:5000",
        "OPENLINEAGE__TRANSPORT__ENDPOINT": "api/v2/lineage",
        "OPENLINEAGE__TRANSPORT__TIMEOUT": "2.5",
        "OPENLINEAGE__TRANSPORT__VERIFY": "false",
        "OPENLINEAGE__TRANSPORT__COMPRESSION": "gzip",
        "OPENLINEAGE__TRANSPORT__AUTH": '{"type": "api_key", "apiKey": "env-key"}',
        "OPENLINEAGE__TRANSPORT__CUSTOM_HEADERS__X_ONE": "1",
        "OPENLINEAGE__TRANSPORT__RETRY": '{"total": 2, "connect": 2, "read": 2, '
        '"backoff_factor": 0.1, "status_forcelist": [502]}',
    }
    official = official_client(tmp_path, monkeypatch, env)
    ours = OpenLineageClient(spool=False)
    assert isinstance(ours.transport, HttpTransport)
    assert_same_http(official.transport, ours.transport)


def test_parity_url_shorthand(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, restore_environ: None) -> None:
    env = {
        "OPENLINEAGE_URL": "http://127.0.0.1:5000",
        "OPENLINEAGE_ENDPOINT": "custom/ep",
        "OPENLINEAGE_API_KEY": "short-key",
    }
    official = official_client(tmp_path, monkeypatch, env)
    ours = OpenLineageClient(environ=env, spool=False)
    assert isinstance(ours.transport, HttpTransport)
    assert_same_http(official.transport, ours.transport, retry_given=False)


@pytest.mark.kafka
def test_parity_kafka_file_composite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, restore_environ: None) -> None:
    log_path = str(tmp_path / "events.ndjson")
    yml = {
        "transport": {
            "type": "composite",
            "continue_on_failure": False,
            "transports": {
                "k": {
                    "type": "kafka",
                    "topic": "lineage",
                    "messageKey": "fixed",
                    "config": {"bootstrap.servers": "127.0.0.1:9", "acks": "all", "log_level": 0},
                    "flush": False,
                },
                "f": {"type": "file", "log_file_path": log_path, "append": True},
            },
        }
    }
    write_yml(tmp_path / "openlineage.yml", yml)
    official = official_client(tmp_path, monkeypatch, {})
    ours = OpenLineageClient(spool=False)
    theirs = {t.name: t for t in official.transport.transports}
    mine = {t.label: t for t in ours.transport.transports}  # type: ignore[attr-defined]
    assert sorted(theirs) == sorted(mine) == ["f", "k"]
    assert official.transport.config.continue_on_failure is False
    assert ours.transport.settings.continue_on_failure is False  # type: ignore[attr-defined]
    k_official, k_ours = theirs["k"], mine["k"]
    assert isinstance(k_ours, KafkaTransport)
    assert (k_official.topic, k_official.message_key, k_official.flush) == (
        k_ours.settings.topic,
        k_ours.settings.message_key,
        k_ours.settings.flush,
    )
    assert k_official.kafka_config.config == k_ours.settings.config
    f_official, f_ours = theirs["f"], mine["f"]
    assert isinstance(f_ours, FileTransport)
    assert (f_official.config.log_file_path, f_official.config.append) == (f_ours.path, f_ours.settings.append)
    official.close(0)
    ours.close(0)


# -- the documentation stays true -------------------------------------------------------

DOCS = Path(__file__).resolve().parents[2] / "docs" / "how-to" / "client.md"
REFERENCE = Path(__file__).resolve().parents[2] / "docs" / "reference" / "configuration.md"


def docs_yml() -> str:
    text = DOCS.read_text()
    return text.split("```yaml\n", 1)[1].split("```", 1)[0]


def test_docs_example_works_for_both_clients(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, restore_environ: None
) -> None:
    (tmp_path / "openlineage.yml").write_text(docs_yml())
    official = official_client(tmp_path, monkeypatch, {})
    ours = OpenLineageClient(spool=False)
    assert isinstance(ours.transport, HttpTransport)
    assert type(official.transport).__name__ == "HttpTransport"
    assert ours.transport.url == "https://lineage.example.com/marquez/api/v1/lineage"
    assert ours.producer == "https://github.com/acme/pipelines"
    import olsdk

    olsdk.set_default_producer("https://github.com/olsdk/olsdk")


def test_docs_table_lists_every_key() -> None:
    """The reference's table names every key of the client and of every transport kind."""
    table = "\n".join(line for line in REFERENCE.read_text().splitlines() if line.startswith("|"))

    def names(cls: type) -> list[str]:
        out = []
        for name, shown in display_names(cls).items():
            out.append(shown)
            tp = cls.model_fields[name].annotation  # type: ignore[attr-defined]
            inner = [a for a in (tp, *typing.get_args(tp)) if isinstance(a, type) and issubclass(a, Settings)]
            if inner:
                out.extend(names(inner[0]))
        return out

    kinds = transport_kinds()
    classes: list[type] = [ClientSettings, *(cls for cls in kinds.values() if cls is not None)]
    missing = {n for cls in classes for n in names(cls) if n not in table}
    assert not missing
    for kind in kinds:
        assert f"**`type: {kind}`**" in table


# -- values that would make every emit fail are refused at load (issue 13) ----------------------


@pytest.mark.parametrize(
    ("yml", "message"),
    [
        (
            "transport: {type: http, url: 'http://h', timeout: 0}",
            r"transport\.timeout: must be greater than 0, got 0\.0",
        ),
        (
            "transport: {type: http, url: 'http://h', timeout: -1}",
            r"transport\.timeout: must be greater than 0, got -1\.0",
        ),
        (
            "transport: {type: http, url: 'http://h', timeout: .nan}",
            r"transport\.timeout: expected a finite number, got nan",
        ),
        (
            "transport: {type: http, url: 'http://h', timeout: .inf}",
            r"transport\.timeout: expected a finite number, got inf",
        ),
        (
            "transport: {type: http, url: 'http://h', retry: {total: -5}}",
            r"transport\.retry\.total: must not be negative, got -5",
        ),
        (
            "transport: {type: http, url: 'http://h', batch: {max_events: 0}}",
            r"transport\.batch\.max_events: must be at least 1, got 0",
        ),
        (
            "transport: {type: buffered, max_queue_size: 0, transport: {type: noop}}",
            r"transport\.max_queue_size: must be at least 1, got 0",
        ),
        (
            "transport: {type: buffered, max_queue_size: -1, transport: {type: noop}}",
            r"transport\.max_queue_size: must be at least 1, got -1",
        ),
        (
            "transport: {type: buffered, workers: 0, transport: {type: noop}}",
            r"transport\.workers: must be at least 1, got 0",
        ),
        (
            "transport: {type: buffered, close_timeout: -2, transport: {type: noop}}",
            r"transport\.close_timeout: must be at least 0",
        ),
        ("max_event_bytes: 0", r"max_event_bytes: must be at least 1, got 0"),
    ],
)
def test_out_of_range_values_fail_at_load_naming_key_and_source(yml: str, message: str, tmp_path: Path) -> None:
    path = tmp_path / "ol.yml"
    path.write_text(yml + "\n")
    with pytest.raises(ConfigError, match=message) as err:
        OpenLineageClient(environ={"OPENLINEAGE_CONFIG": str(path)})
    assert f"(from {path})" in str(err.value)


def test_out_of_range_values_from_variables_name_the_variable() -> None:
    env = {"OPENLINEAGE_URL": "http://h", "OPENLINEAGE__TRANSPORT__TIMEOUT": "0"}
    where = r"\(from environment variable OPENLINEAGE__TRANSPORT__TIMEOUT\)"
    with pytest.raises(ConfigError, match=r"transport\.timeout: must be greater than 0, got 0\.0 " + where):
        load_config(environ=env, cwd="/nonexistent", home="/nonexistent")


def test_a_missing_transport_type_names_the_file(tmp_path: Path) -> None:
    yml = write_yml(tmp_path / "ol.yml", {"transport": {"url": "http://127.0.0.1:5000"}})
    with pytest.raises(ConfigError, match=r"^transport\.type: required key is missing") as err:
        load_config(environ={"OPENLINEAGE_CONFIG": str(yml)}, cwd=str(tmp_path), home=str(tmp_path))
    assert str(err.value).endswith(f"(from {yml})")
    env = {"OPENLINEAGE__TRANSPORT__URL": "http://127.0.0.1:5000"}
    with pytest.raises(ConfigError, match=r"\(from environment variable OPENLINEAGE__TRANSPORT__URL\)$"):
        load_config(environ=env, cwd=str(tmp_path), home=str(tmp_path))


def test_a_settings_check_names_where_the_value_came_from() -> None:
    env = {"OPENLINEAGE__TRANSPORT__TYPE": "http", "OPENLINEAGE__TRANSPORT__URL": "localhost:5000"}
    with pytest.raises(ConfigError, match=r"^transport\.url: need an http\(s\) URL") as err:
        load_config(environ=env, cwd="/nonexistent", home="/nonexistent")
    assert str(err.value).endswith("(from environment variable OPENLINEAGE__TRANSPORT__URL)")
