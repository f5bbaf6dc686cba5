"""Marquez's read API over the store, in Marquez's shapes (its spec/openapi.yml).

Namespaces, jobs (the latest updated first, with their latest runs), runs (state, times,
facets, the dataset versions they read and wrote: `_run_datasets`), datasets (fields from
the latest `schema` facet), raw events, and the lineage graph
(``GET /api/v1/lineage?nodeId=...&depth=...``); tags are the keys of the ``tags`` facets.
Where olsdk keeps less than Marquez (no owners) the field is there, empty. Times are the
events' own, as Marquez stamps them: ``createdAt`` when the first event happened
(``eventTime``), ``updatedAt`` when the latest did.

Differences, on purpose: a job's inputs and outputs are every dataset any of its
events named (Marquez: those of its current version); a lineage query from a dataset
starts from every job that reads or writes it (Marquez: one of them).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from typing import Any, Final

from sqlalchemy import func, or_, select
from sqlalchemy.engine import Connection

from olsdk._builders.facets._base import key_of
from olsdk._integrations.serve import _schema as t
from olsdk._integrations.serve._run_datasets import _fields, _text_of, fill_dataset_versions, tag_names
from olsdk._integrations.serve._store import Store, run_summary
from olsdk._models import (
    DatasourceDatasetFacet,
    DocumentationDatasetFacet,
    DocumentationJobFacet,
    NominalTimeRunFacet,
    SourceCodeLocationJobFacet,
)
from olsdk._models._release import spec_class

__all__ = [
    "NotFound",
    "dataset",
    "datasets",
    "events",
    "job",
    "job_listing",
    "jobs",
    "lineage",
    "namespace",
    "namespaces",
    "run",
    "run_states",
    "runs",
    "tag_names",
]

# the graph's run states in Marquez's words (NEW: a run with no START/RUNNING/terminal event)
_STATES: Final = {
    "COMPLETE": "COMPLETED",
    "FAIL": "FAILED",
    "ABORT": "ABORTED",
    "RUNNING": "RUNNING",
    "OTHER": "NEW",
}
_LATEST_RUNS: Final = 10
_DATA_SOURCE: Final = key_of(DatasourceDatasetFacet)
_DATASET_DOCS: Final = key_of(DocumentationDatasetFacet)
_JOB_DOCS: Final = key_of(DocumentationJobFacet)
log = logging.getLogger("olsdk.serve")
# a release without the job type facet (before 1.6.0: spec/releases/history.json) serves every job as BATCH
_JOB_TYPE_FACET = spec_class(
    "JobTypeJobFacet", feature="a job's type (STREAM or BATCH) in Marquez's job shape", logger=log
)
_JOB_TYPE: Final = key_of(_JOB_TYPE_FACET) if _JOB_TYPE_FACET is not None else None
_SOURCE_CODE: Final = key_of(SourceCodeLocationJobFacet)
_NOMINAL_TIME: Final = key_of(NominalTimeRunFacet)


class NotFound(LookupError):
    """No such namespace, job, dataset, run or node: a 404 with this message."""


class TooLarge(ValueError):
    """A page whose stored JSON is over the answer's limit: a 400 saying how many items fit."""


def _fit(conn: Connection, sizes: Any, cap: int, what: str) -> None:
    """Refuse a page before reading it when the stored JSON of its items (`sizes`: a query of
    one length per item, in page order) is over `cap` bytes; one item is always answered."""
    total = 0
    lengths = [int(size or 0) for size in conn.execute(sizes).scalars()]
    for count, size in enumerate(lengths):
        total += size
        if total > cap and count > 0:
            raise TooLarge(
                f"the {len(lengths)} {what} asked for hold over {cap / (1024 * 1024):g} MB of stored JSON, "
                f"more than one answer holds: ask for {count} or fewer (limit={count})"
            )


def _time(value: str | None) -> str | None:
    return value if value else None


def _page(query: Any, limit: int, offset: int) -> Any:
    return query.limit(max(0, limit)).offset(max(0, offset))


# ---------------------------------------------------------------- namespaces


def _namespace(row: Any) -> dict[str, Any]:
    return {
        "name": row.name,
        "createdAt": row.created_at,
        "updatedAt": row.updated_at,
        "ownerName": "anonymous",
        "description": None,
        "isHidden": False,
    }


def namespaces(store: Store, limit: int, offset: int) -> dict[str, Any]:
    with store.engine.connect() as conn:
        query = select(t.namespaces).order_by(t.namespaces.c.name)
        rows = conn.execute(_page(query, limit, offset))
        total = conn.execute(select(func.count()).select_from(t.namespaces)).scalar() or 0
        return {"namespaces": [_namespace(r) for r in rows], "totalCount": total}


def namespace(store: Store, name: str) -> dict[str, Any]:
    with store.engine.connect() as conn:
        row = conn.execute(select(t.namespaces).where(t.namespaces.c.key == t.name_key(name))).first()
    if row is None:
        raise NotFound(f"namespace '{name}' not found")
    return _namespace(row)


# ---------------------------------------------------------------- runs


def _run(row: Any) -> dict[str, Any]:
    summary = run_summary(row)
    facets = json.loads(row.facets)
    nominal = facets.get(_NOMINAL_TIME)
    started = _time(summary.start)
    ended = row.terminal_time if row.terminal_type is not None else None
    duration = None
    if started and ended:
        duration = _millis(ended) - _millis(started)
    return {
        "id": row.run_id,
        "createdAt": row.created_at,
        "updatedAt": row.updated_at,
        "nominalStartTime": _text_of(nominal, "nominalStartTime"),
        "nominalEndTime": _text_of(nominal, "nominalEndTime"),
        "state": _STATES.get(summary.state, "NEW"),
        "startedAt": started,
        "endedAt": _time(ended),
        "durationMs": duration,
        "args": {},
        "jobVersion": {"namespace": row.job_namespace, "name": row.job_name, "version": None},
        "inputDatasetVersions": [],
        "outputDatasetVersions": [],
        "context": {},
        "facets": facets,
    }


def _millis(canonical: str) -> int:
    from datetime import datetime

    return int(datetime.fromisoformat(canonical.replace("Z", "+00:00")).timestamp() * 1000)


def _runs_query(job_key: str) -> Any:
    # latest first, as the page orders them: by first event time, then last, then run id
    return select(t.runs).where(t.runs.c.job_key == job_key).order_by(*t.RUN_ORDER)


def runs(store: Store, namespace_name: str, job_name: str, limit: int, offset: int) -> dict[str, Any]:
    job_key = t.name_key(namespace_name, job_name)
    with store.engine.connect() as conn:
        _job_row(conn, namespace_name, job_name)
        sizes = _page(_runs_query(job_key).with_only_columns(func.length(t.runs.c.facets)), limit, offset)
        _fit(conn, sizes, store.max_response_bytes, "runs")
        listed = [(r.job_key, _run(r)) for r in conn.execute(_page(_runs_query(job_key), limit, offset))]
        fill_dataset_versions(conn, listed)
        total = conn.execute(select(func.count()).select_from(t.runs).where(t.runs.c.job_key == job_key)).scalar()
        return {"runs": [found for _key, found in listed], "totalCount": total or 0}


def run(store: Store, run_id: str) -> dict[str, Any]:
    with store.engine.connect() as conn:
        row = conn.execute(
            select(t.runs).where(t.runs.c.run_key == t.name_key(run_id)).order_by(t.runs.c.last_time.desc())
        ).first()
        if row is None:
            raise NotFound(f"run '{run_id}' not found")
        found = _run(row)
        fill_dataset_versions(conn, [(row.job_key, found)])
        return found


# ---------------------------------------------------------------- jobs


def _job_row(conn: Connection, namespace_name: str, name: str) -> Any:
    row = conn.execute(select(t.jobs).where(t.jobs.c.key == t.name_key(namespace_name, name))).first()
    if row is None:
        raise NotFound(f"job '{name}' in namespace '{namespace_name}' not found")
    return row


def _io(conn: Connection, job_keys: list[str]) -> dict[str, dict[str, list[dict[str, str]]]]:
    found: dict[str, dict[str, list[dict[str, str]]]] = {k: {"input": [], "output": []} for k in job_keys}
    if not job_keys:
        return found
    query = (
        select(t.edges)
        .where(t.edges.c.job_key.in_(job_keys))
        .order_by(t.edges.c.dataset_namespace, t.edges.c.dataset_name)
    )
    for edge in conn.execute(query):
        found[edge.job_key][edge.direction].append({"namespace": edge.dataset_namespace, "name": edge.dataset_name})
    return found


def _place_in_job() -> Any:
    """A run's place among its job's runs, latest first (1 is the latest), as a job's page orders them."""
    runs_table = t.runs.c
    return (
        func.row_number()
        .over(
            partition_by=runs_table.job_key,
            order_by=t.RUN_ORDER,
        )
        .label("place")
    )


def _latest_runs(conn: Connection, job_keys: list[str]) -> dict[str, list[dict[str, Any]]]:
    """Each job's latest runs, latest first: one query for all of them (and one for their datasets)."""
    found: dict[str, list[dict[str, Any]]] = {key: [] for key in job_keys}
    runs_table = t.runs.c
    for start in range(0, len(job_keys), 500):
        place = _place_in_job()
        ranked = select(t.runs, place).where(runs_table.job_key.in_(job_keys[start : start + 500])).subquery()
        query = select(ranked).where(ranked.c.place <= _LATEST_RUNS).order_by(ranked.c.job_key, ranked.c.place)
        for row in conn.execute(query):
            found[row.job_key].append(_run(row))
    fill_dataset_versions(conn, ((key, run) for key, runs in found.items() for run in runs))
    return found


def _job_order(jobs: Any) -> list[Any]:
    """The order of job listings, as Marquez's: the latest updated first, then by namespace and
    name, so that pages do not overlap or skip jobs updated at the same time."""
    return [jobs.updated_at.desc(), jobs.namespace, jobs.name]


def _job_sizes(page: Any) -> Any:
    """Each job's facets and its latest runs' facets, in bytes (about), in page order."""
    jobs_page = page.subquery()
    runs_table = t.runs.c
    place = _place_in_job()
    ranked = select(runs_table.job_key, func.length(runs_table.facets).label("size"), place).subquery()
    latest = (
        select(ranked.c.job_key, func.sum(ranked.c.size).label("size"))
        .where(ranked.c.place <= _LATEST_RUNS)
        .group_by(ranked.c.job_key)
        .subquery()
    )
    return (
        select(func.length(jobs_page.c.facets) + func.coalesce(latest.c.size, 0))
        .select_from(jobs_page.outerjoin(latest, latest.c.job_key == jobs_page.c.key))
        .order_by(*_job_order(jobs_page.c))
    )


def _parents(conn: Connection, rows: list[Any]) -> dict[str, str]:
    """Each job's parent job (its runs' parent run facet), by job key: the first by name when several."""
    found: dict[str, str] = {}
    names = sorted({r.name for r in rows})
    links = t.parent_links.c
    for start in range(0, len(names), 500):
        query = select(t.parent_links).where(links.child_name.in_(names[start : start + 500]))
        for link in conn.execute(query.order_by(links.parent_namespace, links.parent_name)):
            found.setdefault(t.name_key(link.child_namespace, link.child_name), link.parent_name)
    return found


def _jobs(conn: Connection, rows: list[Any]) -> list[dict[str, Any]]:
    keys = [r.key for r in rows]
    io = _io(conn, keys)
    latest_runs = _latest_runs(conn, keys)
    parents = _parents(conn, rows)
    out = []
    for row in rows:
        latest = latest_runs[row.key]
        facets = json.loads(row.facets)
        job_type = _text_of(facets.get(_JOB_TYPE), "processingType") if _JOB_TYPE else None
        out.append(
            {
                "id": {"namespace": row.namespace, "name": row.name},
                "type": "STREAM" if job_type == "STREAMING" else "BATCH",
                "name": row.name,
                "simpleName": row.name.rsplit(".", 1)[-1],
                "parentJobName": parents.get(row.key),
                "parentJobUuid": None,
                "createdAt": row.created_at,
                "updatedAt": row.updated_at,
                "namespace": row.namespace,
                "inputs": io[row.key]["input"],
                "outputs": io[row.key]["output"],
                "location": _text_of(facets.get(_SOURCE_CODE), "url"),
                "context": {},
                "description": _text_of(facets.get(_JOB_DOCS), "description"),
                "latestRun": latest[0] if latest else None,
                "latestRuns": latest or None,  # as Marquez: none for a job without runs
                "facets": facets,
                "currentVersion": None,
                "labels": [],
                "tags": tag_names(facets),
            }
        )
    return out


def run_states(values: Iterable[str]) -> frozenset[str] | None:
    """The graph's run states of Marquez's ``lastRunStates`` (NEW, RUNNING, COMPLETED, ABORTED,
    FAILED; repeated or comma-separated); None when they name every state (no filter)."""
    marquez_to_graph = {marquez: graph for graph, marquez in _STATES.items()}
    chosen = set()
    for value in values:
        for word in value.split(","):
            word = word.strip().upper()
            if not word:
                continue
            if word not in marquez_to_graph:
                raise ValueError(f"lastRunStates={word[:40]!r}: must be one of {', '.join(sorted(marquez_to_graph))}")
            chosen.add(marquez_to_graph[word])
    return frozenset(chosen) if chosen and len(chosen) < len(marquez_to_graph) else None


def _jobs_in_states(where: list[Any], states: frozenset[str] | None) -> Any:
    """The jobs `where` selects, kept to those whose latest run is in `states` and those
    without runs (as Marquez filters ``lastRunStates``)."""
    if states is None:
        return select(t.jobs).where(*where)
    runs_table = t.runs.c
    place = _place_in_job()
    ranked = select(runs_table.job_key, runs_table.state, place).subquery()
    latest = select(ranked.c.job_key, ranked.c.state).where(ranked.c.place == 1).subquery()
    joined = t.jobs.outerjoin(latest, latest.c.job_key == t.jobs.c.key)
    return (
        select(t.jobs)
        .select_from(joined)
        .where(*where, or_(latest.c.state.in_(sorted(states)), latest.c.job_key.is_(None)))
    )


def job_listing(
    store: Store, where: list[Any], limit: int, offset: int, states: frozenset[str] | None
) -> dict[str, Any]:
    """A page of the jobs `where` selects (the latest updated first), with their total."""
    with store.engine.connect() as conn:
        chosen = _jobs_in_states(where, states)
        query = chosen.order_by(*_job_order(t.jobs.c))
        _fit(conn, _job_sizes(_page(query, limit, offset)), store.max_response_bytes, "jobs")
        rows = list(conn.execute(_page(query, limit, offset)))
        total = conn.execute(chosen.with_only_columns(func.count(), maintain_column_froms=True)).scalar()
        return {"jobs": _jobs(conn, rows), "totalCount": total or 0}


def jobs(
    store: Store, namespace_name: str, limit: int, offset: int, states: frozenset[str] | None = None
) -> dict[str, Any]:
    where = [t.jobs.c.namespace_key == t.name_key(namespace_name)]
    return job_listing(store, where, limit, offset, states)


def job(store: Store, namespace_name: str, name: str) -> dict[str, Any]:
    with store.engine.connect() as conn:
        return _jobs(conn, [_job_row(conn, namespace_name, name)])[0]


# ---------------------------------------------------------------- datasets


def _dataset_extras(conn: Connection, keys: list[str]) -> dict[str, tuple[str | None, list[dict[str, Any]] | None]]:
    """Each dataset's ``lastModifiedAt`` (the latest completion of a job that writes it, as
    Marquez takes its last write) and ``columnLineage`` (its fields' input fields)."""
    modified: dict[str, str] = {}
    lineage: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for start in range(0, len(keys), 500):
        chunk = keys[start : start + 500]
        query = (
            select(t.edges.c.dataset_key, func.max(t.runs.c.terminal_time).label("at"))
            .join(t.runs, t.runs.c.job_key == t.edges.c.job_key)
            .where(
                t.edges.c.dataset_key.in_(chunk), t.edges.c.direction == "output", t.runs.c.terminal_type == "COMPLETE"
            )
            .group_by(t.edges.c.dataset_key)
        )
        modified.update({row.dataset_key: row.at for row in conn.execute(query) if row.at})
        columns = select(t.column_edges).where(
            t.column_edges.c.dataset_key.in_(chunk), t.column_edges.c.field.is_not(None)
        )
        for edge in conn.execute(columns.order_by(t.column_edges.c.key)):
            fields = lineage.setdefault(edge.dataset_key, {})
            fields.setdefault(edge.field, []).append(
                {
                    "namespace": edge.upstream_namespace,
                    "dataset": edge.upstream_name,
                    "field": edge.upstream_field,
                    "transformationDescription": None,
                    "transformationType": edge.transformation or None,
                }
            )
    return {
        key: (
            modified.get(key),
            [{"name": name, "inputFields": inputs} for name, inputs in sorted(lineage[key].items())]
            if key in lineage
            else None,
        )
        for key in keys
    }


def _dataset(row: Any, extras: tuple[str | None, list[dict[str, Any]] | None] = (None, None)) -> dict[str, Any]:
    facets = json.loads(row.facets)
    return {
        "id": {"namespace": row.namespace, "name": row.name},
        "type": "DB_TABLE",
        "name": row.name,
        "physicalName": row.name,
        "createdAt": row.created_at,
        "updatedAt": row.updated_at,
        "namespace": row.namespace,
        "sourceName": _text_of(facets.get(_DATA_SOURCE), "name") or row.namespace,
        "fields": _fields(facets),
        "tags": tag_names(facets),
        "lastModifiedAt": extras[0],
        "lastLifecycleState": None,
        "description": _text_of(facets.get(_DATASET_DOCS), "description"),
        "facets": facets,
        "currentVersion": None,
        "columnLineage": extras[1],
        "deleted": False,
    }


def _dataset_row(conn: Connection, namespace_name: str, name: str) -> Any:
    row = conn.execute(select(t.datasets).where(t.datasets.c.key == t.name_key(namespace_name, name))).first()
    if row is None:
        raise NotFound(f"dataset '{name}' in namespace '{namespace_name}' not found")
    return row


def datasets(store: Store, namespace_name: str, limit: int, offset: int) -> dict[str, Any]:
    space = t.name_key(namespace_name)
    with store.engine.connect() as conn:
        query = select(t.datasets).where(t.datasets.c.namespace_key == space).order_by(*t.DATASET_ORDER)
        sizes = _page(query.with_only_columns(func.length(t.datasets.c.facets)), limit, offset)
        _fit(conn, sizes, store.max_response_bytes, "datasets")
        rows = list(conn.execute(_page(query, limit, offset)))
        total = conn.execute(
            select(func.count()).select_from(t.datasets).where(t.datasets.c.namespace_key == space)
        ).scalar()
        extras = _dataset_extras(conn, [r.key for r in rows])
        return {"datasets": [_dataset(r, extras[r.key]) for r in rows], "totalCount": total or 0}


def dataset(store: Store, namespace_name: str, name: str) -> dict[str, Any]:
    with store.engine.connect() as conn:
        row = _dataset_row(conn, namespace_name, name)
        return _dataset(row, _dataset_extras(conn, [row.key])[row.key])


# ---------------------------------------------------------------- events


def events(
    store: Store, limit: int, offset: int, ascending: bool, before: str | None = None, after: str | None = None
) -> dict[str, Any]:
    """The stored run events by event time, those before `before` and at or after `after`
    (canonical times). Dataset and job events are left out, as Marquez lists only run events
    here (its web UI reads each event's run)."""
    order = t.events.c.event_time.asc() if ascending else t.events.c.event_time.desc()
    within = [t.events.c.kind == "run"]
    if before is not None:
        within.append(t.events.c.event_time < before)
    if after is not None:
        within.append(t.events.c.event_time >= after)
    with store.engine.connect() as conn:
        sizes = select(func.length(t.events.c.body)).where(*within).order_by(order, t.events.c.seq)
        _fit(conn, _page(sizes, limit, offset), store.max_response_bytes, "events")
        query = select(t.events.c.body).where(*within).order_by(order, t.events.c.seq)
        rows = conn.execute(_page(query, limit, offset))
        total = conn.execute(select(func.count()).select_from(t.events).where(*within)).scalar()
        return {"events": [json.loads(r.body) for r in rows], "totalCount": total or 0}


# ---------------------------------------------------------------- lineage


def _split_node(conn: Connection, node_id: str) -> tuple[str, str, str]:
    """(kind, namespace, name) of ``dataset:{namespace}:{name}`` or ``job:{namespace}:{name}``.

    Namespaces and names may both hold ':'; the split that names a stored job or dataset
    wins (the first such, from the left), so any stored node can be asked for.
    """
    kind, sep, rest = node_id.partition(":")
    if not sep or kind not in ("dataset", "job"):
        raise ValueError(f"nodeId {node_id!r}: must be 'dataset:<namespace>:<name>' or 'job:<namespace>:<name>'")
    table = t.datasets if kind == "dataset" else t.jobs
    splits = [(rest[:i], rest[i + 1 :]) for i, c in enumerate(rest) if c == ":" and 0 < i < len(rest) - 1]
    if not splits:
        raise ValueError(f"nodeId {node_id!r}: no ':' between namespace and name")
    keys = {t.name_key(ns, name): (ns, name) for ns, name in splits}
    found = {r.key for r in conn.execute(select(table.c.key).where(table.c.key.in_(list(keys))))}
    for key, (ns, name) in keys.items():
        if key in found:
            return kind, ns, name
    raise NotFound(f"node '{node_id}' not found")


def _edges_of(conn: Connection, column: Any, keys: Iterable[str]) -> list[Any]:
    keys = list(keys)
    rows: list[Any] = []
    for start in range(0, len(keys), 500):
        rows += conn.execute(select(t.edges).where(column.in_(keys[start : start + 500])))
    return rows


def lineage(store: Store, node_id: str, depth: int) -> dict[str, Any]:
    """Jobs up to `depth` job-to-job hops (through a dataset, either way) from the node, and their datasets."""
    with store.engine.connect() as conn:
        kind, ns, name = _split_node(conn, node_id)
        key = t.name_key(ns, name)
        if kind == "job":
            frontier = {key}
        else:
            frontier = {e.job_key for e in _edges_of(conn, t.edges.c.dataset_key, [key])}
            if not frontier:  # a dataset no job touches: the graph of that dataset alone
                row = _dataset_row(conn, ns, name)
                return {"graph": [_dataset_node(row, [], [], _dataset_extras(conn, [row.key])[row.key])]}
        seen_jobs: set[str] = set(frontier)
        job_edges: list[Any] = []
        for level in range(max(0, depth) + 1):
            found = _edges_of(conn, t.edges.c.job_key, frontier)
            job_edges += found
            if level == depth:
                break
            datasets_touched = {e.dataset_key for e in found}
            neighbours = {e.job_key for e in _edges_of(conn, t.edges.c.dataset_key, datasets_touched)}
            frontier = neighbours - seen_jobs
            if not frontier:
                break
            seen_jobs |= frontier
        job_rows = {r.key: r for r in _rows(conn, t.jobs, seen_jobs)}
        dataset_keys = {e.dataset_key for e in job_edges}
        dataset_rows = {r.key: r for r in _rows(conn, t.datasets, dataset_keys)}
        graph = []
        job_data = {d["id"]["namespace"] + "\x00" + d["id"]["name"]: d for d in _jobs(conn, list(job_rows.values()))}
        ins: dict[str, list[dict[str, str]]] = {}
        outs: dict[str, list[dict[str, str]]] = {}
        for edge in job_edges:
            job_id = f"job:{edge.job_namespace}:{edge.job_name}"
            dataset_id = f"dataset:{edge.dataset_namespace}:{edge.dataset_name}"
            origin, destination = (dataset_id, job_id) if edge.direction == "input" else (job_id, dataset_id)
            pair = {"origin": origin, "destination": destination}
            outs.setdefault(origin, []).append(pair)
            ins.setdefault(destination, []).append(pair)
        for row in job_rows.values():
            node = f"job:{row.namespace}:{row.name}"
            graph.append(
                {
                    "id": node,
                    "type": "JOB",
                    "data": job_data[row.namespace + "\x00" + row.name],
                    "inEdges": _sorted(ins.get(node, [])),
                    "outEdges": _sorted(outs.get(node, [])),
                }
            )
        extras = _dataset_extras(conn, list(dataset_rows))
        for row in dataset_rows.values():
            node = f"dataset:{row.namespace}:{row.name}"
            graph.append(_dataset_node(row, ins.get(node, []), outs.get(node, []), extras[row.key]))
        graph.sort(key=lambda n: (n["type"], n["id"]))
        return {"graph": graph}


def _dataset_node(
    row: Any,
    in_edges: list[dict[str, str]],
    out_edges: list[dict[str, str]],
    extras: tuple[str | None, list[dict[str, Any]] | None],
) -> dict[str, Any]:
    return {
        "id": f"dataset:{row.namespace}:{row.name}",
        "type": "DATASET",
        "data": _dataset(row, extras),
        "inEdges": _sorted(in_edges),
        "outEdges": _sorted(out_edges),
    }


def _sorted(edges: list[dict[str, str]]) -> list[dict[str, str]]:
    return sorted(edges, key=lambda e: (e["origin"], e["destination"]))


def _rows(conn: Connection, table: Any, keys: Iterable[str]) -> list[Any]:
    keys = list(keys)
    rows: list[Any] = []
    for start in range(0, len(keys), 500):
        rows += conn.execute(select(table).where(table.c.key.in_(keys[start : start + 500])))
    return rows
