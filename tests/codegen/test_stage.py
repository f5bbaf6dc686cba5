"""Staging (`codegen.stage`) and rendering, one feature at a time, plus the entity table.

The golden cases (`tests/codegen/golden.py` says how they are made and refreshed) each
generate one small snapshot and compare the models module with `expected.py`.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from codegen.manifest import Manifest, SpecError, scan_snapshot
from codegen.stage import EntityInfo, FacetPlace, stage
from tests.codegen.golden import CASES, case_names, generate_case, stage_case

FEATURES = {
    "refs": "offline $ref resolution (local, absolute, across files)",
    "hoisting": "inline objects, array items and map values hoisted into named classes",
    "containers": "facet maps typed as containers with one field per facet key",
    "aliases": "_producer/_schemaURL/_deleted aliases, construction defaults, spec names kept",
    "formats": "uuid/uri/date-time as olsdk's checked string types",
    "enums": "string enums as StrEnum, single values as Literal",
    "records": "objects repeated inside facets (list items, map values) as OLRecord dict classes",
    "docstrings": "the spec's descriptions as class and field docstrings; facet classes name their key and schema",
}


def test_every_staging_feature_has_a_case() -> None:
    assert case_names() == sorted(FEATURES)


@pytest.mark.parametrize("name", sorted(FEATURES))
def test_golden_case(name: str) -> None:
    expected = (CASES / name / "expected.py").read_text(encoding="utf-8")
    assert generate_case(name) == expected, (
        f"the generator's output for cases/{name} changed; if on purpose, run "
        "`.venv/bin/python -m tests.codegen.golden` and review the diff"
    )


def test_containers_case_entity_table() -> None:
    staged = stage_case("containers")
    assert staged.entities == [EntityInfo("run", "RunFacet", "RunFacets", "Run", "facets")]
    assert staged.containers == {"RunFacets": {"example": "ExampleRunFacet"}}
    assert [(f.class_name, f.entity, f.key) for f in staged.facets] == [("ExampleRunFacet", "run", "example")]
    assert staged.events == {} and staged.places == []  # no BaseEvent in this snapshot


def test_entity_table_of_the_pinned_spec() -> None:
    from codegen.manifest import SPEC_DIR, load_manifest

    if not (SPEC_DIR / "OpenLineage.json").exists():
        pytest.skip("spec/ is not filled (make spec)")
    staged = stage(SPEC_DIR, load_manifest())
    assert [(e.name, e.base, e.container, e.owner, e.field) for e in staged.entities] == [
        ("run", "RunFacet", "RunFacets", "Run", "facets"),
        ("job", "JobFacet", "JobFacets", "Job", "facets"),
        ("dataset", "DatasetFacet", "DatasetFacets", "Dataset", "facets"),
        ("inputDataset", "InputDatasetFacet", "InputDatasetFacets", "InputDataset", "inputFacets"),
        ("outputDataset", "OutputDatasetFacet", "OutputDatasetFacets", "OutputDataset", "outputFacets"),
    ]
    assert staged.events == {"run": "RunEvent", "dataset": "DatasetEvent", "job": "JobEvent"}
    assert FacetPlace("run", "inputs[].inputFacets", "inputDataset") in staged.places
    assert FacetPlace("dataset", "dataset.facets", "dataset") in staged.places
    assert not [p for p in staged.places if p.event == "dataset" and p.path != "dataset.facets"]


def edited_case(name: str, dest: Path, edit: Callable[[Path], None]) -> tuple[Path, Manifest]:
    """A copy of a case's snapshot, changed by `edit(snapshot folder)`, and its manifest."""
    for path in (CASES / name).rglob("*.json"):
        rel = path.relative_to(CASES / name)
        target = dest / ("OpenLineage.json" if rel.as_posix() == "schema.json" else rel)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    edit(dest)
    return dest, scan_snapshot(dest, release="t", upstream_commit="t")


def edit_core(change: Callable[[dict[str, Any]], None]) -> Callable[[Path], None]:
    def edit(snapshot: Path) -> None:
        core = json.loads((snapshot / "OpenLineage.json").read_text())
        change(core["$defs"])
        (snapshot / "OpenLineage.json").write_text(json.dumps(core))

    return edit


def test_a_reference_outside_the_snapshot_is_an_error_naming_it(tmp_path: Path) -> None:
    snapshot, manifest = edited_case("refs", tmp_path, lambda s: (s / "shared" / "Location.json").unlink())
    with pytest.raises(SpecError, match=r"OpenLineage.json: \$ref .*Location.json#/\$defs/Location.* points outside"):
        stage(snapshot, manifest)


def test_a_reference_to_a_missing_def_is_an_error_naming_it(tmp_path: Path) -> None:
    snapshot, manifest = edited_case("refs", tmp_path, edit_core(lambda defs: defs.pop("Owner")))
    with pytest.raises(SpecError, match=r"has no \$defs entry 'Owner'"):
        stage(snapshot, manifest)


def test_a_hoisted_name_that_exists_already_is_an_error(tmp_path: Path) -> None:
    taken = {"type": "object", "properties": {"x": {"type": "string"}}}
    snapshot, manifest = edited_case("hoisting", tmp_path, edit_core(lambda defs: defs.update(ReportSummary=taken)))
    with pytest.raises(SpecError, match="would become class 'ReportSummary', which already exists"):
        stage(snapshot, manifest)


def test_records_case_picks_the_repeated_plain_objects() -> None:
    # Repeated inside a facet file's class (list items, map values, nested) and plain:
    # records. Held once, or with a property named like a dict method: models.
    assert stage_case("records").records == ["Child", "Closed", "LayoutRunFacetColumn"]


def test_record_names_cover_what_a_record_offers() -> None:
    from codegen.stage import RECORD_NAMES
    from olsdk._models._runtime import OLRecord

    # A spec property named like one of these would shadow the record's own attribute.
    assert {name for name in dir(OLRecord) if not name.startswith("_")} <= RECORD_NAMES
