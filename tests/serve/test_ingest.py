"""`olsdk serve` receives events from real producers, sorts them, and keeps everything.

The server is a real process on a free port; the producers are the official client
(openlineage-python), olsdk's client and plain HTTP.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import threading
from pathlib import Path

from olsdk import OpenLineageClient
from tests.serve.harness import PRODUCER, ServeProcess, dumps, run_event
from tests.support.client_testkit import kept

RUN_A = "0190d3a4-7b5c-7a3e-9f00-00000000000a"
RUN_B = "0190d3a4-7b5c-7a3e-9f00-00000000000b"


def official_client(url: str, api_key: str | None = None) -> object:
    from openlineage.client import OpenLineageClient as OfficialClient
    from openlineage.client.transport.http import ApiKeyTokenProvider, HttpCompression, HttpConfig, HttpTransport

    extra = {"auth": ApiKeyTokenProvider({"apiKey": api_key})} if api_key else {}
    config = HttpConfig(url=url, compression=HttpCompression.GZIP, retry={"total": 0}, **extra)
    return OfficialClient(transport=HttpTransport(config))


def official_events(job: str = "official_job") -> list[object]:
    from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState
    from openlineage.client.facet_v2 import schema_dataset

    schema = schema_dataset.SchemaDatasetFacet(fields=[schema_dataset.SchemaDatasetFacetFields(name="id", type="int")])
    common = {
        "run": Run(runId=RUN_A),
        "job": Job(namespace="official", name=job),
        "inputs": [InputDataset(namespace="s3://raw", name="orders")],
        "outputs": [OutputDataset(namespace="postgres://db:5432", name="shop.orders", facets={"schema": schema})],
        "producer": PRODUCER,
    }
    return [
        RunEvent(eventType=RunState.START, eventTime="2024-07-01T12:00:00.000000+00:00", **common),
        RunEvent(eventType=RunState.COMPLETE, eventTime="2024-07-01T12:05:00.000000+00:00", **common),
    ]


def olsdk_client(url: str, spool: Path, **transport: object) -> OpenLineageClient:
    config = {"transport": {"type": "http", "url": url, "retry": {"total": 0}, **transport}}
    return OpenLineageClient(config=config, spool=spool, environ={}, error_policy="raise")


def test_official_client_gzip_events_are_stored_valid(served: ServeProcess) -> None:
    client = official_client(served.url)
    for event in official_events():
        client.emit(event)  # type: ignore[attr-defined]
    status = served.status()
    assert status["events"] == {"stored": 2, "valid": 2, "invalid": 0, "byKind": {"run": 2}}
    job = served.get("/api/v1/namespaces/official/jobs/official_job")
    assert job["latestRun"]["state"] == "COMPLETED"
    assert job["inputs"] == [{"namespace": "s3://raw", "name": "orders"}]


def test_olsdk_client_single_posts_and_batches_are_stored(served: ServeProcess, tmp_path: Path) -> None:
    spool = tmp_path / "spool.ndjson"
    with olsdk_client(served.url, spool) as client:
        for i in range(3):
            client.emit(run_event(f"single_{i}", RUN_A))
    with olsdk_client(served.url, spool, batch={"max_events": 20}) as client:
        for i in range(50):
            client.emit(run_event("batched", f"0190d3a4-7b5c-7a3e-9f00-{i:012d}", "COMPLETE"))
    assert served.status()["events"]["stored"] == 53
    assert kept(spool) == []
    runs = served.get("/api/v1/namespaces/etl/jobs/batched/runs?limit=100")
    assert runs["totalCount"] == 50 and {r["state"] for r in runs["runs"]} == {"COMPLETED"}


def test_an_event_that_breaks_the_spec_is_stored_with_its_problems(served: ServeProcess) -> None:
    event = run_event("naive_job", RUN_A, time="2024-07-01T12:00:00", producer="airflow")
    status, answer = served.post("/api/v1/lineage", dumps(event))
    assert status == 200
    assert answer["status"] == "stored" and answer["valid"] is False
    problems = {p["path"]: p for p in answer["problems"]}
    assert problems["eventTime"]["value"] == "2024-07-01T12:00:00"
    assert "RFC 3339" in problems["eventTime"]["rule"]
    assert problems["producer"]["value"] == "airflow"
    summary = served.status()
    assert summary["events"]["invalid"] == 1
    assert summary["problems"]["byProducer"]["airflow"] == {
        problems["eventTime"]["rule"]: 1,
        problems["producer"]["rule"]: 1,
    }
    stored = served.get("/api/v1/events/lineage")["events"]
    assert stored == [event]  # as it was sent


def test_unreadable_requests_are_answered_422_and_kept(served: ServeProcess) -> None:
    no_run_id = dumps({**run_event("j", RUN_A), "run": {}})
    not_json = b'{"eventType": "START", '
    not_utf8 = b'{"eventType": "START", "job": {"namespace": "\xff\xfe", "name": "j"}}'
    deep = b"[" * 5000 + b"]" * 5000
    answers = [served.post("/api/v1/lineage", body) for body in (no_run_id, not_json, not_utf8, deep)]
    assert [status for status, _ in answers] == [422] * 4
    assert answers[0][1]["problems"][0]["path"] == "run.runId"
    assert "not valid JSON" in answers[1][1]["problems"][0]["rule"]
    assert "UTF-8" in answers[2][1]["problems"][0]["rule"]
    assert "nested more than 200 levels" in answers[3][1]["problems"][0]["rule"]
    kept = served.get("/api/olsdk/refused")["refused"]
    assert [base64.b64decode(r["head"]) for r in kept] == [no_run_id, not_json, not_utf8, deep]
    assert [r["sha256"] for r in kept] == [hashlib.sha256(b).hexdigest() for b in (no_run_id, not_json, not_utf8, deep)]
    assert sum(served.status()["refused"].values()) == 4
    assert served.status()["events"]["stored"] == 0


def test_a_batch_stores_what_it_can_and_reports_each_event(served: ServeProcess) -> None:
    valid = run_event("batch_job", RUN_A)
    lenient = run_event("batch_job", RUN_B, time="2024-07-01 12:00")
    unreadable = {**run_event("batch_job", RUN_B), "job": {"namespace": "etl"}}
    body = gzip.compress(dumps([valid, lenient, unreadable]))
    status, answer = served.post("/api/v1/lineage/batch", body, {"Content-Encoding": "gzip"})
    assert status == 200
    assert answer["status"] == "partial_success"
    assert answer["summary"] == {"received": 3, "successful": 2, "failed": 1, "retriable": 0, "non_retriable": 1}
    assert [(f["index"], f["retriable"]) for f in answer["failed_events"]] == [(2, False)]
    assert answer["failed_events"][0]["problems"][0]["path"] == "job.name"
    assert [s["index"] for s in answer["stored_with_problems"]] == [1]
    kept = served.get("/api/olsdk/refused")["refused"]
    assert [(r["endpoint"], json.loads(base64.b64decode(r["head"]))) for r in kept] == [
        ("/api/v1/lineage/batch[2]", unreadable)
    ]
    assert served.status()["events"]["stored"] == 2


def test_a_restart_keeps_everything(tmp_path: Path, db: str) -> None:
    with ServeProcess(tmp_path, db) as server:
        for i, event_type in enumerate(("START", "COMPLETE")):
            server.post("/api/v1/lineage", dumps(run_event("kept", RUN_A, event_type, time=f"2024-07-01T12:0{i}:00Z")))
        server.post("/api/v1/lineage", b"not json")
        before = [
            server.get(p) for p in ("/api/v1/namespaces/etl/jobs/kept", "/api/olsdk/status", "/api/olsdk/refused")
        ]
        assert server.stop() == 0
    assert "stopped" in server.output()
    with ServeProcess(tmp_path, db) as again:
        after = [again.get(p) for p in ("/api/v1/namespaces/etl/jobs/kept", "/api/olsdk/status", "/api/olsdk/refused")]
    assert after == before
    assert before[0]["latestRun"]["state"] == "COMPLETED"


def test_eight_producers_posting_at_once_lose_nothing(served: ServeProcess, tmp_path: Path) -> None:
    producers, per_producer = 8, 60
    start = threading.Barrier(producers)
    errors: list[BaseException] = []

    def produce(index: int) -> None:
        try:
            start.wait(30)
            with olsdk_client(served.url, tmp_path / f"spool-{index}.ndjson") as client:
                for i in range(per_producer):
                    run_id = f"0190d3a4-7b5c-7a3e-9{index:03d}-{i:012d}"
                    client.emit(run_event(f"producer_{index}", run_id, inputs=[("s3://raw", f"in_{index}")]))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=produce, args=(i,)) for i in range(producers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert errors == []
    events = served.get("/api/v1/events/lineage?limit=1000")
    assert events["totalCount"] == producers * per_producer
    assert len({e["run"]["runId"] for e in events["events"]}) == producers * per_producer
    for index in range(producers):
        runs = served.get(f"/api/v1/namespaces/etl/jobs/producer_{index}/runs?limit=1000")
        assert runs["totalCount"] == per_producer


def test_the_api_key_is_required_and_never_printed(tmp_path: Path, sqlite_db: str) -> None:
    key = "s3cret-key-4c1a9e"
    with ServeProcess(tmp_path, sqlite_db, env={"OLSDK_SERVE_API_KEY": key}) as server:
        assert server.post("/api/v1/lineage", dumps(run_event("guarded", RUN_A)))[0] == 401
        wrong = {"Authorization": "Bearer not-the-key"}
        assert server.post("/api/v1/lineage", dumps(run_event("guarded", RUN_A)), wrong)[0] == 401
        client = official_client(server.url, api_key=key)
        for event in official_events("guarded"):
            client.emit(event)  # type: ignore[attr-defined]
        bearer = {"Authorization": f"Bearer {key}"}
        basic = {"Authorization": "Basic " + base64.b64encode(f"me:{key}".encode()).decode()}
        assert server.get("/api/olsdk/status", bearer)["events"]["stored"] == 2
        assert server.get("/api/olsdk/status", basic)["refused"] == {"no API key": 1, "wrong API key": 1}
        try:
            server.get("/api/v1/namespaces")
        except Exception as exc:
            assert "401" in str(exc)
        else:
            raise AssertionError("read without the key")
    assert key not in server.output()
