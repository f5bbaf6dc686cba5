"""`python -m codegen upgrade`: pin a new spec snapshot, regenerate, report what changed.

In order, and nothing is written before every step that can fail has passed:
1. find the new snapshot: a local folder, or a release/tag/commit of the upstream
   repository downloaded through `UPSTREAM_RAW` into a temporary folder;
2. scan it into a manifest (`scan_snapshot`: ids, URLs, checksums); its release name
   comes from `--release`, else from the `PROVENANCE.md` next to the folder, else the
   folder's name (for a folder named `spec`, its parent's: an upstream checkout). When
   its files are the ones already pinned, the upgrade is a no-op: it says "no changes",
   writes nothing (the previous report stays), only makes sure `spec/` and
   `src/olsdk/_models/_generated/` match the manifest, and names the way back to the
   snapshot committed in git (`python -m codegen restore`, `codegen.restore`);
3. stage the snapshot pinned so far (from `spec/`, or downloaded from its pinned URLs
   when `spec/` was never filled) and the new one, and diff them (`codegen.diff`);
4. stage and render the new package in memory (a snapshot the generator cannot handle
   stops here, with the repository untouched);
5. write `spec/manifest.json`, replace the snapshot files in `spec/`, write
   `src/olsdk/_models/_generated` and the reports `spec/CHANGES.md` / `spec/CHANGES.json`.
"""

from __future__ import annotations

import json
import re
import tempfile
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from codegen.diff import Snapshot, SpecDiff, diff_snapshots, snapshot_from_staged, write_reports
from codegen.manifest import (
    UPSTREAM_RAW,
    Manifest,
    SpecError,
    copy_snapshot,
    fill_spec,
    is_snapshot_file,
    load_manifest,
    scan_snapshot,
    verify_spec,
)
from codegen.render import PACKAGE, render_package, write_package
from codegen.stage import stage

# Lists every file of the upstream repository at a ref (to find the files of `spec/`).
UPSTREAM_TREE = "https://api.github.com/repos/OpenLineage/OpenLineage/git/trees/{ref}?recursive=1"

Fetch = Callable[[str], bytes]

# After an upgrade, `spec/` holds the new release: upgrading from `spec/` changes nothing.
RESTORE_HINT = (
    "to go back to the snapshot committed in git (spec/ and the models as committed): "
    "make spec-restore (python -m codegen restore)"
)


def _fetch(url: str) -> bytes:
    request = urllib.request.Request(url, headers={"User-Agent": "olsdk-codegen"})
    with urllib.request.urlopen(request, timeout=30) as resp:  # pinned https URLs only
        data: bytes = resp.read()
        return data


# ----------------------------------------------------------------------------- naming


def release_info(folder: Path) -> tuple[str, str] | None:
    """(release name, upstream ref) from a `PROVENANCE.md` table row for `folder`.

    Reads a pinned folder's `manifest.json`, else the rows of a `PROVENANCE.md` beside it:
    `| current/ | OpenLineage repository, main at commit 8f02abfb7a25 | 2026-08-20 | ...`
    gives ("main-8f02abfb7a25", "8f02abfb7a25") and
    `| 1.30.0/ | OpenLineage repository, tag 1.30.0 | ...` gives ("1.30.0", "1.30.0").
    """
    pinned = folder / "manifest.json"  # a pinned snapshot (the project's spec/) knows its release
    if pinned.is_file():
        doc = json.loads(pinned.read_text(encoding="utf-8"))
        if isinstance(doc, dict) and doc.get("release") and doc.get("upstream_commit"):
            return str(doc["release"]), str(doc["upstream_commit"])
    for candidate in (folder / "PROVENANCE.md", folder.parent / "PROVENANCE.md"):
        if not candidate.is_file():
            continue
        for line in candidate.read_text(encoding="utf-8").splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) < 3 or cells[0].rstrip("/") != folder.name:
                continue
            upstream = cells[1]
            tag = re.search(r"\btag ([\w.\-]+)", upstream)
            if tag:
                return tag[1], tag[1]
            commit = re.search(r"\b([\w.\-/]+) at commit ([0-9a-fA-F]{7,40})\b", upstream)
            if commit:
                return f"{commit[1]}-{commit[2]}", commit[2]
    return None


# ----------------------------------------------------------------------------- download


def _snapshot_path(path: str) -> str | None:
    """Where an upstream `spec/...` file goes in a snapshot folder, or None to skip it."""
    rel = path.removeprefix("spec/")
    return rel if path.startswith("spec/") and is_snapshot_file(rel) else None


def download_release(
    ref: str,
    dest: Path,
    *,
    fetch: Fetch = _fetch,
    known_paths: tuple[str, ...] = (),
) -> list[str]:
    """Download the spec files of upstream `ref` (a tag, branch or commit) into `dest`.

    The file list comes from the repository's tree at `ref`; when that cannot be read,
    `known_paths` (the currently pinned files) are tried instead, which misses facet
    files the new release added. Files come from `UPSTREAM_RAW`. Returns the paths.
    """
    paths: list[str] = []
    try:
        tree = json.loads(fetch(UPSTREAM_TREE.format(ref=ref)))
        for entry in tree.get("tree", []):
            rel = _snapshot_path(entry.get("path", "")) if entry.get("type") == "blob" else None
            if rel is not None:
                paths.append(rel)
    except (OSError, ValueError):
        paths = list(known_paths)
    if "OpenLineage.json" not in paths:
        paths.append("OpenLineage.json")
    written: list[str] = []
    for rel in sorted(set(paths)):
        try:
            data = fetch(UPSTREAM_RAW.format(commit=ref, path=rel))
        except OSError as exc:
            if rel == "OpenLineage.json":
                raise SpecError(f"cannot download release {ref!r}: {exc}") from None
            continue  # a file the release does not have
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        written.append(rel)
    return written


# ----------------------------------------------------------------------------- upgrade


@dataclass
class UpgradeResult:
    manifest: Manifest
    diff: SpecDiff | None  # None when the snapshot was already pinned
    class_count: int
    generated_changed: list[str]
    written: list[Path] = field(default_factory=list)
    out_dir: Path = Path("src/olsdk")

    @property
    def no_changes(self) -> bool:
        return self.diff is None

    def summary_lines(self) -> list[str]:
        pkg = f"{self.out_dir.name}/{PACKAGE}: {self.class_count} classes"
        gen = "unchanged" if not self.generated_changed else "changed: " + ", ".join(self.generated_changed)
        if self.diff is None:
            lines = [
                f"no changes: {self.manifest.release} ({self.manifest.core_id}) is already pinned, "
                f"same {len(self.manifest.files)} files",
                RESTORE_HINT,
            ]
            if self.written:
                lines.append("relabelled: " + ", ".join(str(p) for p in self.written))
            return [*lines, f"{pkg} ({gen})"]
        return [
            *self.diff.summary_lines(),
            "wrote " + ", ".join(str(p) for p in self.written),
            f"{pkg} ({gen})",
        ]


def _resolve_source(
    src: str | None, release: str | None, tmp: Path, fetch: Fetch, known: tuple[str, ...]
) -> tuple[Path, str, str]:
    """(snapshot folder, release name, upstream ref) for the requested source."""
    source = src if src is not None else release
    if source is None:
        raise SpecError("upgrade needs --src <snapshot folder or release> or --release <release>")
    folder = Path(source)
    if folder.is_dir():
        info = release_info(folder.resolve())
        if release is not None and release != source:
            return folder, release, info[1] if info else release
        if info is not None:
            return folder, info[0], info[1]
        # An upstream checkout's `spec/` folder is named after its checkout (`OpenLineage`).
        named = folder.resolve().parent if folder.resolve().name == "spec" else folder.resolve()
        return folder, named.name, named.name
    if "/" in source or source.startswith("."):
        raise SpecError(f"{source} is not a folder (a release name has no '/')")
    try:
        download_release(source, tmp, fetch=fetch, known_paths=known)
    except SpecError as exc:
        raise SpecError(f"{source!r} is not a snapshot folder, and as an upstream release: {exc}") from None
    return tmp, release or source, source


def _old_snapshot(manifest: Manifest, spec_dir: Path, tmp: Path) -> Snapshot:
    """The snapshot pinned so far, from `spec_dir` or (when not filled) its pinned URLs."""
    try:
        verify_spec(manifest, spec_dir)
        folder = spec_dir
    except SpecError:
        try:
            fill_spec(manifest, src=None, dest=tmp)
        except SpecError as exc:
            raise SpecError(
                f"the snapshot pinned so far ({manifest.release}) is needed for the change report, "
                f"but {spec_dir} does not hold it and it cannot be downloaded; run 'make spec' "
                f"first.\n{exc}"
            ) from None
        folder = tmp
    return snapshot_from_staged(stage(folder, manifest), manifest)


def upgrade(
    src: str | None,
    *,
    release: str | None = None,
    manifest_path: Path,
    spec_dir: Path,
    out_dir: Path,
    report_dir: Path | None = None,
    fetch: Fetch = _fetch,
) -> UpgradeResult:
    report_dir = report_dir if report_dir is not None else manifest_path.parent
    old_manifest = load_manifest(manifest_path) if manifest_path.exists() else None
    known = tuple(f.path for f in old_manifest.files) if old_manifest else ()
    with tempfile.TemporaryDirectory(prefix="olsdk-spec-") as tmp_name:
        tmp = Path(tmp_name)
        folder, name, ref = _resolve_source(src, release, tmp / "new", fetch, known)
        new_manifest = scan_snapshot(folder, release=name, upstream_commit=ref)

        if old_manifest is not None and old_manifest.checksum == new_manifest.checksum:
            # Same files: keep the pinned manifest (and its names) unless asked to rename.
            written: list[Path] = []
            manifest = old_manifest
            if release is not None and name != old_manifest.release:
                manifest = new_manifest
                manifest_path.write_text(manifest.to_json(), encoding="utf-8")
                written.append(manifest_path)
            fill_spec(manifest, src=folder, dest=spec_dir)
            package = render_package(stage(spec_dir, manifest), manifest)
            changed = write_package(package, out_dir)
            return UpgradeResult(manifest, None, package.class_count, changed, written, out_dir)

        old = _old_snapshot(old_manifest, spec_dir, tmp / "old") if old_manifest else None
        new = snapshot_from_staged(stage(folder, new_manifest), new_manifest)
        result = diff_snapshots(old, new)
        package = render_package(new.staged, new_manifest)

        # Everything that can fail has run: write.
        manifest_path.parent.mkdir(parents=True, exist_ok=True)
        manifest_path.write_text(new_manifest.to_json(), encoding="utf-8")
        copy_snapshot(folder, spec_dir)
        verify_spec(new_manifest, spec_dir)
        changed = write_package(package, out_dir)
        reports = write_reports(result, report_dir)
        return UpgradeResult(new_manifest, result, package.class_count, changed, [manifest_path, *reports], out_dir)
