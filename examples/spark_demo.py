"""The olsdk demo: a small PySpark pipeline whose lineage lands in an NDJSON file.

    python -m examples.spark_demo [--output demo-output]

Generates customers (CSV) and orders (JSON), joins and aggregates them, writes a
partitioned Parquet dataset and a table (``saveAsTable``), and runs one step that fails
on purpose (caught). ``olsdk.spark.install`` turns every write into OpenLineage events,
written to ``demo-output/lineage.ndjson``, or sent to ``$OPENLINEAGE_URL`` when it is
set. A summary of what was captured is printed at the end.

Spark needs Java 17 or newer (`JAVA_HOME`, else `java` on `PATH`); without it the demo
stops at once and says how to install it.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Summary", "generate_data", "main", "run_pipeline", "summarize"]

APP_NAME = "olsdk demo"
COUNTRIES = ("FR", "DE", "US", "JP")
SEGMENTS = ("retail", "smb", "enterprise")


def generate_data(base: Path, customers: int = 200, orders: int = 2000, seed: int = 7) -> None:
    """Deterministic input files: ``customers.csv`` and ``orders.json`` (one object a line)."""
    rng = random.Random(seed)
    base.mkdir(parents=True, exist_ok=True)
    with open(base / "customers.csv", "w", encoding="utf-8") as out:
        out.write("customer_id,name,country,segment\n")
        for cid in range(1, customers + 1):
            out.write(f"{cid},customer {cid},{rng.choice(COUNTRIES)},{rng.choice(SEGMENTS)}\n")
    with open(base / "orders.json", "w", encoding="utf-8") as out:
        for oid in range(1, orders + 1):
            order = {
                "order_id": oid,
                "customer_id": rng.randint(1, customers),
                "amount": round(rng.uniform(5, 500), 2),
                "day": f"2024-03-{rng.randint(1, 28):02d}",
            }
            out.write(json.dumps(order) + "\n")


def run_pipeline(spark: Any, base: Path) -> dict[str, Any]:
    """The pipeline itself, on any SparkSession; returns a few numbers for the summary."""
    from pyspark.sql import functions as F

    customers = (
        spark.read.option("header", True)
        .schema("customer_id INT, name STRING, country STRING, segment STRING")
        .csv(str(base / "input" / "customers.csv"))
    )
    orders = spark.read.schema("order_id INT, customer_id INT, amount DECIMAL(10,2), day STRING").json(
        str(base / "input" / "orders.json")
    )

    enriched = orders.join(customers, "customer_id")
    revenue = enriched.groupBy("country", "segment").agg(
        F.sum("amount").alias("revenue"),
        F.countDistinct("customer_id").alias("customers"),
        F.count("order_id").alias("orders"),
    )
    # 1. Parquet, partitioned by country.
    revenue.write.mode("overwrite").partitionBy("country").parquet(str(base / "lake" / "revenue_by_country"))
    # 2. A table in the session catalog (one run, though Spark reports three executions).
    top = (
        enriched.groupBy("customer_id", "name", "country")
        .agg(F.sum("amount").alias("total"))
        .orderBy(F.desc("total"))
        .limit(20)
    )
    top.write.mode("overwrite").saveAsTable("top_customers")
    # 3. A step that fails on purpose: the listener reports it as a FAIL run.
    failed = None
    try:
        orders.select(
            "order_id",
            F.when(F.col("amount") > 0, F.raise_error(F.lit("demo: refusing to export orders")))
            .otherwise(F.col("amount"))
            .alias("amount"),
        ).write.mode("overwrite").csv(str(base / "lake" / "orders_export"))
    except Exception as exc:  # expected
        failed = str(exc).splitlines()[0]
    return {"failed_step": failed, "top_customers": spark.table("top_customers").count()}


@dataclass
class Summary:
    events: int = 0
    runs: set[str] = field(default_factory=set)
    failed_runs: set[str] = field(default_factory=set)
    jobs: set[str] = field(default_factory=set)
    datasets: set[str] = field(default_factory=set)
    edges: set[tuple[str, str]] = field(default_factory=set)

    def lines(self) -> list[str]:
        return [
            f"events:   {self.events}",
            f"runs:     {len(self.runs)} ({len(self.failed_runs)} failed)",
            f"jobs:     {len(self.jobs)}",
            *(f"  - {job}" for job in sorted(self.jobs)),
            f"datasets: {len(self.datasets)}",
            *(f"  - {ds}" for ds in sorted(self.datasets)),
            f"edges:    {len(self.edges)} (dataset -> job -> dataset)",
        ]


def summarize(events: Sequence[Any]) -> Summary:
    """Runs, jobs, datasets and lineage edges of a list of (parsed) events."""
    summary = Summary(events=len(events))
    for event in events:
        job = f"{event.job.namespace}/{event.job.name}"
        summary.runs.add(str(event.run.runId))
        summary.jobs.add(job)
        if event.eventType == "FAIL":
            summary.failed_runs.add(str(event.run.runId))
        for inp in event.inputs or []:
            ds = f"{inp.namespace}:{inp.name}" if "://" not in inp.namespace else f"{inp.namespace}/{inp.name}"
            summary.datasets.add(ds)
            summary.edges.add((ds, job))
        for out in event.outputs or []:
            ds = f"{out.namespace}:{out.name}" if "://" not in out.namespace else f"{out.namespace}/{out.name}"
            summary.datasets.add(ds)
            summary.edges.add((job, ds))
    return summary


class _Recorder:
    """Forwards events to the client and keeps them for the summary."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.producer = getattr(client, "producer", None)
        self.events: list[Any] = []
        self._lock = threading.Lock()

    def emit(self, event: Any) -> None:
        with self._lock:
            self.events.append(event)
        self.client.emit(event)


def _session(base: Path) -> Any:
    from pyspark.sql import SparkSession

    # Python workers must run this interpreter (pyarrow, olsdk), not the system python3.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    derby = base / "derby"
    session = (
        SparkSession.builder.master("local[2]")
        .appName(APP_NAME)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.warehouse.dir", str(base / "spark-warehouse"))
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={derby}")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("OFF")  # the failing step would print stack traces
    return session


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m examples.spark_demo", description=__doc__.split("\n")[0])
    parser.add_argument("--output", default="demo-output", help="directory for data and lineage")
    args = parser.parse_args(argv)

    # Before anything else: without Java, PySpark only says JAVA_GATEWAY_EXITED.
    from olsdk._integrations.spark._java import java_problem

    problem = java_problem()
    if problem is not None:
        print(f"olsdk demo: {problem}", file=sys.stderr)
        return 2

    from olsdk import parse_event, to_json
    from olsdk.client import OpenLineageClient
    from olsdk.spark import install

    base = Path(args.output).resolve()
    for owned in ("input", "lake", "spark-warehouse", "derby", "lineage.ndjson"):
        target = base / owned
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
    generate_data(base / "input")
    lineage_file = base / "lineage.ndjson"
    url = os.environ.get("OPENLINEAGE_URL")
    if url:
        client = OpenLineageClient()  # configured from OPENLINEAGE_URL and friends
        sink = url
    else:
        client = OpenLineageClient(
            config={"transport": {"type": "file", "log_file_path": str(lineage_file), "append": True}}
        )
        sink = str(lineage_file)
    recorder = _Recorder(client)

    started = time.monotonic()
    spark = _session(base)
    install(spark, recorder, namespace=os.environ.get("OPENLINEAGE_NAMESPACE", "olsdk-demo"))
    try:
        result = run_pipeline(spark, base)
    finally:
        spark.stop()  # also completes the application run and flushes lineage
        client.close()
    elapsed = time.monotonic() - started

    if url:
        events = [parse_event(to_json(e)) for e in recorder.events]
    else:
        with open(lineage_file, encoding="utf-8") as handle:
            events = [parse_event(line) for line in handle if line.strip()]
    summary = summarize(events)
    print(f"olsdk demo: PySpark pipeline finished in {elapsed:.1f}s")
    print(f"failing step (expected): {result['failed_step']}")
    for line in summary.lines():
        print(line)
    print(f"lineage:  {sink}")
    # The lineage page next to the events: one HTML file, opens offline (`olsdk graph` on the CLI).
    from olsdk._integrations._graph import ReadItem, build_graph, write_page

    graph = build_graph(ReadItem(f"event {i}", json.loads(to_json(e))) for i, e in enumerate(events))
    print(f"page:     {write_page(graph, base / 'lineage.html', title=f'{APP_NAME} lineage', sources=[sink])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
