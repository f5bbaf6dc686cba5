"""The OpenLineage client: configuration, emission, spool and the run helper.

``OpenLineageClient()`` configures itself from ``openlineage.yml`` and
``OPENLINEAGE_*`` environment variables the way the official client does.
"""

from olsdk.client.client import ErrorCallback, OpenLineageClient
from olsdk.client.config import LoadedConfig, find_config_file, load_config, masked
from olsdk.client.run import RunContext
from olsdk.client.spool import ReplayResult, Spool, replay
from olsdk.client.uuid7 import uuid7
from olsdk.transports.base import DeliveryError, Payload
from olsdk.transports.settings import ConfigError

__all__ = [
    "ConfigError",
    "DeliveryError",
    "ErrorCallback",
    "LoadedConfig",
    "OpenLineageClient",
    "Payload",
    "ReplayResult",
    "RunContext",
    "Spool",
    "find_config_file",
    "load_config",
    "masked",
    "replay",
    "uuid7",
]
