"""Running the application on uvicorn, with limits uvicorn leaves to the application.

uvicorn bounds idle keep-alive connections and concurrent connections, but not the
time or size of a request's line and headers: a client sending one byte a second, or
headers without end, would hold a connection (and memory) for as long as it likes.
`_GuardedHttp` (uvicorn's httptools protocol) closes such a connection with 408 or 431
and reports it. Request bodies are bounded by the application (`_ingest.read_body`).
"""

from __future__ import annotations

import asyncio
import logging
import signal
import socket
import sys
from collections.abc import Callable
from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from olsdk._integrations.serve._app import build_app
from olsdk._integrations.serve._settings import ServeSettings
from olsdk._integrations.serve._store import Refusal, now

__all__ = ["guarded_protocol", "run"]

log = logging.getLogger("olsdk.serve")


def guarded_protocol(
    header_timeout: float, max_header_bytes: int, report: Callable[[Refusal], None]
) -> type[asyncio.Protocol]:
    """uvicorn's httptools protocol, with a deadline and a size limit for every request's head."""

    class _GuardedHttp(HttpToolsProtocol):
        _deadline: asyncio.TimerHandle | None = None
        _head: bytes = b""
        _head_size = 0

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()

        def _arm(self) -> None:
            self._deadline = self.loop.call_later(header_timeout, self._too_slow)
            self._head, self._head_size = b"", 0

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def data_received(self, data: bytes) -> None:
            if self._deadline is None and (self.cycle is None or self.cycle.response_complete):
                self._arm()  # the next request on this connection starts
            if self._deadline is not None:
                self._head_size += len(data)
                if len(self._head) < 1024:
                    self._head += data[: 1024 - len(self._head)]
            super().data_received(data)
            if self._deadline is not None and self._head_size > max_header_bytes:
                self._refuse(431, f"request line and headers over {max_header_bytes} bytes")

        def on_headers_complete(self) -> None:
            self._disarm()
            super().on_headers_complete()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _too_slow(self) -> None:
            self._deadline = None
            if self._head_size:  # a connection that sent nothing is only closed
                self._refuse(408, f"request line and headers not complete within {header_timeout:g} s")
            elif not self.transport.is_closing():
                self.transport.close()

        def _refuse(self, status: int, reason: str) -> None:
            self._disarm()
            if self.transport.is_closing():
                return
            phrase = {408: "Request Timeout", 431: "Request Header Fields Too Large"}[status]
            body = reason.encode()
            self.transport.write(
                f"HTTP/1.1 {status} {phrase}\r\ncontent-type: text/plain; charset=utf-8\r\n"
                f"content-length: {len(body)}\r\nconnection: close\r\n\r\n".encode()
                + body
            )
            self.transport.close()
            report(Refusal("(request head)", status, reason, self._head_size, self._head, now()))

    return _GuardedHttp


class _Server(uvicorn.Server):
    """uvicorn's server, saying where it listens once it does (``--port 0`` picks a free port)."""

    def __init__(self, config: uvicorn.Config, banner: Callable[[str], None]) -> None:
        super().__init__(config)
        self._banner = banner

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.should_exit or not self.servers:
            return
        host, port = self.servers[0].sockets[0].getsockname()[:2]
        self._banner(f"http://{host}:{port}")


def run(settings: ServeSettings, *, out: Any = None) -> int:
    """Serve until SIGINT or SIGTERM; returns the exit status."""
    stream = out or sys.stderr
    app, state = build_app(settings)

    def banner(url: str) -> None:
        print(f"olsdk serve: listening on {url} (store: {state.store.description})", file=stream, flush=True)
        if settings.api_key:
            print("olsdk serve: an API key is required (Authorization: Bearer ...)", file=stream, flush=True)

    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        http=guarded_protocol(settings.header_timeout, settings.max_header_bytes, state.report_refusal),
        lifespan="on",
        access_log=False,
        server_header=False,
        proxy_headers=False,
        limit_concurrency=settings.max_connections,
        timeout_keep_alive=5,
        timeout_graceful_shutdown=5,
        log_level="warning",
    )
    server = _Server(config, banner)
    # uvicorn handles SIGINT/SIGTERM while it runs, then raises the signal again once it
    # has shut down: both end here as KeyboardInterrupt, an orderly stop.
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
    print("olsdk serve: stopped", file=stream, flush=True)
    return 0 if server.started else 1
