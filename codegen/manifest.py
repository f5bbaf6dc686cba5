"""The spec manifest: which snapshot files olsdk is generated from, and their checksums.

`spec/manifest.json` is committed with the snapshot files it lists (upstream data, in
`spec/`). `verify_spec` checks them; `fill_spec` refills a missing or changed one from a
local folder or its pinned URL, and refuses any file whose sha256 differs.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SPEC_DIR = ROOT / "spec"
MANIFEST_PATH = SPEC_DIR / "manifest.json"

# Raw files of the upstream repository at the pinned commit; schema files are also
# published at their `$id`, which is what the manifest records as their URL.
UPSTREAM_RAW = "https://raw.githubusercontent.com/OpenLineage/OpenLineage/{commit}/spec/{path}"

# Which files of a snapshot belong to the manifest: schemas, the HTTP API, the prose. An
# upstream `spec/` folder also holds test events (`tests/`), a diagram and a release
# script: not snapshot files.
_INCLUDE_SUFFIXES = (".json", ".yml", ".yaml", ".md")
_NOT_SNAPSHOT_DIRS = ("tests",)
# The project's own files in spec/ (the LICENSE is the repository's, not in upstream's
# spec/ folder) and the older snapshots beside them: never part of a snapshot.
_PROJECT_NAMES = ("manifest.json", "CHANGES.md", "CHANGES.json", "PROVENANCE.md", "LICENSE")
_PROJECT_DIRS = ("releases",)


class SpecError(Exception):
    """The spec snapshot is missing, incomplete or does not match the manifest."""


@dataclass(frozen=True)
class SpecFile:
    path: str  # relative to the snapshot root, '/'-separated
    sha256: str
    url: str
    id: str | None  # the JSON Schema `$id`, for schema files

    @property
    def is_schema(self) -> bool:
        return self.id is not None


@dataclass(frozen=True)
class Manifest:
    release: str
    upstream_commit: str
    core_id: str
    files: tuple[SpecFile, ...]

    def file(self, path: str) -> SpecFile:
        for f in self.files:
            if f.path == path:
                return f
        raise KeyError(path)

    @property
    def schema_files(self) -> tuple[SpecFile, ...]:
        return tuple(f for f in self.files if f.is_schema and f.path.endswith(".json"))

    @property
    def checksum(self) -> str:
        """One digest over every listed file, recorded in the generated package."""
        h = hashlib.sha256()
        for f in sorted(self.files, key=lambda f: f.path):
            h.update(f"{f.path}\0{f.sha256}\n".encode())
        return h.hexdigest()

    def to_json(self) -> str:
        doc = {
            "release": self.release,
            "upstream_commit": self.upstream_commit,
            "core_id": self.core_id,
            "files": [
                {
                    k: v
                    for k, v in (("path", f.path), ("id", f.id), ("url", f.url), ("sha256", f.sha256))
                    if v is not None
                }
                for f in sorted(self.files, key=lambda f: f.path)
            ],
        }
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load_manifest(path: Path = MANIFEST_PATH) -> Manifest:
    if not path.exists():
        raise SpecError(f"{path} does not exist: run 'make spec-upgrade SRC=<folder>' to create it")
    doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    files = tuple(SpecFile(path=f["path"], sha256=f["sha256"], url=f["url"], id=f.get("id")) for f in doc["files"])
    return Manifest(
        release=doc["release"],
        upstream_commit=doc["upstream_commit"],
        core_id=doc["core_id"],
        files=files,
    )


def is_snapshot_file(rel: str) -> bool:
    """Whether `rel` (a '/'-separated path inside a spec folder) is a file of the snapshot."""
    parts = rel.split("/")
    if not rel.endswith(_INCLUDE_SUFFIXES):
        return False
    if len(parts) == 1:
        return parts[0] not in _PROJECT_NAMES
    return parts[0] not in (*_PROJECT_DIRS, *_NOT_SNAPSHOT_DIRS)


def _is_included(rel: Path) -> bool:
    return is_snapshot_file(rel.as_posix())


def scan_snapshot(src: Path, *, release: str, upstream_commit: str) -> Manifest:
    """Build a manifest describing every file of a snapshot folder."""
    if not (src / "OpenLineage.json").exists():
        raise SpecError(f"{src} is not a spec snapshot: it has no OpenLineage.json")
    files: list[SpecFile] = []
    core_id = ""
    for p in sorted(src.rglob("*")):
        rel = p.relative_to(src)
        if not p.is_file() or not _is_included(rel):
            continue
        rel_str = rel.as_posix()
        schema_id: str | None = None
        if p.suffix == ".json":
            doc = json.loads(p.read_text(encoding="utf-8"))
            schema_id = doc.get("$id") if isinstance(doc, dict) else None
        url = schema_id or UPSTREAM_RAW.format(commit=upstream_commit, path=rel_str)
        files.append(SpecFile(path=rel_str, sha256=sha256_of(p), url=url, id=schema_id))
        if rel_str == "OpenLineage.json":
            core_id = schema_id or ""
    if not core_id:
        raise SpecError(f"{src}/OpenLineage.json has no $id")
    return Manifest(release=release, upstream_commit=upstream_commit, core_id=core_id, files=tuple(files))


def _download(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as resp:
        data: bytes = resp.read()
        return data


def fill_spec(manifest: Manifest, *, src: Path | None, dest: Path = SPEC_DIR) -> list[str]:
    """Copy (or download) every manifest file into `dest`, verifying checksums.

    Returns the paths written. Files already present with the right checksum are kept.
    """
    written: list[str] = []
    problems: list[str] = []
    for f in manifest.files:
        target = dest / f.path
        if target.exists() and sha256_of(target) == f.sha256:
            continue
        if src is not None:
            source = src / f.path
            if not source.exists():
                problems.append(f"{f.path}: missing from {src}")
                continue
            data = source.read_bytes()
        else:
            try:
                data = _download(f.url)
            except OSError as exc:
                problems.append(f"{f.path}: cannot download {f.url}: {exc}")
                continue
        digest = hashlib.sha256(data).hexdigest()
        if digest != f.sha256:
            problems.append(f"{f.path}: sha256 {digest} does not match the manifest's {f.sha256}")
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        written.append(f.path)
    if problems:
        raise SpecError("spec snapshot rejected:\n  " + "\n  ".join(problems))
    return written


def verify_spec(manifest: Manifest, spec_dir: Path = SPEC_DIR) -> None:
    """Refuse to generate from files that are missing or differ from the manifest."""
    problems = []
    for f in manifest.files:
        path = spec_dir / f.path
        if not path.exists():
            problems.append(f"{f.path}: missing (run 'make spec')")
        elif sha256_of(path) != f.sha256:
            problems.append(f"{f.path}: sha256 differs from the manifest (run 'make spec')")
    if problems:
        raise SpecError("spec/ does not match spec/manifest.json:\n  " + "\n  ".join(problems))


def copy_snapshot(src: Path, dest: Path = SPEC_DIR) -> None:
    """Replace the snapshot files in `dest` by `src`'s.

    Kept: the manifest and reports, the LICENSE, and `releases/` (the older pinned
    snapshots that the spec-history tests generate from).
    """
    keep = {*_PROJECT_NAMES, *_PROJECT_DIRS}
    for child in dest.iterdir() if dest.exists() else []:
        if child.name in keep:
            continue
        if child.is_dir():
            shutil.rmtree(child)
        else:
            child.unlink()
    for p in sorted(src.rglob("*")):
        rel = p.relative_to(src)
        if p.is_file() and _is_included(rel):
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(p, target)
