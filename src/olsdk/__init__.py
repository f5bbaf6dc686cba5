"""olsdk: a typed Python SDK for OpenLineage.

Events and facets are pydantic models generated from the spec (`olsdk.models`);
`parse_event` reads any event JSON into them and `to_json` writes them back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from olsdk._events import Event, parse_event, to_dict, to_json
from olsdk._exceptions import ConfigError, DeliveryError, FacetKeyConflict, OlsdkError, Problem, ValidationError
from olsdk._runtime import get_default_producer, set_default_producer
from olsdk._validate import validate_event
from olsdk.models import (
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

if TYPE_CHECKING:
    from olsdk.client import OpenLineageClient

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


def __getattr__(name: str) -> Any:
    # The client pulls in requests and the transports: import it only when asked for.
    if name == "OpenLineageClient":
        from olsdk.client import OpenLineageClient

        return OpenLineageClient
    raise AttributeError(f"module 'olsdk' has no attribute {name!r}")
