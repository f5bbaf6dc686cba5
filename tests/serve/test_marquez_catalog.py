"""Marquez's read calls beyond namespaces, jobs, datasets and lineage, checked against the
shapes of Marquez's OpenAPI spec (tests/serve/marquez_openapi.json: the schemas these
calls answer with, copied from its spec/openapi.yml, Apache-2.0) and against what was
posted: every namespace's jobs, sources, tags, a run's facets, search, the events page's
dates, and the dashboard's statistics (shaped as Marquez's IntervalMetric and
LineageMetric). On SQLite and on PostgreSQL.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.serve.harness import PRODUCER, ServeProcess, dumps, run_event
from tests.serve.test_marquez import EXTRACT_RUN, PG, RAW, TRANSFORM_RUN, post_pipeline

SPEC = json.loads((Path(__file__).parent / "marquez_openapi.json").read_text())["schemas"]
TAGS_URL = "https://openlineage.io/spec/facets/1-0-0/TagsJobFacet.json#/$defs/TagsJobFacet"


def _as_json_schema(node: Any) -> Any:
    """An OpenAPI 3.0 schema as JSON Schema: refs to $defs, and null allowed where Marquez sends it."""
    if isinstance(node, list):
        return [_as_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key == "$ref":
            out[key] = value.replace("#/components/schemas/", "#/$defs/")
        elif key == "type" and value is None:
            continue
        elif key == "properties":
            out[key] = {name: {"anyOf": [_as_json_schema(s), {"type": "null"}]} for name, s in value.items()}
        else:
            out[key] = _as_json_schema(value)
    return out


def check_shape(answer: Any, schema: str, extra: dict[str, Any] | None = None) -> None:
    """`answer` against Marquez's schema `schema` (and `extra` schemas, in the spec's form)."""
    defs = _as_json_schema({**SPEC, **(extra or {})})
    # The spec gives FacetsResult.facets as one facet; Marquez (and its web UI) send facets by
    # key, each a facet of that schema.
    defs["FacetsResult"]["properties"]["facets"] = {"additionalProperties": {"$ref": "#/$defs/CustomFacet"}}
    # ... and DatasetVersion.tags as a string; Marquez sends a list of tag names, as for a Dataset.
    defs["DatasetVersion"]["properties"]["tags"] = defs["Dataset"]["properties"]["tags"]
    jsonschema.validate(answer, {"$ref": f"#/$defs/{schema}", "$defs": defs})


def get(server: ServeProcess, path: str, **params: Any) -> Any:
    return server.get(path + ("?" + urllib.parse.urlencode(params) if params else ""))


def status_of(server: ServeProcess, path: str) -> int:
    try:
        server.get(path)
    except urllib.error.HTTPError as exc:
        return exc.code
    return 200


def post_tags_and_now(server: ServeProcess) -> str:
    """A job with a tags facet, run now (for the statistics); the time it was given."""
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.000000Z")
    event = run_event("tagged", "0190d3a4-7b5c-7a3e-9f00-0000000000e9", "COMPLETE", time=now)
    tags = [{"key": "pii", "value": "true", "source": "CONFIG"}, {"key": "tier", "value": "1", "source": "CONFIG"}]
    event["job"]["facets"] = {"tags": {"_producer": PRODUCER, "_schemaURL": TAGS_URL, "tags": tags}}
    assert server.post("/api/v1/lineage", dumps(event))[0] == 200
    return now


def test_jobs_sources_tags_facets_and_search(served: ServeProcess) -> None:
    post_pipeline(served)
    post_tags_and_now(served)

    jobs = get(served, "/api/v1/jobs", limit=3, offset=0)
    check_shape(jobs, "JobList")
    assert jobs["totalCount"] == 5 and [j["name"] for j in jobs["jobs"]] == ["tagged", "unrelated", "report"]

    found = get(served, "/api/v1/sources")
    check_shape(found, "SourceList")
    assert [s["name"] for s in found["sources"]] == sorted([PG, RAW, "other"])
    one = get(served, "/api/v1/sources/" + urllib.parse.quote(PG, safe=""))
    check_shape(one, "Source")
    assert (one["name"], one["type"], one["connectionUrl"]) == (PG, "POSTGRES", PG)
    assert status_of(served, "/api/v1/sources/nowhere") == 404

    tags = get(served, "/api/v1/tags")
    check_shape(tags, "TagList")
    assert [t["name"] for t in tags["tags"]] == ["pii", "tier"]

    facets = get(served, f"/api/v1/jobs/runs/{TRANSFORM_RUN}/facets", type="run")
    check_shape(facets, "FacetsResult")
    assert facets["runId"] == TRANSFORM_RUN and facets["facets"]["errorMessage"]["message"] == "division by zero"
    job_facets = get(served, "/api/v1/jobs/runs/0190d3a4-7b5c-7a3e-9f00-0000000000e9/facets", type="job")
    assert [t["key"] for t in job_facets["facets"]["tags"]["tags"]] == ["pii", "tier"]
    assert status_of(served, f"/api/v1/jobs/runs/{EXTRACT_RUN}/facets?type=other") == 400

    results = get(served, "/api/v1/search", q="REV", sort="NAME", limit=10)
    check_shape(results, "SearchResultList")
    assert [(r["type"], r["nodeId"]) for r in results["results"]] == [("DATASET", f"dataset:{PG}:analytics.revenue")]
    assert [r["name"] for r in get(served, "/api/v1/search", q="t", filter="JOB", limit=10)["results"]] == [
        "extract", "report", "tagged", "transform", "unrelated"
    ]  # fmt: skip
    assert get(served, "/api/v1/search", q="100%_")["results"] == []  # LIKE's wildcards are plain characters


def test_the_events_page_keeps_to_its_dates(served: ServeProcess) -> None:
    post_pipeline(served)  # five events on 2024-07-01 from 10:00 to 11:00, one at 12:00
    within = get(served, "/api/v1/events/lineage", after="2024-07-01T10:02:00Z", before="2024-07-01T11:00:00Z")
    check_shape(within, "LineageEventList")
    assert within["totalCount"] == 3
    assert [e["eventTime"] for e in within["events"]] == [
        "2024-07-01T10:04:00Z",
        "2024-07-01T10:03:00Z",
        "2024-07-01T10:02:30Z",
    ]
    assert get(served, "/api/v1/events/lineage", before="2024-07-01T10:00:00+00:00")["totalCount"] == 0
    assert status_of(served, "/api/v1/events/lineage?after=yesterday") == 400


def test_the_dashboards_statistics(served: ServeProcess) -> None:
    post_pipeline(served)
    now = post_tags_and_now(served)
    day = get(served, "/api/v1/stats/lineage-events", period="DAY", timezone="UTC")
    assert len(day) == 24
    assert all(set(row) == {"startInterval", "endInterval", "fail", "start", "complete", "abort"} for row in day)
    assert day[-1]["startInterval"] <= now < day[-1]["endInterval"]
    assert (day[-1]["complete"], sum(r["start"] + r["fail"] + r["abort"] for r in day)) == (1, 0)
    week = get(served, "/api/v1/stats/lineage-events", period="WEEK", timezone="Europe/Paris")
    assert len(week) == 7 and week[-1]["complete"] == 1
    assert status_of(served, "/api/v1/stats/lineage-events?period=WEEK") == 400
    assert status_of(served, "/api/v1/stats/lineage-events?period=YEAR&timezone=UTC") == 400
    for what, total in (("jobs", 5), ("datasets", 4), ("sources", 3)):
        counts = get(served, f"/api/v1/stats/{what}", period="DAY", timezone="UTC")
        assert len(counts) == 24 and all(set(row) == {"startInterval", "endInterval", "count"} for row in counts)
        assert counts[-1]["count"] == total, what
        assert get(served, f"/api/v1/stats/{what}", period="WEEK", timezone="UTC")[-1]["count"] == total


@pytest.mark.parametrize("path", ["/api/v1/jobs?limit=10001", "/api/v1/sources?limit=-1", "/api/v1/search?q="])
def test_bad_parameters_are_400(sqlite_served: ServeProcess, path: str) -> None:
    assert status_of(sqlite_served, path) == 400


def test_parents_last_writes_and_column_lineage_are_filled(served: ServeProcess) -> None:
    post_pipeline(served)  # extract completes writing shop.orders at 10:02:30
    child = run_event(
        "child", "0190d3a4-7b5c-7a3e-9f00-0000000000ea", "COMPLETE",
        time="2024-07-01T12:00:00Z", inputs=[(PG, "shop.orders")], outputs=[(PG, "totals")],
    )  # fmt: skip
    parent_url = "https://openlineage.io/spec/facets/1-1-0/ParentRunFacet.json#/$defs/ParentRunFacet"
    child["run"]["facets"] = {
        "parent": {
            "_producer": PRODUCER,
            "_schemaURL": parent_url,
            "run": {"runId": "0190d3a4-7b5c-7a3e-9f00-0000000000eb"},
            "job": {"namespace": "etl", "name": "orchestrator"},
        }
    }
    lineage_url = (
        "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet"
    )
    amount = {
        "namespace": PG,
        "name": "shop.orders",
        "field": "amount",
        "transformations": [{"type": "DIRECT", "subtype": "AGGREGATION"}],
    }
    child["outputs"][0]["facets"] = {
        "columnLineage": {
            "_producer": PRODUCER,
            "_schemaURL": lineage_url,
            "fields": {"total": {"inputFields": [amount]}},
        }
    }
    status, answer = served.post("/api/v1/lineage", dumps(child))
    assert status == 200, answer

    assert get(served, "/api/v1/namespaces/etl/jobs/child")["parentJobName"] == "orchestrator"
    assert get(served, "/api/v1/namespaces/etl/jobs/extract")["parentJobName"] is None
    orders = get(served, "/api/v1/namespaces/" + urllib.parse.quote(PG, safe="") + "/datasets/shop.orders")
    check_shape(orders, "Dataset")
    assert orders["lastModifiedAt"] == "2024-07-01T10:02:30.000000Z"
    assert orders["columnLineage"] is None
    listed = get(served, "/api/v1/namespaces/" + urllib.parse.quote(PG, safe="") + "/datasets")
    check_shape(listed, "DatasetList")
    totals = next(d for d in listed["datasets"] if d["name"] == "totals")
    assert totals["lastModifiedAt"] == "2024-07-01T12:00:00.000000Z"
    assert [c["name"] for c in totals["columnLineage"]] == ["total"]
    (source,) = totals["columnLineage"][0]["inputFields"]
    assert (source["namespace"], source["dataset"], source["field"]) == (PG, "shop.orders", "amount")
    assert source["transformationType"]

    total, amount_id = f"datasetField:{PG}:totals:total", f"datasetField:{PG}:shop.orders:amount"
    graph = get(served, "/api/v1/column-lineage", nodeId=f"dataset:{PG}:totals", depth=5)["graph"]
    assert [node["id"] for node in graph] == [amount_id, total]
    by_id = {node["id"]: node for node in graph}
    assert by_id[total]["type"] == "DATASET_FIELD"
    assert [(f["dataset"], f["field"]) for f in by_id[total]["data"]["inputFields"]] == [("shop.orders", "amount")]
    assert by_id[total]["inEdges"] == [{"origin": amount_id, "destination": total}]
    assert by_id[amount_id]["outEdges"] == [{"origin": amount_id, "destination": total}]
    upstream_only = get(served, "/api/v1/column-lineage", nodeId=amount_id, depth=5)["graph"]
    assert [node["id"] for node in upstream_only] == [amount_id]
    both = get(served, "/api/v1/column-lineage", nodeId=amount_id, depth=5, withDownstream="true")["graph"]
    assert [node["id"] for node in both] == [amount_id, total]
    assert status_of(served, "/api/v1/column-lineage?nodeId=job:etl:child") == 400
    assert status_of(served, "/api/v1/column-lineage?nodeId=dataset:nowhere:x") == 404


def test_dataset_and_job_versions(served: ServeProcess) -> None:
    post_pipeline(served)  # extract's run wrote shop.orders (id, amount) at 10:02:30
    again = run_event(
        "extract", "0190d3a4-7b5c-7a3e-9f00-0000000000ec", "COMPLETE", time="2024-07-02T10:00:00Z",
        inputs=[(RAW, "orders")], outputs=[(PG, "shop.orders")], fields=[("id", "INTEGER")],
    )  # fmt: skip
    assert served.post("/api/v1/lineage", dumps(again))[0] == 200
    moved = run_event(
        "extract", "0190d3a4-7b5c-7a3e-9f00-0000000000ed", "COMPLETE", time="2024-07-03T10:00:00Z",
        inputs=[(RAW, "orders"), (RAW, "refunds")],
    )  # fmt: skip
    assert served.post("/api/v1/lineage", dumps(moved))[0] == 200
    orders = "/api/v1/namespaces/" + urllib.parse.quote(PG, safe="") + "/datasets/shop.orders/versions"

    versions = get(served, orders)
    check_shape(versions, "DatasetVersionList")
    assert [[f["name"] for f in v["fields"]] for v in versions["versions"]] == [["id"], ["id", "amount"]]
    assert [v["createdByRun"]["id"] for v in versions["versions"]] == [
        "0190d3a4-7b5c-7a3e-9f00-0000000000ec",
        EXTRACT_RUN,
    ]
    newest = versions["versions"][0]
    one = get(served, f"{orders}/{newest['version']}")
    check_shape(one, "DatasetVersion")
    assert one == newest and get(served, orders) == versions  # the same ids each time
    assert status_of(served, f"{orders}/0190d3a4-7b5c-7a3e-9f00-000000000000") == 404

    jobs = get(served, "/api/v1/namespaces/etl/jobs/extract/versions")
    check_shape(jobs, "JobVersionList")
    listed = jobs["versions"]
    assert [[d["name"] for d in v["inputs"]] for v in listed] == [["orders", "refunds"], ["orders"]]
    assert [v["latestRun"]["id"] for v in listed] == [
        "0190d3a4-7b5c-7a3e-9f00-0000000000ed",
        "0190d3a4-7b5c-7a3e-9f00-0000000000ec",
    ]
    assert listed[1]["outputs"] == [{"namespace": PG, "name": "shop.orders"}]
    job_version = get(served, f"/api/v1/namespaces/etl/jobs/extract/versions/{listed[1]['version']}")
    check_shape(job_version, "JobVersion")
    assert job_version == listed[1]
    assert status_of(served, "/api/v1/namespaces/etl/jobs/nothing/versions") == 404
    # one job or dataset names its current version
    assert get(served, "/api/v1/namespaces/etl/jobs/extract")["currentVersion"] == listed[0]["version"]
    dataset_path = "/api/v1/namespaces/" + urllib.parse.quote(PG, safe="") + "/datasets/shop.orders"
    assert get(served, dataset_path)["currentVersion"] == newest["version"]
    assert get(served, "/api/v1/namespaces/etl/jobs/unrelated")["currentVersion"] is not None


def test_upstream_run_lineage(served: ServeProcess) -> None:
    post_pipeline(served)  # extract (raw orders -> shop.orders) then transform (shop.orders -> revenue, FAIL)
    answer = get(served, "/api/v1/runlineage/upstream", runId=TRANSFORM_RUN, depth=5)
    check_shape(answer, "UpstreamRunLineage")  # the spec spells its inner "properties" "propoerties": checked below
    assert all(
        set(r) == {"job", "run", "inputs"} and set(r["run"]) == {"id", "start", "end", "status"} for r in answer["runs"]
    )
    runs = answer["runs"]
    assert [(r["job"]["name"], r["run"]["id"], r["run"]["status"]) for r in runs] == [
        ("transform", TRANSFORM_RUN, "FAILED"),
        ("extract", EXTRACT_RUN, "COMPLETED"),
    ]
    (read,) = runs[0]["inputs"]
    assert (read["namespace"], read["name"], read["producedByRunId"]) == (PG, "shop.orders", EXTRACT_RUN)
    versions = get(served, "/api/v1/namespaces/" + urllib.parse.quote(PG, safe="") + "/datasets/shop.orders/versions")
    assert read["version"] == versions["versions"][0]["version"]
    assert runs[1]["inputs"] == [{"namespace": RAW, "name": "orders", "version": None, "producedByRunId": None}]
    assert len(get(served, "/api/v1/runlineage/upstream", runId=TRANSFORM_RUN, depth=0)["runs"]) == 1
    assert status_of(served, "/api/v1/runlineage/upstream?runId=0190d3a4-7b5c-7a3e-9f00-000000000000") == 404
    assert status_of(served, "/api/v1/runlineage/upstream") == 400
