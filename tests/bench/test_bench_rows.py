"""The building blocks of issue 15's bench rows, without timing anything.

The readers of the read row must read the same things; the growth workloads must be the
events they claim to be; the collector row must leave the collector as it found it.
"""

from __future__ import annotations

import copy
import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("openlineage.client")
orjson = pytest.importorskip("orjson")

import olsdk  # noqa: E402
from bench import cases, growth, startup, workloads  # noqa: E402
from olsdk import models  # noqa: E402


def test_targets_are_the_issues() -> None:
    assert cases.TARGETS == {
        ("parse", "full"): 0.28,
        ("parse", "minimal"): 0.20,
        ("validate", "full"): 0.45,
        ("serialise", "full"): 16.0,
        ("emit", "full"): 5.0,
        ("emit", "minimal"): 6.5,
        ("http", "minimal"): 10.0,
    }


def _both_readers(wire: bytes) -> tuple[cases.Reads, cases.Reads]:
    return cases.read_every_facet(cases.parse_run_event(wire)), cases.read_every_facet_of_dict(orjson.loads(wire))


def test_readers_agree_on_the_workloads() -> None:
    full = workloads.official_bytes(workloads.official_full())
    minimal = workloads.official_bytes(workloads.official_minimal())
    # run 2, job 2, input 2, output 3 + 1 output facet; two 20-field schemas of 6-character names
    assert _both_readers(full) == (cases.Reads(10, 40, 240), cases.Reads(10, 40, 240))
    assert _both_readers(minimal) == (cases.Reads(0, 0, 0), cases.Reads(0, 0, 0))


def test_readers_agree_on_keys_the_containers_do_not_type_and_nested_fields() -> None:
    doc = orjson.loads(workloads.official_bytes(workloads.official_full()))
    facet = {"_producer": workloads.PRODUCER, "_schemaURL": "https://example.com/facets/Custom.json"}
    doc["run"]["facets"]["spark.logicalPlan"] = {**facet, "plan": [1, 2]}  # not a Python name
    doc["job"]["facets"]["ownerTeam"] = {**facet, "team": "data"}  # a Python name, not typed
    fields = doc["inputs"][0]["facets"]["schema"]["fields"]
    fields[0]["fields"] = [{"name": "inner", "fields": [{"name": "innermost"}]}]
    wire = orjson.dumps(doc)
    event = cases.parse_run_event(wire)
    assert event.run.facets is not None and "spark.logicalPlan" not in type(event.run.facets).__olsdk_keys__
    expected = cases.Reads(12, 42, 240 + len("inner") + len("innermost"))
    assert _both_readers(wire) == (expected, expected)


def test_typed_reader_reads_the_typed_facets() -> None:
    # A container that types a key gives the typed facet by attribute: the reader must
    # find the schema (a model, not a dict) to count its fields.
    event = cases.parse_run_event(workloads.official_bytes(workloads.official_full()))
    assert event.inputs and event.inputs[0].facets is not None
    assert isinstance(event.inputs[0].facets.schema, models.SchemaDatasetFacet)
    assert cases.SCHEMA_KEY == "schema"


def test_parse_run_event_refuses_other_kinds() -> None:
    job_event = {
        "eventTime": workloads.EVENT_TIME,
        "producer": workloads.PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/JobEvent",
        "job": {"namespace": workloads.NAMESPACE, "name": "a_job"},
    }
    with pytest.raises(TypeError, match="JobEvent"):
        cases.parse_run_event(orjson.dumps(job_event))


@pytest.mark.parametrize("count", [1, 3, 25])
def test_growth_event_has_the_fields_it_claims(count: int) -> None:
    wire = growth.wire_with_fields(count)  # also checks the olsdk build and the parse
    event = cases.parse_run_event(wire)
    assert event.inputs and event.inputs[0].facets is not None
    schema = event.inputs[0].facets.schema
    assert isinstance(schema, models.SchemaDatasetFacet) and schema.fields is not None
    assert [f.name for f in schema.fields] == [f"col_{i:05d}" for i in range(count)]
    assert olsdk.validate_event(wire) == []
    # the emit contenders build the same document
    workloads.check_same_document(workloads.official_bytes(growth.official_with_fields(count)), wire)
    workloads.check_same_document(olsdk.to_json(growth.olsdk_with_fields(count)), wire)


@pytest.fixture
def collector_restored() -> Iterator[None]:
    enabled, frozen = gc.isenabled(), gc.get_freeze_count()
    yield
    if frozen == 0:
        gc.unfreeze()
    if enabled:
        gc.enable()
    else:
        gc.disable()


@pytest.mark.usefixtures("collector_restored")
@pytest.mark.parametrize("mode", [growth.COLLECTOR_ON, growth.COLLECTOR_FROZEN, growth.COLLECTOR_OFF])
@pytest.mark.parametrize("enabled_before", [True, False])
def test_collector_measure_leaves_the_collector_as_it_was(mode: str, enabled_before: bool) -> None:
    seen: list[tuple[bool, bool]] = []  # (enabled, anything frozen) during the sample
    held_calls: list[int] = []

    def parse() -> object:
        seen.append((gc.isenabled(), gc.get_freeze_count() > 0))
        return [object() for _ in range(10)]

    def held() -> list[object]:
        held_calls.append(1)
        return [[] for _ in range(100)]

    if not enabled_before:
        gc.disable()
    before = gc.get_freeze_count()
    per_parse_ns = growth.collector_measure(mode, parse, 5, held)()
    assert per_parse_ns > 0
    assert len(seen) == growth.WARM_UP_PARSES + 5 and held_calls == [1]
    assert gc.isenabled() is enabled_before
    assert gc.get_freeze_count() == before
    expected_enabled = {growth.COLLECTOR_ON: enabled_before, growth.COLLECTOR_FROZEN: enabled_before}
    assert {enabled for enabled, _ in seen} == {expected_enabled.get(mode, False)}
    assert {frozen for _, frozen in seen} == {mode == growth.COLLECTOR_FROZEN or before > 0}


def test_collector_measure_refuses_unknown_modes() -> None:
    with pytest.raises(ValueError, match="unknown collector mode"):
        growth.collector_measure("paused", lambda: None, 1)


def test_read_and_validate_cases_check_their_workload() -> None:
    inp = cases.prepare("full")
    read = cases.read_case(inp, 0.001)
    assert read.note == "each reader reads 10 facets and 40 schema field names"
    assert [c.name for c in read.contenders] == ["olsdk.parse_event + typed reads", "orjson.loads + reads"]
    validate = cases.validate_case(inp, 0.001)
    assert validate.target == ("olsdk.validate_event", 0.45)
    broken = copy.copy(inp)
    broken.wire = inp.wire.replace(b'"eventType": "FAIL"', b'"eventType": "FAILED"')
    assert broken.wire != inp.wire
    with pytest.raises(RuntimeError, match="finds problems"):
        cases.validate_case(broken, 0.001)


def test_startup_snippets_do_what_their_rows_say(tmp_path: Path) -> None:
    """Each start-up contender runs in a fresh process and reports; the first-event ones
    leave their event on disk: the same START event, which olsdk reads strictly."""
    for contender in startup.SNIPPETS:
        cpu, wall = startup.run_once(contender, tmp_path / contender.replace(" ", "_"))
        assert cpu > 0 and wall > 0, contender
    for contender in ("olsdk", "official client"):
        (line,) = (tmp_path / contender.replace(" ", "_") / "events.ndjson").read_text().splitlines()
        event = olsdk.parse_event(line)
        assert isinstance(event, models.RunEvent)
        assert (event.eventType, event.run.runId, event.job.name) == ("START", startup.RUN_ID, "startup")
    (line,) = (tmp_path / "pydantic,_one_model" / "events.ndjson").read_text().splitlines()
    assert orjson.loads(line) == {"namespace": "bench", "name": "startup"}
