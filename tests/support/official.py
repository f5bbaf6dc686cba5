"""Helpers for tests that run the official client (openlineage-python) as the peer.

The official client reads ``os.environ``, the working directory and ``$HOME``, and
writes variables of its own into ``os.environ``: :func:`official_env` gives it a
clean, isolated process state (use with the ``restore_environ`` fixture).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest

from olsdk.transports import Payload, Transport

RUN_ID = "0190e5c6-5d4a-7b1e-8c3f-1a2b3c4d5e6f"


def official_env(monkeypatch: pytest.MonkeyPatch, cwd: Path, env: dict[str, str]) -> None:
    """Only ``env`` of the OpenLineage variables, ``cwd`` as working and home directory."""
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("HOME", str(cwd / "home"))
    for key in list(os.environ):
        if key.startswith("OPENLINEAGE"):
            monkeypatch.delenv(key)
    for key, value in env.items():
        monkeypatch.setenv(key, value)


def official_run_event(job: str = "job", event_type: str = "START", **facets: Any) -> Any:
    """An official-client RunEvent (v2 models)."""
    from openlineage.client.event_v2 import Job, Run, RunEvent, RunState

    return RunEvent(
        eventType=RunState(event_type),
        eventTime="2024-07-01T12:00:00.000000+00:00",
        run=Run(runId=RUN_ID, facets=facets.pop("run_facets", None) or {}),
        job=Job(namespace="tests", name=job, facets=facets.pop("job_facets", None) or {}),
        inputs=facets.pop("inputs", None) or [],
        outputs=facets.pop("outputs", None) or [],
        producer="https://example.com/tests",
    )


def to_json(event: Any) -> str:
    from openlineage.client.serde import Serde

    text: str = Serde.to_json(event)
    return text


def normalised(event: dict[str, Any] | str | bytes) -> dict[str, Any]:
    """An event as comparable data: empty containers dropped (the official serialiser
    writes ``facets: {}``), each facet's ``_schemaURL`` and ``_producer`` dropped (each
    client stamps its own)."""
    data = json.loads(event) if isinstance(event, str | bytes) else event

    def strip(value: Any, key: str = "") -> Any:
        if isinstance(value, dict):
            out = {}
            for k, v in value.items():
                if k in ("_schemaURL", "_producer"):
                    continue
                v = strip(v, k)
                if v in ({}, [], None):
                    continue
                out[k] = v
            return out
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    result: dict[str, Any] = strip(data)
    return result


class StaticTokenProvider:
    """A custom token provider for ``auth.type`` by dotted path, built like the official
    client builds one: ``cls(auth_section)``; subclasses the official ``TokenProvider``
    when it is importable so both clients accept it."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.token = f"{config['prefix']}-{config.get('tenant', 'none')}"

    def get_bearer(self) -> str | None:
        return f"Bearer {self.token}"


try:  # both clients load it: the official one insists on its base class
    from openlineage.client.transport.http import TokenProvider as _OfficialTokenProvider

    class OfficialStaticTokenProvider(_OfficialTokenProvider, StaticTokenProvider):
        def __init__(self, config: dict[str, Any]) -> None:
            StaticTokenProvider.__init__(self, config)

        def get_bearer(self) -> str | None:
            return StaticTokenProvider.get_bearer(self)

except ImportError:  # pragma: no cover - the peer is a dev dependency
    pass


class TokenServer:
    """A token endpoint on 127.0.0.1: records each request's form and headers, answers
    ``{"access_token"|"token": "<prefix>-<n>", <expires field>: <expires_in>}``."""

    def __init__(self, field: str = "access_token", expires_in: float | None = 3600, token: str | None = None) -> None:
        import threading
        import urllib.parse
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.requests: list[tuple[dict[str, str], dict[str, str]]] = []  # (form, headers)
        self.field, self.expires_in, self.fixed_token = field, expires_in, token
        self.expires_field = "expires_in"
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
                form = dict(urllib.parse.parse_qsl(raw))
                server.requests.append((form, {k.lower(): v for k, v in self.headers.items()}))
                answer: dict[str, Any] = {server.field: server.fixed_token or f"tok-{len(server.requests)}"}
                if server.expires_in is not None:
                    answer[server.expires_field] = server.expires_in
                body = json.dumps(answer).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/oauth/token"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@dataclass(frozen=True)
class RecordingSettings:
    """Settings of :class:`RecordingTransport` (a transport named by dotted path in tests)."""

    label: str
    copies: int = 1


class RecordingTransport(Transport):
    """An olsdk transport loaded by dotted path: keeps ``copies`` of each body per label."""

    kind = "recording"
    settings_class = RecordingSettings
    received: ClassVar[dict[str, list[bytes]]] = {}

    def __init__(self, settings: RecordingSettings, *, name: str | None = None, priority: int = 0) -> None:
        super().__init__(name=name, priority=priority)
        self.settings = settings

    def send(self, payload: Payload) -> None:
        self.received.setdefault(self.settings.label, []).extend([payload.body] * self.settings.copies)


try:  # an extra dataset name trimmer both clients load by dotted path
    from openlineage.client.dataset.trimmers import DatasetNameTrimmer as _OfficialTrimmer

    class VersionSuffixTrimmer(_OfficialTrimmer):
        """``/data/orders/v3`` -> ``/data/orders``."""

        def trim(self, name: str) -> str:
            head, _, last = name.rstrip("/").rpartition("/")
            return head if head and len(last) > 1 and last[0] == "v" and last[1:].isdigit() else name

except ImportError:  # pragma: no cover
    pass


try:
    from olsdk.transports import EventTransformer as _EventTransformer

    class UpperJobTransformer(_EventTransformer):
        """Drops dataset events, upper-cases job names, raises on a job named ``boom``."""

        def transform(self, event: Any) -> Any:
            job = getattr(event, "job", None)
            if job is None:
                return None  # dataset events are dropped
            if job.name == "boom":
                raise RuntimeError("cannot transform boom")
            job.name = job.name.upper()
            return event

except ImportError:  # pragma: no cover - before olsdk had transformers
    pass


try:  # a user transport written against the official client's interface, loaded by both clients
    import attr
    from openlineage.client.transport.transport import Config as _OfficialConfig
    from openlineage.client.transport.transport import Transport as _OfficialTransport

    @attr.define
    class OfficialRecordingConfig(_OfficialConfig):
        label: str
        fail: bool = False

        @classmethod
        def from_dict(cls, params: dict[str, Any]) -> OfficialRecordingConfig:
            if "label" not in params:
                raise ValueError("label is required")
            unknown = set(params) - {"type", "label", "fail"}
            if unknown:
                raise ValueError(f"unknown keys {sorted(unknown)}")
            return cls(label=str(params["label"]), fail=str(params.get("fail", "false")).lower() == "true")

    class OfficialRecordingTransport(_OfficialTransport):
        """Keeps every event object it is given, per label (or raises, with ``fail: true``)."""

        kind = "official-recording"
        config_class = OfficialRecordingConfig
        received: ClassVar[dict[str, list[Any]]] = {}
        closed: ClassVar[list[str]] = []

        def __init__(self, config: OfficialRecordingConfig) -> None:
            self.config = config

        def emit(self, event: Any) -> None:
            if self.config.fail:
                raise ConnectionError(f"{self.config.label}: backend unavailable")
            self.received.setdefault(self.config.label, []).append(event)

        def close(self, timeout: float = -1) -> bool:
            self.closed.append(self.config.label)
            return True

except ImportError:  # pragma: no cover - the peer is a dev dependency
    pass
