"""The corpus of real-shaped events (tests/corpus) in both modes and by `validate_event`.

Every event reads leniently unless its identity is unusable, dumps back to the JSON that
was sent, and keeps typed what is valid; strict parsing accepts exactly the valid ones;
`validate_event` names exactly the expected paths; the independent JSON Schema
validator (tests/support/spec_schema.py) agrees on every verdict.
"""

from __future__ import annotations

import json

import pytest

import olsdk
import olsdk.models as models
from tests.corpus.events import CORPUS, Sample
from tests.support.spec_schema import exact_errors

IDS = [sample.name for sample in CORPUS]


@pytest.mark.parametrize("sample", CORPUS, ids=IDS)
def test_validate_event_names_exactly_the_expected_paths(sample: Sample) -> None:
    problems = olsdk.validate_event(json.dumps(sample.document))
    independent = exact_errors(sample.document)
    assert {p.path for p in problems} == {path for path, _ in independent}
    if sample.problems is not None:
        assert {p.path for p in problems} == set(sample.problems), problems
    assert all(p.rule for p in problems)


@pytest.mark.parametrize("sample", CORPUS, ids=IDS)
def test_strict_parsing_accepts_exactly_the_valid_events(sample: Sample) -> None:
    if sample.problems == ():
        event = olsdk.parse_event(json.dumps(sample.document))
        assert olsdk.to_dict(event) == sample.document
        return
    with pytest.raises(olsdk.ValidationError) as info:
        olsdk.parse_event(json.dumps(sample.document))
    if sample.problems:
        assert {p.path for p in info.value.problems} >= set(sample.problems)


@pytest.mark.parametrize("sample", CORPUS, ids=IDS)
def test_lenient_parsing_reads_every_usable_event_and_dumps_it_back(sample: Sample) -> None:
    if sample.problems is None:
        with pytest.raises(olsdk.ValidationError, match="needed to identify the event"):
            olsdk.parse_event(json.dumps(sample.document), strict=False)
        return
    event = olsdk.parse_event(json.dumps(sample.document), strict=False)
    assert olsdk.to_dict(event) == sample.document
    assert json.loads(olsdk.to_json(event)) == sample.document
    if sample.problems == ():
        assert event == olsdk.parse_event(sample.document)


def test_corpus_counts_per_mode() -> None:
    # The numbers the closing note asks for, kept honest by this test.
    texts = [json.dumps(sample.document) for sample in CORPUS]
    strict = sum(1 for text in texts if not _refused(text, strict=True))
    lenient = sum(1 for text in texts if not _refused(text, strict=False))
    valid = sum(1 for text in texts if not olsdk.validate_event(text))
    assert (len(texts), strict, lenient, valid) == (16, 7, 14, 7)


def _refused(text: str, *, strict: bool) -> bool:
    try:
        olsdk.parse_event(text, strict=strict)
    except olsdk.ValidationError:
        return True
    return False


def test_lenient_keeps_the_wire_string_where_a_format_fails_and_types_the_rest() -> None:
    sample = next(s for s in CORPUS if s.name == "spark-datasource-uri-file")
    event = olsdk.parse_event(sample.document, strict=False)
    assert isinstance(event, models.RunEvent) and event.inputs
    facets = event.inputs[0].facets
    assert facets is not None
    assert isinstance(facets.dataSource, models.DatasourceDatasetFacet)
    assert facets.dataSource.uri == "file"
    assert isinstance(facets.schema, models.SchemaDatasetFacet)
    assert event.run.facets is not None and isinstance(event.run.facets.parent, models.ParentRunFacet)


def test_lenient_keeps_the_wire_string_inside_a_record_in_its_typed_place() -> None:
    # `jobDependencies.upstream[]` are records (dicts with typed attributes) holding a
    # model (`RunIdentifier`) whose `runId` breaks the uuid format.
    document = json.loads(json.dumps(CORPUS[0].document))
    facet = {
        "_producer": "https://example.com/producer",
        "_schemaURL": "https://openlineage.io/spec/facets/1-0-1/JobDependenciesRunFacet.json#/$defs/JobDependenciesRunFacet",
        "upstream": [{"job": {"namespace": "ns", "name": "up"}, "run": {"runId": "not-a-uuid"}}],
    }
    document["run"].setdefault("facets", {})["jobDependencies"] = facet
    event = olsdk.parse_event(document, strict=False)
    assert isinstance(event, models.RunEvent) and event.run.facets is not None
    dependencies = event.run.facets.jobDependencies
    assert isinstance(dependencies, models.JobDependenciesRunFacet) and dependencies.upstream
    upstream = dependencies.upstream[0]
    assert isinstance(upstream, models.JobDependency) and isinstance(upstream.run, models.RunIdentifier)
    assert upstream.run.runId == "not-a-uuid"
    assert olsdk.to_dict(event) == document


def test_lenient_tolerates_missing_base_fields_and_reads_them_as_none() -> None:
    sample = next(s for s in CORPUS if s.name == "airflow-column-lineage-without-producer")
    event = olsdk.parse_event(sample.document, strict=False)
    assert isinstance(event, models.RunEvent) and event.outputs
    facets = event.outputs[0].facets
    assert facets is not None and isinstance(facets.columnLineage, models.ColumnLineageDatasetFacet)
    assert facets.columnLineage.producer is None and facets.columnLineage.schemaURL is None
    assert "_producer" not in olsdk.to_dict(event)["outputs"][0]["facets"]["columnLineage"]
    without_url = next(s for s in CORPUS if s.name == "airflow-without-schema-url")
    assert olsdk.parse_event(without_url.document, strict=False).schemaURL is None


def test_lenient_keeps_a_facet_that_fails_its_schema_verbatim_under_its_key() -> None:
    sample = next(s for s in CORPUS if s.name == "airflow-complete")
    document = json.loads(json.dumps(sample.document))
    broken = document["outputs"][0]["facets"]["columnLineage"]
    broken["fields"]["id"]["inputFields"][0]["name"] = 42  # not a string
    event = olsdk.parse_event(document, strict=False)
    assert isinstance(event, models.RunEvent) and event.outputs
    facets = event.outputs[0].facets
    assert facets is not None
    assert facets["columnLineage"] == broken and facets.columnLineage == broken
    assert isinstance(facets.schema, models.SchemaDatasetFacet)  # its neighbours stay typed
    assert olsdk.to_dict(event) == document
    assert [p.path for p in olsdk.validate_event(document)] == [
        "outputs[0].facets.columnLineage.fields.id.inputFields[0].name"
    ]


def test_lenient_keeps_other_wrong_values_as_sent() -> None:
    document = json.loads(json.dumps(CORPUS[0].document))
    document["eventType"] = "BEGIN"
    document["inputs"].append(3)
    document["outputs"][0]["name"] = 7
    event = olsdk.parse_event(document, strict=False)
    assert isinstance(event, models.RunEvent) and event.inputs and event.outputs
    assert event.eventType == "BEGIN"
    assert event.inputs[1] == 3
    assert event.outputs[0].name == 7
    assert olsdk.to_dict(event) == document


def test_a_record_of_a_one_of_with_nothing_in_it_is_read_leniently_and_named_plainly() -> None:
    # Found by the property test: a `lineage` entry `{}` matches neither form of the
    # spec's oneOf; pydantic's location names the validator it tried, which is no JSON key.
    document = {
        "eventTime": "2026-11-22T10:00:00Z",
        "producer": "https://example.com/producer",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "eventType": "COMPLETE",
        "run": {"runId": "0190d3a4-7b5c-7a3e-9f00-1234567890ab"},
        "job": {
            "namespace": "ns",
            "name": "job",
            "facets": {
                "lineage": {
                    "_producer": "https://example.com/producer",
                    "_schemaURL": "https://openlineage.io/spec/facets/1-0-0/LineageFacet.json#/$defs/LineageJobFacet",
                    "entries": [{"type": "JOB"}, {}],
                }
            },
        },
    }
    with pytest.raises(olsdk.ValidationError) as caught:
        olsdk.parse_event(json.dumps(document))
    paths = {p.path for p in caught.value.problems}
    assert paths == {f"job.facets.lineage.entries[1].{name}" for name in ("namespace", "name", "type")}
    lenient = olsdk.parse_event(json.dumps(document), strict=False)
    assert olsdk.to_dict(lenient) == document
