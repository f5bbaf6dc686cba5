"""parse_event / to_json: dispatch, lossless round trips, clear errors."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest

import olsdk
import olsdk.models as models
from tests.spec_schema import assert_valid, core

RUN_ID = "0190d3a4-7b5c-7a3e-9f00-1234567890ab"
CORE = "https://openlineage.io/spec/2-0-2/OpenLineage.json"


def run_event(**overrides: Any) -> dict[str, Any]:
    event: dict[str, Any] = {
        "eventTime": "2026-11-22T10:00:00.123456+01:00",
        "producer": "https://example.com/producer",
        "schemaURL": f"{CORE}#/$defs/RunEvent",
        "eventType": "START",
        "run": {"runId": RUN_ID},
        "job": {"namespace": "ns", "name": "job"},
    }
    event.update(overrides)
    return event


def facet(**fields: Any) -> dict[str, Any]:
    return {"_producer": "https://example.com/p", "_schemaURL": "https://example.com/s.json#/$defs/X", **fields}


def test_dispatches_the_three_event_kinds() -> None:
    assert type(olsdk.parse_event(run_event())) is models.RunEvent
    dataset_event = {k: v for k, v in run_event().items() if k not in ("run", "job", "eventType")}
    dataset_event["dataset"] = {"namespace": "ns", "name": "t"}
    assert type(olsdk.parse_event(json.dumps(dataset_event))) is models.DatasetEvent
    job_event = {k: v for k, v in run_event().items() if k not in ("run", "eventType")}
    assert type(olsdk.parse_event(json.dumps(job_event).encode())) is models.JobEvent


def test_wire_strings_survive_unchanged() -> None:
    doc = run_event(producer="https://p", eventTime="2026-11-22t10:00:00z")
    assert json.loads(olsdk.to_json(olsdk.parse_event(doc))) == doc


def test_unknown_facets_and_extra_fields_survive_parse_and_dump() -> None:
    doc = run_event(
        run={
            "runId": RUN_ID,
            "facets": {
                "parent": facet(run={"runId": RUN_ID, "extra": [1, {"x": None}]}, job={"namespace": "a", "name": "b"}),
                "myCompany_statistics": facet(rows=3, nested={"deep": [1.5, "x"]}, producer="not the _producer"),
                "acme.not-registered": facet(message="boom"),
            },
        },
        inputs=[
            {
                "namespace": "ns",
                "name": "t",
                "facets": {"schema": facet(fields=[{"name": "a", "type": "int", "x-custom": 1}])},
                "unknownTop": True,
            }
        ],
        somethingNew={"a": 1},
    )
    event = olsdk.parse_event(json.dumps(doc))
    assert json.loads(olsdk.to_json(event)) == doc
    assert isinstance(event, models.RunEvent)
    assert event.run.facets is not None
    assert isinstance(event.run.facets.parent, models.ParentRunFacet)
    assert event.run.facets["myCompany_statistics"]["rows"] == 3
    assert event.run.facets["acme.not-registered"]["message"] == "boom"
    assert event.inputs is not None and event.inputs[0].facets is not None
    assert isinstance(event.inputs[0].facets.schema, models.SchemaDatasetFacet)


def test_deletion_markers_parse_for_any_key_and_dump_back() -> None:
    deleted = {"_producer": "https://p", "_schemaURL": "https://s", "_deleted": True}
    doc = run_event(inputs=[{"namespace": "ns", "name": "t", "facets": {"schema": deleted, "custom_x": deleted}}])
    event = olsdk.parse_event(doc)
    assert isinstance(event, models.RunEvent) and event.inputs
    facets = event.inputs[0].facets
    assert facets is not None
    assert facets.schema is None  # no schema any more
    assert isinstance(facets["schema"], models.DeletedFacet)
    assert isinstance(facets["custom_x"], models.DeletedFacet)
    assert olsdk.to_dict(event) == doc


@pytest.mark.parametrize(
    ("change", "path", "rule"),
    [
        ({"run": {"runId": "not-a-uuid"}}, "run.runId", "not a UUID"),
        ({"eventTime": "2026-11-22 10:00"}, "eventTime", "RFC 3339"),
        ({"eventTime": "2026-11-22T10:00:00"}, "eventTime", "time zone"),
        ({"producer": "no scheme"}, "producer", "not an absolute URI"),
        ({"eventType": "BEGIN"}, "eventType", "must be one of 'START'"),
        ({"job": {"namespace": "ns"}}, "job.name", "required field missing"),
        ({"inputs": [{"namespace": "ns", "name": 3}]}, "inputs[0].name", "must be string"),
        (
            {"run": {"runId": RUN_ID, "facets": {"parent": facet(run={"runId": RUN_ID})}}},
            "run.facets.parent.job",
            "required",
        ),
        ({"run": {"runId": RUN_ID, "facets": {"custom_x": {"a": 1}}}}, "run.facets.custom_x", "lacks '_producer'"),
    ],
)
def test_errors_name_the_json_path_and_the_rule(change: dict[str, Any], path: str, rule: str) -> None:
    with pytest.raises(olsdk.ValidationError) as info:
        olsdk.parse_event(json.dumps(run_event(**change)))
    problems = info.value.problems
    assert any(p.path == path and rule in p.rule for p in problems), problems
    assert f"{path}: " in str(info.value)


def test_not_an_event_and_not_json_are_clear_errors() -> None:
    with pytest.raises(olsdk.ValidationError, match="not an OpenLineage event"):
        olsdk.parse_event({"hello": "world"})
    with pytest.raises(olsdk.ValidationError, match="not valid JSON"):
        olsdk.parse_event(b"{oops")
    with pytest.raises(TypeError, match="not int"):
        olsdk.parse_event(42)  # type: ignore[arg-type]


def test_parsing_requires_what_the_spec_requires_even_where_construction_fills_it() -> None:
    doc = run_event(run={"runId": RUN_ID, "facets": {"nominalTime": {"nominalStartTime": "2026-11-22T10:00:00Z"}}})
    with pytest.raises(olsdk.ValidationError) as info:
        olsdk.parse_event(doc)
    assert {p.path for p in info.value.problems} >= {
        "run.facets.nominalTime._producer",
        "run.facets.nominalTime._schemaURL",
    }
    without_time = {k: v for k, v in run_event().items() if k != "eventTime"}
    with pytest.raises(olsdk.ValidationError, match="eventTime: required field missing"):
        olsdk.parse_event(without_time)


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


def test_enumerations_and_single_value_enums_are_typed() -> None:
    assert models.EventType("FAIL") is models.EventType.FAIL
    assert models.LifecycleStateChange("OVERWRITE").value == "OVERWRITE"
    entry = models.LineageDatasetEntry(namespace="n", name="d", type="DATASET")
    assert entry.type == "DATASET"


def test_deletion_markers_built_in_python_dump_as_markers() -> None:
    marker = models.DeletedFacet()
    assert json.loads(marker.to_json()) == {"_producer": olsdk.get_default_producer(), "_deleted": True}
    facets = models.DatasetFacets(schema=models.DeletedFacet(schemaURL="https://s"), custom_x={"_deleted": True})
    assert facets.schema is None
    doc = json.loads(facets.to_json())
    assert doc["schema"] == {"_producer": olsdk.get_default_producer(), "_schemaURL": "https://s", "_deleted": True}
    assert doc["custom_x"] == {"_deleted": True}
    run = models.Run(runId=RUN_ID, facets=models.RunFacets(parent=models.DeletedFacet()))
    assert json.loads(run.to_json())["facets"] == {
        "parent": {"_producer": olsdk.get_default_producer(), "_deleted": True}
    }


def test_unknown_facet_errors_from_python_construction_name_the_key() -> None:
    with pytest.raises(Exception, match="facet 'custom_x': lacks '_producer'"):
        models.Run(runId=RUN_ID, facets={"custom_x": {"a": 1}})
