"""`olsdk._models._runtime`: what the generated models inherit when built in Python.

Construction fills `_producer`, `_schemaURL`, `producer`, `schemaURL` and `eventTime`;
facet containers behave like mappings; errors are `olsdk.ValidationError` with JSON
paths, as parse errors are; models pickle and copy.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import pickle
from typing import Any

import pytest

import olsdk
import olsdk.models as models
from olsdk._models import _runtime
from olsdk._models._generated import models as generated
from olsdk._models._runtime import OLRecord
from tests.support.processes import run_script
from tests.support.spec_schema import assert_valid, core

RUN_ID = "0190d3a4-7b5c-7a3e-9f00-1234567890ab"
CORE = "https://openlineage.io/spec/2-0-2/OpenLineage.json"


def facet(**fields: Any) -> dict[str, Any]:
    return {"_producer": "https://example.com/p", "_schemaURL": "https://example.com/s.json#/$defs/X", **fields}


def test_construction_fills_producer_schema_url_and_event_time() -> None:
    olsdk.set_default_producer("https://example.com/configured")
    try:
        event = models.RunEvent(
            eventType=models.EventType.START,
            run=models.Run(
                runId=RUN_ID,
                facets={"nominalTime": models.NominalTimeRunFacet(nominalStartTime="2026-11-22T10:00:00Z")},
            ),
            job=models.Job(
                namespace="ns", name="job", facets=models.JobFacets(sql=models.SQLJobFacet(query="select 1"))
            ),
        )
    finally:
        olsdk.set_default_producer("https://github.com/olsdk/olsdk")
    doc = olsdk.to_dict(event)
    assert doc["producer"] == "https://example.com/configured"
    assert doc["schemaURL"] == f"{core()['$id']}#/$defs/RunEvent"
    assert doc["run"]["facets"]["nominalTime"]["_producer"] == "https://example.com/configured"
    assert doc["job"]["facets"]["sql"]["_schemaURL"].endswith("/SQLJobFacet.json#/$defs/SQLJobFacet")
    parsed_time = dt.datetime.fromisoformat(doc["eventTime"])
    assert parsed_time.tzinfo is not None
    assert abs(dt.datetime.now(dt.UTC) - parsed_time) < dt.timedelta(minutes=5)
    assert_valid(doc, core()["$id"])


def test_event_time_accepts_aware_datetimes_only() -> None:
    when = dt.datetime(2026, 11, 22, 10, 0, tzinfo=dt.UTC)
    event = models.JobEvent(job=models.Job(namespace="n", name="j"), eventTime=when)  # type: ignore[arg-type]
    assert event.eventTime == "2026-11-22T10:00:00+00:00"
    with pytest.raises(ValueError, match="eventTime: a datetime needs a time zone"):
        models.JobEvent(job=models.Job(namespace="n", name="j"), eventTime=dt.datetime(2026, 1, 1))  # type: ignore[arg-type]


def test_facet_containers_behave_like_mappings() -> None:
    facets = models.RunFacets(
        parent=models.ParentRunFacet(
            run=models.ParentRunFacetRun(runId=RUN_ID), job=models.ParentRunFacetJob(namespace="a", name="b")
        ),
    )
    facets["myCo_thing"] = facet(a=1)
    assert set(facets.keys()) == {"parent", "myCo_thing"}
    assert "parent" in facets and "errorMessage" not in facets
    assert facets.get("errorMessage") is None
    with pytest.raises(KeyError):
        facets["errorMessage"]
    facets["errorMessage"] = models.ErrorMessageRunFacet(message="m", programmingLanguage="python")
    assert facets.errorMessage is not None and facets.errorMessage.message == "m"
    assert set(json.loads(facets.to_json())) == {"parent", "myCo_thing", "errorMessage"}
    # Iterating gives the keys, as on any mapping; dict() gives key -> facet.
    assert list(facets) == list(facets.keys()) and set(facets) == {"parent", "errorMessage", "myCo_thing"}
    assert dict(facets) == {
        "parent": facets.parent,
        "myCo_thing": facets["myCo_thing"],
        "errorMessage": facets.errorMessage,
    }


def test_facet_maps_hold_only_the_keys_sent() -> None:
    empty = models.RunFacets.model_validate_json(b"{}")
    assert empty.__dict__ == {"root": {}}  # no `None` per spec key (what made an empty map cost)
    assert empty.parent is None and len(empty) == 0 and empty.to_json() == "{}"
    document = {
        "sql": {"_producer": "https://p", "_schemaURL": "https://s", "query": "select 1"},
        "other": {"_producer": "https://p", "_schemaURL": "https://s", "x": None},
    }
    facets = models.JobFacets.model_validate(document)
    assert list(facets.root) == ["sql", "other"] and isinstance(facets.sql, models.SQLJobFacet)
    assert facets.other == {"_producer": "https://p", "_schemaURL": "https://s", "x": None}  # unknown keys read too
    assert repr(facets).startswith("JobFacets(sql=SQLJobFacet(") and "other={" in repr(facets)
    for made in (pickle.loads(pickle.dumps(facets)), copy.copy(facets), copy.deepcopy(facets), facets.model_copy()):
        assert made == facets and type(made) is models.JobFacets and made.root == facets.root
        assert made.root is not facets.root
    assert facets != models.JobFacets.model_validate({"sql": document["sql"]})
    assert models.JobFacets.model_construct(sql=facets.sql, other=document["other"]) == facets
    changed = facets.model_copy(update={"sql": None})
    assert "sql" not in changed and "sql" in facets
    facets.sql = None  # "not sent"
    assert "sql" not in facets and facets.to_dict() == {"other": document["other"]}
    del facets["other"]
    assert len(facets) == 0
    # An attribute of a key the spec does not define is that key, checked as `facets[key] = ...` is.
    facets.myCo_thing = document["other"]  # type: ignore[attr-defined]
    assert facets["myCo_thing"] == document["other"]
    with pytest.raises(ValueError, match=r"must be object \(a facet is a JSON object\)"):
        facets.myCo_bad = 3  # type: ignore[attr-defined]
    del facets["myCo_thing"]
    with pytest.raises(AttributeError, match="no attribute 'missing'"):
        _ = facets.missing  # type: ignore[attr-defined]
    # The JSON Schema of a map still lists the spec's keys.
    assert "sql" in models.JobFacets.model_json_schema()["properties"]


def test_deletion_markers_built_in_python_dump_as_markers() -> None:
    producer = olsdk.get_default_producer()
    marker = models.DeletedFacet()
    assert json.loads(marker.to_json()) == {"_producer": producer, "_deleted": True}
    facets = models.DatasetFacets(schema=models.DeletedFacet(schemaURL="https://s"), custom_x={"_deleted": True})
    assert facets.schema is facets["schema"]
    doc = json.loads(facets.to_json())
    assert doc["schema"] == {"_producer": producer, "_schemaURL": "https://s", "_deleted": True}
    # Placed in a facet map, a marker names the schema of what it deletes: the entity's base facet.
    assert doc["custom_x"] == {"_producer": producer, "_schemaURL": f"{CORE}#/$defs/DatasetFacet", "_deleted": True}
    run = models.Run(runId=RUN_ID, facets=models.RunFacets(parent=models.DeletedFacet()))
    assert json.loads(run.to_json())["facets"] == {
        "parent": {"_producer": producer, "_schemaURL": f"{CORE}#/$defs/RunFacet", "_deleted": True}
    }


def test_unknown_facet_errors_from_python_construction_name_the_key() -> None:
    with pytest.raises(olsdk.ValidationError, match=r"facets\.custom_x: lacks '_producer'"):
        models.Run(runId=RUN_ID, facets={"custom_x": {"a": 1}})


@pytest.mark.parametrize(
    ("build", "title", "path", "rule"),
    [
        (lambda: models.Run(runId="nope"), "invalid Run", "runId", "not a UUID"),
        (lambda: models.Job(namespace="ns"), "invalid Job", "name", "required field missing"),
        (
            lambda: models.RunEvent(run={"runId": "nope"}, job={"namespace": "n", "name": "j"}),
            "invalid RunEvent",
            "run.runId",
            "not a UUID",
        ),
        (
            lambda: models.RunEvent(
                run=models.Run(runId=RUN_ID), job=models.Job(namespace="n", name="j"), inputs=[{"namespace": "n"}]
            ),
            "invalid RunEvent",
            "inputs[0].name",
            "required field missing",
        ),
        (lambda: models.SQLJobFacet(query="q", producer="no scheme"), "invalid SQLJobFacet", "_producer", "URI"),
    ],
)
def test_construction_errors_are_olsdk_validation_errors_with_json_paths(
    build: Any, title: str, path: str, rule: str
) -> None:
    with pytest.raises(olsdk.ValidationError) as info:
        build()
    assert isinstance(info.value, ValueError)
    assert str(info.value).startswith(f"{title}: ")
    assert any(p.path == path and rule in p.rule for p in info.value.problems), info.value.problems
    assert f"\n  {path}: " in str(info.value)


def test_parsing_does_not_go_through_the_construction_path() -> None:
    # pydantic-core validates parsed JSON without calling a class's __init__ unless the
    # class has a custom one: the generated classes must not, or parsing would slow down
    # and fill in what the spec requires senders to send.
    classes = [c for c in vars(generated).values() if isinstance(c, type) and issubclass(c, _runtime.OLModel)]
    assert len(classes) > 80
    assert [c.__name__ for c in classes if c.__pydantic_custom_init__] == []
    # Records are made from parsed JSON by dict's own C constructor (`olsdk._models._runtime`).
    records = [c for c in vars(generated).values() if isinstance(c, type) and issubclass(c, OLRecord)]
    assert len(records) > 10
    assert [c.__name__ for c in records for klass in c.__mro__[:-2] if {"__init__", "__new__"} & set(vars(klass))] == []


def test_models_and_errors_pickle_and_copy() -> None:
    event = models.RunEvent(
        eventType=models.EventType.START,
        run=models.Run(runId=RUN_ID, facets=models.RunFacets(custom_x=facet(a=1))),
        job=models.Job(namespace="ns", name="job", facets=models.JobFacets(sql=models.SQLJobFacet(query="q"))),
    )
    for copied in (pickle.loads(pickle.dumps(event)), copy.copy(event), copy.deepcopy(event), event.model_copy()):
        assert copied == event and olsdk.to_dict(copied) == olsdk.to_dict(event)
    with pytest.raises(olsdk.ValidationError) as info:
        models.Run(runId="nope")
    again = pickle.loads(pickle.dumps(info.value))
    assert str(again) == str(info.value) and again.problems == info.value.problems


def test_uuid_and_aware_datetime_values_are_stored_as_their_strings() -> None:
    import uuid

    from olsdk.client import uuid7

    run_id = uuid7()
    when = dt.datetime(2026, 11, 22, 10, 30, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    event = models.RunEvent(
        run=models.Run(
            runId=run_id,
            facets=models.RunFacets(nominalTime=models.NominalTimeRunFacet(nominalStartTime=when, nominalEndTime=None)),
        ),
        job=models.Job(namespace="n", name="j"),
        eventTime=when,
    )
    assert event.run.runId == str(run_id) and isinstance(event.run.runId, str)
    assert event.eventTime == "2026-11-22T10:30:00+02:00"
    doc = olsdk.to_dict(event)
    assert doc["run"]["facets"]["nominalTime"] == {
        "_producer": olsdk.get_default_producer(),
        "_schemaURL": doc["run"]["facets"]["nominalTime"]["_schemaURL"],
        "nominalStartTime": "2026-11-22T10:30:00+02:00",
    }
    assert olsdk.validate_event(doc) == []
    assert models.ParentRunFacetRun(runId=uuid.UUID(int=1)).runId == "00000000-0000-0000-0000-000000000001"


def test_a_naive_datetime_is_an_error_naming_the_field() -> None:
    with pytest.raises(olsdk.ValidationError, match=r"nominalStartTime: .*datetime with a time zone"):
        models.NominalTimeRunFacet(nominalStartTime=dt.datetime(2026, 11, 22, 10, 30))
    with pytest.raises(olsdk.ValidationError, match=r"eventTime: .*time zone"):
        models.JobEvent(job=models.Job(namespace="n", name="j"), eventTime=dt.datetime(2026, 11, 22))


# -- built on first use ------------------------------------------------------------------
#
# Each check runs in a fresh interpreter: in this one, earlier tests have built classes.


def _fresh(script: str, tmp_path: Any) -> str:
    done = run_script(script, tmp_path)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_importing_the_models_builds_no_class_but_resolves_every_field(tmp_path: Any) -> None:
    out = _fresh(
        """
        import typing
        from pydantic import BaseModel
        import olsdk.models as models

        classes = [getattr(models, n) for n in models.__all__]
        classes = [c for c in classes if isinstance(c, type) and issubclass(c, BaseModel)]
        print(len(classes), sum(c.__pydantic_complete__ for c in classes))
        unresolved = [
            f"{c.__name__}.{name}"
            for c in classes
            for name, info in c.model_fields.items()
            if isinstance(info.annotation, typing.ForwardRef | str)
        ]
        print(unresolved)
        print(models.Run.model_fields["facets"].annotation)
        """,
        tmp_path,
    )
    counts, unresolved, annotation = out.splitlines()
    count, built_count = counts.split()
    assert int(count) > 90
    assert built_count == "0"
    assert unresolved == "[]"
    assert annotation == "olsdk._models._generated.models.RunFacets | None"


def test_a_class_builds_on_first_use_and_parses_as_an_eagerly_built_one(tmp_path: Any) -> None:
    event = models.RunEvent(
        eventType=models.EventType.START,
        run=models.Run(runId=RUN_ID),
        job=models.Job(namespace="ns", name="job"),
    )
    out = _fresh(
        f"""
        import olsdk, olsdk.models as models
        text = {olsdk.to_json(event)!r}
        print(models.RunEvent.__pydantic_complete__, models.Run.__pydantic_complete__)
        parsed = olsdk.parse_event(text)
        print(models.RunEvent.__pydantic_complete__, olsdk.to_json(parsed) == text)
        """,
        tmp_path,
    )
    assert out.splitlines() == ["False False", "True True"]


def test_unpickled_events_read_typed_records_in_a_fresh_process(tmp_path: Any) -> None:
    # A parsed facet keeps its records as dicts until read; a process that only unpickles
    # it (a Spark worker) must still read them typed, before any class is built there.
    wire = json.dumps(
        {
            "eventTime": "2026-11-22T10:00:00Z",
            "producer": "https://example.com/p",
            "schemaURL": f"{CORE}#/$defs/RunEvent",
            "eventType": "COMPLETE",
            "run": {"runId": RUN_ID, "facets": {}},
            "job": {"namespace": "ns", "name": "job"},
            "inputs": [
                {
                    "namespace": "ns",
                    "name": "in",
                    "facets": {"schema": facet(fields=[{"name": "a", "fields": [{"name": "b"}]}])},
                }
            ],
        }
    )
    (tmp_path / "event.pickle").write_bytes(pickle.dumps(olsdk.parse_event(wire)))
    out = _fresh(
        """
        import pickle
        event = pickle.loads(open("event.pickle", "rb").read())
        field = event.inputs[0].facets.schema.fields[0]
        print(type(field).__name__, field.fields[0].name, event.run.facets.parent)
        """,
        tmp_path,
    )
    assert out.split() == ["SchemaDatasetFacetFields", "b", "None"]


def test_the_generated_module_binds_its_metadata_however_it_is_imported(tmp_path: Any) -> None:
    # (Unpickling imports `olsdk._models._generated.models` and nothing else of olsdk.)
    out = _fresh(
        """
        import sys
        from olsdk._models._generated import models
        print(models.RunFacets.__olsdk_entity__, models.SQLJobFacet.__olsdk_schema_url__.endswith("SQLJobFacet"))
        print(models.RunFacets.model_fields["parent"].annotation, "olsdk.models" in sys.modules)
        """,
        tmp_path,
    )
    assert out.splitlines() == ["run True", "olsdk._models._generated.models.ParentRunFacet | None False"]


def test_records_and_facet_maps_read_typed_before_any_class_is_built(tmp_path: Any) -> None:
    out = _fresh(
        """
        import olsdk.models as models
        field = models.SchemaDatasetFacetFields(name="a", fields=[{"name": "b"}])
        print(type(field.fields[0]).__name__, field.fields[0].name)
        facets = models.RunFacets.model_construct()
        print(facets.parent, type(models.RunFacets.__dict__["parent"]).__name__)
        print(models.SchemaDatasetFacet.__pydantic_complete__)
        """,
        tmp_path,
    )
    assert out.splitlines() == ["SchemaDatasetFacetFields b", "None _FacetAttribute", "False"]


def test_a_custom_facet_is_built_where_it_is_defined(tmp_path: Any) -> None:
    out = _fresh(
        """
        from olsdk._foundation import _registry
        from olsdk.facets import CustomRunFacet

        class MyCoRowsRunFacet(CustomRunFacet, prefix="myCo", schema_base_url="https://e.com/s", version="1-0-0"):
            rows: int

        class NotAType:
            pass

        try:
            class MyCoBrokenRunFacet(CustomRunFacet, prefix="myCo", schema_base_url="https://e.com/s", version="1-0-0"):
                value: NotAType
        except Exception as exc:
            print(type(exc).__name__)
        print(MyCoRowsRunFacet.__pydantic_complete__, _registry.DEFAULT.lookup("run", "myCo_broken"))
        """,
        tmp_path,
    )
    assert out.splitlines() == ["PydanticSchemaGenerationError", "True None"]
