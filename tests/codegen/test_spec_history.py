"""`python -m tests.support.spec_history`: the sweep over release tags and the docs table.

The sweep runs on a small git repository made here whose tags hold two committed releases
(1.0.0 and 1.20.0) as their `spec/` folders, plus the files an upstream `spec/` has that
the generator does not read; the commands are the ones docs/explanation/spec-versions.md shows.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.spec_history import DOCS, History, degradations, release_key

ROOT = Path(__file__).resolve().parents[2]
RELEASES = ROOT / "spec" / "releases"


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        timeout=60,
    )


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = tmp_path_factory.mktemp("OpenLineage")
    git(repo, "init", "-q")
    for release in ("1.0.0", "1.20.0"):
        shutil.rmtree(repo / "spec", ignore_errors=True)
        shutil.copytree(RELEASES / release, repo / "spec")
        (repo / "spec" / "tests" / "ParentRunFacet").mkdir(parents=True)
        (repo / "spec" / "tests" / "ParentRunFacet" / "1.json").write_text('{"run": {}}')
        (repo / "spec" / "OpenLineageModel.svg").write_text("<svg/>")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", release)
        git(repo, "tag", release)
    git(repo, "tag", "0.9.0-rc1")  # not a release tag
    return repo


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tests.support.spec_history", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


@pytest.mark.slow
def test_the_sweep_generates_and_exercises_every_release_tag(repo: Path, tmp_path: Path) -> None:
    done = run("--repo", str(repo), "--exercise", "--work", str(tmp_path / "work"))
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| 1.")]
    assert [row.split(" | ")[0] for row in rows] == ["| 1.0.0", "| 1.20.0"]
    for row in rows:
        assert "| yes, " in row and "| ok; events client 4, facets 2;" in row, row
    assert "2 of 2 releases generate; 0 broke when exercised" in done.stdout
    # what the generator read: the snapshot files, not the upstream tests/ or the diagram
    extracted = tmp_path / "work" / "1.0.0" / "spec"
    assert not (extracted / "tests").exists() and not (extracted / "OpenLineageModel.svg").exists()
    assert sorted(p.relative_to(extracted) for p in extracted.rglob("*")) == sorted(
        p.relative_to(RELEASES / "1.0.0") for p in (RELEASES / "1.0.0").rglob("*")
    )


def test_a_release_that_cannot_be_generated_is_reported(repo: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    subprocess.run(["git", "clone", "-q", str(repo), str(broken)], check=True, capture_output=True, timeout=60)
    facet = broken / "spec" / "facets" / "ParentRunFacet.json"
    doc = json.loads(facet.read_text())
    doc["definitions"] = doc.pop("$defs")
    facet.write_text(json.dumps(doc))
    git(broken, "commit", "-q", "-am", "draft-07")
    git(broken, "tag", "1.21.0")
    done = run("--repo", str(broken), "--tags", "1.21.0", "--work", str(tmp_path / "work"))
    assert done.returncode == 1
    assert "| 1.21.0 | no: facets/ParentRunFacet.json keeps its definitions under 'definitions'" in done.stdout
    assert "0 of 1 releases generate" in done.stdout


@pytest.mark.slow
def test_the_docs_command_rewrites_a_stale_table(tmp_path: Path) -> None:
    copy = tmp_path / "spec-versions.md"
    copy.write_text(DOCS.read_text(encoding="utf-8"), encoding="utf-8")
    assert run("--docs", str(copy)).stdout.strip() == f"{copy}: unchanged"
    text = copy.read_text(encoding="utf-8")
    copy.write_text(text.replace("| nothing |", "| something |"), encoding="utf-8")
    assert run("--docs", str(copy)).stdout.strip() == f"{copy}: rewritten"
    assert copy.read_text(encoding="utf-8") == text


def test_the_record_round_trips_and_answers_by_release() -> None:
    found = {
        "1.0.0": {"A": ("x",), "B": ()},
        "1.1.0": {"A": ("x", "y"), "B": ()},
        "1.2.0": {"A": ("x",)},
        "1.10.0": {"A": ("x", "y"), "B": ()},
    }
    history = History.from_releases(found)
    assert history.releases == ["1.0.0", "1.1.0", "1.2.0", "1.10.0"]  # version order, not text order
    assert history.classes["B"]["in"] == [["1.0.0", "1.1.0"], ["1.10.0", "1.10.0"]]
    assert history.classes["A"]["fields"] == {"x": True, "y": [["1.1.0", "1.1.0"], ["1.10.0", "1.10.0"]]}
    assert {r: history.classes_of(r) for r in history.releases} == found
    assert history.in_every_release() == {"A"}
    assert release_key("1.10.0") > release_key("1.9.1")


def test_degradation_rows_group_consecutive_releases() -> None:
    from tests.support.release_guards import Guard

    history = History.from_releases(
        {"1.0.0": {"P": ("run",)}, "1.1.0": {"P": ("run",)}, "1.2.0": {"P": ("root", "run"), "T": ()}}
    )
    guards = [Guard("P.root", "the root", "m.py", 1, "spec_field"), Guard("T", "tags", "m.py", 2, "spec_class")]
    assert degradations(history, guards, {"pinned": {"P": ("root", "run"), "T": ()}}) == [
        (["1.0.0", "1.1.0"], ["P.root", "T"]),
        (["1.2.0", "pinned"], []),
    ]
