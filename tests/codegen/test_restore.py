"""The way back after an upgrade: `python -m codegen restore` (`make spec-restore`).

A temporary project (a copy of spec/ without releases/, the hand-written package, models
generated from the copy) is committed in its own git repository, upgraded to 1.30.0 with
the CLI, and restored: spec/ and the models are as committed again. The repository's own
spec/ and models are never touched.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codegen.upgrade import RESTORE_HINT
from tests.codegen.test_upgrade import git
from tests.support.overlay import sdk_copy
from tests.support.spec_snapshots import NEW, OLD, needs_snapshots

ROOT = Path(__file__).resolve().parents[2]

pytestmark = needs_snapshots


def codegen(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    spec = project / "spec"
    cmd = [sys.executable, "-m", "codegen", "--manifest", str(spec / "manifest.json"), "--spec-dir", str(spec), *args]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture(scope="module")
def committed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project pinned to the repository's snapshot, committed in its own git repository."""
    project = tmp_path_factory.mktemp("project")
    shutil.copytree(NEW, project / "spec", ignore=shutil.ignore_patterns("releases"))
    sdk_copy(project / "src")
    done = codegen(project, "generate", "--out", str(project / "src" / "olsdk"))
    assert done.returncode == 0, done.stderr
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "pinned")
    return project


def models(project: Path) -> str:
    return (project / "src" / "olsdk" / "_models" / "_generated" / "_meta.py").read_text(encoding="utf-8")


def test_upgrade_from_spec_itself_names_the_way_back_and_restore_takes_it(committed: Path) -> None:
    project, out = committed, str(committed / "src" / "olsdk")
    pinned = json.loads((project / "spec" / "manifest.json").read_text())["release"]
    upgraded = codegen(project, "upgrade", "--src", str(OLD), "--out", out)
    assert upgraded.returncode == 0, upgraded.stderr
    assert 'RELEASE = "1.30.0"' in models(project)
    assert git(project, "status", "--porcelain") != ""

    # "Upgrading back" from spec/ itself changes nothing, and says how to go back.
    again = codegen(project, "upgrade", "--src", str(project / "spec"), "--out", out)
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("no changes: 1.30.0 ")
    assert RESTORE_HINT in again.stdout and "make spec-restore" in again.stdout

    back = codegen(project, "restore", "--out", out)
    assert back.returncode == 0, back.stderr
    assert back.stdout.startswith(f"restored the snapshot committed at HEAD: {pinned} (")
    assert "spec/ held 1.30.0" in back.stdout and "changed: " in back.stdout
    # spec/ (files the other release added gone, reports back) and the models as committed.
    assert git(project, "status", "--porcelain", "--untracked-files=all") == ""
    assert f'RELEASE = "{pinned}"' in models(project)

    # Restoring what is already there writes nothing.
    twice = codegen(project, "restore", "--out", out)
    assert twice.returncode == 0, twice.stderr
    assert "spec/ already holds the snapshot committed at HEAD" in twice.stdout and "(unchanged)" in twice.stdout
    assert git(project, "status", "--porcelain", "--untracked-files=all") == ""


def test_restore_outside_git_or_at_an_unknown_revision_is_a_clear_error(committed: Path, tmp_path: Path) -> None:
    unknown = codegen(committed, "restore", "--ref", "no-such-revision", "--out", str(committed / "src" / "olsdk"))
    assert unknown.returncode == 2 and unknown.stderr.startswith("error: git archive ")
    assert "no-such-revision" in unknown.stderr
    assert git(committed, "status", "--porcelain", "--untracked-files=all") == ""

    loose = tmp_path / "loose"
    shutil.copytree(NEW, loose / "spec", ignore=shutil.ignore_patterns("releases"))
    outside = codegen(loose, "restore", "--out", str(loose / "src" / "olsdk"))
    assert outside.returncode == 2 and outside.stderr.startswith("error: git rev-parse ")
    assert not (loose / "src").exists()
