"""The "Define and publish a custom facet" snippet runs as written.

The snippet lives in docs/how-to/custom-facets.md; the README carries the same section (under
"Custom facets") once pasted there. Every copy found is run, in a fresh interpreter and an
empty directory.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT

HEADINGS = ("Define and publish a custom facet", "Custom facets")


def snippet(markdown: str) -> str | None:
    """The first python block of the section titled by one of HEADINGS, if any."""
    for heading in HEADINGS:
        level: int | None = None
        fence: list[str] | None = None
        for line in markdown.splitlines():
            if fence is not None:
                if line.startswith("```"):
                    return "\n".join(fence) + "\n"
                fence.append(line)
            elif level is None:
                match = re.fullmatch(r"(#+) (.*?)\s*", line)
                if match and match.group(2) == heading:
                    level = len(match.group(1))
            elif re.match(rf"#{{1,{level}}} ", line):
                break  # the section ended without a python block
            elif line.startswith("```python"):
                fence = []
    return None


def sources() -> list[Path]:
    found = [
        p
        for p in (ROOT / "README.md", ROOT / "docs" / "how-to" / "custom-facets.md")
        if p.exists() and snippet(p.read_text(encoding="utf-8"))
    ]
    return found


@pytest.mark.parametrize("source", sources(), ids=lambda p: p.name)
def test_custom_facet_snippet_runs_as_written(source: Path, tmp_path: Path) -> None:
    code = snippet(source.read_text(encoding="utf-8"))
    assert code is not None
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (
        "https://schemas.example.com/olfacets/1-0-0/MyCompanyStatisticsRunFacet.json#/$defs/MyCompanyStatisticsRunFacet"
    )
    assert (tmp_path / "schemas" / "facets" / "MyCompanyStatisticsRunFacet.json").is_file()
    assert (tmp_path / "schemas" / "registry.json").is_file()


def test_readme_and_doc_agree_when_both_have_the_snippet() -> None:
    texts = [snippet(p.read_text(encoding="utf-8")) for p in sources()]
    assert "docs" in str(sources()[-1])
    assert len(set(texts)) == 1, "README.md's custom facet snippet differs from docs/how-to/custom-facets.md"
