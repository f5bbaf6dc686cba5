"""The OpenLineage client: configuration, emission, spool and the run helper.

``OpenLineageClient()`` configures itself from ``openlineage.yml`` and
``OPENLINEAGE_*`` environment variables the way the official client does.
"""

from olsdk._build import Emitter
from olsdk._config import ErrorPolicy, LoadedConfig, find_config_file, masked
from olsdk._exceptions import ConfigError, DeliveryError
from olsdk.client._client import ErrorCallback, OpenLineageClient
from olsdk.client._config import load_config
from olsdk.client._run import DatasetConvertible, DatasetLike, RunContext
from olsdk.client._spool import ReplayInProgress, ReplayProgress, ReplayResult, Spool, replay
from olsdk.client._uuid7 import static_uuid7, uuid7
from olsdk.transports import Payload

__all__ = [
    "ConfigError",
    "DatasetConvertible",
    "DatasetLike",
    "DeliveryError",
    "Emitter",
    "ErrorCallback",
    "ErrorPolicy",
    "LoadedConfig",
    "OpenLineageClient",
    "Payload",
    "ReplayInProgress",
    "ReplayProgress",
    "ReplayResult",
    "RunContext",
    "Spool",
    "find_config_file",
    "load_config",
    "masked",
    "replay",
    "static_uuid7",
    "uuid7",
]
