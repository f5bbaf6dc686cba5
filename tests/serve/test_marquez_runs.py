"""Runs' dataset versions and the order of job listings, as Marquez gives them, on SQLite and
on PostgreSQL, checked against Marquez's OpenAPI shapes (tests/serve/marquez_openapi.json).

- each run names the dataset versions it read (``inputDatasetVersions``: the version of each
  input written last by another run when it started) and wrote (``outputDatasetVersions``),
  with their input and output facets, the same version ids as the datasets' versions lists,
  wherever a run is answered (one run, a job's runs, a job's latest runs, the lineage graph);
- jobs are listed the latest updated first (Marquez's JobDao orders by ``updated_at DESC``),
  pages neither overlapping nor skipping jobs;
- the events' run index is added to stores made without it.
"""

from __future__ import annotations

import copy
import secrets
import urllib.parse
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, text

from olsdk._integrations.serve._store import database_url
from tests.serve.harness import PRODUCER, ServeProcess, dumps, run_event
from tests.serve.test_marquez import EXTRACT_RUN, PG, RAW, TRANSFORM_RUN, post_pipeline
from tests.serve.test_marquez_catalog import SPEC, check_shape, get

SECOND_EXTRACT = "0190d3a4-7b5c-7a3e-9f00-0000000000c1"
LATER_TRANSFORM = "0190d3a4-7b5c-7a3e-9f00-0000000000c2"
ORDERS = urllib.parse.quote(PG, safe="")
QUALITY_URL = (
    "https://openlineage.io/spec/facets/1-0-2/DataQualityMetricsInputDatasetFacet.json"
    "#/$defs/DataQualityMetricsInputDatasetFacet"
)
STATISTICS_URL = (
    "https://openlineage.io/spec/facets/1-0-2/OutputStatisticsOutputDatasetFacet.json"
    "#/$defs/OutputStatisticsOutputDatasetFacet"
)


def check_run(run: Any) -> None:
    """`run` against Marquez's Run; its dataset versions' facets are facets, as Marquez sends them
    (the spec says strings)."""
    facets = {"additionalProperties": {"type": "object"}, "type": "object"}
    extra = {
        name: {**SPEC[name], "properties": {**SPEC[name]["properties"], "facets": facets}}
        for name in ("InputDatasetVersion", "OutputDatasetVersion")
    }
    check_shape(run, "Run", extra)
    for entry in run["inputDatasetVersions"] + run["outputDatasetVersions"]:
        assert set(entry) == {"datasetVersionId", "facets"}
        assert set(entry["datasetVersionId"]) == {"namespace", "name", "version"}


def versions_of(server: ServeProcess, namespace: str, name: str) -> dict[str, str]:
    """The dataset's versions: their ids by the run that wrote each."""
    path = f"/api/v1/namespaces/{urllib.parse.quote(namespace, safe='')}/datasets/{name}/versions"
    return {v["createdByRun"]["id"]: v["version"] for v in get(server, path)["versions"]}


def post_more(server: ServeProcess) -> None:
    """After the pipeline: transform's read and write carry input and output facets; extract
    writes shop.orders again (another version) on 2024-07-02, and transform runs once more."""
    quality = {"_producer": PRODUCER, "_schemaURL": QUALITY_URL, "rowCount": 10}
    statistics = {"_producer": PRODUCER, "_schemaURL": STATISTICS_URL, "rowCount": 3}
    complete = run_event(
        "transform", TRANSFORM_RUN, "COMPLETE", time="2024-07-01T10:05:00Z",
        inputs=[(PG, "shop.orders")], outputs=[(PG, "analytics.revenue")],
    )  # fmt: skip
    complete["inputs"][0]["inputFacets"] = {"dataQualityMetrics": quality}
    complete["outputs"][0]["outputFacets"] = {"outputStatistics": statistics}
    later_statistics = copy.deepcopy(complete)  # a later event's facet of the same key replaces it
    later_statistics["eventTime"] = "2024-07-01T10:06:00Z"
    later_statistics["inputs"] = []
    later_statistics["outputs"][0]["outputFacets"]["outputStatistics"]["rowCount"] = 4
    events = [
        complete,
        later_statistics,
        run_event(
            "extract", SECOND_EXTRACT, "COMPLETE", time="2024-07-02T10:00:00Z",
            inputs=[(RAW, "orders")], outputs=[(PG, "shop.orders")], fields=[("id", "INTEGER")],
        ),
        run_event("transform", LATER_TRANSFORM, "START", time="2024-07-02T11:00:00Z", inputs=[(PG, "shop.orders")]),
    ]  # fmt: skip
    for event in events:
        status, answer = server.post("/api/v1/lineage", dumps(event))
        assert status == 200, answer


def test_runs_name_the_dataset_versions_they_read_and_wrote(served: ServeProcess) -> None:
    post_pipeline(served)
    post_more(served)
    orders = versions_of(served, PG, "shop.orders")
    revenue = versions_of(served, PG, "analytics.revenue")
    assert set(orders) == {EXTRACT_RUN, SECOND_EXTRACT} and set(revenue) == {TRANSFORM_RUN}

    run = get(served, f"/api/v1/jobs/runs/{TRANSFORM_RUN}")
    check_run(run)
    (read,) = run["inputDatasetVersions"]
    assert read["datasetVersionId"] == {"namespace": PG, "name": "shop.orders", "version": orders[EXTRACT_RUN]}
    assert read["facets"]["dataQualityMetrics"]["rowCount"] == 10
    (wrote,) = run["outputDatasetVersions"]
    assert wrote["datasetVersionId"] == {
        "namespace": PG,
        "name": "analytics.revenue",
        "version": revenue[TRANSFORM_RUN],
    }
    assert wrote["facets"]["outputStatistics"]["rowCount"] == 4

    # the run started after extract wrote shop.orders again reads that version
    later = get(served, f"/api/v1/jobs/runs/{LATER_TRANSFORM}")
    check_run(later)
    assert [v["datasetVersionId"]["version"] for v in later["inputDatasetVersions"]] == [orders[SECOND_EXTRACT]]
    assert later["outputDatasetVersions"] == [] and later["inputDatasetVersions"][0]["facets"] == {}

    # a dataset no run wrote is read in no version; the version a run wrote is the one listed
    extract = get(served, f"/api/v1/jobs/runs/{EXTRACT_RUN}")
    check_run(extract)
    assert extract["inputDatasetVersions"] == [
        {"datasetVersionId": {"namespace": RAW, "name": "orders", "version": None}, "facets": {}}
    ]
    assert [v["datasetVersionId"]["version"] for v in extract["outputDatasetVersions"]] == [orders[EXTRACT_RUN]]

    # the same wherever a run is answered
    listed = get(served, "/api/v1/namespaces/etl/jobs/transform/runs")
    for each in listed["runs"]:
        check_run(each)
    by_id = {r["id"]: r for r in listed["runs"]}
    assert by_id[TRANSFORM_RUN] == run and by_id[LATER_TRANSFORM] == later
    job = get(served, "/api/v1/namespaces/etl/jobs/transform")
    check_shape(job, "Job")
    assert job["latestRun"] == later and {r["id"]: r for r in job["latestRuns"]}[TRANSFORM_RUN] == run
    jobs = {j["name"]: j for j in get(served, "/api/v1/jobs", limit=10)["jobs"]}
    assert jobs["extract"]["latestRuns"][-1] == extract
    graph = get(served, "/api/v1/lineage", nodeId="job:etl:transform", depth=1)["graph"]
    (node,) = [n for n in graph if n["id"] == "job:etl:transform"]
    assert node["data"]["latestRun"] == later
    # the dataset version's run and the job version's run name them too
    version = get(served, f"/api/v1/namespaces/{ORDERS}/datasets/shop.orders/versions/{orders[EXTRACT_RUN]}")
    assert version["createdByRun"] == extract
    # the upstream lineage of a run reads the same versions
    upstream = get(served, "/api/v1/runlineage/upstream", runId=LATER_TRANSFORM, depth=5)["runs"]
    assert [(r["run"]["id"], [i["version"] for i in r["inputs"]]) for r in upstream] == [
        (LATER_TRANSFORM, [orders[SECOND_EXTRACT]]),
        (SECOND_EXTRACT, [None]),
    ]


def test_run_ids_longer_than_the_run_index_holds_are_told_apart(served: ServeProcess) -> None:
    """The events' run index holds the first characters of a run id: runs whose ids (not UUIDs:
    stored with their problems) start alike are read apart, each with its own datasets."""
    long_id = secrets.token_hex(1000)  # 2,000 characters
    event = run_event("long", long_id, "COMPLETE", inputs=[(RAW, "orders")], outputs=[(PG, "long.out")])
    status, answer = served.post("/api/v1/lineage", dumps(event))
    assert status == 200 and answer["valid"] is False, answer
    other = run_event("long", long_id[:200] + "x", "COMPLETE", inputs=[(RAW, "other")])  # the same first characters
    assert served.post("/api/v1/lineage", dumps(other))[0] == 200
    runs = {r["id"]: r for r in get(served, "/api/v1/namespaces/etl/jobs/long/runs")["runs"]}
    assert [v["datasetVersionId"]["name"] for v in runs[long_id]["inputDatasetVersions"]] == ["orders"]
    assert [v["datasetVersionId"]["name"] for v in runs[long_id]["outputDatasetVersions"]] == ["long.out"]
    assert [v["datasetVersionId"]["name"] for v in runs[long_id[:200] + "x"]["inputDatasetVersions"]] == ["other"]


def _run_index(db: str) -> list[str]:
    """The names of the events table's run index in the store (empty when it has none)."""
    engine = create_engine(database_url(db))
    try:
        with engine.connect() as conn:
            if engine.dialect.name == "sqlite":
                query = "SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'events_run'"
            else:
                query = "SELECT indexname FROM pg_indexes WHERE tablename = 'events' AND indexname = 'events_run'"
            return list(conn.execute(text(query)).scalars())
    finally:
        engine.dispose()


def test_a_store_made_without_the_run_index_gets_it(tmp_path: Path, db: str) -> None:
    with ServeProcess(tmp_path, db) as server:
        post_pipeline(server)
    assert _run_index(db) == ["events_run"]
    engine = create_engine(database_url(db))
    with engine.begin() as conn:  # a store as olsdk made it before the index
        conn.execute(text("DROP INDEX events_run"))
    engine.dispose()
    assert _run_index(db) == []
    with ServeProcess(tmp_path, db) as server:
        run = server.get(f"/api/v1/jobs/runs/{TRANSFORM_RUN}")
        assert [v["datasetVersionId"]["name"] for v in run["inputDatasetVersions"]] == ["shop.orders"]
    assert _run_index(db) == ["events_run"]


def test_jobs_are_listed_the_latest_updated_first(served: ServeProcess) -> None:
    def at(second: int) -> str:  # jobs are updated when their events happened
        return f"2024-07-01T12:00:0{second}.000000Z"

    for second, name in enumerate(("alpha", "beta", "gamma"), 1):
        assert served.post("/api/v1/lineage", dumps(run_event(name, secrets.token_hex(16), time=at(second))))[0] == 200
    batch = [
        run_event(name, secrets.token_hex(16), namespace="other", time=at(4)) for name in ("zulu", "yankee", "xray")
    ]
    assert served.post("/api/v1/lineage/batch", dumps(batch))[0] == 200
    assert served.post("/api/v1/lineage", dumps(run_event("alpha", secrets.token_hex(16), time=at(5))))[0] == 200

    listed = get(served, "/api/v1/namespaces/etl/jobs")
    check_shape(listed, "JobList")
    assert [j["name"] for j in listed["jobs"]] == ["alpha", "gamma", "beta"]
    everything = get(served, "/api/v1/jobs")["jobs"]
    check_shape({"jobs": everything}, "JobList")
    names = [(j["namespace"], j["name"]) for j in everything]
    assert names[0] == ("etl", "alpha") and len(names) == 6
    # the latest updated first; jobs updated at the same time by namespace and name
    assert names == [
        (j["namespace"], j["name"])
        for j in sorted(
            sorted(everything, key=lambda j: (j["namespace"], j["name"])), key=lambda j: j["updatedAt"], reverse=True
        )
    ]
    # pages of one follow the same order: none twice, none left out
    for path, full in (("/api/v1/jobs", names), ("/api/v1/namespaces/other/jobs", None)):
        pages = [
            (j["namespace"], j["name"])
            for offset in range(7)
            for j in get(served, path, limit=1, offset=offset)["jobs"]
        ]
        assert pages == (full or [n for n in names if n[0] == "other"])
    # and so does the lastRunStates filter
    running = get(served, "/api/v1/jobs", lastRunStates="RUNNING")["jobs"]
    assert [(j["namespace"], j["name"]) for j in running] == names
