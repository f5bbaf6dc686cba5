"""`python -m codegen restore`: go back to the spec snapshot committed in git.

`make spec-upgrade` pins another snapshot in `spec/` and regenerates the models from it;
upgrading "back" from `spec/` itself changes nothing, since `spec/` then holds the other
release. `restore` reads `spec/` as committed at a git revision (`--ref`, HEAD by
default): its snapshot files, manifest and change reports go back into `spec/` (files
the other release added are removed; `releases/` is left alone), and the models are
generated again from it, so `spec/` and `src/olsdk/_models/_generated/` are as committed.
Nothing is downloaded, and nothing is written before the committed snapshot has been
read and generated.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from codegen.manifest import Manifest, SpecError, copy_snapshot, load_manifest, verify_spec
from codegen.render import PACKAGE, render_package, write_package
from codegen.stage import stage

# The change reports of the committed pin go back with it.
REPORTS = ("CHANGES.md", "CHANGES.json")


def _git(cwd: Path, *args: str) -> bytes:
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False, timeout=120)
    except FileNotFoundError:
        raise SpecError("restoring the committed snapshot needs git, which is not installed") from None
    if proc.returncode != 0:
        message = proc.stderr.decode(errors="replace").strip()
        raise SpecError(f"git {' '.join(args)} (in {cwd}): {message}")
    return proc.stdout


def _in_repo(path: Path, top: Path) -> str:
    try:
        return path.resolve().relative_to(top).as_posix()
    except ValueError:
        raise SpecError(f"{path} is not inside the git repository {top}") from None


def committed_spec(spec_dir: Path, manifest_path: Path, ref: str, dest: Path) -> tuple[Path, Path]:
    """Extract `spec_dir` (without `releases/`) and the manifest as committed at `ref` into `dest`.

    Returns (the extracted spec folder, the extracted manifest).
    """
    if not spec_dir.is_dir():
        raise SpecError(f"{spec_dir} does not exist")
    top = Path(_git(spec_dir, "rev-parse", "--show-toplevel").decode().strip()).resolve()
    spec_rel, manifest_rel = _in_repo(spec_dir, top), _in_repo(manifest_path, top)
    archive = _git(top, "archive", "--format=tar", ref, "--", spec_rel, f":(exclude){spec_rel}/releases")
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(dest / "tree", filter="data")
    manifest = dest / "manifest.json"
    manifest.write_bytes(_git(top, "show", f"{ref}:{manifest_rel}"))
    return dest / "tree" / spec_rel, manifest


@dataclass
class RestoreResult:
    manifest: Manifest  # the committed pin, now in spec/
    previous: Manifest | None  # what spec/ held before
    ref: str
    class_count: int
    generated_changed: list[str]
    out_dir: Path

    def summary_lines(self) -> list[str]:
        pin = f"{self.manifest.release} ({self.manifest.core_id}, {len(self.manifest.files)} files)"
        if self.previous is not None and self.previous.checksum == self.manifest.checksum:
            head = f"spec/ already holds the snapshot committed at {self.ref}: {pin}"
        else:
            was = self.previous.release if self.previous is not None else "nothing pinned"
            head = f"restored the snapshot committed at {self.ref}: {pin}; spec/ held {was}"
        gen = "unchanged" if not self.generated_changed else "changed: " + ", ".join(self.generated_changed)
        return [head, f"{self.out_dir.name}/{PACKAGE}: {self.class_count} classes ({gen})"]


def restore(*, manifest_path: Path, spec_dir: Path, out_dir: Path, ref: str = "HEAD") -> RestoreResult:
    previous = load_manifest(manifest_path) if manifest_path.exists() else None
    with tempfile.TemporaryDirectory(prefix="olsdk-spec-") as tmp_name:
        committed, committed_manifest = committed_spec(spec_dir, manifest_path, ref, Path(tmp_name))
        manifest = load_manifest(committed_manifest)
        verify_spec(manifest, committed)
        package = render_package(stage(committed, manifest), manifest)

        # Everything that can fail has run: write.
        copy_snapshot(committed, spec_dir)
        for name in REPORTS:
            if (committed / name).is_file():
                shutil.copyfile(committed / name, spec_dir / name)
        shutil.copyfile(committed_manifest, manifest_path)
        verify_spec(manifest, spec_dir)
        changed = write_package(package, out_dir)
    return RestoreResult(manifest, previous, ref, package.class_count, changed, out_dir)
