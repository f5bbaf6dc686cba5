"""A copy of the olsdk package whose models come from another spec snapshot.

The generated models live inside the package (`olsdk._models._generated`), so testing the
hand-written layer against models of another snapshot needs a copy of the package:
`sdk_copy(dest)` copies `src/olsdk` without its models to `dest/olsdk`; generating
with `--out dest/olsdk` fills them in, and `dest` goes first on `PYTHONPATH`.

`python -m tests.support.overlay --snapshot DIR --dest DIR` does all of it (this is
what `make test-spec-<release>` runs): `DEST/spec` gets the snapshot and its manifest,
`DEST/src/olsdk` the package with models generated from it; the repository's `src/`
and `spec/` are never written. It prints the folder to put first on `PYTHONPATH`.

Tests that check what only some releases have ask the imported models, as the layer does
(`olsdk._models._release`), through `release_has`, `needs` (a skip naming the release and what it
lacks) and `parent_root_in_models`; each answer is cross-checked against the record of
every release (`spec/releases/history.json`), so a run meant for one snapshot cannot
silently test another.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "olsdk"


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


def release_has(name: str) -> bool:
    """Whether the imported models have `name`: a class (`TagsJobFacet`) or a field (`ParentRunFacet.root`).

    Asked of the models' metadata (`olsdk._models._release`), and cross-checked against the record
    of every release when the models come from a recorded one.
    """
    from olsdk._models import _release
    from tests.support.spec_history import History

    cls, _, field = name.partition(".")
    has = _release.has_field(cls, field) if field else _release.has_class(cls)
    history = History.load()
    if _release.RELEASE in history.releases:
        recorded = (
            history.has_field(_release.RELEASE, cls, field) if field else history.has_class(_release.RELEASE, cls)
        )
        if has != recorded:
            raise AssertionError(f"spec {_release.RELEASE}: the models have {name}={has}, the record says {recorded}")
    return has


def needs(*names: str) -> pytest.MarkDecorator:
    """Skip the test where the imported models lack one of `names`, saying which and on which release."""
    from olsdk._models import _release

    missing = [name for name in names if not release_has(name)]
    reason = f"spec {_release.RELEASE} has no {', '.join(missing)}" if missing else ""
    return pytest.mark.skipif(bool(missing), reason=reason)


def parent_root_in_models() -> bool:
    """Whether the imported models' ParentRunFacet has `root` (spec 1.31.0 on)."""
    return release_has("ParentRunFacet.root")


def forget_release_warnings(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh warn-once memory of `olsdk._models._release` for one test (its warnings come again)."""
    from olsdk._models import _release

    monkeypatch.setattr(_release, "_warned", set())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.support.overlay", description=__doc__)
    parser.add_argument("--snapshot", type=Path, required=True, help="spec snapshot folder")
    parser.add_argument("--dest", type=Path, required=True, help="folder for spec/ and src/ of the copy")
    args = parser.parse_args(argv)
    build(args.snapshot.resolve(), args.dest.resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
