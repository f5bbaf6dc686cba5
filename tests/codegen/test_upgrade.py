"""Spec upgrades: `python -m codegen upgrade` between the 1.30.0 and current snapshots.

Everything runs in temporary project layouts (`--manifest/--spec-dir/--out`): the
repository's spec/ and models are never touched. Models generated from a temporary
snapshot go into a copy of the package (`tests.support.overlay`), imported in a
subprocess with its folder first on PYTHONPATH.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from codegen.diff import ADDITIVE, BREAKING
from codegen.upgrade import UPSTREAM_TREE, download_release, release_info, upgrade
from tests.support.overlay import sdk_copy
from tests.support.spec_snapshots import NEW, OLD, SAMPLE_EVENT, needs_snapshots

ROOT = Path(__file__).resolve().parents[2]

pytestmark = needs_snapshots


def run_codegen(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [
        sys.executable,
        "-m",
        "codegen",
        "--manifest",
        str(project / "spec" / "manifest.json"),
        "--spec-dir",
        str(project / "spec"),
        *args,
    ]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def git(project: Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", *args],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    )
    return proc.stdout


@pytest.fixture(scope="module")
def upgraded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A project pinned to 1.30.0, then upgraded to current with the CLI."""
    project = tmp_path_factory.mktemp("project")
    packages = tmp_path_factory.mktemp("packages")
    sdk_copy(project / "src")
    first = run_codegen(project, "upgrade", "--src", str(OLD), "--out", str(project / "src" / "olsdk"))
    shutil.copytree(project / "src", packages / "1.30.0")
    second = run_codegen(project, "upgrade", "--src", str(NEW), "--out", str(project / "src" / "olsdk"))
    shutil.copytree(project / "src", packages / "current")
    return {
        "project": project,
        "packages": packages,
        "first": first.stdout,
        "second": second.stdout,
        "report": json.loads((project / "spec" / "CHANGES.json").read_text(encoding="utf-8")),
        "markdown": (project / "spec" / "CHANGES.md").read_text(encoding="utf-8"),
    }


# -- computed independently from the snapshot folders ---------------------------------

_ID = re.compile(r"/(?P<version>\d+-\d+-\d+)/(?P<stem>[^/]+)\.json$")


def facet_versions(folder: Path) -> dict[str, str]:
    """Facet `$id` stem -> version, for every facet schema file of a snapshot folder."""
    out: dict[str, str] = {}
    for path in folder.rglob("*.json"):
        if path.relative_to(folder).parts[0] == "releases":  # spec/'s older snapshots
            continue
        doc = json.loads(path.read_text(encoding="utf-8"))
        schema_id = doc.get("$id") if isinstance(doc, dict) else None
        if not schema_id or path.name == "OpenLineage.json":
            continue
        match = _ID.search(schema_id)
        assert match, schema_id
        out[match["stem"]] = match["version"]
    return out


def test_upgrade_reports_exactly_the_facets_the_snapshots_differ_by(upgraded: dict[str, Any]) -> None:
    old, new = facet_versions(OLD), facet_versions(NEW)
    summary = upgraded["report"]["summary"]
    assert summary["facets_added"] == sorted(new.keys() - old.keys())
    assert summary["facets_removed"] == sorted(old.keys() - new.keys())
    bumped = {stem for stem in old.keys() & new.keys() if old[stem] != new[stem]}
    assert {v["facet"] for v in summary["facet_versions_changed"]} == bumped
    by_kind = {
        kind: {c["subject"] for c in upgraded["report"]["changes"] if c["kind"] == kind}
        for kind in ("facet-added", "facet-removed")
    }
    assert by_kind["facet-added"] == new.keys() - old.keys()
    assert by_kind["facet-removed"] == old.keys() - new.keys()
    assert upgraded["report"]["old"]["release"] == "1.30.0"
    assert upgraded["report"]["new"]["release"] == "main-8f02abfb7a25"


def test_field_level_changes_are_classified(upgraded: dict[str, Any]) -> None:
    changes = {(c["subject"], c.get("field"), c["kind"]): c for c in upgraded["report"]["changes"]}
    dialect = changes[("SQLJobFacet", "dialect", "field-added")]
    assert dialect["impact"] == ADDITIVE and "optional" in dialect["detail"]
    removed = changes[("IcebergScanReportInputDatasetFacet", "filter", "field-removed")]
    assert removed["impact"] == BREAKING
    renamed = changes[("inputDataset.iceberg_scan_report", None, "key-renamed")]
    assert renamed["impact"] == BREAKING and renamed["new"] == "icebergScanReport"
    assert changes[("ParentRunFacet", None, "version-changed")]["impact"] == ADDITIVE
    md = upgraded["markdown"]
    assert "- additive `SQLJobFacet.dialect`: new optional field (string)" in md
    assert "- **breaking** `IcebergScanReportInputDatasetFacet.filter`: field removed" in md
    assert "spec 1.30.0 -> main-8f02abfb7a25" in upgraded["second"]
    assert "5 breaking" in upgraded["second"]


def test_unchanged_snapshot_is_a_no_op(upgraded: dict[str, Any]) -> None:
    project = upgraded["project"]
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "pinned")
    proc = run_codegen(project, "upgrade", "--src", str(NEW), "--out", str(project / "src" / "olsdk"))
    assert proc.stdout.startswith("no changes:"), proc.stdout
    assert "(unchanged)" in proc.stdout
    assert git(project, "status", "--porcelain") == ""
    # The report of the last real upgrade stays.
    assert json.loads((project / "spec" / "CHANGES.json").read_text())["no_changes"] is False


def test_upgraded_manifest_matches_a_fresh_scan(upgraded: dict[str, Any]) -> None:
    manifest = json.loads((upgraded["project"] / "spec" / "manifest.json").read_text())
    assert manifest["core_id"] == json.loads((NEW / "OpenLineage.json").read_text())["$id"]
    assert manifest["upstream_commit"] == "8f02abfb7a25"  # from PROVENANCE.md
    files = {f["path"]: f for f in manifest["files"]}
    assert "registry/iceberg/facets/IcebergCommitReportOutputDatasetFacet1.json" not in files
    assert files["facets/TestRunFacet.json"]["url"] == files["facets/TestRunFacet.json"]["id"]
    assert files["Naming.md"]["url"].endswith("/8f02abfb7a25/spec/Naming.md")
    pinned = ROOT / "spec" / "manifest.json"
    if json.loads(pinned.read_text())["upstream_commit"] == manifest["upstream_commit"]:
        # The repository pins the same snapshot: the upgrade reproduces its manifest exactly.
        assert (upgraded["project"] / "spec" / "manifest.json").read_text() == pinned.read_text()


CHILD = textwrap.dedent(
    """
    import json, sys
    import olsdk._models._generated
    from olsdk import models, parse_event, to_dict
    from olsdk._integrations._version import version_text
    from olsdk._builders._spec_compat import check_event
    assert olsdk._models._generated.__file__.startswith(sys.argv[1]), olsdk._models._generated.__file__
    event = parse_event(sys.argv[2])
    print(json.dumps({
        "release": models.SPEC_RELEASE,
        "parent": type(event.run.facets.parent).__name__,
        "has_root_field": "root" in type(event.run.facets.parent).model_fields,
        "has_catalog": hasattr(models, "CatalogDatasetFacet"),
        "roundtrip": to_dict(event) == json.loads(sys.argv[2]),
        "notes": check_event(sys.argv[2]),
        "version": version_text(),
    }))
    """
)


@pytest.mark.parametrize("snapshot", ["1.30.0", "current"])
def test_generated_package_imports_and_parses(upgraded: dict[str, Any], snapshot: str) -> None:
    out = upgraded["packages"] / snapshot
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(out), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(out), json.dumps(SAMPLE_EVENT)],
        cwd=out,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["parent"] == "ParentRunFacet"
    assert result["roundtrip"] is True  # unknown fields are kept, both ways
    assert result["release"] in result["version"]
    if snapshot == "1.30.0":
        assert result["release"] == "1.30.0"
        assert not result["has_root_field"] and not result["has_catalog"]
        notes = result["notes"]
        assert "run.facets.parent: _schemaURL names ParentRunFacet 1-2-0, models are 1-0-1" in notes
        assert (
            "run.facets.parent.root: not a field of ParentRunFacet in ParentRunFacet 1-0-1 (kept as extra data)"
        ) in notes
        assert any(
            n.startswith("inputs[0].facets.catalog: not a dataset facet of these models")
            and "CatalogDatasetFacet 1-1-0" in n
            for n in notes
        ), notes
        assert any(n.startswith("inputs[0].facets.schema.fields[0].ordinal_position: ") for n in notes)
    else:
        assert result["has_root_field"] and result["has_catalog"]
        assert result["notes"] == []


def test_release_names_come_from_provenance() -> None:
    assert release_info(OLD) == ("1.30.0", "1.30.0")
    assert release_info(NEW) == ("main-8f02abfb7a25", "8f02abfb7a25")


def test_release_download_through_upstream_urls(tmp_path: Path) -> None:
    """`--release <tag>`: the file list from the upstream tree, files from UPSTREAM_RAW (faked)."""
    served = {p.relative_to(OLD).as_posix(): p.read_bytes() for p in OLD.rglob("*") if p.is_file()}
    urls: list[str] = []

    def fetch(url: str) -> bytes:
        urls.append(url)
        if url == UPSTREAM_TREE.format(ref="1.30.0"):
            tree = [{"path": f"spec/{p}", "type": "blob"} for p in served]
            tree += [{"path": "spec/tests/example.json", "type": "blob"}, {"path": "README.md", "type": "blob"}]
            return json.dumps({"tree": tree}).encode()
        prefix = "https://raw.githubusercontent.com/OpenLineage/OpenLineage/1.30.0/spec/"
        if url.startswith(prefix) and url[len(prefix) :] in served:
            return served[url[len(prefix) :]]
        raise OSError(f"404 {url}")

    got = download_release("1.30.0", tmp_path / "dl", fetch=fetch)
    assert "tests/example.json" not in got and "facets/ParentRunFacet.json" in got

    project = tmp_path / "project"
    result = upgrade(
        None,
        release="1.30.0",
        manifest_path=project / "spec" / "manifest.json",
        spec_dir=project / "spec",
        out_dir=project / "src" / "olsdk",
        fetch=fetch,
    )
    manifest = json.loads((project / "spec" / "manifest.json").read_text())
    assert manifest["release"] == "1.30.0" and manifest["upstream_commit"] == "1.30.0"
    assert result.class_count > 50 and (project / "src" / "olsdk" / "_models" / "_generated" / "models.py").exists()
    ours = {f["path"] for f in manifest["files"]}
    assert ours == {p for p in served if p.endswith((".json", ".md", ".yml"))}
