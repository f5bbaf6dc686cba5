"""Put a facet where a RunEvent holds facets of its entity, and read it back.

The places come from `olsdk._models._spec` (the generated entity table, itself checked against
the model classes in tests/models/test_spec.py), so these helpers cover every entity the
spec has without a table of their own.
"""

from __future__ import annotations

from typing import Any

from olsdk._models import _spec
from olsdk.models import FACET_KEYS
from tests.support.spec_schema import schema_files

RUN_ID = "0190d3a4-7b5c-7a3e-9f00-1234567890ab"


def place_of(entity: str) -> str:
    """The first place a RunEvent holds `entity` facets (`inputs[].inputFacets`)."""
    return next(path for path, of in _spec.facet_places("run") if of.name == entity)


def run_event_with(entity: str, key: str, facet: Any) -> dict[str, Any]:
    """The body of a RunEvent (dicts; `facet` as given: JSON or a model) with one facet.

    Without `eventTime`, `producer` and `schemaURL`: building a model fills them in, a JSON
    document needs them added.
    """
    event: dict[str, Any] = {
        "eventType": "COMPLETE",
        "run": {"runId": RUN_ID},
        "job": {"namespace": "ns", "name": "job"},
    }
    *owners, container = place_of(entity).split(".")
    node = event
    for step in owners:
        if step.endswith("[]"):
            node[step[:-2]] = [{"namespace": "ns", "name": "ds"}]
            node = node[step[:-2]][0]
        else:
            node = node[step]
    node[container] = {key: facet}
    return event


def container_of(event: Any, entity: str) -> Any:
    """The facet map of a parsed event at `place_of(entity)`."""
    node = event
    for step in place_of(entity).split("."):
        node = getattr(node, step.removesuffix("[]"))
        if step.endswith("[]"):
            node = node[0]
    return node


def facet_keys_by_file() -> list[tuple[str, str, str, str]]:
    """(facet file `$id`, class name, entity, key) for every spec facet key of the snapshot."""
    cases = {
        (doc["$id"], cls.__name__, entity, key)
        for path, doc in schema_files().items()
        if path != "OpenLineage.json"
        for (entity, key), cls in FACET_KEYS.items()
        if cls.__name__ in doc["$defs"]
    }
    return sorted(cases)
