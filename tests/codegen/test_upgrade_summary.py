"""What `python -m codegen upgrade` prints: every kind of change counted, every change listed,
the terms (breaking, additive, MODEL-REVISION-ADDITION, up/down) explained in plain words."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from codegen.diff import KIND_WORDS, SpecDiff, diff_folders
from tests.support.spec_snapshots import NEW, OLD, ROOT, needs_snapshots

pytestmark = needs_snapshots

DOWN = ROOT / "spec" / "releases" / "1.40.0"  # the pinned snapshot -> an older release


@pytest.fixture(scope="module", params=["up", "down"])
def diff(request: pytest.FixtureRequest) -> SpecDiff:
    if request.param == "up":
        return diff_folders(OLD, NEW)
    if not (DOWN / "OpenLineage.json").exists():
        pytest.skip("spec/releases/1.40.0 is missing")
    return diff_folders(NEW, DOWN)


def test_every_kind_of_change_is_counted_in_plain_words(diff: SpecDiff) -> None:
    text = "\n".join(diff.summary_lines())
    by_kind = Counter(c.kind for c in diff.changes)
    assert set(by_kind) <= set(KIND_WORDS)
    for kind, count in by_kind.items():
        breaking = sum(c.impact == "breaking" for c in diff.changes if c.kind == kind)
        parts = ([f"{breaking} breaking"] if breaking else []) + (
            [f"{count - breaking} additive"] if breaking < count else []
        )
        assert f"  {KIND_WORDS[kind]}: {count} ({', '.join(parts)})" in text.splitlines(), kind
    n_breaking = len(diff.breaking)
    assert f"changes: {len(diff.changes)} ({n_breaking} breaking, {len(diff.changes) - n_breaking} additive)" in text


def test_every_change_is_listed_under_its_impact_not_only_the_breaking_ones(diff: SpecDiff) -> None:
    lines = diff.summary_lines()
    assert diff.additive and diff.breaking  # both directions have both
    heads = {line.split(" (", 1)[0]: i for i, line in enumerate(lines) if not line.startswith(" ")}
    breaking_at, additive_at = heads["breaking"], heads["additive"]
    assert lines[breaking_at] == "breaking (code or data that worked with the old models can fail with the new ones):"
    assert lines[additive_at] == "additive (everything that worked with the old models still works):"
    listed_breaking = lines[breaking_at + 1 : additive_at]
    listed_additive = [line for line in lines[additive_at + 1 :] if line.startswith("  ")]
    assert [f"  {c.where}: {c.detail}" for c in diff.breaking] == listed_breaking
    assert [f"  {c.where}: {c.detail}" for c in diff.additive] == listed_additive[: len(diff.additive)]


def test_the_version_terms_are_explained(diff: SpecDiff) -> None:
    text = "\n".join(diff.summary_lines())
    parts = set(re.findall(r"\((MODEL|REVISION|ADDITION) (up|down)\)", text))
    assert parts, "both snapshots differ by facet versions"
    assert "MODEL-REVISION-ADDITION" in text
    assert "REVISION when some of it may not fit" in text and "ADDITION when all of it still fits" in text
    assert "up / down: the new snapshot has the newer / the older version" in text
    assert "'REVISION down' means the middle number went down" in text
