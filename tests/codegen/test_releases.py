"""Releases as they were published: references to another version of the core, older
layouts, upstream `spec/` folders with more than the generator reads.

The small cases edit the `containers` golden case (a core and one facet file); the
committed releases (`spec/releases/`) are staged and upgraded to as they are.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from codegen.diff import diff_snapshots, snapshot_from_staged
from codegen.manifest import SpecError, is_snapshot_file, scan_snapshot
from codegen.stage import ResolvedRef, stage, unversioned_id
from codegen.upgrade import upgrade
from tests.codegen.test_stage import edited_case

ROOT = Path(__file__).resolve().parents[2]
RELEASES = ROOT / "spec" / "releases"
FACET = "facets/ExampleRunFacet.json"
CORE_ID = "https://example.com/spec/1-0-0/OpenLineage.json"


def facet_base(base: str) -> Any:
    """An edit of the case's facet file: its `allOf` extends `base` instead of the core's RunFacet."""

    def edit(snapshot: Path) -> None:
        path = snapshot / FACET
        doc = json.loads(path.read_text())
        doc["$defs"]["ExampleRunFacet"]["allOf"][0]["$ref"] = base
        path.write_text(json.dumps(doc))

    return edit


def refs(node: Any) -> list[str]:
    """Every `$ref` value in a JSON document."""
    if isinstance(node, dict):
        own = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return own + [ref for value in node.values() for ref in refs(value)]
    if isinstance(node, list):
        return [ref for value in node for ref in refs(value)]
    return []


def test_unversioned_id() -> None:
    assert unversioned_id("https://openlineage.io/spec/1-0-2/OpenLineage.json") == (
        "https://openlineage.io/spec/OpenLineage.json"
    )
    assert (
        unversioned_id("https://openlineage.io/spec/facets/1-1-0/X.json") == "https://openlineage.io/spec/facets/X.json"
    )
    assert unversioned_id("urn:example:no-version") == "urn:example:no-version"


def test_a_facet_extending_another_version_of_the_core_gets_the_snapshots_core(tmp_path: Path) -> None:
    older = "https://example.com/spec/0-9-2/OpenLineage.json"
    snapshot, manifest = edited_case("containers", tmp_path, facet_base(f"{older}#/$defs/RunFacet"))
    staged = stage(snapshot, manifest)
    assert staged.document["$defs"]["ExampleRunFacet"]["allOf"][0] == {"$ref": "#/$defs/RunFacet"}
    assert staged.resolved_refs == [ResolvedRef(FACET, older, CORE_ID, ("RunFacet",))]
    # The documents shipped for validation name the snapshot's core too, and only there.
    shipped = dict(staged.sources)[FACET]
    assert shipped["$defs"]["ExampleRunFacet"]["allOf"][0]["$ref"] == f"{CORE_ID}#/$defs/RunFacet"
    assert json.loads((snapshot / FACET).read_text())["$defs"]["ExampleRunFacet"]["allOf"][0]["$ref"].startswith(older)
    assert [(f.class_name, f.key) for f in staged.facets] == [("ExampleRunFacet", "example")]


def test_the_change_report_lists_the_resolved_references(tmp_path: Path) -> None:
    older = "https://example.com/spec/0-9-2/OpenLineage.json"
    before, before_manifest = edited_case("containers", tmp_path / "a", lambda _: None)
    after, after_manifest = edited_case("containers", tmp_path / "b", facet_base(f"{older}#/$defs/RunFacet"))
    report = diff_snapshots(
        snapshot_from_staged(stage(before, before_manifest), before_manifest),
        snapshot_from_staged(stage(after, after_manifest), after_manifest),
    )
    assert json.loads(report.to_json())["resolved_refs"] == [
        {"file": FACET, "ref": older, "resolved": CORE_ID, "defs": ["RunFacet"]}
    ]
    assert f"- `{FACET}`: `{older}` -> `{CORE_ID}` (RunFacet)" in report.to_markdown()
    assert any(
        line.startswith(f"resolved to this snapshot's files: references to {older} in 1 file")
        for line in report.summary_lines()
    )
    unchanged = diff_snapshots(None, snapshot_from_staged(stage(before, before_manifest), before_manifest))
    assert json.loads(unchanged.to_json())["resolved_refs"] == []
    assert "resolved" not in unchanged.to_markdown()


def test_a_reference_to_a_file_of_no_version_in_the_snapshot_says_what_to_do(tmp_path: Path) -> None:
    elsewhere = "https://example.com/other/1-0-0/Base.json#/$defs/RunFacet"
    snapshot, manifest = edited_case("containers", tmp_path, facet_base(elsewhere))
    with pytest.raises(SpecError, match=r"points outside the snapshot .*nor another version of it.*add the file"):
        stage(snapshot, manifest)


def test_a_definition_the_snapshots_version_lacks_is_named_with_the_resolution(tmp_path: Path) -> None:
    older = "https://example.com/spec/0-9-2/OpenLineage.json#/$defs/OldRunFacet"
    snapshot, manifest = edited_case("containers", tmp_path, facet_base(older))
    with pytest.raises(SpecError, match=r"the snapshot's version of .*0-9-2/OpenLineage.json\) has no \$defs entry"):
        stage(snapshot, manifest)


def test_the_draft_07_layout_is_refused_with_what_to_do(tmp_path: Path) -> None:
    def to_definitions(snapshot: Path) -> None:
        path = snapshot / FACET
        doc = json.loads(path.read_text())
        doc["definitions"] = doc.pop("$defs")
        path.write_text(json.dumps(doc))

    snapshot, manifest = edited_case("containers", tmp_path, to_definitions)
    with pytest.raises(SpecError, match=rf"{FACET} keeps its definitions under 'definitions'.*pick a newer release"):
        stage(snapshot, manifest)


def test_a_schema_file_without_an_id_is_named(tmp_path: Path) -> None:
    def drop_id(snapshot: Path) -> None:
        path = snapshot / FACET
        doc = json.loads(path.read_text())
        doc.pop("$id")
        doc["$id"] = 7
        path.write_text(json.dumps(doc))

    snapshot, manifest = edited_case("containers", tmp_path, drop_id)
    with pytest.raises(SpecError, match=rf"{FACET}: not a JSON Schema document with an \$id"):
        stage(snapshot, manifest)


def test_an_upstream_spec_folder_keeps_only_what_the_generator_reads(tmp_path: Path) -> None:
    source = RELEASES / "1.0.0"
    upstream = tmp_path / "spec"
    shutil.copytree(source, upstream)
    (upstream / "tests" / "ParentRunFacet").mkdir(parents=True)
    (upstream / "tests" / "ParentRunFacet" / "1.json").write_text('{"run": {}}')
    (upstream / "OpenLineageModel.svg").write_text("<svg/>")
    (upstream / "release.sh").write_text("#!/bin/sh\n")
    manifest = scan_snapshot(upstream, release="1.0.0", upstream_commit="1.0.0")
    assert {f.path for f in manifest.files} == {
        p.relative_to(source).as_posix() for p in source.rglob("*") if p.is_file()
    }
    assert not is_snapshot_file("tests/ParentRunFacet/1.json") and is_snapshot_file("registry/gcp/registry.json")
    assert not is_snapshot_file("manifest.json") and is_snapshot_file("facets/ColumnLineageDatasetFacet.md")


@pytest.mark.parametrize(("release", "older_cores"), [("1.0.0", {"1-0-2": 20, "1-0-3": 3}), ("1.20.0", {})])
def test_a_release_whose_facets_extend_older_cores_generates_and_says_so(
    tmp_path: Path, release: str, older_cores: dict[str, int]
) -> None:
    """Up to 1.12.0, 20 facet files extend the core as `1-0-2` and 3 as `1-0-3`; the core is `2-0-2`."""
    folder = RELEASES / release
    project = tmp_path / "project"
    result = upgrade(
        str(folder),
        manifest_path=project / "spec" / "manifest.json",
        spec_dir=project / "spec",
        out_dir=project / "src" / "olsdk",
    )
    assert result.manifest.release == release  # from PROVENANCE.md
    assert result.manifest.core_id == "https://openlineage.io/spec/2-0-2/OpenLineage.json"
    expected: dict[str, set[str]] = {}  # core version -> files whose `$ref`s name it, read here
    for path in sorted(folder.rglob("*.json")):
        for ref in refs(json.loads(path.read_text(encoding="utf-8"))):
            version = re.fullmatch(r"https://openlineage.io/spec/(\d+-\d+-\d+)/OpenLineage.json#.*", ref)
            if version and f"{version[1]}/OpenLineage.json" not in result.manifest.core_id:
                expected.setdefault(version[1], set()).add(path.relative_to(folder).as_posix())
    report = json.loads((project / "spec" / "CHANGES.json").read_text())
    found: dict[str, set[str]] = {}
    for ref in report["resolved_refs"]:
        assert ref["resolved"] == result.manifest.core_id
        found.setdefault(ref["ref"].split("/")[-2], set()).add(ref["file"])
    assert found == expected
    assert {version: len(files) for version, files in found.items()} == older_cores
    markdown = (project / "spec" / "CHANGES.md").read_text()
    resolved_lines = [line for line in result.summary_lines() if line.startswith("resolved to this snapshot's files:")]
    assert ("References resolved to this snapshot" in markdown) == bool(older_cores) == bool(resolved_lines)
    assert (project / "src" / "olsdk" / "_models" / "_generated" / "models.py").is_file()


def test_back_from_the_oldest_release_the_models_are_byte_identical(tmp_path: Path) -> None:
    """1.0.0 and then the pinned snapshot again: the same files as the committed models."""
    pinned = tmp_path / "pinned"  # spec/ with its manifest (which names the release), without the older ones
    shutil.copytree(ROOT / "spec", pinned, ignore=shutil.ignore_patterns("releases", "CHANGES.*"))
    project = tmp_path / "project"
    paths = {
        "manifest_path": project / "spec" / "manifest.json",
        "spec_dir": project / "spec",
        "out_dir": project / "src" / "olsdk",
    }
    upgrade(str(RELEASES / "1.0.0"), **paths)
    back = upgrade(str(pinned), **paths)
    assert back.manifest.to_json() == (ROOT / "spec" / "manifest.json").read_text()
    generated = ROOT / "src" / "olsdk" / "_models" / "_generated"
    ours = project / "src" / "olsdk" / "_models" / "_generated"
    names = sorted(p.name for p in generated.iterdir() if p.is_file())
    assert names == sorted(p.name for p in ours.iterdir() if p.is_file())
    for name in names:
        assert (ours / name).read_bytes() == (generated / name).read_bytes(), name


def test_an_upstream_checkouts_spec_folder_is_named_after_the_checkout(tmp_path: Path) -> None:
    upstream = tmp_path / "OpenLineage" / "spec"
    shutil.copytree(RELEASES / "1.20.0", upstream)
    project = tmp_path / "project"
    result = upgrade(
        str(upstream),
        manifest_path=project / "spec" / "manifest.json",
        spec_dir=project / "spec",
        out_dir=project / "src" / "olsdk",
    )
    assert (result.manifest.release, result.manifest.upstream_commit) == ("OpenLineage", "OpenLineage")
