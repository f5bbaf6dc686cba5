"""Light validators: a class holding facet maps, built in Python before it is built in full.

Until such a class is built, `Run(...)`, `RunEvent(...)` and the facet maps validate with a
schema that leaves out the facet classes of the maps' typed keys (an event built in Python
holds a few facets, or none): each typed key takes an instance of its facet class as it is
and leaves anything else to the full schema. Whatever the light validator accepts or
refuses, the full one must accept or refuse the same way.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import PydanticUserError
from pydantic import ValidationError as PydanticValidationError

import olsdk
import olsdk.models as models
from olsdk._models._runtime import _pydantic
from tests.support.processes import run_script

RUN_ID = "0190d3a4-7b5c-7a3e-9f00-1234567890ab"


def facet(**fields: Any) -> dict[str, Any]:
    return {"_producer": "https://example.com/p", "_schemaURL": "https://example.com/s.json#/$defs/X", **fields}


def parent() -> models.ParentRunFacet:
    return models.ParentRunFacet(run={"runId": RUN_ID}, job={"namespace": "ns", "name": "parent"})


class MyParentRunFacet(models.ParentRunFacet):
    pass


def job() -> models.Job:
    return models.Job(namespace="ns", name="job", facets=models.JobFacets(sql=models.SQLJobFacet(query="q")))


# (class, keyword arguments as a Python caller passes them, whether the light validator decides
# it: those marked False it leaves to the full schema while their facet classes are unbuilt)
CASES: list[tuple[type[Any], Callable[[], dict[str, Any]], bool]] = [
    (models.Run, lambda: {"runId": RUN_ID}, True),
    (models.Run, lambda: {"runId": RUN_ID, "facets": models.RunFacets(parent=parent())}, True),
    (models.Run, lambda: {"runId": RUN_ID, "facets": {"parent": parent(), "custom_x": facet(a=1)}}, True),
    (models.Run, lambda: {"runId": RUN_ID, "facets": {"custom_x": {"a": 1}}}, True),
    (models.Run, lambda: {"runId": RUN_ID, "facets": {"custom_x": facet(_deleted=True)}}, True),
    (models.Run, lambda: {"runId": RUN_ID, "facets": {"custom_x": models.DeletedFacet()}}, True),
    (models.Run, lambda: {"runId": "nope", "facets": {"parent": parent()}}, True),
    (models.Run, lambda: {"runId": "nope", "facets": {"parent": {"run": {}}}}, False),
    (models.Run, lambda: {"runId": RUN_ID, "facets": {"parent": parent().to_dict()}}, False),
    (models.Run, lambda: {"runId": RUN_ID, "facets": {"parent": facet(_deleted=True)}}, False),
    (models.Run, lambda: {"runId": RUN_ID, "facets": {"parent": models.SQLJobFacet(query="q")}}, False),
    (
        models.Run,
        lambda: {"runId": RUN_ID, "facets": {"parent": MyParentRunFacet.model_validate(parent().to_dict())}},
        True,
    ),
    (
        models.RunFacets,
        lambda: {
            "parent": parent(),
            "nominalTime": models.NominalTimeRunFacet(nominalStartTime="2026-01-01T00:00:00Z"),
        },
        True,
    ),
    (
        models.RunEvent,
        lambda: {
            "eventType": "START",
            "eventTime": "2026-01-01T00:00:00Z",
            "producer": "https://e.com/p",
            "schemaURL": "https://e.com/s",
            "run": models.Run(runId=RUN_ID),
            "job": job(),
        },
        True,
    ),
    (
        models.RunEvent,
        lambda: {
            "eventType": "NOPE",
            "eventTime": "2026-01-01T00:00:00Z",
            "producer": "https://e.com/p",
            "schemaURL": "https://e.com/s",
            "run": {"runId": RUN_ID, "facets": {"parent": parent()}},
            "job": {"namespace": "ns", "name": "j"},
            "inputs": [{"namespace": "ns"}],
        },
        True,
    ),
    (
        models.RunEvent,
        lambda: {
            "eventType": "COMPLETE",
            "eventTime": "2026-01-01T00:00:00Z",
            "producer": "https://e.com/p",
            "schemaURL": "https://e.com/s",
            "run": {"runId": RUN_ID},
            "job": {"namespace": "ns", "name": "j"},
            "inputs": [
                {
                    "namespace": "ns",
                    "name": "in",
                    "facets": {"schema": models.SchemaDatasetFacet(fields=[{"name": "a"}])},
                    "inputFacets": {"custom_y": facet(b=[1, 2])},
                }
            ],
            "outputs": [{"namespace": "ns", "name": "out", "facets": {"schema": {"fields": []}}}],
        },
        False,
    ),
    (models.InputDataset, lambda: {"namespace": "ns", "name": "in", "facets": models.DatasetFacets()}, True),
]


def _outcome(validator: Any, data: dict[str, Any]) -> tuple[str, Any]:
    try:
        made = validator.validate_python(data, by_name=True)
    except PydanticValidationError as exc:
        return "error", [(e["type"], e["loc"], e["msg"], repr(e["input"])) for e in exc.errors()]
    return "made", (type(made), made.to_json(), sorted(made.model_fields_set), made)


@pytest.mark.parametrize(("cls", "data", "decides"), CASES)
def test_the_light_validator_decides_as_the_full_one_or_leaves_it_to_it(
    cls: type[Any], data: Callable[[], dict[str, Any]], decides: bool
) -> None:
    light = _pydantic.light_validator(cls)
    assert light is not None
    try:
        outcome = _outcome(light, data())
    except _pydantic.NeedsFullSchema:
        assert not decides
        return
    # (A case it leaves to the full schema in a fresh process, it decides once the facet
    # classes concerned are built: their full schemas are then part of the light one.)
    assert outcome == _outcome(cls.__pydantic_validator__, data())


def test_classes_without_facet_maps_have_no_light_validator() -> None:
    assert _pydantic.light_validator(models.SQLJobFacet) is None
    assert _pydantic.light_validator(models.ParentRunFacet) is not None  # (its run holds run facets)


def test_an_event_built_in_a_fresh_process_dumps_as_once_its_classes_are_built(tmp_path: Any) -> None:
    done = run_script(
        f"""
        import json
        import olsdk, olsdk.models as models

        def build():
            parent = models.ParentRunFacet(run={{"runId": "{RUN_ID}"}}, job={{"namespace": "n", "name": "p"}})
            facets = models.RunFacets(parent=parent)
            event = models.RunEvent(
                eventType=models.EventType.START,
                eventTime="2026-01-01T00:00:00Z",
                run=models.Run(runId="{RUN_ID}", facets=facets),
                job=models.Job(namespace="ns", name="job", facets={{"sql": models.SQLJobFacet(query="q")}}),
            )
            return [olsdk.to_json(event), event.model_dump(mode="json"), repr(event)]

        light = build()
        print(models.RunEvent.__pydantic_complete__, models.Run.__pydantic_complete__)
        for cls in (models.RunEvent, models.Run, models.Job, models.RunFacets, models.JobFacets):
            cls.model_rebuild()
        print(build()[1:] == light[1:] and build()[0] == light[0])
        print(light[0])
        """,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    built, same, text = done.stdout.splitlines()
    assert built == "False False"
    assert same == "True"
    event = json.loads(text)
    assert event["run"]["facets"]["parent"]["run"] == {"runId": RUN_ID}
    assert event["job"]["facets"]["sql"]["query"] == "q"
    assert olsdk.to_json(olsdk.parse_event(text)) == text


def test_a_class_of_your_own_that_cannot_be_built_yet_says_so_as_without_a_light_schema() -> None:
    class MyRun(models.Run):
        other: Undefined | None = None  # type: ignore[name-defined]  # noqa: F821

    with pytest.raises(PydanticUserError, match="`MyRun` is not fully defined"):
        MyRun(runId=RUN_ID)
