"""Smoke test of the benchmark harness: `python -m bench --quick` runs and has every row.

No timing assertions: numbers from a quick run on a shared machine mean nothing.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytest.importorskip("openlineage.client")
pytest.importorskip("orjson")
pytest.importorskip("jsonschema_rs")

EXPECTED = {
    # (benchmark, workload prefix, contender)
    ("parse + validate bytes", "full", "olsdk.parse_event"),
    ("parse + validate bytes", "full", "orjson.loads"),
    ("parse + validate bytes", "full", "json.loads"),
    ("parse + validate bytes", "minimal", "olsdk.parse_event"),
    ("parse + validate bytes", "minimal", "orjson.loads"),
    ("parse + validate bytes", "minimal", "json.loads"),
    ("validate bytes, no objects built", "full", "olsdk.validate_event"),
    ("validate bytes, no objects built", "full", "orjson.loads"),
    ("validate bytes, no objects built", "minimal", "olsdk.validate_event"),
    ("validate bytes, no objects built", "minimal", "orjson.loads"),
    ("parse + read every facet", "full", "olsdk.parse_event + typed reads"),
    ("parse + read every facet", "full", "orjson.loads + reads"),
    ("parse + read every facet", "minimal", "olsdk.parse_event + typed reads"),
    ("parse + read every facet", "minimal", "orjson.loads + reads"),
    *(
        row
        for size in ("1 field", "10 fields", "100 fields", "1,000 fields")
        for row in (
            ("parse, growing schema", size, "olsdk.parse_event"),
            ("parse, growing schema", size, "orjson.loads"),
            ("emit, growing schema", size, "olsdk"),
            ("emit, growing schema", size, "official client"),
        )
    ),
    *(
        ("parse, garbage collector", workload, collector)
        for workload in ("10,000 fields", "full")
        for collector in ("collector on", "after gc.freeze()", "collector off")
    ),
    ("serialise typed event", "full", "olsdk.to_json (parsed)"),
    ("serialise typed event", "full", "olsdk.to_json (built)"),
    ("serialise typed event", "full", "official Serde.to_json"),
    ("serialise typed event", "minimal", "olsdk.to_json (parsed)"),
    ("serialise typed event", "minimal", "olsdk.to_json (built)"),
    ("serialise typed event", "minimal", "official Serde.to_json"),
    ("construct + serialise (emit)", "full", "olsdk"),
    ("construct + serialise (emit)", "full", "official client"),
    ("construct + serialise (emit)", "minimal", "olsdk"),
    ("construct + serialise (emit)", "minimal", "official client"),
    ("JSON-Schema validation, full", "full", "jsonschema"),
    ("JSON-Schema validation, full", "full", "jsonschema_rs"),
    ("JSON-Schema validation, full", "minimal", "jsonschema"),
    ("JSON-Schema validation, full", "minimal", "jsonschema_rs"),
    ("HTTP delivery", "minimal", "olsdk http, single event"),
    ("HTTP delivery", "minimal", "olsdk http, batch mode"),
    ("HTTP delivery", "minimal", "official HttpTransport"),
    ("streaming validation RSS", "", "olsdk.parse_event per line"),
    *(("import, fresh process", "CPU time", c) for c in ("import pydantic", "import olsdk", "import olsdk.models")),
    *(("first event, fresh process", "CPU time", c) for c in ("olsdk", "official client", "pydantic, one model")),
}


def _rows(markdown: str) -> list[list[str]]:
    """The results table's rows, with blank (repeated) first cells filled in."""
    section = markdown.split("## Results", 1)[1].split("\n## ", 1)[0]
    rows: list[list[str]] = []
    for line in section.splitlines():
        if not line.startswith("| ") or line.startswith("| Benchmark"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if rows and not cells[0]:
            cells[0], cells[1] = rows[-1][0], rows[-1][1]
        rows.append(cells)
    return rows


def test_quick_run_has_every_row(tmp_path: Path) -> None:
    out = tmp_path / "benchmarks.md"
    proc = subprocess.run(
        [sys.executable, "-m", "bench", "--quick", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    markdown = out.read_text()
    for heading in ("# Benchmarks", "| CPU |", "| pydantic-core |", "| openlineage-python |"):
        assert heading in markdown
    rows = _rows(markdown)
    found = {(r[0], r[1], r[2]) for r in rows}
    for benchmark, workload, contender in EXPECTED:
        assert any(b.startswith(benchmark) and w.startswith(workload) and c == contender for b, w, c in found), (
            f"missing row {benchmark} / {workload} / {contender}"
        )
    for row in rows:
        assert len(row) == 9, row
        assert row[3] not in ("", "nan"), row
    # the new groups' ratios are real numbers, and the growth rows come one group per size
    for row in rows:
        if row[0].startswith(("validate bytes", "parse + read", "parse, growing", "emit, growing", "parse, garbage")):
            ratio = float(row[6].split("x", 1)[0])
            assert ratio > 0 and math.isfinite(ratio), row
    assert [r[1] for r in rows if r[0] == "emit, growing schema" and r[2] == "olsdk"] == [
        "1 field",
        "10 fields",
        "100 fields",
        "1,000 fields",
    ]
    collector_groups = {r[1] for r in rows if r[0] == "parse, garbage collector"}
    assert len(collector_groups) == 3, collector_groups
    assert any("the bench process as it is" in w for w in collector_groups)
    assert sum("holding 500 parsed full events" in w for w in collector_groups) == 2
    # both readers read the same facets and names (the run stops if they do not)
    assert "- parse + read every facet, full: each reader reads 10 facets and 40 schema field names." in markdown
    assert "- parse + read every facet, minimal: each reader reads 0 facets and 0 schema field names." in markdown
    # every target of the issues has a verdict: issue 15's six, issue 7's HTTP and memory
    # rows, issue 24's two start-up rows (with the wall times of the same processes noted)
    verdicts = {(r[0], r[1]): r[8] for r in rows if r[7]}
    assert len(verdicts) == 10, verdicts
    assert ("validate bytes, no objects built", "full") in verdicts
    assert {("import, fresh process", "CPU time"), ("first event, fresh process", "CPU time")} <= set(verdicts)
    assert "- first event, fresh process, CPU time: wall time, median (range): olsdk " in markdown
    assert all(v in ("met", "MISSED", "PENDING") for v in verdicts.values())
    # the printed table too
    assert "olsdk.parse_event" in proc.stdout and "official HttpTransport" in proc.stdout
