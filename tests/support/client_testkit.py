"""Shared by the client, transport and config tests.

A real OpenLineage HTTP server on 127.0.0.1 (no mocks), its fixtures, a minimal event,
and `collecting_client`: a client whose transport is `olsdk.transports.CallbackTransport`
collecting what it is sent (the one collector of the test suite).
"""

from __future__ import annotations

import gzip
import json
import os
import socket
import ssl
import threading
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from olsdk.client import OpenLineageClient, Spool
from olsdk.transports import CallbackTransport, Payload


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    raw: bytes  # as sent on the wire
    body: bytes  # decompressed


@dataclass
class Reply:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    delay: float = 0.0  # seconds before answering (interrupted at shutdown)


class LineageServer:
    """Records every POST; answers from a script of replies, then 200.

    ``events`` holds the events of requests answered 2xx (batch bodies flattened),
    i.e. what the server accepted.
    """

    def __init__(self, port: int = 0, batch: bool = True, tls: ssl.SSLContext | None = None) -> None:
        self.requests: list[Received] = []
        self.events: list[dict[str, Any]] = []
        self.script: deque[Reply] = deque()
        self.batch = batch
        self.batch_reply: Reply | None = None  # a fixed reply for batch posts
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                body = raw
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(raw)
                is_batch = self.path.endswith("/batch")
                with server.lock:
                    server.requests.append(Received(self.path, dict(self.headers), raw, body))
                    if is_batch and not server.batch:
                        reply = Reply(404, body=b"no such endpoint")
                    elif is_batch and server.batch_reply is not None:
                        reply = server.batch_reply
                    else:
                        reply = server.script.popleft() if server.script else Reply()
                if reply.delay:
                    server.stopping.wait(reply.delay)
                if 200 <= reply.status < 300:
                    data = json.loads(body)
                    with server.lock:
                        server.events.extend(data if isinstance(data, list) else [data])
                self.send_response(reply.status)
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.httpd.daemon_threads = True
        if tls is not None:  # HTTPS: the handshake happens in each handler thread
            self.httpd.socket = tls.wrap_socket(self.httpd.socket, server_side=True, do_handshake_on_connect=False)
        self.port = self.httpd.server_address[1]
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server() -> Iterator[LineageServer]:
    srv = LineageServer()
    yield srv
    srv.stop()


def unused_port() -> int:
    """A port on 127.0.0.1 nothing listens on (yet)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


@pytest.fixture
def free_port() -> int:
    """A port nothing listens on (yet)."""
    return unused_port()


@pytest.fixture
def restore_environ() -> Iterator[None]:
    """Put os.environ back exactly (the official client adds variables of its own)."""
    saved = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(saved)


def run_event(
    job: str = "job", run_id: str = "0190e5c6-5d4a-7b1e-8c3f-1a2b3c4d5e6f", event_type: str = "START", **extra: Any
) -> dict[str, Any]:
    """A minimal valid RunEvent as a dict."""
    return {
        "eventTime": "2024-07-01T12:00:00.000000+00:00",
        "producer": "https://example.com/tests",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "eventType": event_type,
        "run": {"runId": run_id},
        "job": {"namespace": "tests", "name": job},
        **extra,
    }


def collecting_client(spool: Path | None = None, **kwargs: Any) -> tuple[OpenLineageClient, list[Payload]]:
    """A client that delivers into a list (through `CallbackTransport`), and that list.

    No environment variables are read (unless ``environ=`` gives some); ``spool`` None disables the spool. Other
    keyword arguments go to `OpenLineageClient` (``config=``, ``error_policy=``...).
    """
    sent: list[Payload] = []
    kwargs.setdefault("environ", {})
    client = OpenLineageClient(CallbackTransport(sent.append), spool=spool if spool is not None else False, **kwargs)
    return client, sent


# fast retries: a test that exercises them does not wait for real backoff
FAST_RETRY = {"total": 3, "backoff_factor": 0.01, "backoff_jitter": 0.01}


def http_client(url: str, spool: Path, **transport: Any) -> OpenLineageClient:
    """A client with an http transport to ``url`` (fast retries), spooling to ``spool``."""
    config = {"transport": {"type": "http", "url": url, "retry": FAST_RETRY, **transport}}
    return OpenLineageClient(config=config, spool=spool, environ={})


def write_yml(path: Path, data: dict[str, Any]) -> Path:
    """Write ``data`` as an openlineage.yml at ``path`` (parents created)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data))
    return path


def http_config(url: str, **extra: Any) -> dict[str, Any]:
    """A configuration with an http transport to ``url``."""
    return {"transport": {"type": "http", "url": url, **extra}}


def kept(spool: Path) -> list[dict[str, Any]]:
    """What the spool at `spool` still keeps (given up, or owed to a later client): `[]`
    when every event was delivered. The spool is a store that exists as soon as a client
    writes ahead, so "nothing kept" is its records, not its file."""
    return list(Spool(spool).records()) if spool.exists() else []


def stored_bytes(spool: Path) -> bytes:
    """Every byte the spool's store holds on disk (its database and SQLite's write-ahead log):
    what a secret must never be part of."""
    files = (spool, spool.with_name(spool.name + "-wal"), spool.with_name(spool.name + "-journal"))
    return b"".join(path.read_bytes() for path in files if path.exists())
