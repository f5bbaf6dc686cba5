"""Running the application on uvicorn, with limits uvicorn leaves to the application.

uvicorn bounds idle keep-alive connections and concurrent connections, but not the
time or size of a request's line and headers: a client sending one byte a second, or
headers without end, would hold a connection (and memory) for as long as it likes.
`_GuardedHttp` (uvicorn's httptools protocol) closes such a connection with 408 or 431
and reports it. uvicorn's cap on connections is for all clients together: one client
opening a thousand connections would take it whole, and every other producer would be
answered 503; so each client address may hold `max_connections_per_client` at once, and
its next connection is answered 503 and closed at once. Request bodies are bounded by the
application (`_ingest.read_body`).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import signal
import socket
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any, ClassVar, Final, cast

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from olsdk._integrations.serve._app import build_app
from olsdk._integrations.serve._ingest import warm_readers
from olsdk._integrations.serve._settings import ServeSettings
from olsdk._integrations.serve._store import Refusal, now

__all__ = ["guarded_protocol", "run"]

log = logging.getLogger("olsdk.serve")

# The garbage collector's thresholds while serving: ingest makes and drops many small objects
# per event, and with the default ones a collection ran every few events (a tenth or more
# of the CPU of a batch); the objects made before serving are frozen, never scanned again.
SERVING_GC_THRESHOLDS: Final = (10_000, 20, 10)


@contextlib.contextmanager
def _serving_gc() -> Iterator[None]:
    """Freeze what exists (modules, models, the app) and collect less often, until the server stops."""
    thresholds = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(*SERVING_GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


class _CoalescedWrites:
    """An asyncio transport whose writes of one event-loop step leave in one ``send``.

    uvicorn writes a response's head and its body separately: two system calls, and on
    loopback the second costs as much as the first (the kernel delivers the data within
    the call). A write is kept until the loop's next step (or until 64 KiB are kept), so a
    small response leaves whole. Everything else is the wrapped transport's.
    """

    _LIMIT = 64 * 1024

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport, self._loop = transport, loop
        self._kept: list[bytes] = []
        self._size = 0

    def write(self, data: bytes) -> None:
        if not self._kept:
            self._loop.call_soon(self._flush)
        self._kept.append(data)
        self._size += len(data)
        if self._size >= self._LIMIT:
            self._flush()

    def _flush(self) -> None:
        if self._kept:
            data, self._kept, self._size = b"".join(self._kept), [], 0
            self._transport.write(data)

    def close(self) -> None:
        self._flush()
        self._transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class _GuardedHttp(HttpToolsProtocol):
    """uvicorn's httptools protocol, with a deadline and a size limit for every request's head,
    and a cap on the connections one client address holds; configured by `guarded_protocol`."""

    header_timeout: float = 10.0
    max_header_bytes: int = 64 * 1024
    per_client: int | None = None
    open_by_client: ClassVar[Counter[str]] = Counter()
    report: Callable[[Refusal], None] = staticmethod(lambda _refusal: None)

    _deadline: asyncio.TimerHandle | None = None
    _head: bytes = b""
    _head_size = 0
    _counted: str | None = None

    def connection_made(self, transport: Any) -> None:
        super().connection_made(cast(asyncio.Transport, _CoalescedWrites(transport, self.loop)))  # duck-typed
        client = self.client[0] if self.client else None
        if client is not None and self.per_client is not None:
            if self.open_by_client[client] >= self.per_client:
                self._answer(503, f"over {self.per_client} connections at once from one client address")
                return
            self.open_by_client[client] += 1
            self._counted = client
        self._arm()

    def _arm(self) -> None:
        self._deadline = self.loop.call_later(self.header_timeout, self._too_slow)
        self._head, self._head_size = b"", 0

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def data_received(self, data: bytes) -> None:
        if self._deadline is None and (self.cycle is None or self.cycle.response_complete):
            if self.transport.is_closing():
                return  # refused at connect: nothing more is read
            self._arm()  # the next request on this connection starts
        if self._deadline is not None:
            self._head_size += len(data)
            if len(self._head) < 1024:
                self._head += data[: 1024 - len(self._head)]
        super().data_received(data)
        if self._deadline is not None and self._head_size > self.max_header_bytes:
            self._answer(431, f"request line and headers over {self.max_header_bytes} bytes")

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._counted is not None:
            self.open_by_client[self._counted] -= 1
            if self.open_by_client[self._counted] <= 0:
                del self.open_by_client[self._counted]
            self._counted = None
        super().connection_lost(exc)

    def _too_slow(self) -> None:
        self._deadline = None
        if self._head_size:  # a connection that sent nothing is only closed
            self._answer(408, f"request line and headers not complete within {self.header_timeout:g} s")
        elif not self.transport.is_closing():
            self.transport.close()

    def _answer(self, status: int, reason: str) -> None:
        """Answer `status` with `reason`, close the connection and report the refusal."""
        self._disarm()
        if self.transport.is_closing():
            return
        body = json.dumps({"code": status, "message": reason}).encode()
        self.transport.write(
            f"HTTP/1.1 {status} {_PHRASES[status]}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n".encode()
            + body
        )
        self.transport.close()
        self.report(Refusal("(connection)" if status == 503 else "(request head)", status, reason,
                            self._head_size, self._head, now()))  # fmt: skip


_PHRASES: Final = {408: "Request Timeout", 431: "Request Header Fields Too Large", 503: "Service Unavailable"}


def guarded_protocol(
    header_timeout: float,
    max_header_bytes: int,
    report: Callable[[Refusal], None],
    per_client: int | None = None,
) -> type[asyncio.Protocol]:
    """uvicorn's httptools protocol, with a deadline and a size limit for every request's
    head and at most `per_client` connections open at once from one client address."""
    settings: dict[str, Any] = {
        "header_timeout": header_timeout,
        "max_header_bytes": max_header_bytes,
        "per_client": per_client,
        "open_by_client": Counter(),  # this server's own count
        "report": staticmethod(report),
    }
    return type("GuardedHttp", (_GuardedHttp,), settings)


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
    warm_readers()

    def banner(url: str) -> None:
        print(f"olsdk serve: listening on {url} (store: {state.store.description})", file=stream, flush=True)
        if settings.api_key:
            print("olsdk serve: an API key is required (Authorization: Bearer ...)", file=stream, flush=True)
        if settings.host in ("0.0.0.0", "::", "") and not settings.allowed_hosts:
            print(
                "olsdk serve: requests are answered only when they name localhost: give the names other "
                "machines use with --allowed-host NAME",
                file=stream,
                flush=True,
            )

    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        http=guarded_protocol(
            settings.header_timeout,
            settings.max_header_bytes,
            state.report_refusal,
            settings.max_connections_per_client,
        ),
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
        with _serving_gc():
            server.run()
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
    print("olsdk serve: stopped", file=stream, flush=True)
    return 0 if server.started else 1
