"""Marquez's web UI against `olsdk serve`, without the UI: the calls it made.

tests/serve/marquez_ui_calls.json holds every call Marquez's web UI (built from its
source) made while each of its views was used against `olsdk serve` holding the events
of `tests.serve.marquez_ui_events`: the dashboard (both timeframes, the jobs drawer, the
run state filter), the namespace selector, the jobs list, a job's page with its runs and
facets, the lineage graph, a dataset's page with its schema and versions, the datasets
list, column lineage, the search box and the events page with a date range. Each call is
made again here on SQLite and on PostgreSQL: each answers 200, in the shape Marquez's
spec gives (or the UI reads, where the spec has none), and holds what the UI reads
without checking (the things that made its views throw).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from tests.serve.harness import ServeProcess, dumps
from tests.serve.marquez_ui_events import CUSTOMERS_MODEL, SNOWFLAKE, ui_events
from tests.serve.test_marquez_catalog import check_shape

RECORDED = json.loads((Path(__file__).parent / "marquez_ui_calls.json").read_text())
CALLS: list[dict[str, Any]] = RECORDED["calls"]
FAILED_TEST = "jaffle_shop.test.jaffle_shop.unique_customers_customer_id"


def _jobs_in(answer: Any, schema: str) -> list[dict[str, Any]]:
    if schema == "JobList":
        return list(answer["jobs"])
    if schema == "Job":
        return [answer]
    if schema == "LineageGraph":
        return [node["data"] for node in answer["graph"] if node["type"] == "JOB"]
    return []


def check_what_the_ui_reads(call: dict[str, Any], answer: Any) -> None:
    """What the UI's views read without a guard (each made a view throw when missing)."""
    for job in _jobs_in(answer, call["schema"]):
        # the dashboard reduces latestRuns without an initial value: null or runs, never []
        assert job["latestRuns"] is None or len(job["latestRuns"]) > 0, (call["path"], job["name"])
    if call["schema"] == "LineageEventList":
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(call["path"]).query)
        after, before = (datetime.fromisoformat(query[key][0].replace("Z", "+00:00")) for key in ("after", "before"))
        for event in answer["events"]:
            assert isinstance(event["run"]["runId"], str)  # the events page lists each event's run
            assert after <= datetime.fromisoformat(event["eventTime"].replace("Z", "+00:00")) < before


def check_what_the_views_show(path: str, answer: Any) -> None:
    """A few things the views showed in the session, found again."""
    if path.startswith("/api/v1/jobs?") and "lastRunStates=FAILED" in path:
        names = {job["name"] for job in answer["jobs"]}
        assert FAILED_TEST in names and CUSTOMERS_MODEL not in names
    if path.startswith(f"/api/v1/namespaces/{urllib.parse.quote(SNOWFLAKE, safe='')}/datasets?"):
        customers = next(d for d in answer["datasets"] if d["name"] == "analytics.jaffle_shop.customers")
        assert [c["name"] for c in customers["columnLineage"]] == ["customer_id", "first_name", "full_name"]
    if path.startswith("/api/v1/column-lineage?"):
        assert {node["data"]["dataset"] for node in answer["graph"]} == {
            "analytics.jaffle_shop.customers",
            "analytics.jaffle_shop.stg_customers",
        }
    if "/datasets/analytics.jaffle_shop.customers/versions?" in path:
        fields = [[f["name"] for f in version["fields"]] for version in answer["versions"]]
        assert fields[0] == ["customer_id", "first_name", "full_name"] and len(fields) == 3
    if path.endswith("/datasets/analytics.jaffle_shop.customers"):  # the dataset's page, its tags and field tags
        assert answer["tags"] == ["tier"]
        assert {f["name"]: f["tags"] for f in answer["fields"]}["first_name"] == ["pii"]
    if path == f"/api/v1/namespaces/dbt/jobs/{CUSTOMERS_MODEL}":
        assert answer["tags"] == ["team"] and answer["parentJobName"] == "dbt-run-jaffle_shop"
    if path.startswith("/api/v1/search?"):
        assert {r["name"] for r in answer["results"]} >= {"analytics.jaffle_shop.customers", CUSTOMERS_MODEL}


def _get(server: ServeProcess, path: str) -> tuple[int, Any]:
    """A GET of `path` exactly as the browser sent it (its percent-encoding kept)."""
    try:
        with urllib.request.urlopen(server.url + path, timeout=60) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, exc.read()[:300]


def test_the_recorded_calls_cover_every_view() -> None:
    views = {view for call in CALLS for view in call["views"]}
    assert {
        "dashboard", "dashboard week", "dashboard failed filter", "namespace selector", "jobs list", "job page",
        "job runs", "run facets", "lineage graph", "dataset page", "dataset versions", "datasets list",
        "column lineage", "search", "events", "events range",
    } <= views  # fmt: skip
    assert len({(c["method"], c["path"]) for c in CALLS}) == len(CALLS)


@pytest.mark.parametrize("db", ["sqlite", "postgresql"], indirect=True)
def test_the_web_uis_calls(served: ServeProcess) -> None:
    for event in ui_events(datetime.fromisoformat(RECORDED["eventsNow"].replace("Z", "+00:00"))):
        status, answer = served.post("/api/v1/lineage", dumps(event))
        assert status == 200 and answer["valid"], answer
    failures = []
    for call in CALLS:
        assert call["method"] == "GET"
        status, answer = _get(served, call["path"])
        if status != 200:
            failures.append((status, call["path"], answer))
            continue
        check_shape(answer, call["schema"], RECORDED["schemas"])
        check_what_the_ui_reads(call, answer)
        check_what_the_views_show(call["path"], answer)
    assert failures == []
