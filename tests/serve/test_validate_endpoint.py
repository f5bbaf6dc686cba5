"""``POST /api/v1/lineage/validate``: an event's problems, as ``olsdk validate --format json
--lenient`` reports them, and nothing stored. A real server and the real CLI, on the same bytes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.serve.harness import ServeProcess, dumps, run_event
from tests.support.processes import child_env

RUN = "0190d3a4-7b5c-7a3e-9f00-0000000000c3"


def cli_record(tmp_path: Path, body: bytes) -> dict[str, Any]:
    """What ``olsdk validate --format json --lenient`` says of `body` (read as one NDJSON line)."""
    code = "import sys; from olsdk._integrations._cli import main; sys.exit(main(sys.argv[1:]))"
    done = subprocess.run(
        [sys.executable, "-c", code, "validate", "--format", "json", "--lenient", "-"],
        input=body + b"\n",
        capture_output=True,
        env=child_env(tmp_path),
        timeout=120,
        check=False,
    )
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    summary = lines[-1]["summary"]
    record = lines[0] if len(lines) > 1 else {"problems": [], "producer": None, "readable_leniently": True}
    return {"valid": summary["invalid"] == 0, **record}


def bad_event() -> dict[str, Any]:
    event = run_event("checked", RUN)
    event["run"]["runId"] = "not-a-uuid"
    event["eventTime"] = "2024-02-30T10:00:00Z"
    event["job"]["facets"] = {"sql": {"_producer": "https://user:s3cret@example.com/x", "query": 5}}
    return event


@pytest.mark.parametrize(
    "body",
    [
        dumps(run_event("fine", RUN)),
        dumps(bad_event()),
        dumps({"eventType": "START", "job": {"namespace": "a"}}),  # not even readable leniently
        b'{"eventTime": 1e-400, "run": {"runId": 1E+308}}',  # numbers judged as written
        b'{"a": nope}',  # not JSON
    ],
    ids=["valid", "problems", "unreadable", "numbers", "not-json"],
)
def test_the_answer_is_what_olsdk_validate_says(sqlite_served: ServeProcess, tmp_path: Path, body: bytes) -> None:
    status, answer = sqlite_served.post("/api/v1/lineage/validate", body)
    assert status == 200
    expected = cli_record(tmp_path, body)
    assert answer["valid"] == expected["valid"]
    assert answer["problems"] == expected["problems"]
    assert answer["readable_leniently"] == expected["readable_leniently"]
    if expected["producer"] is not None:
        assert answer["producer"] == expected["producer"]
    assert "s3cret" not in json.dumps(answer)
    # nothing is stored, and nothing counted as refused
    status_now = sqlite_served.status()
    assert status_now["events"]["stored"] == 0 and status_now["refused"] == {}


def test_validate_holds_to_the_write_limits(sqlite_served: ServeProcess) -> None:
    status, answer = sqlite_served.post(
        "/api/v1/lineage/validate", dumps(run_event("x", RUN)), {"Content-Type": "text/plain"}
    )
    assert status == 415 and "application/json" in answer["message"]
    assert sqlite_served.post("/api/v1/lineage/validate", b"{}", {"Content-Encoding": "br"})[0] == 415
