"""The kind table: configuration -> settings -> transports, errors, and kinds of your own."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from olsdk._delivery.transports._factory import parse_transport
from olsdk.client import ConfigError, OpenLineageClient
from olsdk.transports import (
    BufferedTransport,
    CompositeTransport,
    ConsoleTransport,
    FileSettings,
    FileTransport,
    HttpSettings,
    NoopTransport,
    Payload,
    Transport,
    create_transport,
    register_transport,
    transport_kinds,
)
from tests.support.client_testkit import run_event


def test_every_built_in_kind_and_its_settings_class() -> None:
    kinds = transport_kinds()
    assert {"http", "file", "console", "kafka", "noop", "composite", "buffered"} <= set(kinds)
    assert kinds["http"] is HttpSettings and kinds["file"] is FileSettings and kinds["noop"] is None


def test_nested_sections_are_parsed_into_one_spec_tree(tmp_path: Path) -> None:
    section = {
        "type": "composite",
        "name": "fanout",
        "transports": [
            {"type": "buffered", "transport": {"type": "file", "log_file_path": str(tmp_path / "ev")}},
            {"type": "noop", "name": "off", "priority": 2},
        ],
    }
    spec = parse_transport(section)
    assert (spec.kind, spec.name, [c.kind for c in spec.children]) == ("composite", "fanout", ["buffered", "noop"])
    buffered, noop = spec.children
    assert buffered.children[0].settings == FileSettings(log_file_path=str(tmp_path / "ev"))
    assert (noop.name, noop.priority, noop.settings) == ("off", 2, None)
    transport = create_transport(section)
    assert isinstance(transport, CompositeTransport) and transport.label == "fanout"
    wrapper, off = transport.transports
    assert isinstance(wrapper, BufferedTransport) and isinstance(wrapper.inner, FileTransport)
    assert isinstance(off, NoopTransport)
    transport.close()


def test_errors_name_the_nested_key() -> None:
    with pytest.raises(
        ConfigError, match=r"^transport\.transports\.1\.transport\.apend: unknown key; did you mean 'append'"
    ):
        parse_transport(
            {
                "type": "composite",
                "transports": [{"type": "noop"}, {"type": "buffered", "transport": {"type": "file", "apend": True}}],
            }
        )
    with pytest.raises(ConfigError, match=r"^transport\.transports\.x\.type: required key is missing"):
        parse_transport({"type": "composite", "transports": {"x": {"url": "http://h"}}})
    with pytest.raises(ConfigError, match=r"^transport\.priority: expected an integer, got 'high'"):
        parse_transport({"type": "console", "priority": "high"})
    with pytest.raises(ConfigError, match=r"^transport\.pretty: unknown key.*valid keys: name, priority, type"):
        parse_transport({"type": "noop", "pretty": True})
    with pytest.raises(ConfigError, match=r"^transport: expected a mapping, got list"):
        parse_transport([])


def test_every_official_kind_is_known_and_unknown_kinds_say_so() -> None:
    official = {"http", "async_http", "file", "console", "kafka", "msk-iam", "composite", "noop", "transform"}
    official |= {"datadog", "gcplineage", "amazon_datazone_api"}
    assert official <= set(transport_kinds())
    with pytest.raises(ConfigError, match=r"transport\.apiKey: required \(or set DD_API_KEY\)"):
        create_transport({"type": "datadog", "site": "datadoghq.eu", "apiKey": ""})
    with pytest.raises(ConfigError, match=r"transport\.type: unknown transport 'consol'; did you mean 'console'\?"):
        create_transport({"type": "consol"})
    with pytest.raises(ConfigError, match=r"transport\.type: unknown transport 'callback'"):
        create_transport({"type": "callback"})  # code only: a function cannot be configured
    with pytest.raises(ConfigError, match=r"transport\.type: cannot import transport 'acme\.Transport'"):
        create_transport({"type": "acme.Transport"})


@dataclasses.dataclass(frozen=True)
class ShoutSettings:
    prefix: str = ">>"
    times: int = 1


class ShoutTransport(Transport):
    kind = "shout"

    def __init__(self, settings: ShoutSettings, *, name: str | None = None, priority: int = 0) -> None:
        super().__init__(name=name, priority=priority)
        self.settings = settings
        self.lines: list[str] = []

    def send(self, payload: Payload) -> None:
        self.lines.extend([f"{self.settings.prefix} {payload.job_name}"] * self.settings.times)


def test_register_a_kind_of_your_own() -> None:
    register_transport("shout", ShoutTransport, ShoutSettings)
    try:
        env = {"OPENLINEAGE__TRANSPORT__TYPE": "shout", "OPENLINEAGE__TRANSPORT__TIMES": "2"}
        client = OpenLineageClient(environ=env, spool=False)
        assert isinstance(client.transport, ShoutTransport)
        client.emit(run_event(job="j"))
        assert client.flush(30)  # a transport of another kind may wait on a network: the relay sends
        assert client.transport.lines == [">> j", ">> j"]
        assert transport_kinds()["shout"] is ShoutSettings
        with pytest.raises(ConfigError, match=r"transport\.tims: unknown key; did you mean 'times'"):
            create_transport({"type": "shout", "tims": 3})
        inside = create_transport({"type": "composite", "transports": [{"type": "SHOUT", "prefix": "!"}]})
        assert isinstance(inside, CompositeTransport)
        assert inside.transports[0].settings == ShoutSettings(prefix="!")  # type: ignore[attr-defined]
    finally:
        from olsdk._delivery.transports import _factory

        _factory._KINDS.pop("shout", None)


def test_register_transport_refuses_what_it_cannot_build() -> None:
    with pytest.raises(ConfigError, match="'http' is a built-in transport"):
        register_transport("http", ConsoleTransport)
    with pytest.raises(ConfigError, match="settings must be a dataclass"):
        register_transport("mine", ConsoleTransport, dict)
    with pytest.raises(ConfigError, match="kind must be a non-empty string"):
        register_transport(" ", ConsoleTransport)
    assert "mine" not in transport_kinds()


def test_nested_sections_from_json_variables() -> None:
    env = {"OPENLINEAGE__TRANSPORT__TYPE": "composite", "OPENLINEAGE__TRANSPORT__TRANSPORTS": '{"c": {"type": "noop"}}'}
    client = OpenLineageClient(environ=env, spool=False)
    assert isinstance(client.transport, CompositeTransport)
    assert [t.label for t in client.transport.transports] == ["c"]
    client.close(0)
    env["OPENLINEAGE__TRANSPORT__TRANSPORTS"] = "[{nope"
    with pytest.raises(ConfigError, match=r"^transport\.transports: expected a mapping or JSON text; the text is not"):
        OpenLineageClient(environ=env, spool=False)
