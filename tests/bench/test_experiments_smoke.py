"""Smoke test of `python -m bench.experiments`: it runs on today's tree (no timing assertions)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_experiments_build_their_model_variants() -> None:
    """`python -m bench.experiments` (docs/explanation/benchmarks.md): its variants patch the runtime of the
    revision they were written against, read from git, so the command runs on today's tree."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.experiments", "features", "--rounds", "1", "--sample-ms", "5"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    baseline = [line for line in done.stdout.splitlines() if line.startswith("| baseline |")]
    assert baseline and all("1.00 (+0%)" in line for line in baseline), done.stdout
