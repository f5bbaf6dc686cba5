"""Nothing lost at stop: events the listener still holds are delivered within the close
timeout, or written to the spool (real HTTP endpoints on 127.0.0.1: down, and hanging)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.spark.conftest import APP_JOB, Collector
from tests.support.client_testkit import LineageServer, Reply

pytestmark = pytest.mark.spark


def _spooled(path: Path) -> Counter[tuple[str, str]]:
    from olsdk.client import Spool

    return Counter((r["event"]["eventType"], r["event"]["job"]["name"]) for r in Spool(path).records())


def _writes(spark: Any, base: Path, count: int) -> list[str]:
    """``count`` small parquet writes; the job names the listener gives them."""
    for i in range(count):
        spark.range(5).write.mode("overwrite").parquet(str(base / "held" / f"w{i}"))
    return [f"{APP_JOB}.execute_insert_into_hadoop_fs_relation_command.held_w{i}" for i in range(count)]


def _expected(jobs: list[str]) -> Counter[tuple[str, str]]:
    want = Counter({("START", APP_JOB): 1, ("COMPLETE", APP_JOB): 1})
    for job in jobs:
        want.update([("START", job), ("COMPLETE", job)])
    return want


def test_endpoint_that_never_answers(
    spark: Any, spark_dirs: Path, lineage: Collector, tmp_path: Path, server: LineageServer
) -> None:
    """The endpoint accepts and never replies: the listener hands every event to the client
    at once (emit never waits on a network), and the client keeps every one of them, the one
    in flight included, when it closes."""
    from olsdk.client import OpenLineageClient, Spool
    from olsdk.spark import SparkLineage

    server.script.extend(Reply(delay=600) for _ in range(100))
    spool = tmp_path / "spool.ndjson"
    client = OpenLineageClient(
        config={"transport": {"type": "http", "url": server.url, "timeout": 300, "retry": {"total": 0}}},
        spool=spool,
        environ={},
    )
    handle = SparkLineage(spark, client, namespace="olsdk-hanging", close_timeout=2.0)
    try:
        jobs = _writes(spark, spark_dirs / "hanging", 3)
        handle.flush(0.5)  # plans read, events queued: the first one hangs in flight
    finally:
        handle.close()
        lineage.take()
    assert server.events == []  # nothing was ever answered
    assert handle.spooled_at_close == 0  # nothing left in the listener: the client holds them all
    client.close(timeout=1)  # gives up on the one in flight at its timeout
    spooled, reasons = _spooled(spool), {r["reason"] for r in Spool(spool).records()}
    server.stop()  # releases the relay's thread still waiting on the socket
    assert set(spooled) == set(_expected(jobs))  # every event of the application
    assert sum(spooled.values()) >= 8
    assert reasons == {"not answered before close", "not tried before close"}  # the one in flight, the others


def test_endpoint_down_with_retries(
    spark: Any, spark_dirs: Path, lineage: Collector, tmp_path: Path, free_port: int
) -> None:
    """Connection refused, slow retries (31 s per event): close() does not wait for them;
    what was not tried by its deadline is spooled untried, what was tried is spooled by
    the client; nothing is lost."""
    from olsdk.client import OpenLineageClient
    from olsdk.spark import SparkLineage

    spool = tmp_path / "spool.ndjson"
    retry = {"total": 5, "backoff_factor": 1.0, "backoff_jitter": 0.0}
    client = OpenLineageClient(
        config={"transport": {"type": "http", "url": f"http://127.0.0.1:{free_port}", "retry": retry}},
        spool=spool,
        environ={},
    )
    handle = SparkLineage(spark, client, namespace="olsdk-down", close_timeout=2.0)
    try:
        jobs = _writes(spark, spark_dirs / "down", 3)
    finally:
        handle.close()
        lineage.take()
        client.close(timeout=1)
    spooled = _spooled(spool)
    # every event is in the spool: tried and failed (spooled by the client), or never
    # tried because the retries outlasted the close timeout (spooled at the deadline)
    assert set(spooled) == set(_expected(jobs))
    assert sum(spooled.values()) >= 8


def test_healthy_endpoint_gets_everything(
    spark: Any, spark_dirs: Path, lineage: Collector, tmp_path: Path, server: LineageServer
) -> None:
    from olsdk.client import OpenLineageClient
    from olsdk.spark import SparkLineage

    spool = tmp_path / "spool.ndjson"
    client = OpenLineageClient(config={"transport": {"type": "http", "url": server.url}}, spool=spool, environ={})
    handle = SparkLineage(spark, client, namespace="olsdk-healthy", close_timeout=30.0)
    try:
        jobs = _writes(spark, spark_dirs / "healthy", 2)
    finally:
        handle.close()
        lineage.take()
        client.close()
    received = Counter((e["eventType"], e["job"]["name"]) for e in server.events)
    assert received == _expected(jobs)
    assert not spool.exists() or _spooled(spool) == Counter()
    assert handle.spooled_at_close == 0


def test_an_emitter_that_never_returns(spark: Any, spark_dirs: Path, lineage: Collector, tmp_path: Path) -> None:
    """An emitter of the user's own stops answering on the first write's START: close()
    still ends by its timeout, and every event it did not take is in its spool (the one
    it holds too: at least once)."""
    import threading

    from olsdk.client import Spool
    from olsdk.spark import SparkLineage

    release = threading.Event()

    class Hanging:
        def __init__(self) -> None:
            self.spool = Spool(tmp_path / "spool.ndjson")
            self.taken: list[tuple[str, str]] = []

        def emit(self, event: Any) -> None:
            self.taken.append((event.eventType.value, event.job.name))
            if event.job.name != APP_JOB:
                release.wait(120)

    emitter = Hanging()
    handle = SparkLineage(spark, emitter, namespace="olsdk-hung", close_timeout=2.0)
    try:
        jobs = _writes(spark, spark_dirs / "hung", 2)
        handle.close()
        spooled = _spooled(tmp_path / "spool.ndjson")
    finally:
        release.set()
        lineage.take()
    assert emitter.taken == [("START", APP_JOB), ("START", jobs[0])]
    assert spooled == _expected(jobs) - Counter({("START", APP_JOB): 1})  # the held START included
    assert handle.spooled_at_close == sum(spooled.values())
