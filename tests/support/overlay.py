"""A copy of the olsdk package whose models come from another spec snapshot.

The generated models live inside the package (`olsdk._generated`), so testing the
hand-written layer against models of another snapshot needs a copy of the package:
`sdk_copy(dest)` copies `src/olsdk` without its models to `dest/olsdk`; generating
with `--out dest/olsdk` fills them in, and `dest` goes first on `PYTHONPATH`.

`python -m tests.support.overlay --snapshot DIR --dest DIR` does all of it (this is
what `make test-spec-<release>` runs): `DEST/spec` gets the snapshot and its manifest,
`DEST/src/olsdk` the package with models generated from it; the repository's `src/`
and `spec/` are never written. It prints the folder to put first on `PYTHONPATH`.

Tests that check what only some spec versions have ask `parent_root_in_models()`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "olsdk"

#: The snapshot whose ParentRunFacet (1-0-1) has no `root`: the oldest one offered.
RELEASE_WITHOUT_PARENT_ROOT = "1.30.0"


def sdk_copy(dest: Path, *, with_models: bool = False) -> Path:
    """Copy the hand-written package to `dest/olsdk`; return `dest` (for PYTHONPATH)."""
    ignore = ["__pycache__"] + ([] if with_models else ["_generated"])
    shutil.copytree(SRC, dest / "olsdk", ignore=shutil.ignore_patterns(*ignore), dirs_exist_ok=True)
    return dest


def build(snapshot: Path, dest: Path) -> Path:
    """A fresh package copy in `dest/src` with models generated from `snapshot`.

    Returns `dest/src`. The copy's `olsdk` is checked to be the one a child process
    imports with that folder first on PYTHONPATH.
    """
    from codegen.upgrade import upgrade

    if not (snapshot / "OpenLineage.json").is_file():
        raise SystemExit(f"overlay: {snapshot} is not a spec snapshot (no OpenLineage.json)")
    shutil.rmtree(dest, ignore_errors=True)
    packages = sdk_copy(dest / "src")
    result = upgrade(
        str(snapshot),
        manifest_path=dest / "spec" / "manifest.json",
        spec_dir=dest / "spec",
        out_dir=packages / "olsdk",
    )
    print("\n".join(result.summary_lines()))
    release = imported_release(packages)
    print(f"overlay: models of spec {release} in {packages / 'olsdk'}")
    return packages


def imported_release(packages: Path) -> str:
    """`SPEC_RELEASE` of the models a child process imports with `packages` first on the path."""
    probe = (
        "import sys, olsdk, olsdk.models as m\n"
        "assert olsdk.__file__.startswith(sys.argv[1]), olsdk.__file__\n"
        "print(m.SPEC_RELEASE)\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(packages), os.environ.get("PYTHONPATH")])))
    proc = subprocess.run(
        [sys.executable, "-c", probe, str(packages)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"overlay: the copy in {packages} is not what Python imports:\n{proc.stderr}")
    return proc.stdout.strip()


def parent_root_in_models() -> bool:
    """Whether the imported models' ParentRunFacet has `root`.

    Read from the model, and cross-checked against the release the models name, so a
    run meant for one snapshot cannot silently test another.
    """
    from olsdk import models

    has_root = "root" in models.ParentRunFacet.model_fields
    expected = models.SPEC_RELEASE != RELEASE_WITHOUT_PARENT_ROOT
    if has_root != expected:
        raise AssertionError(f"spec {models.SPEC_RELEASE}: ParentRunFacet has root={has_root}, expected {expected}")
    return has_root


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.support.overlay", description=__doc__)
    parser.add_argument("--snapshot", type=Path, required=True, help="spec snapshot folder")
    parser.add_argument("--dest", type=Path, required=True, help="folder for spec/ and src/ of the copy")
    args = parser.parse_args(argv)
    build(args.snapshot.resolve(), args.dest.resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
