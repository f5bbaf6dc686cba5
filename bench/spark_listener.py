"""Listener cost, for ``make bench``: the same writes without and with ``install()``.

    python -m bench.spark_listener [--writes 10] [--tasks 200] [--eventlog 20000]

Each write runs ``tasks`` tasks; the time with the listener includes waiting until its
events are emitted (``flush``), so it is the full cost, not only the query's. The
callback cost is what Spark's listener thread spends per SQL execution start or end
in olsdk's JVM listener (reading the plan in Java and one py4j call into Python),
measured inside the JVM; the worker cost is the Python side (JSON to events).

The event-log row validates ``--eventlog`` agent-shaped events (about 6 KB each, one in
ten invalid) twice: in one Python loop (read a line, validate it), and with
``olsdk.spark.validate_events`` in local[2]. Both are given in events per CPU-second:
the loop's own CPU time, and Spark's whole process tree (driver, JVM, Python workers),
so the ratio is what Spark costs on top of the validation work itself.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import Any

__all__ = ["eventlog_throughput", "listener_overhead", "main"]


def _writes(spark: Any, base: str, writes: int, tasks: int) -> float:
    df = spark.range(0, tasks * 100, 1, tasks).selectExpr("id", "id % 7 AS k")
    started = time.perf_counter()
    for i in range(writes):
        df.write.mode("overwrite").parquet(f"{base}/w{i}")
    return time.perf_counter() - started


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def listener_overhead(spark: Any, writes: int = 10, tasks: int = 200, repeats: int = 3) -> dict[str, float]:
    """Best-of-``repeats`` seconds for ``writes`` writes, without and with the listener,
    and the per-callback cost on Spark's listener thread (median, 95th percentile)."""
    from olsdk.spark import install

    with tempfile.TemporaryDirectory() as base:
        _writes(spark, base, 2, tasks)  # warm-up: JIT, py4j, file system
        without = min(_writes(spark, base, writes, tasks) for _ in range(repeats))
        events: list[Any] = []
        handle = install(spark, events.append)
        _writes(spark, base, 2, tasks)  # warm-up of the listener (reflection, py4j callbacks)
        handle.flush()
        warm = len(handle.callback_costs_ns())
        warm_worker = len(handle.worker_seconds)
        timings = []
        for _ in range(repeats):
            started = time.perf_counter()
            _writes(spark, base, writes, tasks)
            handle.flush()
            timings.append(time.perf_counter() - started)
        costs = [ns / 1e6 for ns in handle.callback_costs_ns()[warm:]]
        worker = [s * 1000 for s in handle.worker_seconds[warm_worker:]]
        handle.close()
    with_listener = min(timings)
    return {
        "writes": writes,
        "tasks_per_write": tasks,
        "without_s": without,
        "with_s": with_listener,
        "ratio": with_listener / without,
        "per_write_ms": (with_listener - without) / writes * 1000,
        "callbacks": len(costs),
        "callback_median_ms": _quantile(costs, 0.5),
        "callback_p95_ms": _quantile(costs, 0.95),
        "worker_median_ms": _quantile(worker, 0.5),
        "worker_p95_ms": _quantile(worker, 0.95),
        "events": len(events),
    }


def _agent_event(i: int, invalid: bool) -> dict[str, Any]:
    """An event shaped like the Java agent's write COMPLETE (parent, properties, schemas, lineage)."""
    import uuid

    producer = "https://github.com/OpenLineage/OpenLineage/tree/1.30.0/integration/spark"
    facet = {"_producer": producer, "_schemaURL": "https://openlineage.io/spec/facets/1-0-0/X.json#/$defs/X"}
    columns = [{"name": f"column_{c}", "type": "string", "description": f"column {c}"} for c in range(12)]

    def dataset(name: str) -> dict[str, Any]:
        return {
            "namespace": "s3://warehouse-bucket",
            "name": f"lake/{name}",
            "facets": {
                "dataSource": {**facet, "name": "s3://warehouse-bucket", "uri": "s3://warehouse-bucket"},
                "schema": {**facet, "fields": columns},
                "symlinks": {
                    **facet,
                    "identifiers": [{"namespace": "hive://metastore:9083", "name": f"db.{name}", "type": "TABLE"}],
                },
            },
        }

    output = dataset(f"out_{i % 50}")
    output["facets"]["columnLineage"] = {
        **facet,
        "fields": {
            c["name"]: {
                "inputFields": [{"namespace": "s3://warehouse-bucket", "name": "lake/in_a", "field": c["name"]}]
            }
            for c in columns
        },
    }
    output["outputFacets"] = {"outputStatistics": {**facet, "rowCount": i, "size": i * 100, "fileCount": 2}}
    run_id = str(uuid.UUID(int=i + 1, version=4))
    return {
        "eventType": "EXPLODED" if invalid else "COMPLETE",
        "eventTime": "2024-07-01T12:00:00.123Z",
        "producer": producer,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {
            "runId": run_id,
            "facets": {
                "parent": {
                    **facet,
                    "run": {"runId": run_id},
                    "job": {"namespace": "airflow", "name": "dag.task"},
                },
                "spark_properties": {**facet, "properties": {"spark.master": "yarn", "spark.app.name": "etl"}},
                "processing_engine": {
                    **facet,
                    "version": "3.5.1",
                    "name": "spark",
                    "openlineageAdapterVersion": "1.30.0",
                },
                "vendor_custom": {**facet, "notes": ["a" * 40] * 10},
            },
        },
        "job": {"namespace": "etl", "name": f"etl.execute_insert_into_hadoop_fs_relation_command.out_{i % 50}"},
        "inputs": [dataset("in_a"), dataset("in_b")],
        "outputs": [output],
    }


def _tree_cpu(pid: int) -> float:
    """CPU seconds of ``pid`` and every process below it (reaped children included)."""
    children: dict[int, list[int]] = {}
    stats: dict[int, list[str]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        stats[int(entry)] = fields
        children.setdefault(int(fields[1]), []).append(int(entry))
    tick = os.sysconf("SC_CLK_TCK")
    total, stack = 0.0, [pid]
    while stack:
        current = stack.pop()
        stat = stats.get(current)
        if stat is not None:  # utime, stime, cutime, cstime
            total += sum(int(v) for v in stat[11:15]) / tick
        stack.extend(children.get(current, []))
    return total


def eventlog_throughput(spark: Any, events: int = 20_000) -> dict[str, float | str]:
    """Events per CPU-second: a plain Python loop vs ``validate_events`` on Spark."""
    import json

    import olsdk
    from olsdk._integrations.spark._eventlog import _validator
    from olsdk.spark import validate_events

    with tempfile.TemporaryDirectory() as base:
        path = f"{base}/events.ndjson"
        with open(path, "w") as out:
            for i in range(events):
                out.write(json.dumps(_agent_event(i, invalid=i % 10 == 3)) + "\n")
        size = os.path.getsize(path)
        validate = _validator()
        started_cpu, started = time.process_time(), time.perf_counter()
        invalid = 0
        with open(path) as lines:
            for line in lines:
                if line.strip() and validate(line):
                    invalid += 1
        loop_cpu, loop_wall = time.process_time() - started_cpu, time.perf_counter() - started
        validate_events(spark, path).unpersist()  # warm-up: Python workers, JIT (no cache reuse)
        before, started = _tree_cpu(os.getpid()), time.perf_counter()
        result = validate_events(spark, path)
        spark_cpu, spark_wall = _tree_cpu(os.getpid()) - before, time.perf_counter() - started
    assert result.invalid_count == invalid == events // 10, (result.invalid_count, invalid)
    plain, spark_rate = events / loop_cpu, events / spark_cpu
    return {
        "eventlog_events": events,
        "eventlog_mb": size / 1e6,
        "validator": "validate_event" if hasattr(olsdk, "validate_event") else "parse_event",
        "loop_events_per_cpu_s": plain,
        "loop_events_per_s": events / loop_wall,
        "spark_events_per_cpu_s": spark_rate,
        "spark_events_per_s": events / spark_wall,
        "spark_cpu_overhead": plain / spark_rate - 1.0,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.spark_listener")
    parser.add_argument("--writes", type=int, default=10)
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--eventlog", type=int, default=20_000, help="events for the event-log row (0: skip)")
    args = parser.parse_args(argv)
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable
    with tempfile.TemporaryDirectory() as home:
        spark = (
            SparkSession.builder.master("local[2]")
            .appName("olsdk listener bench")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.warehouse.dir", f"{home}/warehouse")
            .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={home}")
            .getOrCreate()
        )
        spark.sparkContext.setLogLevel("ERROR")
        try:
            result: dict[str, Any] = dict(listener_overhead(spark, args.writes, args.tasks, args.repeats))
            if args.eventlog:
                result.update(eventlog_throughput(spark, args.eventlog))
        finally:
            spark.stop()
    for key, value in result.items():
        print(f"{key:>16}: {value:.3f}" if isinstance(value, float) else f"{key:>16}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
