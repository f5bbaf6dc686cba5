"""spec/manifest.json pins the snapshot: files are copied only when their checksums match."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from codegen.manifest import SPEC_DIR, SpecError, fill_spec, load_manifest, verify_spec


def copy_of_snapshot(tmp_path: Path) -> Path:
    src = tmp_path / "snapshot"
    manifest = load_manifest()
    for f in manifest.files:
        target = src / f.path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SPEC_DIR / f.path, target)
    return src


def test_fill_spec_copies_every_listed_file_and_verifies_it(tmp_path: Path) -> None:
    manifest = load_manifest()
    dest = tmp_path / "spec"
    written = fill_spec(manifest, src=copy_of_snapshot(tmp_path), dest=dest)
    assert sorted(written) == sorted(f.path for f in manifest.files)
    verify_spec(manifest, dest)
    assert fill_spec(manifest, src=copy_of_snapshot(tmp_path), dest=dest) == []  # already there


def test_a_file_whose_checksum_differs_is_refused_by_name(tmp_path: Path) -> None:
    manifest = load_manifest()
    src = copy_of_snapshot(tmp_path)
    tampered = src / "facets" / "SQLJobFacet.json"
    tampered.write_text(tampered.read_text().replace('"query"', '"qeury"'))
    with pytest.raises(SpecError, match=r"facets/SQLJobFacet\.json: sha256 \w+ does not match"):
        fill_spec(manifest, src=src, dest=tmp_path / "spec")
    assert not (tmp_path / "spec" / "facets" / "SQLJobFacet.json").exists()


def test_generation_refuses_a_spec_dir_that_differs_from_the_manifest(tmp_path: Path) -> None:
    manifest = load_manifest()
    dest = tmp_path / "spec"
    fill_spec(manifest, src=copy_of_snapshot(tmp_path), dest=dest)
    (dest / "OpenLineage.json").write_text("{}")
    (dest / "facets" / "TagsRunFacet.json").unlink()
    with pytest.raises(SpecError) as info:
        verify_spec(manifest, dest)
    assert "OpenLineage.json: sha256 differs" in str(info.value)
    assert "facets/TagsRunFacet.json: missing" in str(info.value)


def test_manifest_records_id_url_and_checksum_of_every_schema_file() -> None:
    manifest = load_manifest()
    schemas = manifest.schema_files
    assert len(schemas) == 45  # the core and 44 facet files
    for f in schemas:
        assert f.id and f.url == f.id and len(f.sha256) == 64
