"""``type: datadog``: Datadog's OpenLineage intake, with the official client's keys.

``apiKey`` (else ``$DD_API_KEY``) and ``site`` (else ``$DD_SITE``, else
``datadoghq.com``; a site name from Datadog's list or an http(s) URL) pick the intake;
events are posted gzip-compressed with ``Authorization: Bearer <apiKey>`` to
``<intake>/api/v1/lineage``. Events whose ``jobType`` facet matches
``async_transport_rules`` (default: every dbt job) go through a non-blocking
``async_http`` transport, the others are posted at once, as in the official client.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlparse

from pydantic import Field, SecretStr, model_validator

from olsdk._delivery._config import Settings, respell
from olsdk._delivery.transports._async_http import AsyncHttpSettings, build_async_http
from olsdk._delivery.transports._auth import AuthSettings
from olsdk._delivery.transports._base import FailureHandler, Payload, Transport
from olsdk._delivery.transports._http import HttpSettings, HttpTransport
from olsdk._delivery.transports._retry import RetrySettings
from olsdk._foundation._exceptions import ConfigError

__all__ = ["DatadogSettings", "DatadogTransport", "intake_url"]

# Datadog sites and their OpenLineage intake (the official client's table)
SITES = {
    site: f"https://data-obs-intake.{site}"
    for site in (
        "datadoghq.com",
        "us3.datadoghq.com",
        "us5.datadoghq.com",
        "datadoghq.eu",
        "ddog-gov.com",
        "us2.ddog-gov.com",
        "ap1.datadoghq.com",
        "ap2.datadoghq.com",
        "uk1.datadoghq.com",
        "datad0g.com",
    )
}


def _is_url(text: str) -> bool:
    parsed = urlparse(text)
    return parsed.scheme in ("http", "https") and bool(parsed.netloc)


def intake_url(site: str) -> str:
    return site if _is_url(site) else SITES[site]


class DatadogSettings(Settings):
    api_key: SecretStr | None = Field(default=None, validation_alias="apiKey")  # default: $DD_API_KEY
    site: str | None = None  # default: $DD_SITE, else datadoghq.com
    timeout: float = 5.0
    retry: RetrySettings = Field(default_factory=RetrySettings)
    max_queue_size: int = 10_000
    max_concurrent_requests: int = 100
    async_transport_rules: dict[str, dict[str, bool]] = Field(default_factory=lambda: {"dbt": {"*": True}})

    @model_validator(mode="before")
    @classmethod
    def _from_environment(cls, data: Any) -> Any:
        data = respell(cls, data)  # the declared names, whichever validator runs first
        if not isinstance(data, dict):
            return data
        api_key = data.get("apiKey") or os.environ.get("DD_API_KEY") or None
        return {**data, "apiKey": api_key, "site": data.get("site") or os.environ.get("DD_SITE") or "datadoghq.com"}

    @model_validator(mode="after")
    def _site(self) -> DatadogSettings:
        if not self.api_key or not self.api_key.get_secret_value():
            raise ConfigError("transport.apiKey: required (or set DD_API_KEY)", "transport.apiKey")
        site = str(self.site)
        if site not in SITES and not _is_url(site):
            raise ConfigError(
                f"transport.site: {site!r} is neither a Datadog site ({', '.join(SITES)}) nor an http(s) URL",
                "transport.site",
            )
        return self

    def __repr__(self) -> str:
        return f"DatadogSettings(site={self.site!r}, apiKey=***)"


class DatadogTransport(Transport):
    kind = "datadog"

    def __init__(self, settings: DatadogSettings, *, name: str | None = None, priority: int = 0) -> None:
        super().__init__(name=name, priority=priority)
        self.settings = settings
        shared: dict[str, Any] = {
            "url": intake_url(str(settings.site)),
            "timeout": settings.timeout,
            "retry": settings.retry,
            "compression": "gzip",
            "auth": AuthSettings(type="api_key", api_key=settings.api_key),
        }
        self.http = HttpTransport(HttpSettings(**shared), name=name or self.kind)
        self._async_settings = AsyncHttpSettings(
            **shared,
            max_queue_size=settings.max_queue_size,
            max_concurrent_requests=settings.max_concurrent_requests,
        )
        self.async_http: Transport | None = None  # built on the first event routed to it (it starts a thread)

    def set_failure_handler(self, handler: FailureHandler) -> None:
        super().set_failure_handler(handler)
        self.http.set_failure_handler(handler)
        if self.async_http is not None:
            self.async_http.set_failure_handler(handler)

    def use_async(self, payload: Payload) -> bool:
        """The official ``async_transport_rules``: integration -> jobType -> async?"""
        rules = self.settings.async_transport_rules
        if rules.get("*", {}).get("*"):
            return True
        facet = (((payload.event().get("job") or {}).get("facets")) or {}).get("jobType") or {}
        integration = str(facet.get("integration") or "").lower()
        job_type = str(facet.get("jobType") or "").lower()
        if not integration:
            return False
        for rule_integration, by_type in rules.items():
            if rule_integration == "*" or rule_integration.lower() == integration:
                for rule_type, use in by_type.items():
                    if rule_type == "*" or rule_type.lower() == job_type:
                        return bool(use)
        return False

    def send(self, payload: Payload) -> None:
        if not self.use_async(payload):
            self.http.send(payload)
            return
        if self.async_http is None:
            self.async_http = build_async_http(self._async_settings, name=self.name or self.kind)
            self.async_http.set_failure_handler(self._on_failure)
        self.async_http.send(payload)

    def flush(self, timeout: float | None = None) -> bool:
        return self.async_http.flush(timeout) if self.async_http is not None else True

    def close(self, timeout: float | None = None) -> bool:
        done = self.async_http.close(timeout) if self.async_http is not None else True
        return self.http.close(timeout) and done

    def synchronous(self) -> Transport:
        return self.http

    def __repr__(self) -> str:
        return f"<DatadogTransport site={self.settings.site!r}>"
