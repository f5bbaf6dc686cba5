"""The lenient reader: NDJSON, JSON documents, folders, stdin; identity rules; problems."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from olsdk import ConfigError
from olsdk._integrations._graph._read import identity_problem, read_events
from tests.graph.events import BAD_LINES, pipeline_events, run_event, write_ndjson

JOB = ("ns", "job")


def test_ndjson_with_bad_lines_counts_every_line(pipeline_log: Path) -> None:
    items = list(read_events([str(pipeline_log)]))
    good = [i for i in items if i.event is not None]
    bad = [i for i in items if i.event is None]
    assert len(good) == len(pipeline_events())
    assert len(bad) == len(BAD_LINES)
    first_bad_line = len(pipeline_events()) + 1
    for offset, (item, (_, expected)) in enumerate(zip(bad, BAD_LINES, strict=True)):
        assert item.location == f"{pipeline_log}:{first_bad_line + offset}"
        assert item.problem is not None and expected in item.problem


@pytest.mark.parametrize(
    ("event", "problem"),
    [
        ({"run": {"runId": "r"}, "job": {"namespace": "n", "name": "j"}}, None),
        ({"run": {"runId": 7}, "job": {"namespace": "n", "name": "j"}}, "run.runId"),
        ({"run": None, "job": {"namespace": "n", "name": "j"}}, "run: missing"),
        ({"run": {"runId": "r"}, "job": {"namespace": "n", "name": ""}}, "job.name"),
        ({"run": {"runId": "r"}}, "job: missing"),
        ({"job": {"namespace": "n", "name": "j"}}, None),  # a job event
        ({"job": {"namespace": ["n"], "name": "j"}}, "job.namespace"),
        ({"dataset": {"namespace": "n", "name": "d"}}, None),  # a dataset event
        ({"dataset": {"namespace": "n"}}, "dataset.name"),
        ({"eventTime": "now"}, "no run, job or dataset"),
        ([1, 2], "not a JSON object"),
    ],
)
def test_identity_rules(event: object, problem: str | None) -> None:
    found = identity_problem(event)
    if problem is None:
        assert found is None
    else:
        assert found is not None and problem in found


def test_events_that_break_the_spec_in_small_ways_still_count() -> None:
    event = run_event("COMPLETE", JOB, "not-a-uuid", "2024-03-01T10:00:00")  # naive time, bad run id format
    event["inputs"] = [{"namespace": "file", "name": "/x", "facets": {"dataSource": {"uri": "file"}}}]
    event["eventType"] = "complete"
    del event["schemaURL"]
    assert identity_problem(event) is None


def test_folders_are_read_recursively_in_name_order(tmp_path: Path) -> None:
    write_ndjson(tmp_path / "b" / "two.ndjson", [run_event("START", JOB, "r2", "2024-01-01T00:00:00Z")])
    write_ndjson(tmp_path / "a.jsonl", [run_event("START", JOB, "r1", "2024-01-01T00:00:00Z")])
    (tmp_path / "c.json").write_text(json.dumps(run_event("START", JOB, "r3", "2024-01-01T00:00:00Z"), indent=2))
    (tmp_path / "notes.txt").write_text("not events")
    items = list(read_events([str(tmp_path)]))
    assert [i.event["run"]["runId"] for i in items if i.event] == ["r1", "r2", "r3"]
    assert [i.problem for i in items] == [None, None, None]


def test_a_pretty_printed_event_and_a_json_array(tmp_path: Path) -> None:
    one = tmp_path / "one.json"
    one.write_text(json.dumps(run_event("START", JOB, "r1", "2024-01-01T00:00:00Z"), indent=2))
    many = tmp_path / "many.json"
    many.write_text(json.dumps([run_event("START", JOB, f"r{i}", "2024-01-01T00:00:00Z") for i in range(3)], indent=1))
    items = list(read_events([str(one), str(many)]))
    assert [i.location for i in items] == [str(one), f"{many}[0]", f"{many}[1]", f"{many}[2]"]
    assert all(i.event is not None for i in items)


def test_a_broken_first_line_falls_back_to_lines_with_their_numbers(tmp_path: Path) -> None:
    path = write_ndjson(
        tmp_path / "log.ndjson",
        ['{"run": {"runId": "r"', "", json.dumps(run_event("START", JOB, "r2", "2024-01-01T00:00:00Z"))],
    )
    items = list(read_events([str(path)]))
    assert [(i.location, i.event is None) for i in items] == [(f"{path}:1", True), (f"{path}:3", False)]


def test_stdin_and_undecodable_bytes() -> None:
    good = json.dumps(run_event("START", JOB, "r1", "2024-01-01T00:00:00Z")).encode()
    stream = io.BytesIO(good + b"\n\xff\xfe{not text\n")
    items = list(read_events(["-"], stdin=stream))
    assert items[0].location == "<stdin>:1" and items[0].event is not None
    assert items[1].location == "<stdin>:2" and items[1].problem is not None
    assert items[1].problem.startswith("not ")


def test_a_missing_path_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"nowhere\.ndjson: no such file or folder"):
        list(read_events([str(tmp_path / "nowhere.ndjson")]))
