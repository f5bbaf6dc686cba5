"""The HTTP transport: ``POST {url}/{endpoint}`` with retries, gzip, auth and TLS options.

Retries are done here rather than by urllib3's ``Retry`` so that the transport
knows how each attempt ended: it honours ``Retry-After`` on 429 and 503, adds
jitter to the exponential backoff, and can stop sleeping when it is closed.
With a ``batch:`` section, events are grouped and sent to the spec's
``POST /lineage/batch`` endpoint by a background thread (see ``buffered``).
"""

from __future__ import annotations

import email.utils
import gzip
import logging
import os
import random
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

import requests
from requests.adapters import HTTPAdapter

from olsdk.transports.base import DeliveryError, Payload, Transport
from olsdk.transports.registry import register_transport
from olsdk.transports.settings import ConfigError, Origins, meta

__all__ = [
    "AuthSettings",
    "BatchSettings",
    "HttpSettings",
    "HttpTransport",
    "RetrySettings",
    "SslContextSettings",
]

log = logging.getLogger("olsdk.transports.http")

_USER_AGENT = "olsdk"
# statuses that mean "this server has no batch endpoint": fall back to single posts
_NO_BATCH_ENDPOINT = frozenset({404, 405, 501})


@dataclass(frozen=True)
class AuthSettings:
    type: Literal["api_key"] | None = None
    api_key: str | None = field(default=None, metadata=meta("apiKey"))

    def __post_init__(self) -> None:
        if self.type == "api_key" and not self.api_key:
            raise ConfigError(
                "transport.auth.apiKey: required when auth type is 'api_key'",
                "transport.auth.apiKey",
            )

    def __repr__(self) -> str:  # never show the key
        return f"AuthSettings(type={self.type!r}, apiKey={'***' if self.api_key else None})"


@dataclass(frozen=True)
class SslContextSettings:
    ca_cert_path: str | None = field(default=None, metadata=meta("caCertPath"))
    client_cert_path: str | None = field(default=None, metadata=meta("clientCertPath"))
    client_key_path: str | None = field(default=None, metadata=meta("clientKeyPath"))

    def __post_init__(self) -> None:
        if self.client_key_path and not self.client_cert_path:
            raise ConfigError(
                "transport.sslContext.clientKeyPath: needs clientCertPath as well",
                "transport.sslContext.clientKeyPath",
            )
        for key in ("ca_cert_path", "client_cert_path", "client_key_path"):
            path = getattr(self, key)
            if path and not os.path.isfile(os.path.expanduser(path)):
                name = {"ca_cert_path": "caCertPath", "client_cert_path": "clientCertPath"}.get(key, "clientKeyPath")
                raise ConfigError(
                    f"transport.sslContext.{name}: no such file: {path!r}",
                    f"transport.sslContext.{name}",
                )


@dataclass(frozen=True)
class RetrySettings:
    """Names follow urllib3's ``Retry`` (what the official client's ``retry:`` takes)."""

    total: int = 5
    connect: int = 5
    read: int = 5
    backoff_factor: float = 0.3
    backoff_max: float = 30.0
    backoff_jitter: float = 0.2
    # 429 is retried too (the official client's default list is 500, 502, 503, 504)
    status_forcelist: list[int] = field(default_factory=lambda: [429, 500, 502, 503, 504])
    # POST must be listed for any retry to happen, as with urllib3
    allowed_methods: list[str] = field(default_factory=lambda: ["HEAD", "POST"])
    respect_retry_after_header: bool = True
    retry_after_max: float = 60.0  # cap on a server-requested wait

    def backoff(self, retry_number: int) -> float:
        base = min(self.backoff_max, self.backoff_factor * 2.0 ** (retry_number - 1))
        return base + random.uniform(0, self.backoff_jitter)


@dataclass(frozen=True)
class BatchSettings:
    """Group events for ``POST /lineage/batch``; sent by a background thread."""

    enabled: bool = True
    endpoint: str | None = None  # default: <endpoint>/batch
    max_events: int = 100
    max_bytes: int = 1_000_000  # uncompressed size of one batch body
    linger: float = 0.5  # seconds to wait for a batch to fill up
    max_queue_size: int = 10_000
    on_full: Literal["spool", "block"] = "spool"


@dataclass(frozen=True)
class HttpSettings:
    url: str
    endpoint: str = "api/v1/lineage"
    timeout: float = 5.0  # read timeout, seconds
    connect_timeout: float | None = None  # default: same as timeout
    verify: bool = True
    ssl_context: SslContextSettings | None = field(default=None, metadata=meta("sslContext"))
    auth: AuthSettings | None = None
    compression: Literal["gzip"] | None = None
    custom_headers: dict[str, str] = field(default_factory=dict, metadata=meta(free_keys=True))
    retry: RetrySettings = field(default_factory=RetrySettings)
    batch: BatchSettings | None = None

    def __post_init__(self) -> None:
        parts = urlsplit(self.url.strip())
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ConfigError(
                f"transport.url: need an http(s) URL with a host, got {mask_url(self.url)!r}",
                "transport.url",
            )

    def __repr__(self) -> str:
        return f"HttpSettings(url={mask_url(self.url)!r}, endpoint={self.endpoint!r}, ...)"


def mask_url(url: str) -> str:
    """The URL with any password in its user-info replaced by ``***``."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = f"{parts.username}:***@{parts.hostname}"
    if parts.port:
        netloc += f":{parts.port}"
    return urlunsplit(parts._replace(netloc=netloc))


def join_url(base: str, endpoint: str) -> str:
    """``base`` + ``endpoint`` keeping any path prefix of ``base``.

    (The official client uses ``urljoin``, which drops the last path segment of a
    base URL without a trailing slash.)
    """
    if "://" in endpoint:
        return endpoint
    return f"{base.strip().rstrip('/')}/{endpoint.lstrip('/')}"


def _retry_after(response: requests.Response) -> float | None:
    value = response.headers.get("Retry-After")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


@register_transport
class HttpTransport(Transport):
    kind = "http"
    settings_class = HttpSettings

    def __init__(
        self,
        settings: HttpSettings,
        *,
        name: str | None = None,
        priority: int = 0,
        session: requests.Session | None = None,
    ) -> None:
        super().__init__(name=name, priority=priority)
        self.settings = settings
        self.url = join_url(settings.url, settings.endpoint)
        batch = settings.batch
        self.batch_url = join_url(
            settings.url,
            batch.endpoint if batch and batch.endpoint else f"{settings.endpoint.rstrip('/')}/batch",
        )
        self.batch_supported: bool | None = None  # unknown until the first batch is posted
        read = settings.timeout
        self.timeout = (
            settings.connect_timeout if settings.connect_timeout is not None else read,
            read,
        )
        ssl = settings.ssl_context
        self.verify: bool | str = settings.verify
        self.cert: str | tuple[str, str] | None = None
        if ssl and ssl.ca_cert_path:
            self.verify = os.path.expanduser(ssl.ca_cert_path)  # a CA bundle implies verification
        if ssl and ssl.client_cert_path:
            cert = os.path.expanduser(ssl.client_cert_path)
            key = ssl.client_key_path
            self.cert = (cert, os.path.expanduser(key)) if key else cert
        self._headers = {"Content-Type": "application/json", "User-Agent": _USER_AGENT}
        self._secrets: list[str] = []
        if settings.auth and settings.auth.api_key:
            self._headers["Authorization"] = f"Bearer {settings.auth.api_key}"
            self._secrets.append(settings.auth.api_key)
        self._headers.update(settings.custom_headers)
        if settings.compression == "gzip":
            self._headers["Content-Encoding"] = "gzip"
        password = urlsplit(settings.url).password
        if password:
            self._secrets.append(password)
        self._owns_session = session is None
        self.session = session or requests.Session()
        # pooled keep-alive connections; retries are ours, so urllib3 must not retry
        adapter = HTTPAdapter(pool_connections=2, pool_maxsize=8, max_retries=0)
        self.session.mount("http://", adapter)
        self.session.mount("https://", adapter)
        self._closing = threading.Event()

    @classmethod
    def from_settings(
        cls,
        data: Any,
        path: tuple[str, ...] = ("transport",),
        origins: Origins | None = None,
        *,
        name: str | None = None,
        priority: int = 0,
    ) -> Transport:
        transport = super().from_settings(data, path, origins, name=name, priority=priority)
        assert isinstance(transport, HttpTransport)
        batch = transport.settings.batch
        if batch is None or not batch.enabled:
            return transport
        # batching needs a background thread: wrap in the buffered transport
        from olsdk.transports.buffered import BufferedSettings, BufferedTransport

        return BufferedTransport(
            transport,
            BufferedSettings(
                max_queue_size=batch.max_queue_size,
                on_full=batch.on_full,
                batch_size=batch.max_events,
                batch_bytes=batch.max_bytes,
                linger=batch.linger,
            ),
            name=name,
            priority=priority,
        )

    # -- delivery ---------------------------------------------------------------

    def send(self, payload: Payload) -> None:
        self._post(self.url, payload.body)

    def send_many(self, payloads: Sequence[Payload]) -> list[tuple[Payload, DeliveryError]]:
        batch = self.settings.batch
        if batch is None or not batch.enabled or self.batch_supported is False or len(payloads) < 2:
            return super().send_many(payloads)
        failed: list[tuple[Payload, DeliveryError]] = []
        for chunk in self._chunks(payloads, batch.max_events, batch.max_bytes):
            failed.extend(self._send_batch(chunk))
        return failed

    @staticmethod
    def _chunks(payloads: Sequence[Payload], max_events: int, max_bytes: int) -> list[list[Payload]]:
        chunks: list[list[Payload]] = []
        current: list[Payload] = []
        size = 2
        for payload in payloads:
            extra = len(payload.body) + 1
            if current and (len(current) >= max_events or size + extra > max_bytes):
                chunks.append(current)
                current, size = [], 2
            current.append(payload)
            size += extra
        if current:
            chunks.append(current)
        return chunks

    def _send_batch(self, chunk: list[Payload]) -> list[tuple[Payload, DeliveryError]]:
        if len(chunk) == 1:
            return super().send_many(chunk)
        body = b"[" + b",".join(p.body for p in chunk) + b"]"
        try:
            response = self._post(self.batch_url, body, give_up_on=_NO_BATCH_ENDPOINT)
        except DeliveryError as exc:
            return [(p, exc) for p in chunk]
        if response.status_code in _NO_BATCH_ENDPOINT:
            log.info(
                "no batch endpoint at %s (HTTP %s); sending events one by one",
                mask_url(self.batch_url),
                response.status_code,
            )
            self.batch_supported = False
            return super().send_many(chunk)
        self.batch_supported = True
        return self._batch_outcomes(chunk, response)

    def _batch_outcomes(self, chunk: list[Payload], response: requests.Response) -> list[tuple[Payload, DeliveryError]]:
        """Per-event results of a batch (the spec's 200 response body)."""
        if response.status_code == 204 or not response.content:
            return []
        try:
            report = response.json()
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
            reason = str(item.get("reason") or "rejected by the batch endpoint")
            if item.get("retriable"):
                retry.append(chunk[index])
            else:
                error = DeliveryError(f"batch endpoint: {reason}", target=self.label, retriable=False)
                failed.append((chunk[index], error))
        # retriable rejections get their own posts, with the usual retries
        failed.extend(super().send_many(retry))
        return failed

    def _post(self, url: str, body: bytes, give_up_on: frozenset[int] = frozenset()) -> requests.Response:
        """POST with retries; return the response (2xx or in ``give_up_on``) or raise."""
        retry = self.settings.retry
        data = gzip.compress(body, compresslevel=3) if self.settings.compression == "gzip" else body
        may_retry = "POST" in (m.upper() for m in retry.allowed_methods)
        total, connect, read = retry.total, retry.connect, retry.read
        retries = 0
        while True:
            wait: float | None = None
            try:
                response = self.session.post(
                    url,
                    data=data,
                    headers=self._headers,
                    timeout=self.timeout,
                    verify=self.verify,
                    cert=self.cert,
                    allow_redirects=False,  # never resend the body or a client cert elsewhere
                )
            except requests.exceptions.SSLError as exc:
                raise self._error(f"TLS error: {exc}", retriable=False) from None
            except requests.exceptions.ConnectionError as exc:  # includes connect timeouts
                connect -= 1
                error = self._error(f"cannot connect to {mask_url(url)}: {type(exc).__name__}")
                budget = connect
            except requests.exceptions.Timeout:
                read -= 1
                error = self._error(f"no response from {mask_url(url)} within {self.timeout[1]:g}s (read timeout)")
                budget = read
            except requests.exceptions.RequestException as exc:
                raise self._error(f"request failed: {exc}", retriable=False) from None
            else:
                status = response.status_code
                if 200 <= status < 300 or status in give_up_on:
                    return response
                retriable = status in retry.status_forcelist
                error = self._error(
                    f"HTTP {status} from {mask_url(url)}: {response.text[:200]!r}",
                    retriable=retriable or status == 408 or status >= 500,
                )
                if not retriable:
                    raise error
                budget = total - 1
                if retry.respect_retry_after_header and status in (429, 503):
                    after = _retry_after(response)
                    if after is not None:
                        wait = min(after, retry.retry_after_max)
            total -= 1
            retries += 1
            if not may_retry or total < 0 or budget < 0 or self._closing.is_set():
                raise error
            if wait is None:
                wait = retry.backoff(retries)
            log.debug("retry %d of %s in %.2fs: %s", retries, mask_url(url), wait, error.reason)
            if self._closing.wait(wait):
                raise error

    def _error(self, reason: str, retriable: bool = True) -> DeliveryError:
        for secret in self._secrets:
            reason = reason.replace(secret, "***")
        return DeliveryError(reason, target=self.label, retriable=retriable)

    def close(self, timeout: float | None = None) -> bool:
        self._closing.set()  # cut short any backoff sleep
        if self._owns_session:
            self.session.close()
        return True

    def __repr__(self) -> str:
        return f"<HttpTransport url={mask_url(self.url)!r}>"
