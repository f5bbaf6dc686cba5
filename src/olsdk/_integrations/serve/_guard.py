"""Refusing requests that no producer or reader of this server sends: the browser's attacks.

With no API key, a page on another site could still post lineage (a "simple" request:
``Content-Type: text/plain`` or none, no preflight) or, through DNS rebinding (a name of
the attacker's that resolves to 127.0.0.1), read everything. So, with or without a key:

- a request whose ``Host`` is not one the server serves (the localhost names, the address
  it is bound to, ``--allowed-host``) is refused with 403;
- a request with an ``Origin`` that is not the server's own (scheme, host and port of its
  ``Host``) or one of ``--allowed-origin`` is refused with 403;
- a write (``POST``) must say its body is JSON (``application/json`` or ``*/*+json``): 415.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Callable, Iterable
from typing import Final

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from olsdk._integrations.serve._store import Refusal, now

__all__ = ["RequestGuard", "served_hosts"]

LOCAL_NAMES: Final = frozenset({"localhost", "127.0.0.1", "::1"})
_ANY_ADDRESS: Final = frozenset({"", "0.0.0.0", "::"})
_DEFAULT_PORTS: Final = {"http": 80, "https": 443}


def served_hosts(bound: str, allowed: Iterable[str]) -> frozenset[str]:
    """The host names a request may name: localhost's, the bound address, and `allowed` (lower case)."""
    names = set(LOCAL_NAMES) | {name.strip().lower().strip("[]") for name in allowed if name.strip()}
    if bound not in _ANY_ADDRESS:
        names.add(bound.lower().strip("[]"))
    return frozenset(names)


def _split_host(value: str) -> tuple[str, int | None]:
    """``host[:port]`` (IPv6 in brackets) -> (host in lower case without brackets, port or None)."""
    value = value.strip().lower()
    if value.startswith("["):
        host, _, rest = value[1:].partition("]")
        port = rest.removeprefix(":")
    else:
        host, _, port = value.partition(":")
    return host, int(port) if port.isdigit() else None


class RequestGuard:
    """ASGI middleware: the Host, Origin and Content-Type rules above; refusals answered as JSON."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        hosts: frozenset[str],
        origins: Iterable[str],
        json_paths: frozenset[str],
        on_refused: Callable[[Refusal], None],
    ) -> None:
        self.app = app
        self.any_host = "*" in hosts
        self.hosts = hosts
        self.origins = frozenset(origin.strip().lower().rstrip("/") for origin in origins)
        self.json_paths = json_paths
        self.on_refused = on_refused

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])  # the last of repeated headers: none of these may repeat
        status_reason = self._refusal(scope, headers)
        if status_reason is None:
            await self.app(scope, receive, send)
            return
        status, reason = status_reason
        if scope.get("method") == "POST":
            self.on_refused(Refusal(scope.get("path", ""), status, reason, 0, b"", now()))
        response = JSONResponse({"code": status, "message": reason}, status_code=status)
        await response(scope, receive, send)

    def _refusal(self, scope: Scope, headers: dict[bytes, bytes]) -> tuple[int, str] | None:
        host_header = headers.get(b"host", b"").decode("latin-1")
        host, port = _split_host(host_header)
        if host_header and not self.any_host and host not in self.hosts and not host.endswith(".localhost"):
            return 403, (
                f"Host {host_header!r} is not a name this server answers to "
                "(start it with --allowed-host NAME to serve that name)"
            )
        origin = headers.get(b"origin")
        if origin is not None and not self._same_origin(origin.decode("latin-1"), scope, host, port):
            return 403, (
                f"requests from the web page at {origin.decode('latin-1')!r} are refused: "
                "only this server's own pages, or an origin given with --allowed-origin"
            )
        if scope.get("method") == "POST" and scope.get("path") in self.json_paths:
            media = headers.get(b"content-type", b"").decode("latin-1").partition(";")[0].strip().lower()
            if media != "application/json" and not (media.startswith("application/") and media.endswith("+json")):
                shown = repr(media) if media else "none"
                return 415, f"Content-Type {shown}: events are sent as application/json"
        return None

    def _same_origin(self, origin: str, scope: Scope, host: str, port: int | None) -> bool:
        origin = origin.strip().lower().rstrip("/")
        if origin in self.origins:
            return True
        parts = urllib.parse.urlsplit(origin)
        if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
            return False  # "null" (a sandboxed page, a file), or no URL at all
        scheme = scope.get("scheme", "http")
        try:
            origin_port = parts.port or _DEFAULT_PORTS[parts.scheme]
        except ValueError:
            return False
        return (
            parts.scheme == scheme
            and parts.hostname == host
            and origin_port == (port or _DEFAULT_PORTS.get(scheme, 80))
        )
