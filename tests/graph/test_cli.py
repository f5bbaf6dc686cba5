"""`olsdk graph` and `olsdk inspect` on the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from olsdk._cli import main
from tests.graph.events import BAD_LINES, pipeline_events
from tests.graph.pages import embedded_data


def test_graph_writes_the_page_and_says_what_is_in_it(
    pipeline_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "site" / "lineage.html"
    assert main(["graph", str(pipeline_log), "-o", str(out), "--title", "Warehouse"]) == 0
    printed = capsys.readouterr()
    assert str(out) in printed.out and "7 jobs, 8 datasets, 14 edges" in printed.out
    assert f"{len(BAD_LINES)} events not readable" in printed.err
    data = embedded_data(out.read_text(encoding="utf-8"))
    assert data["title"] == "Warehouse"
    assert data["sources"] == [str(pipeline_log)]
    assert sum(data["summary"]["unreadable"].values()) == len(BAD_LINES)


def test_graph_reads_stdin_and_folders(pipeline_log: Path, tmp_path: Path) -> None:
    out = tmp_path / "from-stdin.html"
    done = subprocess.run(
        [sys.executable, "-m", "olsdk._cli", "graph", "-", "-o", str(out)],
        input=pipeline_log.read_bytes(),
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    from_stdin = embedded_data(out.read_text(encoding="utf-8"))
    folder_out = tmp_path / "from-folder.html"
    assert main(["graph", str(pipeline_log.parent), "-o", str(folder_out)]) == 0
    from_folder = embedded_data(folder_out.read_text(encoding="utf-8"))
    assert from_stdin["nodes"] == from_folder["nodes"] and from_stdin["edges"] == from_folder["edges"]
    assert from_stdin["title"] == "Lineage from stdin"


def test_a_missing_source_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["graph", str(tmp_path / "missing"), "-o", str(tmp_path / "x.html")]) == 2
    assert "missing: no such file or folder" in capsys.readouterr().err
    assert not (tmp_path / "x.html").exists()
    assert main(["inspect", str(tmp_path / "missing")]) == 2


def test_inspect_text(pipeline_log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", str(pipeline_log)]) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"{len(pipeline_events())} events read from {pipeline_log}, {len(BAD_LINES)} not readable")
    assert "runs:      8 (COMPLETE 5 · ABORT 1 · FAIL 1 · RUNNING 1)" in text
    assert "etl/marts.revenue_by_country" in text and "FAIL" in text
    assert 'division by zero in "revenue" <column> & friends' in text
    assert "s3://lake/raw/orders.json -> etl/ingest.orders" in text
    assert "etl/ingest.orders -> postgres://warehouse:5432/analytics.staging.orders" in text
    assert "https://example.com/feature-store" in text
    assert "dataset:columnLineage" in text and "run:errorMessage" in text
    assert f"{pipeline_log}:{len(pipeline_events()) + 1}: not JSON" in text


def test_inspect_limit(pipeline_log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", str(pipeline_log), "--limit", "2"]) == 0
    assert "… and 5 more (--limit)" in capsys.readouterr().out  # 7 jobs


def test_inspect_json(pipeline_log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", str(pipeline_log), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["summary"] == {
        "events": len(pipeline_events()),
        "events_by_kind": {"dataset": 1, "job": 1, "run": len(pipeline_events()) - 2},
        "unreadable": len(BAD_LINES),
        "jobs": 7,
        "datasets": 8,
        "runs": 8,
        "edges": 14,
    }
    failed = data["failed_runs"]
    assert [(f["job"]["name"], f["error"]) for f in failed] == [
        ("marts.revenue_by_country", 'division by zero in "revenue" <column> & friends')
    ]
    assert data["runs_by_state"] == {"ABORT": 1, "COMPLETE": 5, "FAIL": 1, "RUNNING": 1}
    assert len(data["unreadable_samples"]) == len(BAD_LINES)
