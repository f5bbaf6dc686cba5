"""A lineage server on 127.0.0.1 that misbehaves on purpose, and the ledger of a fault run.

`FaultServer` accepts ``POST`` of one event or of a batch (a JSON array, on a path
ending in ``/batch``) and records every event it *stored*. Its faults are plain
attributes, set before or during a run:

* ``reset_first``: the first N posts are read and stored, then the connection is
  reset (RST) without an answer: the client cannot know the events arrived;
* ``max_body``: bodies larger than this many bytes get ``413`` (nothing stored);
* ``latency``: seconds to wait before answering each post (cut short by ``stop``);
* ``hold``: while this event is clear, answers wait for it (a request "in flight");
* ``echo_auth``: answer ``401`` with the request's ``Authorization`` header in the body;
* ``script``: statuses to answer first, one per post (then 200).

It runs in the test process (``FaultServer()``) or, to keep its work off the
client's interpreter lock, in a child process (``FaultServer.spawn(...)``), which is
stopped by PID. ``events()`` returns what was stored either way.

`Ledger` counts a fault run: of the events tried, how many were delivered exactly
once, how many extra copies the server stored, how many were in the spool when the
fault was over, and how many are lost (neither delivered nor spooled).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import urllib.request
from collections import Counter, deque
from collections.abc import Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


class _HTTPServer(ThreadingHTTPServer):
    fault: FaultServer


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:  # the control API of a spawned server
        server = self.server.fault
        if self.path == "/events":
            with server.lock:
                body = json.dumps(server.stored).encode()
            self._answer(200, body)
        else:
            self._answer(404, b"")

    def do_POST(self) -> None:
        server = self.server.fault
        with server.lock:
            server.in_flight += 1
            server.max_in_flight = max(server.max_in_flight, server.in_flight)
        try:
            self._post()
        finally:
            with server.lock:
                server.in_flight -= 1

    def _post(self) -> None:
        server = self.server.fault
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with server.lock:
            server.posts += 1
            number = server.posts
            status = server.script.popleft() if server.script else 200
        if server.echo_auth:
            self._answer(401, b"denied for " + self.headers.get("Authorization", "").encode())
            return
        if server.max_body is not None and len(body) > server.max_body:
            self._answer(413, b"request entity too large")
            return
        if server.hold is not None:
            while not server.hold.wait(0.05) and not server.stopping.is_set():
                pass
        if server.latency:
            server.stopping.wait(server.latency)
        if server.stopping.is_set():  # shut down while this post waited: never stored
            self.close_connection = True
            return
        if status >= 300:
            self._answer(status, b"scripted failure")
            return
        data = json.loads(body)
        events = data if isinstance(data, list) else [data]
        with server.lock:
            server.stored.extend(events)
            if number <= server.reset_first:
                server.resets.append(len(events))
        if number <= server.reset_first:
            # stored, then the connection dies before any answer: an ambiguous failure
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            self.connection.close()
            return
        self._answer(200, b"")

    def _answer(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class FaultServer:
    """See the module docstring."""

    def __init__(self, port: int = 0) -> None:
        self.reset_first = 0
        self.max_body: int | None = None
        self.latency = 0.0
        self.hold: threading.Event | None = None
        self.echo_auth = False
        self.script: deque[int] = deque()
        self.posts = 0
        self.in_flight = 0
        self.max_in_flight = 0  # the most posts answered at the same time
        self.stored: list[dict[str, Any]] = []
        self.resets: list[int] = []  # events carried by each post that was reset, in order
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.httpd = _HTTPServer(("127.0.0.1", port), _Handler)
        self.httpd.fault = self
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def events(self) -> list[dict[str, Any]]:
        with self.lock:
            return list(self.stored)

    def stop(self) -> None:
        self.stopping.set()
        if self.hold is not None:
            self.hold.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    @staticmethod
    def spawn(latency: float = 0.0, max_seconds: float = 300.0) -> SpawnedServer:
        return SpawnedServer(latency, max_seconds)


class SpawnedServer:
    """A `FaultServer` in a child process (``python -m tests.support.fault_server``)."""

    def __init__(self, latency: float, max_seconds: float) -> None:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.support.fault_server",
                "--latency",
                str(latency),
                "--max-seconds",
                str(max_seconds),
            ],
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().strip()
        if not line.isdigit():
            self.stop()
            raise RuntimeError(f"fault server did not start: {line!r}")
        self.port = int(line)
        self.url = f"http://127.0.0.1:{self.port}"

    def events(self) -> list[dict[str, Any]]:
        with urllib.request.urlopen(f"{self.url}/events", timeout=60) as reply:
            data: list[dict[str, Any]] = json.loads(reply.read())
        return data

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)


class BlackHole:
    """A socket on 127.0.0.1 that accepts connections and never answers (nor reads): every
    request waits for its read timeout. ``accepted`` counts the connections made to it."""

    def __init__(self, port: int = 0) -> None:
        self.sock = socket.create_server(("127.0.0.1", port), backlog=512)
        self.sock.settimeout(0.1)
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.held: list[socket.socket] = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    @property
    def accepted(self) -> int:
        return len(self.held)

    def _accept(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.held.append(conn)

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(5)
        for conn in self.held:
            conn.close()
        self.sock.close()


def event_key(event: dict[str, Any]) -> tuple[str, str, Any]:
    """What makes a test event unique: its run, its type and its ``seq``."""
    return (str(event.get("run", {}).get("runId")), str(event.get("eventType")), event.get("seq"))


@dataclass
class Ledger:
    tried: int
    delivered_once: int
    duplicates: int
    spooled: int
    lost: int

    @classmethod
    def count(
        cls,
        tried: Iterable[dict[str, Any]],
        stored: Iterable[dict[str, Any]],
        spooled: Iterable[dict[str, Any]] = (),
    ) -> Ledger:
        """``stored``: every copy the server kept (after any replay); ``spooled``: the
        events the spool held when the fault was over (before any replay)."""
        keys = [event_key(e) for e in tried]
        copies = Counter(event_key(e) for e in stored)
        in_spool = {event_key(e) for e in spooled}
        return cls(
            tried=len(keys),
            delivered_once=sum(1 for k in keys if copies[k] == 1),
            duplicates=sum(copies[k] - 1 for k in keys if copies[k] > 1),
            spooled=sum(1 for k in keys if k in in_spool),
            lost=sum(1 for k in keys if not copies[k] and k not in in_spool),
        )

    def row(self) -> str:
        return (
            f"tried {self.tried}, delivered once {self.delivered_once}, duplicates {self.duplicates}, "
            f"spooled {self.spooled}, lost {self.lost}"
        )


def _main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--max-seconds", type=float, default=300.0)
    args = parser.parse_args()
    server = FaultServer()
    server.latency = args.latency
    signal.signal(signal.SIGTERM, lambda *_: server.stopping.set())
    print(server.port, flush=True)
    # bounded: stops on SIGTERM, after --max-seconds, or when the parent goes away
    parent = os.getppid()
    waited = 0.0
    while not server.stopping.wait(1.0) and waited < args.max_seconds and os.getppid() == parent:
        waited += 1.0
    server.stop()


if __name__ == "__main__":
    _main()
