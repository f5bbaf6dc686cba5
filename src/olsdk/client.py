"""The OpenLineage client: configuration, emission, spool and the run helper.

``OpenLineageClient()`` configures itself from ``openlineage.yml`` and
``OPENLINEAGE_*`` environment variables the way the official client does.
"""

from typing import TYPE_CHECKING, Any

from olsdk._delivery._config import find_config_file
from olsdk._delivery.client._client import ErrorCallback, OpenLineageClient
from olsdk._delivery.client._config import LoadedConfig, load_config
from olsdk._delivery.client._settings import ErrorPolicy
from olsdk._delivery.client._spool import ReplayInProgress, ReplayProgress, ReplayResult, Spool, replay
from olsdk._delivery.client._uuid7 import static_uuid7, uuid7
from olsdk._delivery.transports._base import Payload
from olsdk._foundation._exceptions import ConfigError, DeliveryError
from olsdk._foundation._secrets import masked

if TYPE_CHECKING:  # the run helper (and the naming builders it takes) loads on first use
    from olsdk._builders._build import Emitter
    from olsdk._delivery.client._run import DatasetConvertible, DatasetLike, RunContext

_LAZY = {
    "Emitter": "olsdk._builders._build",
    "DatasetConvertible": "olsdk._delivery.client._run",
    "DatasetLike": "olsdk._delivery.client._run",
    "RunContext": "olsdk._delivery.client._run",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


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
