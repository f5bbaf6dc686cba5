"""What `olsdk serve` draws equals what `olsdk graph` draws from the same events.

The server keeps derived tables (runs, edges, fields, column lineage) and builds the
graph from them with the database's counts (a job's latest runs, runs by state); the
page data it serves must be the one `olsdk graph` lays out from the events themselves.
"""

from __future__ import annotations

from typing import Any

import pytest

from olsdk._integrations._graph._model import RUN_HISTORY, build_graph
from olsdk._integrations._graph._page import page_data
from olsdk._integrations._graph._read import ReadItem
from tests.graph.events import parent_events, pipeline_events
from tests.serve.harness import ServeProcess, dumps, run_event


def many_runs() -> list[dict[str, Any]]:
    """One job with more runs than the page keeps, some failed, in shuffled time order; each
    run's end arrives before its start, so runs move back in the order as their starts arrive."""
    ends, starts = [], []
    for i in range(RUN_HISTORY + 7):
        minute = (i * 7) % 60
        run_id = f"0190d3a4-7b5c-7a3e-9f00-{i:012d}"
        final = "FAIL" if i % 5 == 0 else "COMPLETE"
        ends.append(run_event("busy", run_id, final, time=f"2024-07-02T10:{minute:02d}:30Z"))
        hour = 9 if i % 3 == 0 else 10  # a third of the runs started an hour before they ended
        starts.append(run_event("busy", run_id, "START", time=f"2024-07-02T{hour:02d}:{minute:02d}:00Z"))
    return ends + starts


def comparable(data: dict[str, Any]) -> dict[str, Any]:
    summary = {
        k: v for k, v in data["summary"].items() if k in ("events", "notes", "runsByState", "producers", "facetKeys")
    }
    nodes = [{k: v for k, v in node.items() if k != "pb"} for node in data["nodes"]]
    return {
        "nodes": nodes,
        "edges": data["edges"],
        "parents": data["parents"],
        "size": data["size"],
        "summary": summary,
    }


@pytest.mark.slow
def test_the_served_graph_is_the_graph_of_the_events(served: ServeProcess) -> None:
    events = pipeline_events() + parent_events() + many_runs()
    for start in range(0, len(events), 10):
        status, answer = served.post("/api/v1/lineage/batch", dumps(events[start : start + 10]))
        assert status == 200 and answer["summary"]["failed"] == 0, answer
        served.get("/api/olsdk/graph")  # the server folds the runs changed since the last graph
    served_data = served.get("/api/olsdk/graph")
    expected = page_data(build_graph(ReadItem(f"e:{i}", e) for i, e in enumerate(events)))
    assert comparable(served_data) == comparable(expected)
    busy = next(n for n in served_data["nodes"] if n["n"] == "busy")
    assert busy["rt"] == RUN_HISTORY + 7 and len(busy["runs"]) == RUN_HISTORY
