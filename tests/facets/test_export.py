"""Publishing: the facet-file and registry formats, determinism, and instances that
validate against the exported schema (independent validator) and parse back equal.

Closing the loop: export -> `python -m codegen generate --extra-facets` -> export gives the
same files. Those models are generated into a copy of the package
(`tests.support.overlay`), which a subprocess imports with `PYTHONPATH` pointing at it
(ahead of the installed one)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import olsdk
from olsdk import models
from olsdk._integrations._cli import main as olsdk_main
from olsdk.facets import attach, export_schemas, facet_schema, registry_document
from olsdk.models import SPEC_VERSION, InputDataset, Job, Run, RunEvent
from tests.support.overlay import needs, sdk_copy

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


@needs("GcpDataprocRunFacet")
def test_a_generated_registry_facet_exports_the_spec_file(tmp_path: Path) -> None:
    # Closing the loop the other way: a facet the generator made from the spec's gcp
    # registry exports back to its own file, up to `additionalProperties: true`. The file
    # is the one these models were generated from (the release's, under make test-spec-*).
    from olsdk._models._generated._schemas import DOCUMENTS

    exported = facet_schema(models.GcpDataprocRunFacet)
    spec = DOCUMENTS[exported["$id"]]
    assert spec["$id"].endswith("/GcpDataprocRunFacet.json") and exported["properties"] == spec["properties"]
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


# -- export -> generate -> export ---------------------------------------------------------

REEXPORT = textwrap.dedent(
    """
    import json, sys
    import olsdk
    import olsdk._models._generated
    import olsdk.models as m
    from olsdk.facets import export_schemas, key_of

    assert olsdk._models._generated.__file__.startswith(sys.argv[1]), olsdk._models._generated.__file__
    names = json.loads(sys.argv[3])
    classes = [getattr(m, name) for name in names]
    export_schemas(classes, sys.argv[2])

    # The generated classes are registered under their keys: events parse them typed.
    stats = m.MyCompanyStatisticsRunFacet(rows=3, columns=[{"name": "a", "nullCount": 1}])
    event = m.RunEvent(eventType="START", run=m.Run(runId="3b452093-782c-4ef2-9c0c-aafe2aa6f34d",
                       facets={"myCompany_statistics": stats}), job=m.Job(namespace="n", name="j"))
    parsed = olsdk.parse_event(olsdk.to_json(event))
    assert type(parsed.run.facets.myCompany_statistics) is m.MyCompanyStatisticsRunFacet
    print(json.dumps({name: key_of(getattr(m, name)) for name in names}))
    """
)


def _run(args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        args, cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def test_export_generate_export_is_a_fixed_point(sample: Any, tmp_path: Path) -> None:
    first = tmp_path / "first"
    written = export_schemas(sample, first)

    generated = sdk_copy(tmp_path / "sdk")
    _run([sys.executable, "-m", "codegen", "generate", "--extra-facets", str(first), "--out", str(generated / "olsdk")])
    assert (generated / "olsdk" / "_models" / "_generated" / "models.py").exists()

    second = tmp_path / "second"
    names = [cls.__name__ for cls in sample.FACETS]
    result = _run(
        [sys.executable, "-c", REEXPORT, str(generated), str(second), json.dumps(names)],
        PYTHONPATH=str(generated),
    )
    keys = json.loads(result.stdout.strip().splitlines()[-1])
    assert keys == {cls.__name__: cls.__olsdk_facet_key__ for cls in sample.FACETS}

    for path in written:
        relative = path.relative_to(first)
        assert (second / relative).read_text() == path.read_text(), relative
    assert sorted(p.relative_to(second) for p in second.rglob("*.json")) == sorted(
        p.relative_to(first) for p in written
    )
