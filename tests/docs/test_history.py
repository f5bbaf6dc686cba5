"""User-facing text speaks to users: the README, the documentation pages and everything
under src/ (docstrings, comments, strings, the page's assets) carry no development
history. Issue and pull request numbers, work-period numbers (session, sprint, round)
and commit hashes belong in CHANGELOG.md and the commit messages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.docs.snippets import ROOT

PATTERNS = {
    "an issue number": re.compile(r"\bissues? ?#?\d+|\bissue-\d+", re.I),
    "a work-period number": re.compile(r"\b(?:sessions?|work[- ]periods?|sprints?|rounds?|iterations?) +#?\d+\b", re.I),
    "a pull request number": re.compile(r"\b(?:PR|pull request) *#\d+", re.I),
    # 7 to 40 hexadecimal digits, letters and digits both, not part of a longer word, a
    # UUID or a name such as main-8f02abfb7a25 or a wheel's label spec.main.8f02abfb7a25 (a
    # snapshot's name, which is data)
    "a commit hash": re.compile(r"(?<![\w.-])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?![\w-])"),
}
# The spec's own words, quoted where the API reference lists a class's description.
SPEC_WORDING = ("It is required to issue 1 START event",)
# Written by codegen from the spec snapshot (upstream text and examples), never by hand.
GENERATED = ROOT / "src" / "olsdk" / "_models" / "_generated"
SOURCE_SUFFIXES = {".py", ".js", ".css", ".html", ".md", ".txt", ".java", ".sql", ".json", ".toml", ".yml"}


def user_facing_files() -> list[Path]:
    docs = sorted((ROOT / "docs").rglob("*.md"))
    src = [
        path
        for path in sorted((ROOT / "src").rglob("*"))
        if path.is_file() and path.suffix in SOURCE_SUFFIXES and not path.is_relative_to(GENERATED)
    ]
    return [ROOT / "README.md", *docs, *src]


def history_in(text: str) -> list[tuple[int, str, str]]:
    """(line number, what, the words found) for every mention of development history."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for quoted in SPEC_WORDING:
            line = line.replace(quoted, "")
        for what, pattern in PATTERNS.items():
            found += [(number, what, match.group(0)) for match in pattern.finditer(line)]
    return found


def test_the_search_finds_each_kind_and_spares_data() -> None:
    text = (
        "measured in session 22\nas issue 15 asked\nsee issue #7 and PR #12\nsince 617f128\n"
        "runId 0190d3a4-7b5c-7a3e-9f00-1234567890ab\nsnapshot main-8f02abfb7a25\nsha256 " + "ab12" * 16 + "\n"
        "It is required to issue 1 START event\ntwo rounds of 7 samples\n"
    )
    assert [(line, what) for line, what, _ in history_in(text)] == [
        (1, "a work-period number"),
        (2, "an issue number"),
        (3, "an issue number"),
        (3, "a pull request number"),
        (4, "a commit hash"),
    ]


@pytest.mark.parametrize("path", user_facing_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_development_history_in_user_facing_text(path: Path) -> None:
    found = history_in(path.read_text(encoding="utf-8", errors="replace"))
    where = path.relative_to(ROOT).as_posix()
    assert not found, "\n".join(f"{where}:{line}: {what}: {words!r}" for line, what, words in found)
