"""The lineage graph of a set of events: jobs, datasets, edges, runs, column lineage.

:class:`GraphBuilder` folds events one at a time (one process); `olsdk.spark` builds
the same :class:`LineageGraph` from aggregates computed on Spark. The rules both
follow, so that they agree:

* a run's state is its latest terminal event (COMPLETE, FAIL, ABORT; at the same
  instant FAIL > ABORT > COMPLETE), else RUNNING when it has a START or RUNNING
  event, else OTHER; its error message is the latest one of its events;
* a job's runs are ordered latest first by (start, last event, run id), its state is
  that of its latest run, and the page keeps its :data:`RUN_HISTORY` latest runs;
* a dataset's fields come from the schema facet of its latest event that has one
  (ties broken by the fields' text); column lineage is the union over all events;
* a run's parent is the parent run facet of its latest event that has one; a parent
  job -> child job link is the union over all events (a job is never its own parent
  link), and the parent job is a node even without events of its own.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final

from olsdk._integrations._graph._facts import (
    ACTIVE_TYPES,
    FAIL,
    NO_TIME,
    OTHER,
    STATE_RANK,
    TERMINAL_TYPES,
    ColumnEdge,
    EventFacts,
    extract,
)
from olsdk._integrations._graph._read import ReadItem

__all__ = [
    "FAILED_RUNS",
    "RUNNING",
    "RUN_HISTORY",
    "UNREADABLE_SAMPLES",
    "DatasetNode",
    "Edge",
    "GraphBuilder",
    "JobNode",
    "LineageGraph",
    "ParentLink",
    "RunSummary",
    "build_graph",
]

RUN_HISTORY: Final = 1000  # runs kept per job: its history on the page (beyond: counted only)
FAILED_RUNS: Final = 100
UNREADABLE_SAMPLES: Final = 20
RUNNING: Final = "RUNNING"

DatasetKey = tuple[str, str]
JobKey = tuple[str, str]


@dataclass(frozen=True, slots=True)
class Edge:
    """``input``: dataset -> job; ``output``: job -> dataset."""

    direction: str
    job_namespace: str
    job_name: str
    dataset_namespace: str
    dataset_name: str

    @property
    def job_key(self) -> JobKey:
        return (self.job_namespace, self.job_name)

    @property
    def dataset_key(self) -> DatasetKey:
        return (self.dataset_namespace, self.dataset_name)


@dataclass(frozen=True, slots=True, order=True)
class ParentLink:
    """A run of the parent job started (or scheduled) a run of the child job (the parent run facet)."""

    parent_namespace: str
    parent_name: str
    child_namespace: str
    child_name: str

    @property
    def parent_key(self) -> JobKey:
        return (self.parent_namespace, self.parent_name)

    @property
    def child_key(self) -> JobKey:
        return (self.child_namespace, self.child_name)


@dataclass(frozen=True, slots=True)
class RunSummary:
    run_id: str
    state: str
    start: str  # canonical UTC time of its first event ("" when none had a time)
    last: str  # canonical UTC time of its latest event
    error: str | None
    events: int
    parent: tuple[str, str, str] | None = None  # its parent run: job namespace, job name, run id

    def order_key(self) -> tuple[str, str, str]:
        return (self.start, self.last, self.run_id)


@dataclass(slots=True)
class JobNode:
    namespace: str
    name: str
    state: str | None = None  # of the latest run; None for a job without runs
    runs_total: int = 0
    state_counts: dict[str, int] = field(default_factory=dict)
    runs: list[RunSummary] = field(default_factory=list)  # latest first, at most RUN_HISTORY

    @property
    def key(self) -> JobKey:
        return (self.namespace, self.name)


@dataclass(slots=True)
class DatasetNode:
    namespace: str
    name: str
    fields: list[tuple[str, str]] = field(default_factory=list)  # (name, type)
    columns: list[ColumnEdge] = field(default_factory=list)

    @property
    def key(self) -> DatasetKey:
        return (self.namespace, self.name)


@dataclass(slots=True)
class LineageGraph:
    jobs: list[JobNode] = field(default_factory=list)
    datasets: list[DatasetNode] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    parents: list[ParentLink] = field(default_factory=list)
    events: dict[str, int] = field(default_factory=dict)  # readable events by kind
    unreadable: dict[str, int] = field(default_factory=dict)  # unreadable events by reason
    unreadable_samples: list[tuple[str, str]] = field(default_factory=list)  # (location, reason)
    notes: dict[str, int] = field(default_factory=dict)  # parts of readable events left out
    runs_by_state: dict[str, int] = field(default_factory=dict)
    failed_runs: list[tuple[str, str, RunSummary]] = field(default_factory=list)  # job ns, job name, run
    producers: dict[str, int] = field(default_factory=dict)
    facet_keys: dict[str, int] = field(default_factory=dict)  # "entity:key" -> events

    @property
    def unreadable_total(self) -> int:
        return sum(self.unreadable.values())

    def to_dict(self, samples: bool = True) -> dict[str, Any]:
        """Plain JSON data; `samples` False leaves out where unreadable lines were."""
        data: dict[str, Any] = {
            "jobs": [
                {
                    "namespace": j.namespace,
                    "name": j.name,
                    "state": j.state,
                    "runs_total": j.runs_total,
                    "state_counts": dict(sorted(j.state_counts.items())),
                    "runs": [_run_dict(r) for r in j.runs],
                }
                for j in self.jobs
            ],
            "datasets": [
                {
                    "namespace": d.namespace,
                    "name": d.name,
                    "fields": [list(f) for f in d.fields],
                    "columns": [_column_dict(c) for c in d.columns],
                }
                for d in self.datasets
            ],
            "edges": [
                {
                    "direction": e.direction,
                    "job": {"namespace": e.job_namespace, "name": e.job_name},
                    "dataset": {"namespace": e.dataset_namespace, "name": e.dataset_name},
                }
                for e in self.edges
            ],
            "parents": [
                {
                    "parent": {"namespace": link.parent_namespace, "name": link.parent_name},
                    "child": {"namespace": link.child_namespace, "name": link.child_name},
                }
                for link in self.parents
            ],
            "events": dict(sorted(self.events.items())),
            "unreadable": dict(sorted(self.unreadable.items())),
            "notes": dict(sorted(self.notes.items())),
            "runs_by_state": dict(sorted(self.runs_by_state.items())),
            "failed_runs": [
                {"job": {"namespace": ns, "name": name}, **_run_dict(run)} for ns, name, run in self.failed_runs
            ],
            "producers": dict(sorted(self.producers.items())),
            "facet_keys": dict(sorted(self.facet_keys.items())),
        }
        if samples:
            data["unreadable_samples"] = [{"location": loc, "problem": why} for loc, why in self.unreadable_samples]
        return data


def _run_dict(run: RunSummary) -> dict[str, Any]:
    return {
        "run_id": run.run_id,
        "state": run.state,
        "start": run.start,
        "last": run.last,
        "error": run.error,
        "events": run.events,
        "parent": None
        if run.parent is None
        else {"namespace": run.parent[0], "name": run.parent[1], "run_id": run.parent[2]},
    }


def _column_dict(column: ColumnEdge) -> dict[str, Any]:
    return {
        "field": column.field,
        "upstream": {"namespace": column.upstream_namespace, "name": column.upstream_name},
        "upstream_field": column.upstream_field,
        "transformation": column.transformation,
    }


def run_state(terminal: tuple[str, int, str] | None, active: bool) -> str:
    """The state rule of the module docstring; `terminal` is the max (time, rank, type)."""
    if terminal is not None:
        return terminal[2]
    return RUNNING if active else OTHER


@dataclass(slots=True)
class _RunAccumulator:
    start: str | None = None
    last: str = NO_TIME
    terminal: tuple[str, int, str] | None = None
    active: bool = False
    error: tuple[str, str] | None = None
    parent: tuple[str, tuple[str, str, str]] | None = None
    events: int = 0

    def add(self, facts: EventFacts) -> None:
        time = facts.time
        self.events += 1
        if time != NO_TIME and (self.start is None or time < self.start):
            self.start = time
        self.last = max(self.last, time)
        event_type = facts.event_type or OTHER
        if event_type in TERMINAL_TYPES:
            candidate = (time, STATE_RANK[event_type], event_type)
            if self.terminal is None or candidate > self.terminal:
                self.terminal = candidate
        elif event_type in ACTIVE_TYPES:
            self.active = True
        if facts.error is not None:
            candidate_error = (time, facts.error)
            if self.error is None or candidate_error > self.error:
                self.error = candidate_error
        if facts.parent is not None:
            candidate_parent = (time, facts.parent)
            if self.parent is None or candidate_parent > self.parent:
                self.parent = candidate_parent

    def summary(self, run_id: str) -> RunSummary:
        return RunSummary(
            run_id=run_id,
            state=run_state(self.terminal, self.active),
            start=self.start or NO_TIME,
            last=self.last,
            error=None if self.error is None else self.error[1],
            events=self.events,
            parent=None if self.parent is None else self.parent[1],
        )


class GraphBuilder:
    """Folds read events into a `LineageGraph` in one process."""

    def __init__(self) -> None:
        self._jobs: set[JobKey] = set()
        self._datasets: set[DatasetKey] = set()
        self._edges: set[Edge] = set()
        self._parents: set[ParentLink] = set()
        self._runs: dict[tuple[str, str, str], _RunAccumulator] = {}
        self._fields: dict[DatasetKey, tuple[str, str]] = {}
        self._columns: set[tuple[str, str, ColumnEdge]] = set()
        self._events: Counter[str] = Counter()
        self._unreadable: Counter[str] = Counter()
        self._samples: list[tuple[str, str]] = []
        self._notes: Counter[str] = Counter()
        self._producers: Counter[str] = Counter()
        self._facet_keys: Counter[str] = Counter()

    def add_item(self, item: ReadItem) -> None:
        if item.event is None:
            self.add_unreadable(item.location, item.problem or "unreadable")
        else:
            self.add(extract(item.event))

    def add_unreadable(self, location: str, problem: str) -> None:
        self._unreadable[problem] += 1
        if len(self._samples) < UNREADABLE_SAMPLES:
            self._samples.append((location, problem))

    def add(self, facts: EventFacts) -> None:
        self._events[facts.kind] += 1
        self._notes.update(facts.notes)
        if facts.producer is not None:
            self._producers[facts.producer] += 1
        self._facet_keys.update(facts.facet_keys)
        if facts.job is not None:
            self._jobs.add(facts.job)
            job_ns, job_name = facts.job
            for direction, datasets in (("input", facts.inputs), ("output", facts.outputs)):
                for ds_ns, ds_name in datasets:
                    self._edges.add(Edge(direction, job_ns, job_name, ds_ns, ds_name))
            if facts.parent is not None and facts.parent[:2] != facts.job:
                self._parents.add(ParentLink(facts.parent[0], facts.parent[1], job_ns, job_name))
            if facts.run_id is not None:
                key = (job_ns, job_name, facts.run_id)
                accumulator = self._runs.get(key)
                if accumulator is None:
                    accumulator = self._runs[key] = _RunAccumulator()
                accumulator.add(facts)
        for dataset in facts.datasets:
            key_ds = (dataset.namespace, dataset.name)
            self._datasets.add(key_ds)
            if dataset.fields is not None:
                candidate = (facts.time, dataset.fields)
                current = self._fields.get(key_ds)
                if current is None or candidate > current:
                    self._fields[key_ds] = candidate
            for column in dataset.columns:
                self._columns.add((dataset.namespace, dataset.name, column))

    def finish(self) -> LineageGraph:
        runs = [(ns, name, acc.summary(run_id)) for (ns, name, run_id), acc in self._runs.items()]
        return build_from_parts(
            jobs=self._jobs,
            datasets=self._datasets,
            edges=self._edges,
            parents=self._parents,
            runs=runs,
            fields={key: value[1] for key, value in self._fields.items()},
            columns=self._columns,
            events=dict(self._events),
            unreadable=dict(self._unreadable),
            unreadable_samples=list(self._samples),
            notes=dict(self._notes),
            producers=dict(self._producers),
            facet_keys=dict(self._facet_keys),
        )


def build_from_parts(
    *,
    jobs: Iterable[JobKey],
    datasets: Iterable[DatasetKey],
    edges: Iterable[Edge],
    runs: Iterable[tuple[str, str, RunSummary]],
    fields: dict[DatasetKey, str],
    columns: Iterable[tuple[str, str, ColumnEdge]],
    events: dict[str, int],
    unreadable: dict[str, int],
    unreadable_samples: list[tuple[str, str]],
    notes: dict[str, int],
    producers: dict[str, int],
    facet_keys: dict[str, int],
    runs_by_state: dict[str, int] | None = None,
    job_totals: dict[JobKey, dict[str, int]] | None = None,
    failed_runs: list[tuple[str, str, RunSummary]] | None = None,
    parents: Iterable[ParentLink] = (),
) -> LineageGraph:
    """A `LineageGraph` from aggregated parts, sorted so that equal inputs give equal graphs.

    The one-process builder passes every run; the Spark path passes only each job's
    latest runs, with the counts it computed over all runs (`runs_by_state`,
    `job_totals`: runs per state per job, `failed_runs`: the latest failed runs).
    """
    edge_list = sorted(set(edges), key=_edge_order)
    runs_by_job: dict[JobKey, list[RunSummary]] = {}
    for ns, name, run in runs:
        runs_by_job.setdefault((ns, name), []).append(run)
    if job_totals is None:
        job_totals = {key: dict(Counter(run.state for run in job_runs)) for key, job_runs in runs_by_job.items()}
    if runs_by_state is None:
        states: Counter[str] = Counter()
        for totals in job_totals.values():
            states.update(totals)
        runs_by_state = dict(states)
    if failed_runs is None:
        failed_runs = [
            (ns, name, run) for (ns, name), job_runs in runs_by_job.items() for run in job_runs if run.state == FAIL
        ]
    parent_list = sorted({link for link in parents if link.parent_key != link.child_key})
    # an edge names its job and dataset, a link its jobs: they are nodes even without an event of their own
    job_keys = {*jobs, *runs_by_job, *(e.job_key for e in edge_list)}
    job_keys |= {link.parent_key for link in parent_list} | {link.child_key for link in parent_list}
    dataset_keys = {*datasets, *(e.dataset_key for e in edge_list)}
    return LineageGraph(
        jobs=_job_nodes(job_keys, runs_by_job, job_totals),
        datasets=_dataset_nodes(dataset_keys, fields, columns),
        edges=edge_list,
        parents=parent_list,
        events=dict(events),
        unreadable=dict(unreadable),
        unreadable_samples=list(unreadable_samples),
        notes=dict(notes),
        runs_by_state=dict(sorted(runs_by_state.items())),
        failed_runs=sorted(failed_runs, key=lambda f: (f[2].order_key(), f[0], f[1]), reverse=True)[:FAILED_RUNS],
        producers=dict(producers),
        facet_keys=dict(facet_keys),
    )


def _job_nodes(
    keys: set[JobKey], runs_by_job: dict[JobKey, list[RunSummary]], job_totals: dict[JobKey, dict[str, int]]
) -> list[JobNode]:
    """Jobs in key order, each with its latest runs and its run counts over all runs."""
    nodes: list[JobNode] = []
    for key in sorted(keys):
        job_runs = sorted(runs_by_job.get(key, []), key=RunSummary.order_key, reverse=True)[:RUN_HISTORY]
        totals = job_totals.get(key, {})
        nodes.append(
            JobNode(
                namespace=key[0],
                name=key[1],
                state=job_runs[0].state if job_runs else None,
                runs_total=sum(totals.values()),
                state_counts=dict(sorted(totals.items())),
                runs=job_runs,
            )
        )
    return nodes


def _dataset_nodes(
    keys: set[DatasetKey], fields: dict[DatasetKey, str], columns: Iterable[tuple[str, str, ColumnEdge]]
) -> list[DatasetNode]:
    """Datasets in key order (a column lineage's target is one too), with fields and columns."""
    columns_by_dataset: dict[DatasetKey, set[ColumnEdge]] = {}
    for ns, name, column in columns:
        columns_by_dataset.setdefault((ns, name), set()).add(column)
    return [
        DatasetNode(
            namespace=key[0],
            name=key[1],
            fields=[(str(f[0]), str(f[1])) for f in json.loads(fields[key])] if key in fields else [],
            columns=sorted(columns_by_dataset.get(key, ()), key=_column_order),
        )
        for key in sorted(keys | set(columns_by_dataset))
    ]


def _edge_order(edge: Edge) -> tuple[str, str, str, str, str]:
    return (edge.job_namespace, edge.job_name, edge.direction, edge.dataset_namespace, edge.dataset_name)


def _column_order(column: ColumnEdge) -> tuple[str, str, str, str, str]:
    return (
        column.field or "",
        column.upstream_namespace,
        column.upstream_name,
        column.upstream_field or "",
        column.transformation,
    )


def build_graph(items: Iterable[ReadItem]) -> LineageGraph:
    """The `LineageGraph` of read events (see `_read.read_events`)."""
    builder = GraphBuilder()
    for item in items:
        builder.add_item(item)
    return builder.finish()
