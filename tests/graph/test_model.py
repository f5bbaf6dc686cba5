"""The graph of a set of events: run states, latest runs, fields, column lineage, counts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from olsdk._integrations._graph._facts import canonical_time
from olsdk._integrations._graph._model import RUN_HISTORY, LineageGraph, build_graph
from olsdk._integrations._graph._read import ReadItem, read_events
from tests.graph.events import BAD_LINES, at, column_lineage, dataset, run_event, schema
from tests.graph.pinned import pinned_outputs, read_case

JOB = ("etl", "load")


def graph_of(events: list[dict[str, Any]]) -> LineageGraph:
    return build_graph(ReadItem(f"test:{i}", e) for i, e in enumerate(events))


def only_job(graph: LineageGraph) -> Any:
    assert len(graph.jobs) == 1
    return graph.jobs[0]


@pytest.mark.parametrize(
    ("types", "state"),
    [
        (["START", "COMPLETE"], "COMPLETE"),
        (["COMPLETE", "START"], "COMPLETE"),  # a late START does not reopen the run
        (["START"], "RUNNING"),
        (["START", "RUNNING"], "RUNNING"),
        (["START", "FAIL"], "FAIL"),
        (["START", "ABORT"], "ABORT"),
        (["OTHER"], "OTHER"),
        (["START", "OTHER"], "RUNNING"),
    ],
)
def test_run_state(types: list[str], state: str) -> None:
    events = [run_event(t, JOB, "r1", at(i)) for i, t in enumerate(types)]
    job = only_job(graph_of(events))
    assert (job.state, job.runs[0].state, job.runs[0].events) == (state, state, len(types))


def test_the_latest_terminal_event_wins_and_fail_wins_a_tie() -> None:
    late_complete = [run_event("FAIL", JOB, "r1", at(1)), run_event("COMPLETE", JOB, "r1", at(2))]
    assert only_job(graph_of(late_complete)).state == "COMPLETE"
    same_instant = [run_event("COMPLETE", JOB, "r1", at(1)), run_event("FAIL", JOB, "r1", at(1))]
    assert only_job(graph_of(same_instant)).state == "FAIL"


def test_latest_run_by_start_time_not_file_order_and_history_is_capped() -> None:
    events = []
    for n in range(RUN_HISTORY + 5):
        state = "FAIL" if n == RUN_HISTORY + 4 else "COMPLETE"
        events.append(run_event("START", JOB, f"run-{n:03d}", at(n * 10)))
        events.append(run_event(state, JOB, f"run-{n:03d}", at(n * 10 + 1), error="boom" if state == "FAIL" else None))
    events.reverse()
    job = only_job(graph_of(events))
    assert job.runs_total == RUN_HISTORY + 5
    assert len(job.runs) == RUN_HISTORY
    assert job.state == "FAIL"
    assert [r.run_id for r in job.runs[:2]] == [f"run-{RUN_HISTORY + 4:03d}", f"run-{RUN_HISTORY + 3:03d}"]
    assert job.state_counts == {"COMPLETE": RUN_HISTORY + 4, "FAIL": 1}
    assert job.runs[0].error == "boom"
    assert job.runs[0].start == canonical_time(at((RUN_HISTORY + 4) * 10))


def test_failed_runs_keep_their_error_message() -> None:
    events = [
        run_event("START", JOB, "r1", at(0)),
        run_event("FAIL", JOB, "r1", at(1), error='Table not found: <x> & "y"'),
    ]
    graph = graph_of(events)
    assert graph.runs_by_state == {"FAIL": 1}
    ns, name, run = graph.failed_runs[0]
    assert (ns, name, run.run_id, run.error) == (*JOB, "r1", 'Table not found: <x> & "y"')


def test_edges_datasets_and_fields() -> None:
    inputs = [dataset("s3://b", "in", schema=schema(("a", "int"), ("b", "string")))]
    outputs = [dataset("pg://db", "out", schema=schema(("a", "int")))]
    graph = graph_of([run_event("COMPLETE", JOB, "r1", at(0), inputs, outputs)])
    assert [(e.direction, e.dataset_name) for e in graph.edges] == [("input", "in"), ("output", "out")]
    fields = {(d.namespace, d.name): d.fields for d in graph.datasets}
    assert fields == {("pg://db", "out"): [("a", "int")], ("s3://b", "in"): [("a", "int"), ("b", "string")]}


def test_fields_come_from_the_latest_schema_and_nested_fields_are_flattened() -> None:
    nested = schema(("id", "int"))
    nested["fields"].append({"name": "address", "type": "struct", "fields": [{"name": "city", "type": "string"}]})
    events = [
        run_event("COMPLETE", JOB, "r2", at(5), outputs=[dataset("n", "t", schema=nested)]),
        run_event("COMPLETE", JOB, "r1", at(1), outputs=[dataset("n", "t", schema=schema(("old", "int")))]),
    ]
    (table,) = graph_of(events).datasets
    assert table.fields == [("id", "int"), ("address", "struct"), ("address.city", "string")]


def test_column_lineage_is_the_union_over_events() -> None:
    first = column_lineage({"total": [("n", "orders", "amount")]}, whole=[("n", "orders", "status")])
    second = column_lineage({"total": [("n", "orders", "tax")], "id": [("n", "orders", "id")]})
    events = [
        run_event("COMPLETE", JOB, "r1", at(0), outputs=[dataset("n", "report", columnLineage=first)]),
        run_event("COMPLETE", JOB, "r2", at(1), outputs=[dataset("n", "report", columnLineage=second)]),
    ]
    report = next(d for d in graph_of(events).datasets if d.name == "report")
    rows = {(c.field, c.upstream_name, c.upstream_field, c.transformation) for c in report.columns}
    assert rows == {
        ("total", "orders", "amount", "DIRECT/IDENTITY"),
        ("total", "orders", "tax", "DIRECT/IDENTITY"),
        ("id", "orders", "id", "DIRECT/IDENTITY"),
        (None, "orders", "status", "INDIRECT/FILTER"),
    }


def test_parts_without_identity_are_left_out_and_counted() -> None:
    event = run_event("COMPLETE", JOB, "r1", at(0), inputs=[{"namespace": "n"}, dataset("n", "ok")])
    event["eventTime"] = "yesterday"
    graph = graph_of([event])
    assert [e.dataset_name for e in graph.edges] == ["ok"]
    assert graph.notes == {
        "inputs: a dataset without namespace or name": 1,
        "eventTime: missing or not an ISO 8601 date-time": 1,
    }
    assert graph.jobs[0].runs[0].start == ""


def test_job_and_dataset_events_add_nodes_without_runs() -> None:
    events: list[dict[str, Any]] = [
        {"job": {"namespace": "ml", "name": "train"}, "inputs": [dataset("s3://f", "features")], "outputs": []},
        {"dataset": dataset("kafka://k", "topic", schema=schema(("k", "string")))},
    ]
    graph = graph_of(events)
    assert [(j.name, j.state, j.runs_total) for j in graph.jobs] == [("train", None, 0)]
    assert sorted(d.name for d in graph.datasets) == ["features", "topic"]
    assert graph.events == {"job": 1, "dataset": 1}


def test_producers_facet_keys_and_unreadable_counts(pipeline_log: Path) -> None:
    graph = build_graph(read_events([str(pipeline_log)]))
    assert graph.unreadable_total == len(BAD_LINES)
    assert len(graph.unreadable_samples) == len(BAD_LINES)
    assert graph.producers["https://example.com/catalog"] == 1
    assert graph.facet_keys["run:errorMessage"] == 1
    assert graph.facet_keys["dataset:columnLineage"] >= 1
    assert graph.runs_by_state == {"ABORT": 1, "COMPLETE": 5, "FAIL": 1, "RUNNING": 1}
    states = {j.name: j.state for j in graph.jobs}
    assert states["marts.revenue_by_country"] == "FAIL"
    assert states["dashboards.refresh"] == "RUNNING"
    assert states["export.revenue_csv"] == "ABORT"
    assert states["features.customer_embeddings"] is None


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("2024-03-01T10:00:00Z", "2024-03-01T10:00:00.000000Z"),
        ("2024-03-01T12:00:00+02:00", "2024-03-01T10:00:00.000000Z"),
        ("2024-03-01T10:00:00.123456789+00:00", "2024-03-01T10:00:00.123456Z"),
        ("2024-03-01T10:00:00", "2024-03-01T10:00:00.000000Z"),  # naive: UTC
        ("0099-01-01T00:00:00Z", "0099-01-01T00:00:00.000000Z"),
        ("yesterday", ""),
        (None, ""),
    ],
)
def test_canonical_time(text: str | None, canonical: str) -> None:
    assert canonical_time(text) == canonical


def test_the_graph_of_a_fixed_log_is_pinned() -> None:
    """Every job, run, dataset, edge and count of `tests/graph/cases/graph.json` (see `pinned`)."""
    assert json.loads(json.dumps(pinned_outputs()["graph"])) == read_case("graph")


def test_parent_runs_link_their_jobs_to_the_child_jobs() -> None:
    from olsdk._integrations._graph._model import ParentLink
    from tests.graph.events import demo_events, parent_events

    demo = graph_of(demo_events())
    children = {link.child_name for link in demo.parents}
    assert {(link.parent_namespace, link.parent_name) for link in demo.parents} == {("olsdk-demo", "olsdk_demo")}
    assert len(children) == 3 and all(name.startswith("olsdk_demo.execute_") for name in children)
    application_run = next(j for j in demo.jobs if j.name == "olsdk_demo").runs[0].run_id
    for job in demo.jobs:
        if job.name in children:
            assert [r.parent for r in job.runs] == [("olsdk-demo", "olsdk_demo", application_run)]

    graph = graph_of(parent_events())
    assert graph.parents == [
        ParentLink("airflow", "dag", "airflow", "dag.task_a"),
        ParentLink("airflow", "dag", "airflow", "dag.task_b"),  # task_b's self-parent makes no link
    ]
    task_a = next(j for j in graph.jobs if j.name == "dag.task_a")
    assert {r.run_id: r.parent for r in task_a.runs} == {
        "task-a-1": ("airflow", "dag", "dag-run-1"),
        "task-a-2": ("airflow", "dag", "dag-run-2"),  # the parent of its latest event that has one
    }
    assert graph.notes == {"parent facet: names the run itself": 1}
    data = graph.to_dict()
    assert data["parents"][0] == {
        "parent": {"namespace": "airflow", "name": "dag"},
        "child": {"namespace": "airflow", "name": "dag.task_a"},
    }


def test_a_parent_named_only_by_its_children_is_a_job_and_a_bad_parent_facet_is_noted() -> None:
    child = run_event("COMPLETE", JOB, "r1", at(1))
    child["run"]["facets"] = {"parent": {"job": {"namespace": "sched", "name": "nightly"}, "run": {"runId": "p1"}}}
    broken = run_event("COMPLETE", JOB, "r2", at(2))
    broken["run"]["facets"] = {"parent": {"job": {"namespace": "sched"}, "run": {"runId": "p2"}}}
    graph = graph_of([child, broken])
    assert [(j.namespace, j.name, j.state) for j in graph.jobs] == [
        ("etl", "load", "COMPLETE"),
        ("sched", "nightly", None),
    ]
    assert graph.notes == {"parent facet: job.namespace, job.name or run.runId missing": 1}
    assert {r.run_id: r.parent for r in graph.jobs[0].runs} == {"r1": ("sched", "nightly", "p1"), "r2": None}
