"""The lineage page of an event log too large for one process, built on Spark.

Every line is read by the same lenient reader and fact extraction as ``olsdk graph``
(on the executors, through ``mapInPandas``); edges (``lineage_edges``), run states,
fields, column lineage and counts are aggregated on Spark, and only the graph (jobs,
datasets, edges, each job's latest runs, counts) is collected to the driver, where
it is laid out and written as the same self-contained page.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pyspark.sql import Window
from pyspark.sql import functions as F
from pyspark.sql.types import ArrayType, BooleanType, StringType, StructField, StructType

from olsdk._integrations._graph._facts import (
    ACTIVE_TYPES,
    FAIL,
    NO_TIME,
    OTHER,
    STATE_RANK,
    TERMINAL_TYPES,
    ColumnEdge,
    extract,
    facts_json,
)
from olsdk._integrations._graph._model import (
    FAILED_RUNS,
    RUN_HISTORY,
    RUNNING,
    DatasetKey,
    Edge,
    JobKey,
    LineageGraph,
    ParentLink,
    RunSummary,
    build_from_parts,
)
from olsdk._integrations._graph._page import write_page
from olsdk._integrations._graph._read import read_lines
from olsdk._integrations.spark._eventlog import lineage_edges

__all__ = ["lineage_page"]


def _name_struct() -> StructType:
    return StructType([StructField("namespace", StringType()), StructField("name", StringType())])


FACTS_SCHEMA = StructType(
    [
        StructField("kind", StringType()),
        StructField("job", _name_struct()),
        StructField("run_id", StringType()),
        StructField("event_type", StringType()),
        StructField("time", StringType()),
        StructField("error", StringType()),
        StructField(
            "parent",
            StructType([StructField(n, StringType()) for n in ("namespace", "name", "run_id")]),
        ),
        StructField("inputs", ArrayType(_name_struct())),
        StructField("outputs", ArrayType(_name_struct())),
        StructField(
            "datasets",
            ArrayType(
                StructType(
                    [
                        StructField("namespace", StringType()),
                        StructField("name", StringType()),
                        StructField("fields", StringType()),
                        StructField(
                            "columns",
                            ArrayType(
                                StructType(
                                    [
                                        StructField(name, StringType())
                                        for name in ("field", "up_namespace", "up_name", "up_field", "transformation")
                                    ]
                                )
                            ),
                        ),
                    ]
                )
            ),
        ),
        StructField("producer", StringType()),
        StructField("facet_keys", ArrayType(StringType())),
        StructField("notes", ArrayType(StringType())),
    ]
)
ROWS_SCHEMA = StructType(
    [
        StructField("ok", BooleanType(), False),
        StructField("problem", StringType()),
        StructField("facts", StringType()),
    ]
)


def _facts_batches(batches: Iterator[Any]) -> Iterator[Any]:
    """Runs on the executors: each line through the lenient reader and `extract`."""
    import pandas as pd  # type: ignore[import-untyped]

    for batch in batches:
        ok: list[bool] = []
        problems: list[str | None] = []
        facts: list[str | None] = []
        for line in batch["value"]:
            for item in read_lines("line", [line.encode("utf-8")], documents=False):
                if item.event is None:
                    ok.append(False)
                    problems.append(item.problem or "unreadable")
                    facts.append(None)
                else:
                    ok.append(True)
                    problems.append(None)
                    facts.append(facts_json(extract(item.event)))
        yield pd.DataFrame({"ok": ok, "problem": problems, "facts": facts})


def _counts(frame: Any, column: str) -> dict[str, int]:
    return {row[0]: row[1] for row in frame.groupBy(column).count().collect() if row[0] is not None}


def _run_summary(row: Any) -> RunSummary:
    parent = row["parent"]
    return RunSummary(
        run_id=row["run_id"],
        state=row["state"],
        start=row["start"] or NO_TIME,
        last=row["last"],
        error=row["error"],
        events=row["events"],
        parent=None if parent is None else (parent["namespace"], parent["name"], parent["run_id"]),
    )


@dataclass(slots=True)
class _EventCounts:
    """Events by kind, unusable ones by reason, and what the summary counts of them."""

    events: dict[str, int]
    unreadable: dict[str, int]
    notes: dict[str, int]
    producers: dict[str, int]
    facet_keys: dict[str, int]


@dataclass(slots=True)
class _GraphParts:
    """The nodes and edges of the graph, and what the page shows of each dataset."""

    edges: list[Edge]
    parents: list[ParentLink]
    jobs: list[JobKey]
    datasets: list[DatasetKey]
    fields: dict[DatasetKey, str]  # the latest schema, as `facts_json` wrote it
    columns: list[tuple[str, str, ColumnEdge]]


@dataclass(slots=True)
class _RunParts:
    """Each job's latest runs, with the counts over all runs that only Spark sees."""

    latest: list[tuple[str, str, RunSummary]]
    job_totals: dict[JobKey, dict[str, int]]
    failed: list[tuple[str, str, RunSummary]]


def lineage_page(
    spark: Any, path: str | Sequence[str], output: str | Path, *, title: str | None = None
) -> LineageGraph:
    """Build the lineage graph of NDJSON event files on Spark and write its HTML page.

    `path` is what ``spark.read.text`` takes (a file, a folder, a glob, or a list of
    them), one event per line. The page at `output` is the one ``olsdk graph`` writes
    for the same events; the returned `LineageGraph` is what it shows. Workers must be
    able to import olsdk (``PYSPARK_PYTHON``).
    """
    sources = [path] if isinstance(path, str) else list(path)
    lines = spark.read.text(sources).where(F.trim(F.col("value")) != "")
    rows = lines.mapInPandas(_facts_batches, ROWS_SCHEMA).persist()
    facts = None
    try:
        facts = rows.where(F.col("ok")).select(F.from_json("facts", FACTS_SCHEMA).alias("f")).select("f.*").persist()
        counts = _event_counts(rows, facts)
        parts = _graph_parts(facts)
        runs = _run_parts(facts)
    finally:
        for frame in (facts, rows):
            if frame is not None:
                frame.unpersist()
    graph = build_from_parts(
        jobs=parts.jobs,
        datasets=parts.datasets,
        edges=parts.edges,
        parents=parts.parents,
        runs=runs.latest,
        fields=parts.fields,
        columns=parts.columns,
        events=counts.events,
        unreadable=counts.unreadable,
        unreadable_samples=[],
        notes=counts.notes,
        producers=counts.producers,
        facet_keys=counts.facet_keys,
        job_totals=runs.job_totals,
        failed_runs=runs.failed,
    )
    write_page(graph, output, title=title or f"Lineage of {', '.join(sources)}", sources=sources)
    return graph


def _event_counts(rows: Any, facts: Any) -> _EventCounts:
    """`rows`: every line read (ok or not); `facts`: the facts of the readable ones."""
    return _EventCounts(
        events=_counts(facts, "kind"),
        unreadable=_counts(rows.where(~F.col("ok")), "problem"),
        notes=_counts(facts.select(F.explode("notes").alias("note")), "note"),
        producers=_counts(facts.where(F.col("producer").isNotNull()), "producer"),
        facet_keys=_counts(facts.select(F.explode("facet_keys").alias("key")), "key"),
    )


def _graph_parts(facts: Any) -> _GraphParts:
    """Edges through `lineage_edges`; parent job -> child job links; each dataset's latest schema; column lineage."""
    edges = [
        Edge(r["direction"], r["job_namespace"], r["job_name"], r["dataset_namespace"], r["dataset_name"])
        for r in lineage_edges(facts).collect()
    ]
    parents = [
        ParentLink(r[0], r[1], r[2], r[3])
        for r in facts.where(F.col("parent").isNotNull() & F.col("job").isNotNull())
        .select("parent.namespace", "parent.name", "job.namespace", "job.name")
        .distinct()
        .collect()
    ]
    jobs = [
        (r[0], r[1])
        for r in facts.where(F.col("job").isNotNull()).select("job.namespace", "job.name").distinct().collect()
    ]
    mentions = facts.select(F.explode("datasets").alias("d"), "time").select("d.*", "time")
    datasets = [(r[0], r[1]) for r in mentions.select("namespace", "name").distinct().collect()]
    fields = {
        (r[0], r[1]): r[2]
        for r in mentions.where(F.col("fields").isNotNull())
        .groupBy("namespace", "name")
        .agg(F.max(F.struct("time", "fields")).getField("fields"))
        .collect()
    }
    columns = [
        (
            r["namespace"],
            r["name"],
            ColumnEdge(r["field"], r["up_namespace"], r["up_name"], r["up_field"], r["transformation"]),
        )
        for r in mentions.select("namespace", "name", F.explode("columns").alias("c"))
        .select("namespace", "name", "c.*")
        .distinct()
        .collect()
    ]
    return _GraphParts(edges=edges, parents=parents, jobs=jobs, datasets=datasets, fields=fields, columns=columns)


def _run_summaries(facts: Any) -> Any:
    """One row per run (job namespace, job name, run id) by the run rules of `_model`."""
    rank = F.create_map(*[item for key, value in STATE_RANK.items() for item in (F.lit(key), F.lit(value))])
    terminal = F.col("event_type").isin(*TERMINAL_TYPES)
    return (
        facts.where(F.col("run_id").isNotNull())
        .groupBy(F.col("job.namespace").alias("job_namespace"), F.col("job.name").alias("job_name"), "run_id")
        .agg(
            F.min(F.when(F.col("time") != NO_TIME, F.col("time"))).alias("start"),
            F.max("time").alias("last"),
            # the latest terminal event; at the same time the higher rank (FAIL > ABORT > COMPLETE)
            F.max(F.when(terminal, F.struct("time", rank[F.col("event_type")], "event_type"))).alias("terminal"),
            F.max(F.col("event_type").isin(*ACTIVE_TYPES)).alias("active"),
            F.max(F.when(F.col("error").isNotNull(), F.struct("time", "error"))).getField("error").alias("error"),
            # the parent of its latest event that names one (at the same time, the greater parent)
            F.max(F.when(F.col("parent").isNotNull(), F.struct("time", "parent"))).getField("parent").alias("parent"),
            F.count(F.lit(1)).alias("events"),
        )
        .withColumn(
            "state",
            F.coalesce(F.col("terminal.event_type"), F.when(F.col("active"), F.lit(RUNNING)), F.lit(OTHER)),
        )
        .drop("terminal", "active")
    )


def _run_parts(facts: Any) -> _RunParts:
    """Counts over all runs on Spark; only each job's latest runs and the latest failures collected."""
    runs = _run_summaries(facts).persist()
    try:
        job_totals: dict[JobKey, dict[str, int]] = {}
        for r in runs.groupBy("job_namespace", "job_name", "state").count().collect():
            job_totals.setdefault((r[0], r[1]), {})[r[2]] = r[3]
        # RunSummary.order_key, latest first; a run without a time sorts as NO_TIME
        window = Window.partitionBy("job_namespace", "job_name").orderBy(
            F.coalesce(F.col("start"), F.lit(NO_TIME)).desc(), F.col("last").desc(), F.col("run_id").desc()
        )
        latest = runs.withColumn("position", F.row_number().over(window)).where(F.col("position") <= RUN_HISTORY)
        latest_first = [F.desc_nulls_last("start"), F.desc("last"), F.desc("run_id")]
        failed = (
            runs.where(F.col("state") == FAIL)
            .orderBy(*latest_first, F.desc("job_namespace"), F.desc("job_name"))
            .limit(FAILED_RUNS)
        )
        return _RunParts(latest=_run_list(latest), job_totals=job_totals, failed=_run_list(failed))
    finally:
        runs.unpersist()


def _run_list(frame: Any) -> list[tuple[str, str, RunSummary]]:
    return [(r["job_namespace"], r["job_name"], _run_summary(r)) for r in frame.collect()]
