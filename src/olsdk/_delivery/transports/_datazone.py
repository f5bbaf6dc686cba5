"""``type: amazon_datazone_api``: Amazon DataZone's ``PostLineageEvent`` (optional extra
``aws``: boto3), with the official client's keys ``domainId``, ``region`` and
``endpointOverride`` (which wins over ``region``).

DataZone accepts run events only: job and dataset events are skipped with a warning,
as the official client skips them. Any error of the DataZone call is a delivery
failure (spooled).
"""

from __future__ import annotations

import logging
from typing import Any

from pydantic import Field

from olsdk._delivery._config import Settings
from olsdk._delivery.transports._base import Payload, Transport
from olsdk._foundation._exceptions import ConfigError, DeliveryError

__all__ = ["DataZoneSettings", "DataZoneTransport"]

log = logging.getLogger("olsdk._delivery.transports._datazone")


class DataZoneSettings(Settings):
    domain_id: str = Field(validation_alias="domainId")
    region: str | None = None
    endpoint_override: str | None = Field(default=None, validation_alias="endpointOverride")


class DataZoneTransport(Transport):
    kind = "amazon_datazone_api"

    def __init__(
        self, settings: DataZoneSettings, *, name: str | None = None, priority: int = 0, client: Any = None
    ) -> None:
        super().__init__(name=name, priority=priority)
        self.settings = settings
        self.client = client if client is not None else self._make_client()

    def _make_client(self) -> Any:
        try:
            import boto3  # type: ignore[import-untyped]
        except ImportError:
            raise ConfigError(
                "transport.type: amazon_datazone_api needs boto3 (pip install 'olsdk[aws]')", "transport.type"
            ) from None
        kwargs: dict[str, Any] = {}
        if self.settings.endpoint_override:
            kwargs["endpoint_url"] = self.settings.endpoint_override
        elif self.settings.region:
            kwargs["region_name"] = self.settings.region
        return boto3.client("datazone", **kwargs)

    def send(self, payload: Payload) -> None:
        if payload.kind != "run":
            log.warning("DataZone accepts run events only: %s event of %s skipped", payload.kind, payload.job_name)
            return
        try:
            self.client.post_lineage_event(domainIdentifier=self.settings.domain_id, event=payload.body)
        except Exception as exc:  # botocore's ClientError, EndpointConnectionError, ...
            raise DeliveryError(
                f"DataZone domain {self.settings.domain_id}: {type(exc).__name__}: {exc}", target=self.label
            ) from None

    def close(self, timeout: float | None = None) -> bool:
        close = getattr(self.client, "close", None)
        if callable(close):
            close()
        return True

    def __repr__(self) -> str:
        return f"<DataZoneTransport domain={self.settings.domain_id!r}>"
