"""`olsdk._models._spec`: the entity table and event kinds, read from the generated metadata.

The table is checked against the model classes themselves: each entity's facet map is
the type of its owner's field, and each place in an event leads, field by field, to it.
"""

from __future__ import annotations

import typing

import pytest
from pydantic import BaseModel

import olsdk.models as models
from olsdk._foundation import _registry
from olsdk._models import _spec
from olsdk._models._runtime import _models_in


def test_entities_and_their_order() -> None:
    assert _spec.ENTITY_NAMES == ("run", "job", "dataset", "inputDataset", "outputDataset")
    assert [e.base for e in _spec.ENTITIES] == [
        models.RunFacet,
        models.JobFacet,
        models.DatasetFacet,
        models.InputDatasetFacet,
        models.OutputDatasetFacet,
    ]


@pytest.mark.parametrize("entity", _spec.ENTITIES, ids=lambda e: e.name)
def test_each_entity_matches_the_models(entity: _spec.Entity) -> None:
    assert issubclass(entity.base, models.BaseFacet)
    assert entity.container.__olsdk_entity__ == entity.name
    assert _models_in(entity.owner.model_fields[entity.field].annotation) == [entity.container]
    assert entity.suffix == entity.base.__name__ and entity.container.__name__ == entity.suffix + "s"
    # every facet key of the entity is a field of its container
    keys = {key for (of, key) in models.FACET_KEYS if of == entity.name}
    assert keys and keys <= entity.container.__olsdk_keys__


def walk(cls: type[BaseModel], path: str) -> type[BaseModel]:
    """The class a JSON path (`inputs[].inputFacets`) of instances of `cls` leads to."""
    for step in path.split("."):
        field = cls.model_fields[step.removesuffix("[]")]
        (cls,) = _models_in(field.annotation)
    return cls


@pytest.mark.parametrize("kind", typing.get_args(_spec.EventKind))
def test_places_lead_to_the_entity_containers(kind: _spec.EventKind) -> None:
    places = _spec.facet_places(kind)
    assert places
    for path, entity in places:
        assert walk(_spec.EVENT_CLASSES[kind], path) is entity.container
        assert path in entity.places


def test_event_kinds_are_the_generated_event_classes() -> None:
    assert dict(_spec.EVENT_CLASSES) == {"run": models.RunEvent, "dataset": models.DatasetEvent, "job": models.JobEvent}
    assert set(typing.get_args(_spec.EventKind)) == set(_spec.EVENT_CLASSES)
    for kind, cls in _spec.EVENT_CLASSES.items():
        required = {name for name, info in cls.model_fields.items() if info.is_required()}
        assert kind in required  # the key `event_kind` dispatches on


def test_dataset_places_and_words() -> None:
    dataset = _spec.entity("dataset")
    assert dataset.places == ("inputs[].facets", "outputs[].facets", "dataset.facets")
    assert _spec.entity("inputDataset").words == "input dataset"
    assert _spec.entity("inputDataset").with_article == "an input dataset"
    assert _spec.entity("run").with_article == "a run"


def test_entity_lookups() -> None:
    assert [e.name for e in _spec.entity_of_class(models.InputStatisticsInputDatasetFacet)] == ["inputDataset"]
    assert _spec.entity_of_class(models.BaseFacet) == []
    with pytest.raises(ValueError, match="entity: 'runs' is not one of run, job, dataset, inputDataset, outputDataset"):
        _spec.entity("runs")


def test_the_registry_refuses_entities_the_spec_does_not_define() -> None:
    with pytest.raises(ValueError, match="entity: 'task' is not one of run, job"):
        _registry.DEFAULT.register("task", "x", models.RunFacet)
