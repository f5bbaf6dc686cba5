"""`olsdk._readers._events`: parse_event / to_json / to_dict.

Dispatch to the three event kinds, lossless round trips, clear errors; and, against the
spec's own JSON Schema, documents generated from it (hypothesis-jsonschema) parse into
the models and dump back to an equal document.
"""

from __future__ import annotations

import copy
import functools
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis_jsonschema import from_schema

import olsdk
import olsdk.models as models
from olsdk._models import _spec
from tests.support.facet_places import container_of, facet_keys_by_file, run_event_with
from tests.support.selection import examples
from tests.support.spec_schema import assert_valid, core, inline

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
    # Attribute and mapping access agree on a deleted facet; the key is dumped once.
    assert isinstance(facets["schema"], models.DeletedFacet)
    assert facets.schema is facets["schema"]
    assert isinstance(facets["custom_x"], models.DeletedFacet)
    assert olsdk.to_dict(event) == doc
    text = olsdk.to_json(event)
    assert text.count('"schema"') == 1 and text.count('"custom_x"') == 1


def test_deletion_markers_are_typed_by_the_models_validator_alone() -> None:
    # The validator `parse_event` tries first types a marker itself, also under a typed
    # key whose facet has required fields (`documentation` needs `description`).
    deleted = {"_producer": "https://p", "_schemaURL": "https://s", "_deleted": True}
    doc = run_event(job={"namespace": "ns", "name": "job", "facets": {"documentation": deleted, "custom_x": deleted}})
    event = models.RunEvent.model_validate_json(json.dumps(doc))
    facets = event.job.facets
    assert facets is not None
    assert isinstance(facets["documentation"], models.DeletedFacet) and facets.documentation is facets["documentation"]
    assert isinstance(facets["custom_x"], models.DeletedFacet)
    assert olsdk.to_dict(event) == doc
    # A marker that is not a facet is refused with the facet's problems (no "not a marker" noise).
    lacking = run_event(job={"namespace": "ns", "name": "job", "facets": {"custom_x": {"_deleted": True}}})
    with pytest.raises(olsdk.ValidationError) as refused:
        olsdk.parse_event(lacking)
    assert [str(p) for p in refused.value.problems] == [
        "job.facets.custom_x: lacks '_producer', which every facet must have (JobFacet), got {\"_deleted\":true}"
    ]


def test_a_facet_with_deleted_true_is_a_marker_and_deleted_must_be_a_boolean() -> None:
    # Facet classes refuse `_deleted: true` (that makes a marker, which facet maps hold as
    # DeletedFacet); any other `_deleted` value is checked as the spec's boolean.
    marker = {"_producer": "https://p", "_schemaURL": "https://s", "_deleted": True}
    with pytest.raises(
        olsdk.ValidationError, match=r"_deleted: a facet sent with `_deleted: true` is a deletion marker"
    ):
        models.SchemaDatasetFacet(**marker)
    odd = run_event(inputs=[{"namespace": "ns", "name": "t", "facets": {"schema": {**marker, "_deleted": "yes"}}}])
    with pytest.raises(olsdk.ValidationError) as refused:
        olsdk.parse_event(odd)
    assert [p.path for p in refused.value.problems] == ["inputs[0].facets.schema._deleted"]
    assert "bool" in refused.value.problems[0].rule


def test_deleted_on_an_unknown_run_facet_is_an_unknown_field_unless_true() -> None:
    # RunFacet has no `_deleted`: under a key the spec does not define, any other value
    # of it is an unknown field (valid, kept as sent), as `validate_event` also says.
    base = {"_producer": "https://p", "_schemaURL": "https://s"}
    for value in ("soon", 1, None, [True], {"a": True}, False):
        doc = run_event(run={"runId": RUN_ID, "facets": {"custom_x": {**base, "_deleted": value}}})
        assert olsdk.validate_event(json.dumps(doc)) == []
        event = olsdk.parse_event(doc)
        assert olsdk.to_dict(event) == doc and type(event.run.facets["custom_x"]) is dict  # type: ignore[index]
    marker = run_event(run={"runId": RUN_ID, "facets": {"custom_x": {**base, "_deleted": True}}})
    assert isinstance(olsdk.parse_event(marker).run.facets["custom_x"], models.DeletedFacet)  # type: ignore[union-attr]


def test_a_deletion_set_in_python_dumps_one_key_and_reads_back() -> None:
    facets = models.DatasetFacets(schema=models.SchemaDatasetFacet(fields=[]))
    facets["schema"] = models.DeletedFacet()
    assert facets.schema is facets["schema"] and isinstance(facets.schema, models.DeletedFacet)
    text = facets.to_json()
    assert text.count('"schema"') == 1
    dumped = json.loads(text)["schema"]
    assert dumped["_deleted"] is True and dumped["_schemaURL"].endswith("#/$defs/DatasetFacet")
    facets.schema = models.SchemaDatasetFacet(fields=[])  # a typed facet replaces the marker
    assert facets["schema"] is facets.schema and json.loads(facets.to_json())["schema"]["fields"] == []
    doc = run_event(inputs=[{"namespace": "ns", "name": "t", "facets": {"schema": dumped}}])
    assert olsdk.to_dict(olsdk.parse_event(doc)) == doc


def test_a_deletion_marker_must_be_a_facet_where_the_spec_defines_one() -> None:
    # Only job and dataset facets have `_deleted`; a run facet under a spec key must match its schema,
    # and any marker needs `_producer` and `_schemaURL` like every facet.
    bare = run_event(run={"runId": RUN_ID, "facets": {"nominalTime": {"_deleted": True}}})
    with pytest.raises(olsdk.ValidationError, match=r"run\.facets\.nominalTime"):
        olsdk.parse_event(bare)
    lacking = run_event(inputs=[{"namespace": "ns", "name": "t", "facets": {"schema": {"_deleted": True}}}])
    with pytest.raises(olsdk.ValidationError, match=r"inputs\[0\]\.facets\.schema.*_producer"):
        olsdk.parse_event(lacking)


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


# -- schema -> model ---------------------------------------------------------------------

SETTINGS = settings(
    max_examples=examples(10),
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


@pytest.mark.parametrize(("file_id", "def_name", "entity", "key"), facet_keys_by_file())
def test_schema_generated_facets_parse_typed_and_dump_back_equal(
    file_id: str, def_name: str, entity: str, key: str
) -> None:
    cls = getattr(models, def_name)

    @SETTINGS
    @given(strategy(file_id, def_name))
    def check(facet: dict[str, Any]) -> None:
        # A facet file alone lets a facet map nested in its facet (a parent facet's run
        # facets) hold any facet under any key; the whole spec types the keys it defines
        # there (`gcp_composer_run` must be a GcpComposerRunFacet), as olsdk does.
        assume(not _nested_spec_keys(facet))
        document = {
            "eventTime": "2026-11-22T10:00:00Z",
            "producer": "https://example.com/producer",
            "schemaURL": f"{core()['$id']}#/$defs/RunEvent",
            **run_event_with(entity, key, facet),
        }
        assert_valid(facet, file_id, def_name)
        original = copy.deepcopy(document)
        event = olsdk.parse_event(document)
        assert olsdk.to_dict(event) == original
        parsed = container_of(event, entity)[key]
        if facet.get("_deleted") is True:
            assert isinstance(parsed, models.DeletedFacet)
        else:
            assert type(parsed) is cls

    check()


_SPEC_KEYS = frozenset(key for entity in _spec.ENTITIES for key in entity.container.__olsdk_keys__)


def _nested_spec_keys(node: Any, in_map: bool = False) -> bool:
    """Whether a facet map inside `node` uses a key the spec types."""
    if isinstance(node, list):
        return any(_nested_spec_keys(item) for item in node)
    if not isinstance(node, dict):
        return False
    if in_map and _SPEC_KEYS & node.keys():
        return True
    return any(
        _nested_spec_keys(value, key in ("facets", "inputFacets", "outputFacets")) for key, value in node.items()
    )


# -- the spec's oneOf over event kinds, and the strict types ---------------------------------


def test_an_event_valid_as_two_kinds_is_refused_as_the_schema_refuses_it() -> None:
    base = {k: v for k, v in run_event().items() if k not in ("run", "eventType")}
    both = {**base, "dataset": {"namespace": "ns", "name": "t"}}
    with pytest.raises(olsdk.ValidationError, match="valid as both DatasetEvent and JobEvent"):
        olsdk.parse_event(json.dumps(both))
    assert [p.rule for p in olsdk.validate_event(both)] == [
        "valid as both DatasetEvent and JobEvent; an event must be exactly one kind (the spec's oneOf)"
    ]
    # With an invalid job, only the DatasetEvent branch holds: valid, as a DatasetEvent.
    one = {**both, "job": {"namespace": "ns"}}
    assert type(olsdk.parse_event(json.dumps(one))) is models.DatasetEvent
    assert olsdk.validate_event(one) == []
    # `run` without `job`: not a RunEvent, but a valid DatasetEvent when it has a dataset.
    run_only = {**base, "run": {"runId": RUN_ID}, "dataset": {"namespace": "ns", "name": "t"}}
    del run_only["job"]
    assert type(olsdk.parse_event(run_only)) is models.DatasetEvent


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"eventType": None}, "eventType"),
        ({"inputs": None}, "inputs"),
        ({"run": {"runId": RUN_ID, "facets": None}}, "run.facets"),
        (
            {"outputs": [{"namespace": "n", "name": "t", "outputFacets": {"outputStatistics": facet(rowCount="3")}}]},
            None,
        ),
        (
            {"outputs": [{"namespace": "n", "name": "t", "outputFacets": {"outputStatistics": facet(rowCount=True)}}]},
            None,
        ),
        (
            {"outputs": [{"namespace": "n", "name": "t", "outputFacets": {"outputStatistics": facet(rowCount=1.5)}}]},
            None,
        ),
    ],
)
def test_json_schema_types_no_coercion_and_no_null(change: dict[str, Any], path: str | None) -> None:
    document = run_event(**change)
    with pytest.raises(olsdk.ValidationError) as info:
        olsdk.parse_event(json.dumps(document))
    expected = path or "outputs[0].outputFacets.outputStatistics.rowCount"
    assert expected in {p.path for p in info.value.problems}
    assert expected in {p.path for p in olsdk.validate_event(document)}


def test_an_integral_number_is_an_integer_as_json_schema_says() -> None:
    stats = facet(rowCount=3.0, size=1e2)
    document = run_event(outputs=[{"namespace": "n", "name": "t", "outputFacets": {"outputStatistics": stats}}])
    event = olsdk.parse_event(json.dumps(document))
    assert isinstance(event, models.RunEvent) and event.outputs and event.outputs[0].outputFacets
    statistics = event.outputs[0].outputFacets.outputStatistics
    assert statistics is not None and statistics.rowCount == 3 and type(statistics.rowCount) is int
    assert olsdk.validate_event(document) == []


def test_dependent_required_is_checked_as_the_schema_says() -> None:
    # LineageJobEntry: `name` and `namespace` come together or not at all.
    def event_with(entry: dict[str, Any]) -> dict[str, Any]:
        lineage = facet(entries=[entry])
        return run_event(job={"namespace": "ns", "name": "job", "facets": {"lineage": lineage}})

    together = event_with({"type": "JOB", "namespace": "ns", "name": "other"})
    assert olsdk.validate_event(together) == []
    olsdk.parse_event(json.dumps(together))
    alone = event_with({"type": "JOB", "name": "other"})
    with pytest.raises(olsdk.ValidationError, match="dependentRequired"):
        olsdk.parse_event(json.dumps(alone))
    assert olsdk.validate_event(alone)


def test_a_field_set_to_none_after_construction_is_not_sent() -> None:
    # The spec has no nullable fields: None means "not sent", whether it came from the
    # constructor or an assignment, so the dump stays an event strict parsing accepts.
    job = olsdk.Job(namespace="warehouse", name="daily")
    job.facets = None
    assert olsdk.to_json(job) == '{"namespace":"warehouse","name":"daily"}'
    assert olsdk.to_dict(job) == {"namespace": "warehouse", "name": "daily"}


def test_a_deletion_marker_keeps_its_deleted_key_in_every_dump() -> None:
    marker = models.DeletedFacet()
    assert json.loads(olsdk.to_json(marker))["_deleted"] is True
    assert olsdk.to_dict(marker)["_deleted"] is True
