"""Event logs for the graph tests and the bench: plain JSON dicts, as producers write them.

`pipeline_events()` is a small warehouse pipeline with every run state, a failure
with its error message, schema and column-lineage facets, a job that reads and
writes one table (a cycle), dataset and job events, and a few lines that are not
usable events. `large_log(n)` is a deterministic pipeline of about `n` nodes.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

__all__ = [
    "BAD_LINES",
    "PRODUCER",
    "column_lineage",
    "dataset",
    "demo_events",
    "large_log",
    "parent_events",
    "pipeline_events",
    "run_event",
    "warehouse_events",
    "write_ndjson",
]

PRODUCER = "https://github.com/olsdk/olsdk/tests"
SCHEMA = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
BASE_TIME = datetime(2024, 3, 1, 6, 0, tzinfo=UTC)

# Not usable events, each with the reason the reader gives.
BAD_LINES = [
    ("{not json", "not JSON"),
    ('"just a string"', "not a JSON object"),
    ('{"eventType": "START", "run": {"runId": ""}, "job": {"namespace": "n", "name": "j"}}', "run.runId"),
    ('{"eventType": "START", "run": {"runId": "r"}, "job": {"namespace": "n"}}', "job.name"),
    ('{"dataset": {"namespace": "", "name": "x"}}', "dataset.namespace"),
    ('{"producer": "nothing else"}', "not an OpenLineage event"),
]


def at(minutes: float) -> str:
    return (BASE_TIME + timedelta(minutes=minutes)).isoformat()


def schema(*fields: tuple[str, str]) -> dict[str, Any]:
    return {
        "_producer": PRODUCER,
        "_schemaURL": "https://openlineage.io/spec/facets/1-2-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet",
        "fields": [{"name": name, "type": kind} for name, kind in fields],
    }


def column_lineage(fields: dict[str, list[tuple[str, str, str]]], whole: Iterable[tuple[str, str, str]] = ()) -> Any:
    """`fields`: output field -> [(namespace, name, field)] with DIRECT/IDENTITY; `whole`: INDIRECT/FILTER."""

    def entry(ns: str, name: str, field: str, kind: str, subtype: str) -> dict[str, Any]:
        return {"namespace": ns, "name": name, "field": field, "transformations": [{"type": kind, "subtype": subtype}]}

    facet: dict[str, Any] = {
        "_producer": PRODUCER,
        "_schemaURL": "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet",
        "fields": {
            out: {"inputFields": [entry(ns, n, f, "DIRECT", "IDENTITY") for ns, n, f in ins]}
            for out, ins in fields.items()
        },
    }
    whole = list(whole)
    if whole:
        facet["dataset"] = [entry(ns, n, f, "INDIRECT", "FILTER") for ns, n, f in whole]
    return facet


def dataset(namespace: str, name: str, **facets: Any) -> dict[str, Any]:
    item: dict[str, Any] = {"namespace": namespace, "name": name}
    if facets:
        item["facets"] = facets
    return item


def run_event(
    event_type: str,
    job: tuple[str, str],
    run_id: str,
    time: str,
    inputs: list[dict[str, Any]] | None = None,
    outputs: list[dict[str, Any]] | None = None,
    error: str | None = None,
    producer: str = PRODUCER,
) -> dict[str, Any]:
    event: dict[str, Any] = {
        "eventType": event_type,
        "eventTime": time,
        "run": {"runId": run_id},
        "job": {"namespace": job[0], "name": job[1]},
        "inputs": inputs or [],
        "outputs": outputs or [],
        "producer": producer,
        "schemaURL": SCHEMA,
    }
    if error is not None:
        event["run"]["facets"] = {
            "errorMessage": {
                "_producer": producer,
                "_schemaURL": "https://openlineage.io/spec/facets/1-0-1/ErrorMessageRunFacet.json#/$defs/ErrorMessageRunFacet",
                "message": error,
                "programmingLanguage": "python",
            }
        }
    return event


def _run_id(n: int) -> str:
    return f"01900000-0000-7000-8000-{n:012d}"


def pipeline_events() -> list[dict[str, Any]]:
    """A warehouse pipeline: raw files -> staging -> marts, with every run state."""
    s3, wh = "s3://lake", "postgres://warehouse:5432"
    orders_raw = ("raw/orders.json", (("order_id", "bigint"), ("customer_id", "bigint"), ("amount", "decimal(10,2)")))
    customers_raw = ("raw/customers.csv", (("customer_id", "bigint"), ("name", "string"), ("country", "string")))
    stg_orders = (
        "analytics.staging.orders",
        (("order_id", "bigint"), ("customer_id", "bigint"), ("amount", "decimal")),
    )
    stg_customers = ("analytics.staging.customers", (("customer_id", "bigint"), ("country", "string")))
    revenue = ("analytics.marts.revenue_by_country", (("country", "string"), ("revenue", "decimal")))
    events: list[dict[str, Any]] = []

    def io(ns: str, spec: tuple[str, tuple[tuple[str, str], ...]], **extra: Any) -> dict[str, Any]:
        return dataset(ns, spec[0], schema=schema(*spec[1]), **extra)

    ingest_orders = ("etl", "ingest.orders")
    for n, (state, start) in enumerate((("COMPLETE", 0), ("COMPLETE", 60 * 24))):
        run = _run_id(100 + n)
        ins, outs = (
            [io(s3, orders_raw)],
            [
                io(
                    wh,
                    stg_orders,
                    columnLineage=column_lineage(
                        {f: [(s3, orders_raw[0], f)] for f in ("order_id", "customer_id", "amount")}
                    ),
                )
            ],
        )
        events.append(run_event("START", ingest_orders, run, at(start), ins, outs))
        events.append(run_event(state, ingest_orders, run, at(start + 4), ins, outs))
    ingest_customers = ("etl", "ingest.customers")
    ins = [io(s3, customers_raw)]
    outs = [
        io(
            wh,
            stg_customers,
            columnLineage=column_lineage({f: [(s3, customers_raw[0], f)] for f in ("customer_id", "country")}),
        )
    ]
    events.append(run_event("START", ingest_customers, _run_id(200), at(1), ins, outs))
    events.append(run_event("COMPLETE", ingest_customers, _run_id(200), at(3), ins, outs))
    # The mart: an older run completed, the latest failed with an error message.
    build_revenue = ("etl", "marts.revenue_by_country")
    ins = [io(wh, stg_orders), io(wh, stg_customers)]
    outs = [
        io(
            wh,
            revenue,
            columnLineage=column_lineage(
                {"country": [(wh, stg_customers[0], "country")], "revenue": [(wh, stg_orders[0], "amount")]},
                whole=[(wh, stg_orders[0], "customer_id"), (wh, stg_customers[0], "customer_id")],
            ),
        )
    ]
    events.append(run_event("START", build_revenue, _run_id(300), at(10), ins, outs))
    events.append(run_event("COMPLETE", build_revenue, _run_id(300), at(12), ins, outs))
    events.append(run_event("START", build_revenue, _run_id(301), at(60 * 24 + 10), ins, outs))
    events.append(
        run_event(
            "FAIL",
            build_revenue,
            _run_id(301),
            at(60 * 24 + 11),
            ins,
            outs,
            error='division by zero in "revenue" <column> & friends',
        )
    )
    # A dashboard refresh still running, an export that was aborted.
    events.append(
        run_event("START", ("bi", "dashboards.refresh"), _run_id(400), at(60 * 24 + 20), [io(wh, revenue)], [])
    )
    events.append(
        run_event(
            "START",
            ("bi", "export.revenue_csv"),
            _run_id(500),
            at(30),
            [io(wh, revenue)],
            [dataset(s3, "exports/revenue.csv")],
        )
    )
    events.append(run_event("ABORT", ("bi", "export.revenue_csv"), _run_id(500), at(31)))
    # Deduplication reads and writes the same table: a cycle.
    dedupe = ("etl", "staging.dedupe_orders")
    events.append(
        run_event("COMPLETE", dedupe, _run_id(600), at(5), [dataset(wh, stg_orders[0])], [dataset(wh, stg_orders[0])])
    )
    # A job event (no run) and a dataset event (no job).
    events.append(
        {
            "eventTime": at(2),
            "job": {"namespace": "ml", "name": "features.customer_embeddings"},
            "inputs": [dataset(wh, stg_customers[0])],
            "outputs": [dataset("s3://features", "customer_embeddings")],
            "producer": "https://example.com/feature-store",
            "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/JobEvent",
        }
    )
    events.append(
        {
            "eventTime": at(3),
            "dataset": dataset("kafka://broker:9092", "orders.events", schema=schema(("order_id", "bigint"))),
            "producer": "https://example.com/catalog",
            "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent",
        }
    )
    return events


ENTITIES = ("orders", "customers", "products", "payments", "shipments", "returns", "inventory", "suppliers")
MARTS = {
    "revenue_by_country": ("orders", "customers"),
    "customer_lifetime_value": ("orders", "customers", "returns"),
    "product_margins": ("products", "orders", "suppliers"),
    "payment_failures": ("payments", "orders"),
    "delivery_times": ("shipments", "orders"),
    "return_rates": ("returns", "products"),
    "stock_levels": ("inventory", "products"),
    "supplier_scorecard": ("suppliers", "shipments", "inventory"),
}


def warehouse_events() -> list[dict[str, Any]]:
    """A warehouse of 24 jobs and 32 datasets: 8 raw files, ingested, joined into 8 marts, exported."""
    s3, wh, out = "s3://lake", "postgres://warehouse:5432", "s3://exports"
    events: list[dict[str, Any]] = []
    run = 700

    def runs(job: tuple[str, str], inputs: list[dict[str, Any]], outputs: list[dict[str, Any]], state: str) -> None:
        nonlocal run
        run += 1
        events.append(run_event("START", job, _run_id(run), at(run), inputs, outputs))
        events.append(
            run_event(
                state, job, _run_id(run), at(run + 0.5), inputs, outputs, error="boom" if state == "FAIL" else None
            )
        )

    for entity in ENTITIES:
        runs(
            ("etl", f"ingest.{entity}"),
            [dataset(s3, f"raw/{entity}.json")],
            [dataset(wh, f"analytics.staging.{entity}")],
            "COMPLETE",
        )
    for k, (mart, sources) in enumerate(MARTS.items()):
        inputs = [dataset(wh, f"analytics.staging.{source}") for source in sources]
        runs(
            ("etl", f"marts.{mart}"), inputs, [dataset(wh, f"analytics.marts.{mart}")], "FAIL" if k == 3 else "COMPLETE"
        )
        runs(
            ("bi", f"export.{mart}"),
            [dataset(wh, f"analytics.marts.{mart}")],
            [dataset(out, f"{mart}.csv")],
            "COMPLETE",
        )
    return events


def parent_events() -> list[Any]:
    """A DAG whose runs start task runs; one task run names two parents (the latest wins), one itself."""

    def child(event: dict[str, Any], job: str, run: str) -> dict[str, Any]:
        event["run"]["facets"] = {"parent": {"job": {"namespace": "airflow", "name": job}, "run": {"runId": run}}}
        return event

    task_a, task_b = ("airflow", "dag.task_a"), ("airflow", "dag.task_b")
    return [
        run_event("START", ("airflow", "dag"), "dag-run-1", at(0)),
        child(run_event("COMPLETE", task_a, "task-a-1", at(1)), "dag", "dag-run-1"),
        child(run_event("START", task_a, "task-a-2", at(2)), "dag", "dag-run-1"),
        child(run_event("COMPLETE", task_a, "task-a-2", at(3)), "dag", "dag-run-2"),
        child(run_event("COMPLETE", task_b, "task-b-1", at(3)), "dag", "dag-run-2"),
        child(run_event("COMPLETE", task_b, "task-b-2", at(4)), "dag.task_b", "task-b-2"),  # itself: a note
    ]


DEMO = Path(__file__).resolve().parent / "cases" / "demo.ndjson"


def demo_events() -> list[dict[str, Any]]:
    """What `python -m examples.spark_demo --output /tmp/olsdk-demo` wrote (PySpark 4, local[2]).

    The application run `olsdk_demo` and its three jobs, each with a parent facet naming
    the application run; one failed on purpose. Recorded once, so that the graph tests
    need no Spark; tests/spark runs the demo pipeline itself.
    """
    with open(DEMO, encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def write_ndjson(path: Path, events: Iterable[Any], extra_lines: Iterable[str] = ()) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as out:
        for event in events:
            out.write((event if isinstance(event, str) else json.dumps(event)) + "\n")
        for line in extra_lines:
            out.write(line + "\n")
    return path


def large_log(nodes: int = 5000, seed: int = 17) -> list[dict[str, Any]]:
    """About `nodes` jobs and datasets (half each) in ~30 pipelines of 6-10 stages.

    Each job reads one to three datasets of earlier stages of its pipeline (sometimes of
    another pipeline) and writes one or two; one run each, a few failed or running.
    """
    rng = random.Random(seed)
    events: list[dict[str, Any]] = []
    jobs = nodes // 2
    pipelines = max(1, jobs // 80)
    produced: list[list[tuple[str, str]]] = []  # per pipeline, the datasets so far
    made = 0
    job_number = 0
    for p in range(pipelines):
        ns = f"team{p % 7}"
        sources = [(f"s3://raw-{p}", f"landing/source_{p}_{k}.parquet") for k in range(rng.randint(3, 6))]
        made += len(sources)
        produced.append(list(sources))
    while job_number < jobs and made < nodes:
        p = job_number % pipelines
        ns = f"team{p % 7}"
        pool = produced[p]
        reads = rng.sample(pool[-12:], k=min(len(pool[-12:]), rng.randint(1, 3)))
        if rng.random() < 0.05 and p > 0:
            reads.append(rng.choice(produced[p - 1]))
        writes = [(f"warehouse://dw-{p}", f"{ns}.stage_{job_number}_{k}") for k in range(1 + (rng.random() < 0.2))]
        made += len(writes) + 1
        job = (ns, f"pipeline_{p}.transform_{job_number}")
        run = _run_id(10_000 + job_number)
        roll = rng.random()
        state = "FAIL" if roll < 0.04 else ("RUNNING" if roll < 0.06 else "COMPLETE")
        inputs = [dataset(*r) for r in reads]
        outputs = [dataset(*w) for w in writes]
        minute = job_number * 0.5
        events.append(run_event("START", job, run, at(minute), inputs, outputs))
        if state != "RUNNING":
            error = f"task {job_number} failed: out of memory" if state == "FAIL" else None
            events.append(run_event(state, job, run, at(minute + 1), inputs, outputs, error=error))
        pool.extend(writes)
        job_number += 1
    return events
