"""A small, bounded lineage sink on 127.0.0.1 for the HTTP delivery benchmark.

Run as `python -m bench.server`; it prints its port on the first line of stdout.

- `POST <any path>`: one event, counted; a path ending in `/batch` takes a JSON array
  and counts its elements. Replies `200` with an empty body, keep-alive.
- `GET /count`: the number of events received so far, as text.
- `GET /shutdown`: stops the server.

It stops by itself after `--max-seconds` (default 600), after `--idle-seconds` without
a request (default 120), or when its parent process goes away.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import orjson


class _State:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.count = 0
        self.last_request = time.monotonic()


STATE = _State()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: clients reuse their connection

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass

    def _reply(self, status: int, body: bytes = b"") -> None:
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body:
            self.wfile.write(body)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        n = len(orjson.loads(body)) if self.path.rstrip("/").endswith("/batch") else 1
        with STATE.lock:
            STATE.count += n
            STATE.last_request = time.monotonic()
        self._reply(200)

    def do_GET(self) -> None:
        STATE.last_request = time.monotonic()
        if self.path == "/count":
            self._reply(200, str(STATE.count).encode())
        elif self.path == "/shutdown":
            self._reply(200)
            threading.Thread(target=self.server.shutdown, daemon=True).start()
        else:
            self._reply(404)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128


def _watchdog(server: Server, max_seconds: float, idle_seconds: float, parent: int) -> None:
    start = time.monotonic()
    while True:
        time.sleep(0.5)
        now = time.monotonic()
        if now - start > max_seconds or now - STATE.last_request > idle_seconds or os.getppid() != parent:
            server.shutdown()
            return


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--max-seconds", type=float, default=600.0)
    parser.add_argument("--idle-seconds", type=float, default=120.0)
    args = parser.parse_args(argv)
    server = Server(("127.0.0.1", args.port), Handler)
    threading.Thread(
        target=_watchdog,
        args=(server, args.max_seconds, args.idle_seconds, os.getppid()),
        daemon=True,
    ).start()
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
    sys.exit(0)


if __name__ == "__main__":
    main()
