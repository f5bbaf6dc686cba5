"""Listener overhead, for ``make bench``: the same writes without and with ``install()``.

    python -m olsdk.spark.bench [--writes 10] [--tasks 200]

Each write runs ``tasks`` tasks; the time with the listener includes waiting until its
events are emitted (``flush``), so it is the full cost, not only the query's.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import Any

__all__ = ["listener_overhead", "main"]


def _writes(spark: Any, base: str, writes: int, tasks: int) -> float:
    df = spark.range(0, tasks * 100, 1, tasks).selectExpr("id", "id % 7 AS k")
    started = time.perf_counter()
    for i in range(writes):
        df.write.mode("overwrite").parquet(f"{base}/w{i}")
    return time.perf_counter() - started


def listener_overhead(spark: Any, writes: int = 10, tasks: int = 200, repeats: int = 3) -> dict[str, float]:
    """Best-of-``repeats`` seconds for ``writes`` writes, without and with the listener."""
    from olsdk.spark import install

    with tempfile.TemporaryDirectory() as base:
        _writes(spark, base, 2, tasks)  # warm-up: JIT, py4j, file system
        without = min(_writes(spark, base, writes, tasks) for _ in range(repeats))
        events: list[Any] = []
        handle = install(spark, events.append)
        timings = []
        for _ in range(repeats):
            started = time.perf_counter()
            _writes(spark, base, writes, tasks)
            handle.flush()
            timings.append(time.perf_counter() - started)
        handle.close()
    with_listener = min(timings)
    return {
        "writes": writes,
        "tasks_per_write": tasks,
        "without_s": without,
        "with_s": with_listener,
        "ratio": with_listener / without,
        "per_write_ms": (with_listener - without) / writes * 1000,
        "events": len(events),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m olsdk.spark.bench")
    parser.add_argument("--writes", type=int, default=10)
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
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
            result = listener_overhead(spark, args.writes, args.tasks, args.repeats)
        finally:
            spark.stop()
    for key, value in result.items():
        print(f"{key:>16}: {value:.3f}" if isinstance(value, float) else f"{key:>16}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
