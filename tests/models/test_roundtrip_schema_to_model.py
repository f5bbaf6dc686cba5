"""Schema -> model: documents generated from the spec's own JSON Schema parse into the
models and dump back to an equal document."""

from __future__ import annotations

import copy
import functools
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis_jsonschema import from_schema

import olsdk
import olsdk.models as models
from tests.spec_schema import assert_valid, core, inline, schema_files

SETTINGS = settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)


@functools.cache
def strategy(file_id: str, def_name: str) -> Any:
    return from_schema(inline(file_id, def_name))


EVENT_KINDS = [("RunEvent", models.RunEvent), ("DatasetEvent", models.DatasetEvent), ("JobEvent", models.JobEvent)]


@pytest.mark.parametrize(("def_name", "cls"), EVENT_KINDS)
def test_schema_generated_events_parse_and_dump_back_equal(def_name: str, cls: type) -> None:
    @SETTINGS
    @given(strategy(core()["$id"], def_name))
    def check(document: dict[str, Any]) -> None:
        original = copy.deepcopy(document)
        event = olsdk.parse_event(document)
        assert type(event) is cls
        assert olsdk.to_dict(event) == original
        assert olsdk.to_dict(olsdk.parse_event(olsdk.to_json(event))) == original

    check()


def facet_cases() -> list[tuple[str, str, str, str]]:
    cases = []
    for path, doc in schema_files().items():
        if path == "OpenLineage.json":
            continue
        for (entity, key), cls in models.FACET_KEYS.items():
            if cls.__name__ in doc["$defs"]:
                cases.append((doc["$id"], cls.__name__, entity, key))
    return sorted(set(cases))


def wrap(entity: str, key: str, facet: dict[str, Any]) -> dict[str, Any]:
    dataset: dict[str, Any] = {"namespace": "ns", "name": "ds"}
    event: dict[str, Any] = {
        "eventTime": "2026-11-22T10:00:00Z",
        "producer": "https://example.com/producer",
        "schemaURL": f"{core()['$id']}#/$defs/RunEvent",
        "eventType": "COMPLETE",
        "run": {"runId": "0190d3a4-7b5c-7a3e-9f00-1234567890ab"},
        "job": {"namespace": "ns", "name": "job"},
    }
    if entity == "run":
        event["run"]["facets"] = {key: facet}
    elif entity == "job":
        event["job"]["facets"] = {key: facet}
    elif entity == "dataset":
        event["inputs"] = [{**dataset, "facets": {key: facet}}]
    elif entity == "inputDataset":
        event["inputs"] = [{**dataset, "inputFacets": {key: facet}}]
    else:
        event["outputs"] = [{**dataset, "outputFacets": {key: facet}}]
    return event


@pytest.mark.parametrize(("file_id", "def_name", "entity", "key"), facet_cases())
def test_schema_generated_facets_parse_typed_and_dump_back_equal(
    file_id: str, def_name: str, entity: str, key: str
) -> None:
    cls = getattr(models, def_name)

    @SETTINGS
    @given(strategy(file_id, def_name))
    def check(facet: dict[str, Any]) -> None:
        document = wrap(entity, key, facet)
        assert_valid(facet, file_id, def_name)
        original = copy.deepcopy(document)
        event = olsdk.parse_event(document)
        assert olsdk.to_dict(event) == original
        parsed = {
            "run": lambda: event.run.facets,
            "job": lambda: event.job.facets,
            "dataset": lambda: event.inputs[0].facets,
            "inputDataset": lambda: event.inputs[0].inputFacets,
            "outputDataset": lambda: event.outputs[0].outputFacets,
        }[entity]()[key]
        if facet.get("_deleted") is True:
            assert isinstance(parsed, models.DeletedFacet)
        else:
            assert type(parsed) is cls

    check()
