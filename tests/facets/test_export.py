"""Publishing: the facet-file and registry formats, determinism, and instances that
validate against the exported schema (independent validator) and parse back equal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import olsdk
from olsdk.cli import main as olsdk_main
from olsdk.facets import attach, export_schemas, facet_schema, registry_document
from olsdk.models import SPEC_VERSION, GcpDataprocRunFacet, InputDataset, Job, Run, RunEvent

from .conftest import ROOT, assert_valid

RUN_ID = "3b452093-782c-4ef2-9c0c-aafe2aa6f34d"


def test_facet_file_format(sample: Any) -> None:
    cls = sample.MyCompanyStatisticsRunFacet
    doc = facet_schema(cls)
    file_id = "https://schemas.example.com/olfacets/1-0-0/MyCompanyStatisticsRunFacet.json"
    assert doc["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert doc["$id"] == file_id == cls.__olsdk_schema_url__.split("#")[0]
    assert doc["properties"] == {"myCompany_statistics": {"$ref": "#/$defs/MyCompanyStatisticsRunFacet"}}
    definition = doc["$defs"]["MyCompanyStatisticsRunFacet"]
    assert definition["type"] == "object"
    assert definition["description"] == "Row statistics of a run."
    base, body = definition["allOf"]
    assert base == {"$ref": f"{SPEC_VERSION}#/$defs/RunFacet"}
    assert body["required"] == ["rows"]
    props = body["properties"]
    assert "_producer" not in props and "_schemaURL" not in props
    assert props["rows"] == {"type": "integer", "description": "Rows processed.", "examples": [42]}
    assert props["ratio"] == {"type": "number"}  # optional: no null branch
    assert props["finishedAt"] == {"type": "string", "format": "date-time"}
    assert props["dashboard"] == {"type": "string", "format": "uri"}
    assert props["tier"] == {"type": "string", "enum": ["gold", "silver"]}
    assert props["columns"]["items"]["required"] == ["name"]  # nested model inlined
    assert not any("title" in json.dumps(v) for v in props.values() if isinstance(v, dict) and "title" in v)


def test_registry_file_has_the_spec_registry_format(sample: Any) -> None:
    document = registry_document(sample.FACETS)
    spec_registries = [json.loads(p.read_text()) for p in (ROOT / "spec" / "registry").glob("*/**/registry.json")]
    producers = [r["producer"] for r in spec_registries if "producer" in r]
    assert producers and all(set(p) <= {"root_doc_URL", "root_doc_url", "produced_facets"} for p in producers)
    assert set(document) == {"producer"}
    assert document["producer"] == {
        "root_doc_URL": "https://schemas.example.com/olfacets",
        "produced_facets": [
            "ol:myCompany:MyCompanyLayoutDatasetFacet.json",
            "ol:myCompany:MyCompanyOwnerJobFacet.json",
            "ol:myCompany:MyCompanyS3ScanInputDatasetFacet.json",
            "ol:myCompany:MyCompanyStatisticsRunFacet.json",
        ],
    }
    named = registry_document(sample.FACETS, name="acme:data", root_doc_url="https://docs.example.com")
    assert named["producer"]["produced_facets"][0] == "ol:acme:data:MyCompanyLayoutDatasetFacet.json"
    assert named["producer"]["root_doc_URL"] == "https://docs.example.com"


def test_export_is_deterministic_and_laid_out_like_the_registry(sample: Any, tmp_path: Path) -> None:
    first = export_schemas(sample, tmp_path / "a")
    second = export_schemas("tests.facets.sample_facets", tmp_path / "b")
    assert [p.relative_to(tmp_path / "a") for p in first] == [p.relative_to(tmp_path / "b") for p in second]
    assert [p.relative_to(tmp_path / "a").as_posix() for p in first] == [
        "facets/MyCompanyLayoutDatasetFacet.json",
        "facets/MyCompanyOwnerJobFacet.json",
        "facets/MyCompanyS3ScanInputDatasetFacet.json",
        "facets/MyCompanyStatisticsRunFacet.json",
        "registry.json",
    ]
    for a, b in zip(first, second, strict=True):
        text = a.read_bytes()
        assert text == b.read_bytes()
        assert text.endswith(b"}\n") and b"\r" not in text
        assert text.decode() == json.dumps(json.loads(text), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def test_cli_export_writes_the_same_files(sample: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    export_schemas(sample, tmp_path / "api")
    assert olsdk_main(["facets", "export", "tests.facets.sample_facets", "--out", str(tmp_path / "cli")]) == 0
    assert "registry.json" in capsys.readouterr().out
    for path in (tmp_path / "api").rglob("*.json"):
        assert path.read_bytes() == (tmp_path / "cli" / path.relative_to(tmp_path / "api")).read_bytes()
    assert olsdk_main(["facets", "export", "no.such.module", "--out", str(tmp_path / "x")]) == 2
    assert "no.such" in capsys.readouterr().err


def test_export_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="defines no custom facet classes"):
        export_schemas("json", tmp_path)
    with pytest.raises(TypeError, match="not a facet class"):
        export_schemas([dict], tmp_path)  # type: ignore[list-item]


def test_a_generated_registry_facet_exports_the_spec_file(tmp_path: Path) -> None:
    # Closing the loop the other way: a facet the generator made from the spec's gcp
    # registry exports back to its own file, up to `additionalProperties: true`.
    spec = json.loads((ROOT / "spec/registry/gcp/dataproc/facets/GcpDataprocRunFacet.json").read_text())
    exported = facet_schema(GcpDataprocRunFacet)
    assert exported["$id"] == spec["$id"] and exported["properties"] == spec["properties"]
    spec_body = spec["$defs"]["GcpDataprocRunFacet"]["allOf"][1]
    body = exported["$defs"]["GcpDataprocRunFacet"]["allOf"][1]
    assert body["properties"] == spec_body["properties"]
    assert body["required"] == sorted(spec_body["required"])
    assert exported["$defs"]["GcpDataprocRunFacet"]["allOf"][0] == spec["$defs"]["GcpDataprocRunFacet"]["allOf"][0]


# --- Hypothesis: instances validate against the exported schema and parse back equal ---

_text = st.text(max_size=12)
_json_float = st.floats(allow_nan=False, allow_infinity=False)
_datetime = st.datetimes(timezones=st.just(__import__("datetime").UTC)).map(lambda d: d.isoformat())


def _statistics(sample: Any) -> st.SearchStrategy[Any]:
    column = st.fixed_dictionaries({"name": _text}, optional={"nullCount": st.integers()}).map(
        lambda kw: sample.ColumnStats(**kw)
    )
    return st.fixed_dictionaries(
        {"rows": st.integers()},
        optional={
            "ratio": _json_float,
            "columns": st.lists(column, max_size=3),
            "finishedAt": _datetime,
            "dashboard": st.sampled_from(["https://dash.example.com/r/1", "s3://bucket/key", "urn:x:y"]),
            "tier": st.sampled_from(list(sample.Tier)),
            "mode": st.sampled_from(["batch", "stream"]),
            "labels": st.dictionaries(_text, _text, max_size=3),
            "flagged": st.booleans(),
        },
    ).map(lambda kw: sample.MyCompanyStatisticsRunFacet(**kw))


def _layout(sample: Any) -> st.SearchStrategy[Any]:
    nodes = st.recursive(
        st.builds(sample.Node, name=_text),
        lambda children: st.builds(sample.Node, name=_text, children=st.lists(children, max_size=3)),
        max_leaves=6,
    )
    return nodes.map(lambda root: sample.MyCompanyLayoutDatasetFacet(root=root))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_instances_validate_and_parse_back_equal(sample: Any, data: st.DataObject) -> None:
    documents = [facet_schema(c) for c in sample.FACETS]
    stats = data.draw(_statistics(sample), label="statistics")
    owner = sample.MyCompanyOwnerJobFacet(team=data.draw(_text, label="team"))
    scan = sample.MyCompanyS3ScanInputDatasetFacet(objects=data.draw(st.integers(min_value=0)))
    layout = data.draw(_layout(sample), label="layout")

    for facet in (stats, owner, scan, layout):
        cls = type(facet)
        dumped = facet.to_dict()
        assert_valid(dumped, cls.__olsdk_schema_url__, *documents)  # the class's definition
        file_id = cls.__olsdk_schema_url__.split("#")[0]
        assert_valid({cls.__olsdk_facet_key__: dumped}, file_id, *documents)  # the file, by key

    dataset = attach(InputDataset(namespace="s3://bucket", name="path"), scan, layout)
    event = attach(
        RunEvent(eventType="COMPLETE", run=Run(runId=RUN_ID), job=Job(namespace="ns", name="job"), inputs=[dataset]),
        stats,
        owner,
    )
    text = olsdk.to_json(event)
    assert_valid(json.loads(text), SPEC_VERSION)  # the whole event against the core spec

    parsed = olsdk.parse_event(text)
    assert parsed == event
    assert isinstance(parsed, RunEvent) and parsed.run.facets is not None and parsed.inputs
    assert type(parsed.run.facets["myCompany_statistics"]) is type(stats)
    assert parsed.run.facets["myCompany_statistics"] == stats
    parsed_input = parsed.inputs[0]
    assert parsed_input.facets is not None and parsed_input.inputFacets is not None
    assert parsed_input.facets["myCompany_layout"] == layout
    assert parsed_input.inputFacets["myCompany_s3Scan"] == scan
    assert olsdk.to_json(parsed) == text


def test_a_wrong_instance_is_rejected_by_the_exported_schema(sample: Any) -> None:
    documents = [facet_schema(c) for c in sample.FACETS]
    cls = sample.MyCompanyStatisticsRunFacet
    good = cls(rows=1).to_dict()
    with pytest.raises(AssertionError, match="rows"):
        assert_valid({**good, "rows": "many"}, cls.__olsdk_schema_url__, *documents)
    with pytest.raises(AssertionError, match="_producer"):
        assert_valid({k: v for k, v in good.items() if k != "_producer"}, cls.__olsdk_schema_url__, *documents)
