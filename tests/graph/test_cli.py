"""`olsdk graph` and `olsdk inspect` on the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from olsdk._integrations._cli import main
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
        [sys.executable, "-m", "olsdk._integrations._cli", "graph", "-", "-o", str(out)],
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


def test_inspect_says_1_event_and_keeps_its_columns_under_long_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.graph.events import run_event, write_ndjson

    long_name = "marts." + "very_long_segment_" * 8 + "revenue"
    events = [
        run_event("COMPLETE", ("etl", "a"), "01900000-0000-7000-8000-000000000001", "2024-03-01T10:00:00Z"),
        run_event(
            "FAIL", ("etl", long_name), "01900000-0000-7000-8000-000000000002", "2024-03-01T10:00:00Z", error="x"
        ),
    ]
    assert main(["inspect", str(write_ndjson(tmp_path / "one.ndjson", events[:1]))]) == 0
    one = capsys.readouterr().out
    assert one.startswith("1 event read from ") and "1 events" not in one
    assert main(["inspect", str(write_ndjson(tmp_path / "two.ndjson", events))]) == 0
    text = capsys.readouterr().out
    jobs = text.split("\nJobs:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert jobs[0].split() == ["latest", "run", "runs", "job"]
    columns = {line.index(" etl/") for line in jobs[1:]}
    assert len(columns) == 1, jobs  # the name comes last: the state and count columns stay put
    assert [line.split()[:2] for line in jobs[1:]] == [["COMPLETE", "1"], ["FAIL", "1"]]
    failed = text.split("Failed runs (latest first):\n", 1)[1].splitlines()[0]
    assert failed.endswith(f"etl/{long_name}") and failed.split()[3] == "run"


def test_graph_says_1_job(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.graph.events import run_event, write_ndjson

    one = write_ndjson(tmp_path / "one.ndjson", [run_event("START", ("etl", "a"), _RUN, "2024-03-01T10:00:00Z")])
    assert main(["graph", str(one), "-o", str(tmp_path / "one.html")]) == 0
    assert "(1 job, 0 datasets, 0 edges from 1 event; 0 not readable)" in capsys.readouterr().out


_RUN = "01900000-0000-7000-8000-000000000001"


def on_a_terminal(args: list[str], cwd: Path) -> tuple[int, str, bytes]:
    """`olsdk ARGS` with stderr on a pseudo-terminal: exit status, stdout, what the terminal showed."""
    import os
    import pty

    primary, replica = pty.openpty()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "olsdk", *args], cwd=cwd, stdout=subprocess.PIPE, stderr=replica, text=True
        )
        os.close(replica)
        out, _ = proc.communicate(timeout=300)
        shown = b""
        while True:
            try:
                chunk = os.read(primary, 65536)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(primary)
    return proc.returncode, out, shown


@pytest.fixture(scope="module")
def big_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.graph.events import large_log, write_ndjson

    events = large_log(2000)
    return write_ndjson(tmp_path_factory.mktemp("big") / "big.ndjson", events * max(1, 40_000 // len(events)))


@pytest.mark.parametrize("command", ["graph", "inspect"])
@pytest.mark.slow
def test_progress_on_a_terminal_and_nowhere_else(command: str, big_log: Path, tmp_path: Path) -> None:
    args = [command, str(big_log)] + (["-o", str(tmp_path / "big.html")] if command == "graph" else [])
    code, out, shown = on_a_terminal(args, tmp_path)
    assert code == 0, shown.decode(errors="replace")
    assert b"events  " in shown and b"/s" in shown and b"%" in shown  # [####  ]  41.0%  16,384 events  9,000/s
    if command == "graph":
        assert b"laying out " in shown and b"nodes and writing" in shown
    assert shown.endswith(b"\r")  # the line is cleared at the end: what stays is the command's output
    piped = subprocess.run(
        [sys.executable, "-m", "olsdk", *args], cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False
    )
    assert piped.returncode == 0 and piped.stderr == ""  # not a terminal: not a byte of progress
    assert piped.stdout.split("\n", 1)[0].split("(", 1)[-1] == out.split("\n", 1)[0].split("(", 1)[-1]
