"""Namespaces', jobs', datasets' and runs' times are those of their events, as in Marquez.

Marquez stamps the rows an event touches with the event's ``eventTime``, not with the time
it received it: ``createdAt`` is when the first event happened and ``updatedAt`` when the
latest did. olsdk takes the earliest and the latest ``eventTime`` of the events stored,
whatever order they arrive in (an event without one counts at its time of receipt).
"""

from __future__ import annotations

from datetime import UTC, datetime

from tests.serve.harness import ServeProcess, dumps, run_event

RUN_A = "0190d3a4-7b5c-7a3e-9f00-0000000000a1"
RUN_B = "0190d3a4-7b5c-7a3e-9f00-0000000000b2"
RUN_C = "0190d3a4-7b5c-7a3e-9f00-0000000000c3"
RUN_D = "0190d3a4-7b5c-7a3e-9f00-0000000000d4"
IO = {"inputs": [("warehouse", "raw")], "outputs": [("warehouse", "clean")]}


def _post(server: ServeProcess, event: dict[str, object]) -> None:
    status, answer = server.post("/api/v1/lineage", dumps(event))
    assert status == 200, answer


def _times(found: dict[str, object]) -> tuple[object, object]:
    return found["createdAt"], found["updatedAt"]


def test_times_are_the_events_times_in_any_order_of_arrival(served: ServeProcess) -> None:
    _post(served, run_event("nightly", RUN_A, "START", time="2024-03-01T10:00:00.000000Z", **IO))
    served.get("/api/v1/namespaces")  # its rows are written: the next events merge with them
    _post(served, run_event("nightly", RUN_A, "COMPLETE", time="2024-03-01T10:30:00+00:00", **IO))
    _post(served, run_event("nightly", RUN_B, "START", time="2024-02-01T01:00:00+01:00"))  # older, arriving late
    _post(served, run_event("weekly", RUN_C, "COMPLETE", time="2024-02-15T00:00:00Z"))  # received last

    nightly = served.get("/api/v1/namespaces/etl/jobs/nightly")
    assert _times(nightly) == ("2024-02-01T00:00:00.000000Z", "2024-03-01T10:30:00.000000Z")
    weekly = served.get("/api/v1/namespaces/etl/jobs/weekly")
    assert _times(weekly) == ("2024-02-15T00:00:00.000000Z", "2024-02-15T00:00:00.000000Z")
    jobs = served.get("/api/v1/namespaces/etl/jobs?limit=10")["jobs"]
    assert [job["name"] for job in jobs] == ["nightly", "weekly"]  # the latest updated first, by event time

    assert _times(served.get(f"/api/v1/jobs/runs/{RUN_A}")) == (
        "2024-03-01T10:00:00.000000Z",
        "2024-03-01T10:30:00.000000Z",
    )
    assert _times(served.get(f"/api/v1/jobs/runs/{RUN_B}")) == ("2024-02-01T00:00:00.000000Z",) * 2
    for name in ("raw", "clean"):
        found = served.get(f"/api/v1/namespaces/warehouse/datasets/{name}")
        assert _times(found) == ("2024-03-01T10:00:00.000000Z", "2024-03-01T10:30:00.000000Z")
    etl = served.get("/api/v1/namespaces/etl")
    assert _times(etl) == ("2024-02-01T00:00:00.000000Z", "2024-03-01T10:30:00.000000Z")
    found = served.get("/api/v1/search?q=weekly&limit=10")["results"]
    assert [(r["name"], r["updatedAt"]) for r in found] == [("weekly", "2024-02-15T00:00:00.000000Z")]


def test_an_event_without_an_event_time_counts_at_its_receipt(served: ServeProcess) -> None:
    before = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S")
    untimed = run_event("untimed", RUN_D)
    del untimed["eventTime"]
    status, answer = served.post("/api/v1/lineage", dumps(untimed))
    assert status == 200 and not answer["valid"], answer
    after = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.999999Z")
    created, updated = _times(served.get("/api/v1/namespaces/etl/jobs/untimed"))
    assert isinstance(created, str) and before <= created == updated <= after
