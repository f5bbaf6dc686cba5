"""``OlsdkTransport``: an official-client transport that delivers through olsdk.

The official factory builds it as ``OlsdkTransport(OlsdkTransportConfig.from_dict(section))``.
Each event the official client emits (after its own enrichment: tags, environment
variables, source code location, dataset reducing) is serialised with the official
``Serde`` and handed to an olsdk client that has only the section's ``transport``,
``spool`` and ``error_policy``; it reads no configuration variable and no file of its
own, since the official client already resolved the configuration. ``XDG_STATE_HOME``
is the one variable it passes on: it places the default spool, where ``olsdk replay``
looks for it.
"""

from __future__ import annotations

import logging
import os
from typing import Any

import attr
from openlineage.client.serde import Serde
from openlineage.client.transport.transport import Config, Transport

from olsdk._foundation._exceptions import ConfigError

__all__ = ["OlsdkTransport", "OlsdkTransportConfig"]

log = logging.getLogger("olsdk.compat")

_KEYS = ("type", "transport", "spool", "error_policy")


@attr.define
class OlsdkTransportConfig(Config):
    transport: dict[str, Any]
    spool: dict[str, Any] | None = None
    error_policy: str | None = None

    @classmethod
    def from_dict(cls, params: dict[str, Any]) -> OlsdkTransportConfig:
        unknown = sorted(str(k) for k in params if str(k) not in _KEYS)
        if unknown:
            raise ConfigError(
                f"transport.{unknown[0]}: unknown key of olsdk.compat.OlsdkTransport (valid keys: transport, spool, "
                "error_policy)",
                f"transport.{unknown[0]}",
            )
        inner = params.get("transport")
        if not isinstance(inner, dict) or not inner:
            raise ConfigError(
                "transport.transport: required: the olsdk transport section events are handed to",
                "transport.transport",
            )
        return cls(transport=inner, spool=params.get("spool"), error_policy=params.get("error_policy"))


class OlsdkTransport(Transport):
    """Delivers the official client's events through an olsdk client (see the module docstring)."""

    kind = "olsdk"
    config_class = OlsdkTransportConfig

    def __init__(self, config: OlsdkTransportConfig) -> None:
        from olsdk._delivery.client._client import OpenLineageClient

        self.config = config
        code: dict[str, Any] = {"transport": config.transport}
        if config.spool is not None:
            code["spool"] = config.spool
        if config.error_policy is not None:
            code["error_policy"] = config.error_policy
        # the spool's location, not configuration: without it the default spool would be
        # ~/.local/state even where olsdk replay (which reads XDG_STATE_HOME) looks elsewhere
        place = {"XDG_STATE_HOME": os.environ["XDG_STATE_HOME"]} if os.environ.get("XDG_STATE_HOME") else {}
        self.client = OpenLineageClient(config=code, environ=place)

    def emit(self, event: Any) -> None:
        self.client.emit(Serde.to_json(event))

    def close(self, timeout: float = -1) -> bool:
        """Flush and close; ``timeout`` < 0 waits as long as the olsdk transport's own close does."""
        return self.client.close(None if timeout is None or timeout < 0 else timeout)

    def __str__(self) -> str:
        return f"<OlsdkTransport transport={self.client.transport!r}>"
