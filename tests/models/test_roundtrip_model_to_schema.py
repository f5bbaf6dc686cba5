"""Model -> schema: instances built from the models dump to JSON the spec validates,
and parse back equal."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

import olsdk
import olsdk.models as models
from tests.model_strategies import events, for_model
from tests.spec_schema import assert_valid, core, schema_files

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(events())
def test_events_dump_valid_json_and_parse_back_equal(event: Any) -> None:
    document = olsdk.to_dict(event)
    assert_valid(document, core()["$id"])
    parsed = olsdk.parse_event(olsdk.to_json(event))
    assert type(parsed) is type(event)
    assert olsdk.to_dict(parsed) == document
    assert parsed == event


def facet_defs() -> list[tuple[str, str, str]]:
    out = []
    for path, doc in schema_files().items():
        if path == "OpenLineage.json":
            continue
        for (entity, key), cls in models.FACET_KEYS.items():
            if cls.__name__ in doc["$defs"]:
                out.append((doc["$id"], entity, key))
    return sorted(set(out))


def wrap(entity: str, key: str, facet: BaseModel) -> models.RunEvent:
    run_facets: dict[str, Any] = {}
    job_facets: dict[str, Any] = {}
    dataset: dict[str, Any] = {"namespace": "ns", "name": "ds"}
    inputs: list[Any] = []
    outputs: list[Any] = []
    if entity == "run":
        run_facets[key] = facet
    elif entity == "job":
        job_facets[key] = facet
    elif entity == "dataset":
        inputs.append(models.InputDataset(**dataset, facets={key: facet}))
    elif entity == "inputDataset":
        inputs.append(models.InputDataset(**dataset, inputFacets={key: facet}))
    else:
        outputs.append(models.OutputDataset(**dataset, outputFacets={key: facet}))
    return models.RunEvent(
        eventType="COMPLETE",
        run=models.Run(runId="0190d3a4-7b5c-7a3e-9f00-1234567890ab", facets=run_facets),
        job=models.Job(namespace="ns", name="job", facets=job_facets),
        inputs=inputs,
        outputs=outputs,
    )


@pytest.mark.parametrize(("file_id", "entity", "key"), facet_defs())
def test_every_facet_class_round_trips(file_id: str, entity: str, key: str, subtests: Any = None) -> None:
    cls = models.FACET_KEYS[(entity, key)]

    @settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(for_model(cls))
    def check(facet: BaseModel) -> None:
        facet_doc = olsdk.to_dict(facet)
        assert_valid(facet_doc, file_id, cls.__name__)
        event = wrap(entity, key, facet)
        document = olsdk.to_dict(event)
        assert_valid(document, core()["$id"])
        parsed = olsdk.parse_event(olsdk.to_json(event))
        assert olsdk.to_dict(parsed) == document
        container = _container(parsed, entity)
        assert type(container[key]) is cls

    check()


def _container(event: Any, entity: str) -> Any:
    return {
        "run": lambda: event.run.facets,
        "job": lambda: event.job.facets,
        "dataset": lambda: event.inputs[0].facets,
        "inputDataset": lambda: event.inputs[0].inputFacets,
        "outputDataset": lambda: event.outputs[0].outputFacets,
    }[entity]()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_constructed_facets_carry_producer_and_versioned_schema_url(data: st.DataObject) -> None:
    cls = models.FACET_KEYS[data.draw(st.sampled_from(sorted(models.FACET_KEYS)))]
    drawn = data.draw(for_model(cls))
    # The same facet, built again without the two fields the runtime fills in.
    kwargs = drawn.model_dump(exclude={"producer", "schemaURL"}, exclude_unset=True, by_alias=False)
    olsdk.set_default_producer("https://example.com/my-producer")
    try:
        facet = cls(**kwargs)
    finally:
        olsdk.set_default_producer("https://github.com/olsdk/olsdk")
    doc = olsdk.to_dict(facet)
    assert doc["_producer"] == "https://example.com/my-producer"
    assert doc["_schemaURL"] == cls.__olsdk_schema_url__
    assert doc["_schemaURL"].startswith("https://openlineage.io/spec/")
    assert doc["_schemaURL"].endswith(f"#/$defs/{cls.__name__}")
