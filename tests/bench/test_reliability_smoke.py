"""Smoke test of `python -m bench.reliability`: a few fault rows run and count nothing lost.

No timing assertions (speed rows are not run here).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_fault_rows_run_and_lose_nothing(tmp_path: Path) -> None:
    out = tmp_path / "table.md"
    rows = ["torn-spool", "torn-ndjson", "batch-413"]
    done = subprocess.run(
        [sys.executable, "-m", "bench.reliability", "--rows", "faults", "--only", *rows, "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    table = [line.split("|")[1:-1] for line in out.read_text().splitlines()[2:]]
    assert len(table) == 3
    for name, tried, delivered, duplicates, _spooled, lost, _note in table:
        assert int(tried) > 0 and int(lost) == 0 and int(duplicates) == 0, name
        assert int(delivered) == int(tried), name
