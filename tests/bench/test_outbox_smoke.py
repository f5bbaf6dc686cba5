"""Smoke test of `python -m bench.outbox`: every row runs and says what it measured.

No timing assertions (the figures are the benchmark's, read from its table)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_latency_and_cost_rows_run(tmp_path: Path) -> None:
    out = tmp_path / "table.md"
    done = subprocess.run(
        [sys.executable, "-m", "bench.outbox", "--quick", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr
    rows = [line.split("|")[1:-1] for line in out.read_text().splitlines() if line.startswith("| ")]
    latency = [r for r in rows if r[0].strip() in ("refused", "black hole")]
    assert len(latency) == 8
    for row in latency:  # every olsdk row timed all its events: none blocked past the budget
        if "olsdk" in row[1]:
            assert int(row[2]) == 20, row
    cost = {r[0].strip(): r for r in rows if r[0].strip().startswith(("olsdk,", "official client,"))}
    assert len(cost) == 6 and all(r[1].strip() != "-" for r in cost.values())
