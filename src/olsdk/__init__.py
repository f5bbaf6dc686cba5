"""olsdk: a typed Python SDK for OpenLineage.

Events and facets are pydantic models generated from the spec (`olsdk.models`);
`parse_event` reads any event JSON into them and `to_json` writes them back.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from olsdk._foundation._exceptions import (
    ConfigError,
    DeliveryError,
    FacetKeyConflict,
    OlsdkError,
    Problem,
    ValidationError,
)

if TYPE_CHECKING:
    from olsdk._delivery.client._client import OpenLineageClient
    from olsdk._models import (
        SPEC_VERSION,
        DatasetEvent,
        EventType,
        InputDataset,
        Job,
        JobEvent,
        OutputDataset,
        Run,
        RunEvent,
    )
    from olsdk._models._runtime import get_default_producer, set_default_producer
    from olsdk._readers._events import Event, parse_event, to_dict, to_json
    from olsdk._readers._validate import validate_event

__version__ = "0.1.0"

__all__ = [
    "SPEC_VERSION",
    "ConfigError",
    "DatasetEvent",
    "DeliveryError",
    "Event",
    "EventType",
    "FacetKeyConflict",
    "InputDataset",
    "Job",
    "JobEvent",
    "OlsdkError",
    "OpenLineageClient",
    "OutputDataset",
    "Problem",
    "Run",
    "RunEvent",
    "ValidationError",
    "get_default_producer",
    "parse_event",
    "set_default_producer",
    "to_dict",
    "to_json",
    "validate_event",
]

# Where each other name of `__all__` lives. A process pays for a module when it first
# asks for one of its names: the models, the readers, the validator and the client (with
# requests and the transports) are imported then, not by `import olsdk`.
_LAZY: dict[str, str] = {
    "Event": "olsdk._readers._events",
    "parse_event": "olsdk._readers._events",
    "to_dict": "olsdk._readers._events",
    "to_json": "olsdk._readers._events",
    "get_default_producer": "olsdk._models._runtime",
    "set_default_producer": "olsdk._models._runtime",
    "validate_event": "olsdk._readers._validate",
    "OpenLineageClient": "olsdk.client",
    **dict.fromkeys(
        [
            "SPEC_VERSION",
            "DatasetEvent",
            "EventType",
            "InputDataset",
            "Job",
            "JobEvent",
            "OutputDataset",
            "Run",
            "RunEvent",
        ],
        "olsdk.models",
    ),
}


def __getattr__(name: str) -> Any:
    if name == "models":  # `import olsdk; olsdk.models.RunEvent`, as when the models loaded with olsdk
        return importlib.import_module("olsdk.models")
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'olsdk' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # asked once: later reads are plain module attributes
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
