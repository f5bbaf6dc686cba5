"""The HTTP transport: ``POST {url}/{endpoint}`` with retries, gzip, auth and TLS options.

Posts go through urllib3's connection pools directly. The environment that requests
would read on every call (proxies, ``NO_PROXY``, CA bundle variables, ``~/.netrc``) is
resolved once per URL with requests' own helpers, so the behaviour is requests' and a
post costs about a third of the CPU (the limit of a busy buffered client).

Retries follow urllib3's ``Retry`` built from the ``retry:`` keys (see ``_retry``),
with attempts run here so that each wait honours ``Retry-After`` and ends early when
the transport is closed. Auth headers come from a token provider (see ``_auth``).
With a ``batch:`` section, events are grouped and sent to the spec's
``POST /lineage/batch`` endpoint by a background thread (see ``buffered``).
"""

from __future__ import annotations

import gzip
import json
import logging

# requests imports `netrc` on first use, from a worker thread here. A fork during that
# import leaves the module's import lock held in the child, whose first post then waits
# on it forever; imported now, the lazy import finds it done.
import netrc  # noqa: F401
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

import urllib3
import urllib3.exceptions
from pydantic import Field, model_validator
from urllib3.util.retry import Retry

from olsdk._delivery._config import Settings, display_names
from olsdk._delivery.transports._attempts import Resume, attempt_mode
from olsdk._delivery.transports._auth import AuthSettings, TokenProvider, secret, token_provider
from olsdk._delivery.transports._base import Payload, Transport
from olsdk._delivery.transports._buffered import OnFull
from olsdk._delivery.transports._retry import RetrySettings, backoff_time, new_retry, retry_after
from olsdk._foundation._exceptions import ConfigError, DeliveryError
from olsdk._foundation._secrets import install_log_masking, mask_url, scrub

__all__ = ["BatchSettings", "HttpSettings", "HttpTransport", "SslContextSettings"]

log = logging.getLogger("olsdk._delivery.transports._http")

_USER_AGENT = "olsdk"
# statuses that mean "this server has no batch endpoint": fall back to single posts
_NO_BATCH_ENDPOINT = frozenset({404, 405, 501})
_TOO_LARGE = 413


class _Ambiguous(DeliveryError):
    """The request was sent but no answer came (reset, read timeout): it may have been stored."""


class SslContextSettings(Settings):
    """TLS for the `http` transport: CA bundle, client certificate and key."""

    ca_cert_path: str | None = Field(default=None, validation_alias="caCertPath")
    client_cert_path: str | None = Field(default=None, validation_alias="clientCertPath")
    client_key_path: str | None = Field(default=None, validation_alias="clientKeyPath")

    @model_validator(mode="after")
    def _files_exist(self) -> SslContextSettings:
        if self.client_key_path and not self.client_cert_path:
            where = "transport.sslContext.clientKeyPath"
            raise ConfigError(f"{where}: needs clientCertPath as well", where)
        for key, name in display_names(SslContextSettings).items():
            path = getattr(self, key)
            if path and not os.path.isfile(os.path.expanduser(path)):
                raise ConfigError(
                    f"transport.sslContext.{name}: no such file: {path!r}", f"transport.sslContext.{name}"
                )
        return self


class BatchSettings(Settings):
    """Group events for ``POST /lineage/batch``; sent by a background thread."""

    enabled: bool = True
    endpoint: str | None = None  # default: <endpoint>/batch
    max_events: int = Field(default=100, ge=1)
    max_bytes: int = Field(default=1_000_000, ge=1)  # uncompressed size of one batch body
    linger: float = Field(default=0.5, ge=0)  # seconds to wait for a batch to fill up
    max_queue_size: int = Field(default=10_000, ge=1)
    on_full: OnFull = "spool"
    workers: int | None = Field(
        default=None, ge=1
    )  # concurrent batch posts (the buffered wrapper's); None: its default


class HttpSettings(Settings):
    """The `http` transport: the endpoint, timeouts, retries, compression, auth and TLS."""

    url: str
    endpoint: str = "api/v1/lineage"
    timeout: float = Field(default=5.0, gt=0)  # read timeout, seconds
    connect_timeout: float | None = Field(default=None, gt=0)  # default: same as timeout
    verify: bool = True
    ssl_context: SslContextSettings | None = Field(default=None, validation_alias="sslContext")
    auth: AuthSettings | None = None
    compression: Literal["gzip"] | None = None
    custom_headers: dict[str, str] = Field(default_factory=dict)
    retry: RetrySettings = Field(default_factory=RetrySettings)
    batch: BatchSettings | None = None

    @model_validator(mode="after")
    def _http_url(self) -> HttpSettings:
        parts = urlsplit(self.url.strip())
        if parts.scheme not in ("http", "https") or not parts.netloc:
            message = f"transport.url: need an http(s) URL with a host, got {mask_url(self.url)!r}"
            raise ConfigError(message, "transport.url")
        return self

    def __repr__(self) -> str:
        return f"HttpSettings(url={mask_url(self.url)!r}, endpoint={self.endpoint!r}, ...)"


def join_url(base: str, endpoint: str) -> str:
    """``base`` + ``endpoint`` keeping any path prefix of ``base``.

    (The official client uses ``urljoin``, which drops the last path segment of a
    base URL without a trailing slash.)
    """
    if "://" in endpoint:
        return endpoint
    return f"{base.strip().rstrip('/')}/{endpoint.lstrip('/')}"


class HttpTransport(Transport):
    """POSTs each event (or, with ``batch``, groups of events) to the lineage endpoint."""

    kind = "http"

    def __init__(
        self,
        settings: HttpSettings,
        *,
        name: str | None = None,
        priority: int = 0,
    ) -> None:
        super().__init__(name=name, priority=priority)
        install_log_masking()  # urllib3 logs request lines (query strings included) at DEBUG
        # requests' helpers resolve proxies, netrc and CA bundles on the first post; imported
        # here, in the thread that builds the transport, never first in a worker (a fork during
        # an import in another thread leaves that module's import lock held in the child)
        import requests.utils  # noqa: F401

        self.settings = settings
        self.url = join_url(settings.url, settings.endpoint)
        batch = settings.batch
        self.batch_url = join_url(
            settings.url,
            batch.endpoint if batch and batch.endpoint else f"{settings.endpoint.rstrip('/')}/batch",
        )
        self.batch_supported: bool | None = None  # unknown until the first batch is posted
        # batch mode degrades instead of giving up: after an ambiguous failure events go
        # one per post and the unit doubles back with each success; a 413 halves the bytes.
        # It also starts at one event (slow start): a server that stores a body and then
        # drops the connection duplicates what one post carried, so the first posts,
        # which meet such a fault first, carry what plain mode's do.
        self._batch_unit = 1
        self._probe_lock = threading.Lock()
        self._batch_byte_limit = batch.max_bytes if batch else 0
        read = settings.timeout
        self.timeout = (
            settings.connect_timeout if settings.connect_timeout is not None else read,
            read,
        )
        self._timeout = urllib3.Timeout(connect=self.timeout[0], read=self.timeout[1])
        self.verify, self.cert = _tls(settings)
        self._headers, self._auth, self._secrets = _headers_and_auth(settings)
        self._pool_size = 8
        self._routes: dict[str, _Route] = {}
        self._routes_lock = threading.Lock()
        self._closing = threading.Event()

    def _route(self, url: str) -> _Route:
        """How to reach ``url``: its pool (direct or through a proxy) and its URL-level auth."""
        route = self._routes.get(url)
        if route is None:
            with self._routes_lock:
                route = self._routes.get(url) or _Route.resolve(url, self)
                self._routes[url] = route
        return route

    def _drop_routes(self) -> None:
        with self._routes_lock:
            routes, self._routes = list(self._routes.values()), {}
        for route in routes:
            route.pool.clear()

    def prepare_concurrency(self, senders: int) -> None:
        if senders > self._pool_size:  # one pooled connection per concurrent sender
            self._pool_size = senders
            self._drop_routes()

    def after_fork_in_child(self) -> None:
        # pooled sockets are shared with the parent: the child must open its own. Clearing
        # would close the parent's sockets too, so the child's routes are simply forgotten.
        self._routes = {}
        self._routes_lock = threading.Lock()

    # -- delivery ---------------------------------------------------------------

    def send(self, payload: Payload) -> None:
        self._post(self.url, payload.body)

    def send_many(self, payloads: Sequence[Payload]) -> list[tuple[Payload, DeliveryError]]:
        batch = self.settings.batch
        if batch is None or not batch.enabled or self.batch_supported is False:
            return super().send_many(payloads)
        failed: list[tuple[Payload, DeliveryError]] = []
        rest = list(payloads)
        while rest:
            chunk = self._next_chunk(rest, min(self._batch_unit, batch.max_events), self._batch_byte_limit)
            del rest[: len(chunk)]
            failed.extend(self._send_batch(chunk))
        return failed

    @staticmethod
    def _next_chunk(payloads: Sequence[Payload], max_events: int, max_bytes: int) -> list[Payload]:
        """The first events that fit one batch body (always at least one)."""
        chunk: list[Payload] = []
        size = 2
        for payload in payloads:
            extra = len(payload.body) + 1
            if chunk and (len(chunk) >= max_events or size + extra > max_bytes):
                break
            chunk.append(payload)
            size += extra
        return chunk

    def _send_batch(self, chunk: list[Payload]) -> list[tuple[Payload, DeliveryError]]:
        batch = self.settings.batch
        max_events = batch.max_events if batch else 1
        if len(chunk) == 1:
            alone = self._send_one(chunk[0])
            if not alone:
                self._batch_unit = min(max_events, self._batch_unit * 2)
            return alone
        if self.batch_supported is None:
            # concurrent workers take turns until one post has shown whether the server
            # has a batch endpoint: one probe, not one per worker
            with self._probe_lock:
                if self.batch_supported is None:
                    return self._post_batch(chunk, max_events)
        if self.batch_supported is False:
            return super().send_many(chunk)
        return self._post_batch(chunk, max_events)

    def _post_batch(self, chunk: list[Payload], max_events: int) -> list[tuple[Payload, DeliveryError]]:
        body = b"[" + b",".join(p.body for p in chunk) + b"]"
        try:
            response = self._post(
                self.batch_url, body, give_up_on=_NO_BATCH_ENDPOINT | {_TOO_LARGE}, retry_ambiguous=False
            )
        except _Ambiguous as exc:
            # the server may have stored the whole batch: resending it whole could duplicate
            # every event again; go one event per post until posts succeed again
            log.info(
                "batch of %d events to %s: %s; resending them one by one", len(chunk), mask_url(self.batch_url), exc
            )
            self._batch_unit = 1
            failed: list[tuple[Payload, DeliveryError]] = []
            for payload in chunk:
                failed.extend(self._send_one(payload))
            return failed
        except DeliveryError as exc:
            return [(p, exc) for p in chunk]
        if response.status in _NO_BATCH_ENDPOINT:
            log.info(
                "no batch endpoint at %s (HTTP %s); sending events one by one",
                mask_url(self.batch_url),
                response.status,
            )
            self.batch_supported = False
            return super().send_many(chunk)
        if response.status == _TOO_LARGE:
            # the server's limit is below this body: halve, remember, try the halves in order
            self._batch_byte_limit = max(1, min(self._batch_byte_limit, len(body) // 2))
            half = len(chunk) // 2
            return self._send_batch(chunk[:half]) + self._send_batch(chunk[half:])
        self.batch_supported = True
        self._batch_unit = min(max_events, self._batch_unit * 2)
        return self._batch_outcomes(chunk, response)

    def _send_one(self, payload: Payload) -> list[tuple[Payload, DeliveryError]]:
        """One event of a batch on its own (the single-event endpoint, usual retries)."""
        try:
            response = self._post(self.url, payload.body, give_up_on=frozenset({_TOO_LARGE}))
        except DeliveryError as exc:
            return [(payload, exc)]
        if response.status == _TOO_LARGE:
            reason = (
                f"the event alone ({len(payload.body)} bytes) is over the size limit of {mask_url(self.url)} (HTTP 413)"
            )
            return [(payload, DeliveryError(reason, target=self.label, retriable=False))]
        return []

    def _batch_outcomes(
        self, chunk: list[Payload], response: urllib3.BaseHTTPResponse
    ) -> list[tuple[Payload, DeliveryError]]:
        """Per-event results of a batch (the spec's 200 response body)."""
        if response.status == 204 or not response.data:
            return []
        try:
            report = json.loads(response.data)
        except ValueError:
            return []  # a 2xx without a report: everything was received
        failures = report.get("failed_events") if isinstance(report, dict) else None
        if not isinstance(failures, list):
            return []
        failed: list[tuple[Payload, DeliveryError]] = []
        retry: list[Payload] = []
        for item in failures:
            if not isinstance(item, dict) or not isinstance(item.get("index"), int):
                continue
            index = item["index"]
            if not 0 <= index < len(chunk):
                continue
            reason = scrub(str(item.get("reason") or "rejected by the batch endpoint"), self._secrets, limit=200)
            if item.get("retriable"):
                retry.append(chunk[index])
            else:
                error = DeliveryError(f"batch endpoint: {reason}", target=self.label, retriable=False)
                failed.append((chunk[index], error))
        # retriable rejections get their own posts, with the usual retries
        failed.extend(super().send_many(retry))
        return failed

    def _request_headers(self) -> dict[str, str]:
        if self._auth is None:
            return self._headers
        try:
            bearer = self._auth.get_bearer()
        except Exception as exc:  # a provider's failure is this event's delivery failure
            raise self._error(f"authentication failed - {exc}") from None
        if not bearer:
            return self._headers
        return {**self._headers, "Authorization": bearer}

    def _post(
        self, url: str, body: bytes, give_up_on: frozenset[int] = frozenset(), retry_ambiguous: bool = True
    ) -> urllib3.BaseHTTPResponse:
        """POST with retries; return the response (2xx or in ``give_up_on``) or raise.

        ``retry_ambiguous=False`` (batch posts): a failure after the body was sent (reset,
        read timeout) raises :class:`_Ambiguous` at once instead of resending the body.

        Under :func:`single_attempt` (the client's callers and its background relay) one
        attempt is made, continuing the retry state given there; a failure that may be
        retried raises with ``error.resume`` (the retry state and the wait before the next
        attempt). So do the retries of a background worker once the breaker has opened.
        """
        data = gzip.compress(body, compresslevel=3) if self.settings.compression == "gzip" else body
        once, resume = attempt_mode()
        retry = resume.retry if resume is not None else new_retry(self.settings.retry)
        attempts = 0
        while True:
            attempts += 1
            try:
                response = self._attempt(url, data)
            except urllib3.exceptions.HTTPError as exc:
                error, retry, wait = self._after_failure(exc, url, attempts, retry, retry_ambiguous)
            else:
                if 200 <= response.status < 300 or response.status in give_up_on:
                    return response
                error, retry, wait = self._after_refusal(response, url, attempts, retry)
            self._wait_or_raise(error, retry, backoff_time(retry) if wait is None else wait, url, once)

    def _attempt(self, url: str, data: bytes) -> urllib3.BaseHTTPResponse:
        route = self._route(url)
        headers = self._request_headers()
        if route.auth and "Authorization" not in headers:
            headers = {**headers, "Authorization": route.auth}
        return route.pool.request(
            "POST",
            route.url,
            body=data,
            headers=headers,
            timeout=self._timeout,
            redirect=False,  # never resend the body or a client cert elsewhere
            retries=False,  # retries are ours (see _post), so each wait can be cut short
        )

    def _after_failure(
        self, exc: urllib3.exceptions.HTTPError, url: str, attempts: int, retry: Retry, retry_ambiguous: bool
    ) -> tuple[DeliveryError, Retry, float | None]:
        """A request that got no answer: the error, and the retry state if another attempt may follow."""
        if not retry_ambiguous and _ambiguous(exc):
            reason = f"{self._describe(exc, url)}: the body may have arrived"
            raise _Ambiguous(reason, target=self.label, attempts=attempts, unreachable=True) from None
        error = self._error(
            self._describe(exc, url),
            retriable=not isinstance(exc, urllib3.exceptions.SSLError),
            attempts=attempts,
            unreachable=_unreachable(exc),
        )
        if error.unreachable and self.breaker is not None:  # other senders stop trying at once
            self.breaker.failure(error)
            error.counted = True
        try:
            return error, retry.increment("POST", url, error=exc), None
        except Exception:  # exhausted, or an error urllib3 does not retry
            raise error from None

    def _after_refusal(
        self, response: urllib3.BaseHTTPResponse, url: str, attempts: int, retry: Retry
    ) -> tuple[DeliveryError, Retry, float | None]:
        """An answer that is not a success: the error, the retry state and the server's wait."""
        status, settings = response.status, self.settings.retry
        if status == 401 and self._auth is not None:
            getattr(self._auth, "invalidate", lambda: None)()  # fetch a new token next time
        error = self._error(
            f"HTTP {status} from {mask_url(url)}: {_text(response)[:200]!r}",
            retriable=status in (settings.status_forcelist or ()) or status in (408, 429) or status >= 500,
            attempts=attempts,
        )
        if not retry.is_retry("POST", status, bool(response.headers.get("Retry-After"))):
            raise error
        try:
            retry = retry.increment("POST", url, response=response)
        except Exception:
            raise error from None
        return error, retry, retry_after(retry, settings, response)

    def _wait_or_raise(self, error: DeliveryError, retry: Retry, wait: float, url: str, once: bool) -> None:
        """Wait before the next attempt, or hand it to the relay (one attempt, or the breaker open)."""
        if once or (self.breaker is not None and not self.breaker.closed):
            error.resume = Resume(retry, wait)  # the next attempt is the relay's, in the background
            error.retriable = True  # the retry keys allow another attempt (a 413 with Retry-After)
            raise error
        if self._closing.is_set():
            raise error
        log.debug("retry %d of %s in %.2fs: %s", len(retry.history), mask_url(url), wait, error.reason)
        if self._closing.wait(wait):
            raise error

    def _describe(self, exc: urllib3.exceptions.HTTPError, url: str) -> str:
        errors = urllib3.exceptions
        if isinstance(exc, errors.SSLError):
            return f"TLS error: {exc}"
        if isinstance(exc, errors.ProxyError):
            return f"cannot reach {mask_url(url)} through the proxy: {type(exc.original_error).__name__}"
        # a refused or unresolvable connect (urllib3 files it under connect timeouts)
        if isinstance(exc, errors.NewConnectionError | errors.NameResolutionError):
            return f"cannot connect to {mask_url(url)}: {type(exc).__name__}"
        if isinstance(exc, errors.ConnectTimeoutError):
            return f"cannot connect to {mask_url(url)} within {self.timeout[0]:g}s (connect timeout)"
        if isinstance(exc, errors.ReadTimeoutError):
            return f"no response from {mask_url(url)} within {self.timeout[1]:g}s (read timeout)"
        if isinstance(exc, errors.ProtocolError):
            return f"connection to {mask_url(url)} lost: {_cause(exc)}"
        return f"request failed: {type(exc).__name__}"

    def _error(
        self, reason: str, retriable: bool = True, attempts: int = 1, unreachable: bool = False
    ) -> DeliveryError:
        token = getattr(self._auth, "current", None)
        secrets = [*self._secrets, *([token] if isinstance(token, str) and token else [])]
        return DeliveryError(
            scrub(reason, secrets), target=self.label, retriable=retriable, attempts=attempts, unreachable=unreachable
        )

    def close(self, timeout: float | None = None) -> bool:
        self._closing.set()  # cut short any backoff sleep
        self._drop_routes()
        return True

    @property
    def breaker_identity(self) -> str:
        return f"http:{self.url}"

    def __repr__(self) -> str:
        return f"<HttpTransport url={mask_url(self.url)!r}>"


def _tls(settings: HttpSettings) -> tuple[bool | str, str | tuple[str, str] | None]:
    """``verify`` (a CA bundle implies verification) and the client certificate, as requests takes them."""
    ssl = settings.ssl_context
    verify: bool | str = settings.verify
    cert: str | tuple[str, str] | None = None
    if ssl and ssl.ca_cert_path:
        verify = os.path.expanduser(ssl.ca_cert_path)
    if ssl and ssl.client_cert_path:
        path, key = os.path.expanduser(ssl.client_cert_path), ssl.client_key_path
        cert = (path, os.path.expanduser(key)) if key else path
    return verify, cert


def _headers_and_auth(settings: HttpSettings) -> tuple[dict[str, str], TokenProvider | None, list[str]]:
    """The static headers, the token provider (None: the headers carry any auth) and the secrets to scrub."""
    headers = {"Content-Type": "application/json", "User-Agent": _USER_AGENT}
    secrets: list[str] = settings.auth.secrets() if settings.auth else []
    auth = token_provider(settings.auth)
    if settings.auth and settings.auth.type == "api_key":
        headers["Authorization"] = f"Bearer {secret(settings.auth.api_key)}"  # static: no provider call
        auth = None
    headers.update(settings.custom_headers)
    if settings.compression == "gzip":
        headers["Content-Encoding"] = "gzip"
    password = urlsplit(settings.url).password
    if password:
        secrets.append(password)
    return headers, auth, secrets


def _unreachable(exc: urllib3.exceptions.HTTPError) -> bool:
    """The backend could not be reached or did not answer in time: refused, unresolvable,
    a connect or read timeout, a proxy that cannot reach it. (A connection reset after the
    request was read is the backend misbehaving, not being away: it is retried as usual.)"""
    errors = urllib3.exceptions
    # refusals and unresolvable hosts are connect timeouts to urllib3
    return isinstance(exc, errors.TimeoutError | errors.ProxyError)


def _ambiguous(exc: urllib3.exceptions.HTTPError) -> bool:
    """A failure after the body was sent: a lost connection or a read timeout."""
    return isinstance(exc, urllib3.exceptions.ProtocolError | urllib3.exceptions.ReadTimeoutError)


def _cause(exc: urllib3.exceptions.ProtocolError) -> str:
    """The OS-level reason under a lost connection ("ConnectionResetError"), never a payload."""
    inner = exc.args[1] if len(exc.args) > 1 else None
    return type(inner).__name__ if isinstance(inner, BaseException) else "connection closed"


def _text(response: urllib3.BaseHTTPResponse) -> str:
    return (response.data or b"").decode("utf-8", "replace")


@dataclass(frozen=True)
class _Route:
    """A URL's pool and URL-level auth, resolved from the environment once (as requests
    would on every call): the proxy for its scheme unless ``NO_PROXY`` matches, the CA
    bundle (``REQUESTS_CA_BUNDLE``/``CURL_CA_BUNDLE``, else certifi's, as requests), and
    Basic auth from the URL's ``user:password@`` or ``~/.netrc``; an ``Authorization``
    header from ``auth``/``custom_headers`` wins over both."""

    url: str  # without user:password
    pool: urllib3.PoolManager
    auth: str | None

    @classmethod
    def resolve(cls, url: str, transport: HttpTransport) -> _Route:
        import requests.utils

        parts = urlsplit(url)
        bare = url
        user_auth = None
        if parts.username is not None or parts.password is not None:
            host = parts.hostname or ""
            netloc = (f"[{host}]" if ":" in host else host) + (f":{parts.port}" if parts.port else "")
            bare = urlunsplit(parts._replace(netloc=netloc))
            user_auth = requests.utils.get_auth_from_url(url)
        auth = user_auth if user_auth and any(user_auth) else requests.utils.get_netrc_auth(url)
        header = urllib3.util.make_headers(basic_auth=f"{auth[0]}:{auth[1]}")["authorization"] if auth else None
        tls: dict[str, object] = {"maxsize": transport._pool_size, "num_pools": 4, "retries": False}
        verify = transport.verify
        if verify is True:
            verify = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE") or True
        if verify is False:
            tls["cert_reqs"] = "CERT_NONE"
        else:
            tls["cert_reqs"] = "CERT_REQUIRED"
            bundle = requests.utils.DEFAULT_CA_BUNDLE_PATH if verify is True else verify
            tls["ca_cert_dir" if os.path.isdir(bundle) else "ca_certs"] = bundle
        if isinstance(transport.cert, tuple):
            tls["cert_file"], tls["key_file"] = transport.cert
        elif transport.cert:
            tls["cert_file"] = transport.cert
        proxy = requests.utils.select_proxy(bare, requests.utils.get_environ_proxies(bare))
        if proxy:
            proxy_parts = urlsplit(proxy if "://" in proxy else f"http://{proxy}")
            proxy_headers = None
            if proxy_parts.username:
                user, password = requests.utils.get_auth_from_url(proxy_parts.geturl())
                proxy_headers = urllib3.util.make_headers(proxy_basic_auth=f"{user}:{password}")
            pool: urllib3.PoolManager = urllib3.ProxyManager(
                proxy_parts.geturl(),
                proxy_headers=proxy_headers,
                **tls,  # type: ignore[arg-type]
            )
        else:
            pool = urllib3.PoolManager(**tls)  # type: ignore[arg-type]
        return cls(bare, pool, header)
