"""Smoke test of `python -m bench.serve`: at small sizes, every row of its table is there and
holds a positive number, on SQLite (and on PostgreSQL where its binaries are installed).

No timing assertions: the figures are the benchmark's. The page rows (headless chromium)
are left out; the run is bounded by a timeout.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

from tests.serve.postgres import postgres_bin

ROOT = Path(__file__).resolve().parents[2]

ROWS = {
    "ingest single (events/s)",
    "ingest 8 producers (events/s)",
    "ingest batch of 100 (events/s)",
    "server CPU per event, single (ms)",
    "server CPU per event, 8 producers (ms)",
    "server CPU per event, batch of 100 (ms)",
    "store 2,000 events by batch (s)",
}


def _table(stdout: str) -> dict[str, list[str]]:
    """The printed table: each row's cells by its name (the header row under "row")."""
    rows = [line.split("|")[1:-1] for line in stdout.splitlines() if line.startswith("| ")]
    return {cells[0].strip(): [cell.strip() for cell in cells[1:]] for cells in rows}


def _bench(*options: str) -> dict[str, list[str]]:
    done = subprocess.run(
        [
            sys.executable, "-m", "bench.serve", "--events", "200", "--stored", "2000", "--repeats", "2",
            "--rounds", "1", "--no-page", *options,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return _table(done.stdout)


def test_every_row_runs_and_is_a_positive_number() -> None:
    stores = ["sqlite"] + (["postgresql"] if postgres_bin() is not None else [])
    table = _bench("--stores", ",".join(stores))
    assert table.pop("row") == stores
    lineage = {name for name in table if name.startswith("lineage query, depth ")}
    assert set(table) >= ROWS and set(table) - ROWS == lineage
    assert {name.split(",")[0] for name in lineage} == {"lineage query"} and len(lineage) == 2
    for name in lineage:  # depth 5 and 20 over 2,000 events (each job once: the query's job is the 1,051st)
        depth, nodes = name.removeprefix("lineage query, depth ").split(", ")[:2]
        assert depth in ("5", "20") and int(nodes.split()[0]) > 0, name
    for name, cells in table.items():
        assert len(cells) == len(stores), name
        for cell in cells:
            value = float(cell.replace(",", ""))
            assert math.isfinite(value) and value > 0, (name, cell)


def test_a_baseline_gets_a_column_of_its_own_with_every_row() -> None:
    table = _bench("--stores", "sqlite", "--baseline", str(ROOT / "src"))  # this olsdk, measured twice
    assert table.pop("row") == ["sqlite", "sqlite, baseline"]
    assert set(table) >= ROWS
    for name, cells in table.items():
        assert len(cells) == 2, name
        for cell in cells:
            value = float(cell.replace(",", ""))
            assert math.isfinite(value) and value > 0, (name, cell)
