"""Marquez's own Python client (marquez-python) reads what `olsdk serve` stored.

A small pipeline is posted (namespaces with ':' and '/', as real ones have), then read
back through the client's calls and through ``GET /api/v1/lineage`` in Marquez's shapes.
"""

from __future__ import annotations

import urllib.error
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

from tests.serve.harness import PRODUCER, ServeProcess, dumps, run_event

PG = "postgres://db.example.com:5432"
RAW = "s3://raw-bucket"
EXTRACT_RUN = "0190d3a4-7b5c-7a3e-9f00-0000000000e1"
TRANSFORM_RUN = "0190d3a4-7b5c-7a3e-9f00-0000000000e2"
REPORT_RUN = "0190d3a4-7b5c-7a3e-9f00-0000000000e3"


def post_pipeline(server: ServeProcess, headers: dict[str, str] | None = None) -> None:
    """raw orders -> extract -> shop.orders -> transform (FAIL) -> analytics.revenue -> report."""
    fields = [("id", "INTEGER"), ("amount", "DECIMAL")]
    error = {
        "errorMessage": {
            "_producer": PRODUCER,
            "_schemaURL": "https://openlineage.io/spec/facets/1-0-1/ErrorMessageRunFacet.json#/$defs/ErrorMessageRunFacet",
            "message": "division by zero",
            "programmingLanguage": "python",
        }
    }
    events = [
        run_event("extract", EXTRACT_RUN, "START", time="2024-07-01T10:00:00Z", inputs=[(RAW, "orders")]),
        run_event(
            "extract",
            EXTRACT_RUN,
            "COMPLETE",
            time="2024-07-01T10:02:30Z",
            inputs=[(RAW, "orders")],
            outputs=[(PG, "shop.orders")],
            fields=fields,
        ),
        run_event("transform", TRANSFORM_RUN, "START", time="2024-07-01T10:03:00Z", inputs=[(PG, "shop.orders")]),
        {
            **run_event(
                "transform",
                TRANSFORM_RUN,
                "FAIL",
                time="2024-07-01T10:04:00Z",
                inputs=[(PG, "shop.orders")],
                outputs=[(PG, "analytics.revenue")],
            ),
            "run": {"runId": TRANSFORM_RUN, "facets": error},
        },
        run_event("report", REPORT_RUN, "COMPLETE", time="2024-07-01T11:00:00Z", inputs=[(PG, "analytics.revenue")]),
        run_event("unrelated", "0190d3a4-7b5c-7a3e-9f00-0000000000f0", "COMPLETE", inputs=[("other", "t")]),
    ]
    for event in events:
        status, answer = server.post("/api/v1/lineage", dumps(event), headers)
        assert (status, answer["valid"]) == (200, True), answer


def marquez(url: str, api_key: str | None = None) -> Any:
    from marquez_client import MarquezClient

    return MarquezClient(url=url, api_key=api_key)


def lineage(server: ServeProcess, node_id: str, depth: int) -> dict[str, Any]:
    query = urllib.parse.urlencode({"nodeId": node_id, "depth": depth})
    result: dict[str, Any] = server.get(f"/api/v1/lineage?{query}")
    return result


def test_marquez_client_reads_namespaces_jobs_runs_and_datasets(served: ServeProcess) -> None:
    post_pipeline(served)
    client = marquez(served.url)
    names = [n["name"] for n in client.list_namespaces()["namespaces"]]
    assert names == sorted(["etl", PG, RAW, "other"])
    assert client.get_namespace(PG)["name"] == PG

    jobs = client.list_jobs("etl")
    # the latest updated first, as Marquez lists them
    assert [j["name"] for j in jobs["jobs"]] == ["unrelated", "report", "transform", "extract"]
    assert jobs["totalCount"] == 4
    transform = client.get_job("etl", "transform")
    assert transform["id"] == {"namespace": "etl", "name": "transform"}
    assert transform["inputs"] == [{"namespace": PG, "name": "shop.orders"}]
    assert transform["outputs"] == [{"namespace": PG, "name": "analytics.revenue"}]
    latest = transform["latestRun"]
    assert latest["state"] == "FAILED"
    assert latest["facets"]["errorMessage"]["message"] == "division by zero"

    runs = client.list_job_runs("etl", "extract")["runs"]
    assert len(runs) == 1
    run = runs[0]
    assert (run["id"], run["state"]) == (EXTRACT_RUN, "COMPLETED")
    assert (run["startedAt"], run["endedAt"]) == ("2024-07-01T10:00:00.000000Z", "2024-07-01T10:02:30.000000Z")
    assert run["durationMs"] == 150_000
    assert client.get_job_run(TRANSFORM_RUN)["state"] == "FAILED"

    datasets = client.list_datasets(PG)
    assert [d["name"] for d in datasets["datasets"]] == ["analytics.revenue", "shop.orders"]
    orders = client.get_dataset(PG, "shop.orders")
    assert orders["id"] == {"namespace": PG, "name": "shop.orders"}
    assert [(f["name"], f["type"]) for f in orders["fields"]] == [("id", "INTEGER"), ("amount", "DECIMAL")]

    stored = client.list_events()
    assert stored["totalCount"] == 6
    assert [e["eventType"] for e in stored["events"]][:2] == ["COMPLETE", "COMPLETE"]  # latest first


def test_missing_things_are_404_for_the_client(served: ServeProcess) -> None:
    from marquez_client.errors import APIError

    post_pipeline(served)
    client = marquez(served.url)
    for call in (
        lambda: client.get_namespace("nope"),
        lambda: client.get_job("etl", "nope"),
        lambda: client.get_dataset(PG, "nope"),
        lambda: client.get_job_run("0190d3a4-7b5c-7a3e-9f00-000000000999"),
    ):
        with pytest.raises(APIError) as raised:
            call()
        assert "404" in str(raised.value.__cause__)


def test_lineage_graph_in_marquez_shape(served: ServeProcess) -> None:
    post_pipeline(served)
    graph = lineage(served, f"dataset:{PG}:shop.orders", depth=20)["graph"]
    nodes = {n["id"]: n for n in graph}
    assert set(nodes) == {
        "job:etl:extract",
        "job:etl:transform",
        "job:etl:report",
        f"dataset:{RAW}:orders",
        f"dataset:{PG}:shop.orders",
        f"dataset:{PG}:analytics.revenue",
    }
    orders = nodes[f"dataset:{PG}:shop.orders"]
    assert orders["type"] == "DATASET" and orders["data"]["name"] == "shop.orders"
    assert orders["inEdges"] == [{"origin": "job:etl:extract", "destination": f"dataset:{PG}:shop.orders"}]
    assert orders["outEdges"] == [{"origin": f"dataset:{PG}:shop.orders", "destination": "job:etl:transform"}]
    transform = nodes["job:etl:transform"]
    assert transform["type"] == "JOB" and transform["data"]["latestRun"]["state"] == "FAILED"
    assert transform["outEdges"] == [{"origin": "job:etl:transform", "destination": f"dataset:{PG}:analytics.revenue"}]

    # depth counts job-to-job hops: from extract, depth 0 is extract and its datasets only
    shallow = {n["id"] for n in lineage(served, "job:etl:extract", depth=0)["graph"]}
    assert shallow == {"job:etl:extract", f"dataset:{RAW}:orders", f"dataset:{PG}:shop.orders"}
    one_hop = {n["id"] for n in lineage(served, "job:etl:extract", depth=1)["graph"]}
    assert one_hop == shallow | {"job:etl:transform", f"dataset:{PG}:analytics.revenue"}


def test_lineage_bad_and_unknown_nodes(served: ServeProcess) -> None:
    post_pipeline(served)
    for node_id, status in (
        ("table:etl:extract", 400),
        ("job:etl", 400),
        ("job:etl:nope", 404),
        (f"dataset:{PG}:nope", 404),
    ):
        with pytest.raises(urllib.error.HTTPError) as raised:
            lineage(served, node_id, 2)
        assert raised.value.code == status, node_id
        raised.value.close()


def test_marquez_client_with_the_api_key(tmp_path: Path, sqlite_db: str) -> None:
    key = "marquez-reader-key"
    with ServeProcess(tmp_path, sqlite_db, env={"OLSDK_SERVE_API_KEY": key}) as server:
        post_pipeline(server, {"Authorization": f"Bearer {key}"})
        client = marquez(server.url, api_key=key)
        assert client.get_job("etl", "report")["latestRun"]["state"] == "COMPLETED"
    assert key not in server.output()
