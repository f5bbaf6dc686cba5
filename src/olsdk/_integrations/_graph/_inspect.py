"""`olsdk inspect`: a terminal summary of a `LineageGraph` (text, or JSON)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from olsdk._integrations._graph._model import LineageGraph

__all__ = ["dataset_label", "inspect_data", "inspect_text", "job_label", "plural"]


def plural(count: int, noun: str) -> str:
    """``1 event``, ``2 events``, ``1,024 datasets``."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def job_label(namespace: str, name: str) -> str:
    return f"{namespace}/{name}"


def dataset_label(namespace: str, name: str) -> str:
    # "s3://bucket" + "a/b" reads as a URI; "file" + "/tmp/x" as file:/tmp/x
    return f"{namespace}/{name.lstrip('/')}" if "://" in namespace else f"{namespace}:{name}"


def _when(time: str) -> str:
    return time.replace("T", " ").rsplit(".", 1)[0] + " UTC" if time else "unknown time"


def _counts(counts: dict[str, int]) -> str:
    return " · ".join(f"{key} {value}" for key, value in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def _limited(lines: list[str], limit: int) -> Iterable[str]:
    yield from lines[:limit]
    if len(lines) > limit:
        yield f"  … and {len(lines) - limit} more (--limit)"


def inspect_data(graph: LineageGraph, sources: list[str]) -> dict[str, Any]:
    """The JSON form: the counts first, then the whole graph."""
    return {
        "sources": sources,
        "summary": {
            "events": sum(graph.events.values()),
            "events_by_kind": dict(sorted(graph.events.items())),
            "unreadable": graph.unreadable_total,
            "jobs": len(graph.jobs),
            "datasets": len(graph.datasets),
            "runs": sum(graph.runs_by_state.values()),
            "edges": len(graph.edges),
        },
        **graph.to_dict(),
    }


def inspect_text(graph: LineageGraph, sources: list[str], limit: int = 50) -> str:
    """Jobs, datasets, runs by state, failed runs, edges, producers, facet keys, problems."""
    total = sum(graph.events.values())
    source_text = sources[0] if len(sources) == 1 else f"{len(sources)} sources"
    lines = [f"{plural(total, 'event')} read from {source_text}, {graph.unreadable_total:,} not readable"]
    lines.append(f"  events:    {_counts(graph.events) or 'none'}")
    lines.append(f"  jobs:      {len(graph.jobs):,}")
    lines.append(f"  datasets:  {len(graph.datasets):,}")
    runs = sum(graph.runs_by_state.values())
    lines.append(f"  runs:      {runs:,}" + (f" ({_counts(graph.runs_by_state)})" if runs else ""))
    lines.append(f"  edges:     {len(graph.edges):,} (dataset -> job -> dataset)")

    # Tables put their fixed-width columns first and the name last, so that a long name
    # never pushes the columns of its row out of line.
    if graph.jobs:
        lines += ["", "Jobs:", f"  {'latest run':<10}  {'runs':>6}  job"]
        rows = [
            f"  {j.state or 'no runs':<10}  {j.runs_total:>6,}  {job_label(j.namespace, j.name)}" for j in graph.jobs
        ]
        lines += _limited(rows, limit)
    if graph.datasets:
        lines += ["", "Datasets (fields, column lineage inputs):"]
        rows = []
        for d in graph.datasets:
            extra = f"  {plural(len(d.fields), 'field')}" if d.fields else ""
            extra += f", {plural(len(d.columns), 'column input')}" if d.columns else ""
            rows.append(f"  {dataset_label(d.namespace, d.name)}{extra}")
        lines += _limited(rows, limit)
    if graph.failed_runs:
        lines += ["", "Failed runs (latest first):"]
        rows = []
        for ns, name, run in graph.failed_runs:
            rows.append(f"  {_when(run.last):<23}  run {run.run_id:<36}  {job_label(ns, name)}")
            for message_line in (run.error or "(no error message)").splitlines()[:5]:
                rows.append(f"      {message_line}")
        lines += _limited(rows, limit * 3)
    if graph.edges:
        lines += ["", "Edges:"]
        rows = []
        for e in graph.edges:
            job = job_label(e.job_namespace, e.job_name)
            ds = dataset_label(e.dataset_namespace, e.dataset_name)
            rows.append(f"  {ds} -> {job}" if e.direction == "input" else f"  {job} -> {ds}")
        lines += _limited(rows, limit)
    for title, counts in (("Producers", graph.producers), ("Facet keys (events)", graph.facet_keys)):
        if counts:
            lines += ["", f"{title}:"]
            ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
            lines += _limited([f"  {count:>9,}  {key}" for key, count in ordered], limit)
    if graph.unreadable:
        lines += ["", "Not readable:"]
        lines += [f"  {count:>9,}  {reason}" for reason, count in sorted(graph.unreadable.items())]
        lines += [f"             {location}: {reason}" for location, reason in graph.unreadable_samples]
    if graph.notes:
        lines += ["", "Left out of readable events:"]
        lines += [f"  {count:>9,}  {reason}" for reason, count in sorted(graph.notes.items())]
    return "\n".join(lines) + "\n"
