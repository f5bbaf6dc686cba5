"""``type: gcplineage``: Google Cloud Data Lineage's ``ProcessOpenLineageRunEvent``
(optional extra ``gcp``: google-cloud-datacatalog-lineage), with the official client's
keys ``project_id``, ``location`` (``us-central1``), ``credentials_path`` (a service
account file; default: Application Default Credentials) and ``async_transport_rules``.

Events go to ``projects/<project_id>/locations/<location>``. Run events only: job and
dataset events are skipped with a warning, as the official client skips them. The
official client sends events matching ``async_transport_rules`` through the SDK's
asyncio client; olsdk sends every event through the synchronous client and leaves
non-blocking delivery to a ``buffered`` wrapper, so the rules are accepted and have
no other effect.
"""

from __future__ import annotations

import logging
from typing import Any

from pydantic import Field

from olsdk._delivery._config import Settings
from olsdk._delivery.transports._base import Payload, Transport
from olsdk._foundation._exceptions import ConfigError, DeliveryError

__all__ = ["GcpLineageSettings", "GcpLineageTransport"]

log = logging.getLogger("olsdk._delivery.transports._gcplineage")


class GcpLineageSettings(Settings):
    project_id: str
    location: str = "us-central1"
    credentials_path: str | None = None
    async_transport_rules: dict[str, dict[str, bool]] = Field(default_factory=lambda: {"dbt": {"*": True}})

    @property
    def parent(self) -> str:
        return f"projects/{self.project_id}/locations/{self.location}"


class GcpLineageTransport(Transport):
    kind = "gcplineage"

    def __init__(
        self, settings: GcpLineageSettings, *, name: str | None = None, priority: int = 0, client: Any = None
    ) -> None:
        super().__init__(name=name, priority=priority)
        self.settings = settings
        self._client = client
        if client is None:
            try:
                import google.cloud.datacatalog_lineage_v1  # noqa: F401  # type: ignore[import-untyped]
            except ImportError:
                raise ConfigError(
                    "transport.type: gcplineage needs google-cloud-datacatalog-lineage (pip install 'olsdk[gcp]')",
                    "transport.type",
                ) from None

    @property
    def client(self) -> Any:
        """The SDK's LineageClient, made on first use (it reads credentials)."""
        if self._client is None:
            from google.cloud.datacatalog_lineage_v1 import LineageClient

            if self.settings.credentials_path:
                from google.oauth2 import service_account

                credentials = service_account.Credentials.from_service_account_file(  # type: ignore[no-untyped-call]
                    self.settings.credentials_path
                )
                self._client = LineageClient(credentials=credentials)
            else:
                self._client = LineageClient()
        return self._client

    def send(self, payload: Payload) -> None:
        if payload.kind != "run":
            log.warning("GCP Lineage accepts run events only: %s event skipped", payload.kind)
            return
        try:
            self.client.process_open_lineage_run_event(parent=self.settings.parent, open_lineage=payload.event())
        except Exception as exc:  # google.api_core exceptions, credential errors
            raise DeliveryError(
                f"GCP Lineage {self.settings.parent}: {type(exc).__name__}: {exc}", target=self.label
            ) from None

    def close(self, timeout: float | None = None) -> bool:
        if self._client is not None:
            try:
                self._client.transport.close()
            except Exception:
                log.warning("closing the GCP Lineage client failed", exc_info=True)
                return False
        return True

    def __repr__(self) -> str:
        return f"<GcpLineageTransport parent={self.settings.parent!r}>"
