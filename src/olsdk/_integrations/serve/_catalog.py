"""More of Marquez's read API over the store: every namespace's jobs, sources, tags, a run's
facets, search, and the dashboard's statistics (Marquez's spec/openapi.yml and its web UI).

- **sources**: one per dataset namespace (the physical place its datasets live), its type
  the namespace's URI scheme in capitals (``postgres://db:5432`` -> ``POSTGRES``);
- **tags**: the keys of the ``tags`` facets of jobs and datasets;
- **search**: jobs and datasets whose name (or namespace) holds the words asked for;
- **statistics**: lineage events by type per hour over the last day, or per day over the
  last week in a time zone; jobs, datasets and sources counted as they stood at the end
  of each interval, as Marquez counts them.
"""

from __future__ import annotations

import itertools
import json
from datetime import UTC, datetime, timedelta
from typing import Any, Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import Table, func, or_, select

from olsdk._integrations.serve import _schema as t
from olsdk._integrations.serve._marquez import NotFound, _page, _split_node, job_listing
from olsdk._integrations.serve._store import Store

__all__ = [
    "all_jobs",
    "column_lineage",
    "run_facets",
    "search",
    "source",
    "sources",
    "stats_counts",
    "stats_events",
    "tags",
]

_TAGS: Final = "tags"
_EVENT_TYPES: Final = ("fail", "start", "complete", "abort")


def all_jobs(store: Store, limit: int, offset: int, states: frozenset[str] | None = None) -> dict[str, Any]:
    """``GET /api/v1/jobs``: the jobs of every namespace, the latest updated first (those whose
    latest run is in `states`, and those without runs, when given)."""
    return job_listing(store, [], limit, offset, states)


# ---------------------------------------------------------------- sources


def _source(name: str, created: str, updated: str) -> dict[str, Any]:
    scheme = name.split("://", 1)[0] if "://" in name else ""
    return {
        "type": scheme.upper() if scheme else "DEFAULT",
        "name": name,
        "createdAt": created,
        "updatedAt": updated,
        "connectionUrl": name,
        "description": None,
    }


def _sources_query() -> Any:
    c = t.datasets.c
    return (
        select(c.namespace, func.min(c.created_at).label("created"), func.max(c.updated_at).label("updated"))
        .group_by(c.namespace)
        .order_by(c.namespace)
    )


def sources(store: Store, limit: int, offset: int) -> dict[str, Any]:
    with store.engine.connect() as conn:
        rows = conn.execute(_page(_sources_query(), limit, offset))
        found = [_source(r.namespace, r.created, r.updated) for r in rows]
        total = conn.execute(select(func.count(func.distinct(t.datasets.c.namespace)))).scalar()
    return {"sources": found, "totalCount": total or 0}


def source(store: Store, name: str) -> dict[str, Any]:
    with store.engine.connect() as conn:
        row = conn.execute(_sources_query().where(t.datasets.c.namespace_key == t.name_key(name))).first()
    if row is None:
        raise NotFound(f"source '{name}' not found")
    return _source(row.namespace, row.created, row.updated)


# ---------------------------------------------------------------- tags and facets


def tags(store: Store, limit: int, offset: int) -> dict[str, Any]:
    """The keys of every ``tags`` facet of jobs and datasets, by name."""
    names: set[str] = set()
    with store.engine.connect() as conn:
        for table in (t.jobs, t.datasets):
            query = select(table.c.facets).where(table.c.facets.contains(f'"{_TAGS}":'))
            for (facets,) in conn.execute(query):
                entries = json.loads(facets).get(_TAGS, {}).get("tags")
                for entry in entries if isinstance(entries, list) else []:
                    key = entry.get("key") if isinstance(entry, dict) else None
                    if isinstance(key, str) and key:
                        names.add(key)
    listed = sorted(names)[offset : offset + limit]
    return {"tags": [{"name": name, "description": None} for name in listed]}


def run_facets(store: Store, run_id: str, kind: str) -> dict[str, Any]:
    """``GET /api/v1/jobs/runs/{id}/facets?type=run|job``: the run's facets, or its job's."""
    if kind not in ("run", "job"):
        raise ValueError(f"type={kind!r}: must be 'run' or 'job'")
    with store.engine.connect() as conn:
        run = conn.execute(
            select(t.runs.c.job_key, t.runs.c.facets)
            .where(t.runs.c.run_key == t.name_key(run_id))
            .order_by(t.runs.c.last_time.desc())
        ).first()
        if run is None:
            raise NotFound(f"run '{run_id}' not found")
        facets = run.facets
        if kind == "job":
            facets = conn.execute(select(t.jobs.c.facets).where(t.jobs.c.key == run.job_key)).scalar() or "{}"
    return {"runId": run_id, "facets": json.loads(facets)}


# ---------------------------------------------------------------- search


def _matches(table: Table, words: str, namespace: str | None, before: str | None, after: str | None) -> Any:
    pattern = "%" + words.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_").lower() + "%"
    query = select(table.c.namespace, table.c.name, table.c.updated_at).where(
        or_(
            func.lower(table.c.name).like(pattern, escape="\\"),
            func.lower(table.c.namespace).like(pattern, escape="\\"),
        )
    )
    if namespace:
        query = query.where(table.c.namespace_key == t.name_key(namespace))
    if before:
        query = query.where(table.c.updated_at < before)
    if after:
        query = query.where(table.c.updated_at >= after)
    return query


def search(
    store: Store,
    words: str,
    *,
    kinds: tuple[str, ...],
    by_name: bool,
    limit: int,
    namespace: str | None = None,
    before: str | None = None,
    after: str | None = None,
) -> dict[str, Any]:
    """``GET /api/v1/search``: jobs and datasets whose name or namespace holds `words`."""
    results = []
    with store.engine.connect() as conn:
        for kind, table in (("DATASET", t.datasets), ("JOB", t.jobs)):
            if kind not in kinds:
                continue
            query = _matches(table, words, namespace, before, after)
            for row in conn.execute(query.order_by(table.c.updated_at.desc()).limit(limit)):
                results.append(
                    {
                        "type": kind,
                        "name": row.name,
                        "updatedAt": row.updated_at,
                        "namespace": row.namespace,
                        "nodeId": f"{kind.lower()}:{row.namespace}:{row.name}",
                    }
                )
    if by_name:
        results.sort(key=lambda r: (r["name"], r["namespace"], r["type"]))
    else:
        results.sort(key=lambda r: r["updatedAt"], reverse=True)
    return {"totalCount": len(results[:limit]), "results": results[:limit]}


# ---------------------------------------------------------------- statistics


def _intervals(period: str, timezone: str | None) -> list[tuple[datetime, datetime]]:
    """Marquez's intervals: the last 24 hours (UTC hours, the current one last), or the last
    7 days in `timezone` (today last)."""
    now = datetime.now(UTC)
    if period == "DAY":
        first = now.replace(minute=0, second=0, microsecond=0) - timedelta(hours=23)
        return [(first + timedelta(hours=n), first + timedelta(hours=n + 1)) for n in range(24)]
    if period != "WEEK":
        raise ValueError(f"period={period!r}: must be DAY or WEEK")
    if not timezone:
        raise ValueError("a timezone is needed for period WEEK (timezone=UTC, Europe/Paris, ...)")
    try:
        zone = ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"timezone={timezone[:60]!r}: not a time zone name (UTC, Europe/Paris, ...)") from None
    today = now.astimezone(zone).replace(hour=0, minute=0, second=0, microsecond=0)
    days = [today - timedelta(days=6 - n) for n in range(8)]
    return [(start.astimezone(UTC), end.astimezone(UTC)) for start, end in itertools.pairwise(days)]


def _text(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond:06d}Z"


def _bucket(intervals: list[tuple[datetime, datetime]], time: str) -> int | None:
    for index, (start, end) in enumerate(intervals):
        if _text(start) <= time < _text(end):
            return index
    return None


def stats_events(store: Store, period: str, timezone: str | None) -> list[dict[str, Any]]:
    """``GET /api/v1/stats/lineage-events``: events by type (START, COMPLETE, FAIL, ABORT) per interval."""
    intervals = _intervals(period, timezone)
    counts = [dict.fromkeys(_EVENT_TYPES, 0) for _ in intervals]
    c = t.events.c
    query = (
        select(c.event_time, c.event_type, func.count().label("n"))
        .where(c.event_time >= _text(intervals[0][0]), c.event_time < _text(intervals[-1][1]))
        .group_by(c.event_time, c.event_type)
    )
    with store.engine.connect() as conn:
        for row in conn.execute(query):
            index = _bucket(intervals, row.event_time)
            kind = (row.event_type or "").lower()
            if index is not None and kind in counts[index]:
                counts[index][kind] += row.n
    return [
        {"startInterval": _iso(start), "endInterval": _iso(end), **count}
        for (start, end), count in zip(intervals, counts, strict=True)
    ]


def stats_counts(store: Store, what: str, period: str, timezone: str | None) -> list[dict[str, Any]]:
    """``GET /api/v1/stats/{jobs,datasets,sources}``: how many there were at the end of each interval."""
    intervals = _intervals(period, timezone)
    if what == "sources":
        column = func.min(t.datasets.c.created_at)
        firsts = select(column.label("created")).group_by(t.datasets.c.namespace).subquery()
        created = firsts.c.created
    else:
        created = (t.jobs if what == "jobs" else t.datasets).c.created_at
    out = []
    with store.engine.connect() as conn:
        for start, end in intervals:
            count = conn.execute(select(func.count()).where(created < _text(end))).scalar() or 0
            out.append({"startInterval": _iso(start), "endInterval": _iso(end), "count": int(count)})
    return out


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


# ---------------------------------------------------------------- column lineage

_Field = tuple[str, str, str]  # namespace, dataset, field


def _start_fields(conn: Any, node_id: str) -> list[_Field]:
    """The fields a ``dataset:{ns}:{name}`` or ``datasetField:{ns}:{name}:{field}`` node stands for."""
    if node_id.startswith("datasetField:"):
        rest, sep, field = node_id.removeprefix("datasetField:").rpartition(":")
        if not sep or not field:
            raise ValueError(f"nodeId {node_id[:200]!r}: must be 'datasetField:<namespace>:<name>:<field>'")
        _kind, namespace, name = _split_node(conn, "dataset:" + rest)
        return [(namespace, name, field)]
    _kind, namespace, name = _split_node(conn, node_id)
    if _kind != "dataset":
        raise ValueError(f"nodeId {node_id[:200]!r}: column lineage starts from a dataset or one of its fields")
    c = t.column_edges.c
    query = select(c.field).where(c.dataset_key == t.name_key(namespace, name), c.field.is_not(None)).distinct()
    return [(namespace, name, field) for (field,) in conn.execute(query)]


def _column_edges(conn: Any, fields: set[_Field], upstream: bool) -> list[Any]:
    """The column edges into `fields` (`upstream`), or out of them."""
    c = t.column_edges.c
    by_dataset: dict[tuple[str, str], set[str]] = {}
    for namespace, name, field in fields:
        by_dataset.setdefault((namespace, name), set()).add(field)
    found = []
    for (namespace, name), names in by_dataset.items():
        if upstream:
            query = select(t.column_edges).where(c.dataset_key == t.name_key(namespace, name))
            found += [e for e in conn.execute(query) if e.field in names and e.upstream_field is not None]
        else:
            query = select(t.column_edges).where(c.upstream_namespace == namespace, c.upstream_name == name)
            found += [e for e in conn.execute(query) if e.upstream_field in names and e.field is not None]
    return found


def column_lineage(store: Store, node_id: str, depth: int, with_downstream: bool) -> dict[str, Any]:
    """``GET /api/v1/column-lineage``: fields up to `depth` steps upstream of the node's fields
    (and downstream with `with_downstream`), as Marquez's DATASET_FIELD graph."""
    edges: dict[tuple[_Field, _Field], str] = {}  # (input field, field) -> transformation
    with store.engine.connect() as conn:
        start = set(_start_fields(conn, node_id))
        seen = set(start)
        for upstream in (True, False) if with_downstream else (True,):
            frontier = set(start)
            for _level in range(max(0, depth)):
                found = _column_edges(conn, frontier, upstream)
                step = set()
                for e in found:
                    pair = (
                        (e.upstream_namespace, e.upstream_name, e.upstream_field),
                        (e.dataset_namespace, e.dataset_name, e.field),
                    )
                    edges[pair] = e.transformation
                    step.add(pair[0] if upstream else pair[1])
                frontier = step - seen
                seen |= step
                if not frontier:
                    break
    return {"graph": [_field_node(field, edges) for field in sorted(seen)]}


def _field_id(field: _Field) -> str:
    return f"datasetField:{field[0]}:{field[1]}:{field[2]}"


def _field_node(field: _Field, edges: dict[tuple[_Field, _Field], str]) -> dict[str, Any]:
    inputs = sorted((source, kind) for (source, target), kind in edges.items() if target == field)
    outputs = sorted(target for source, target in edges if source == field)
    return {
        "id": _field_id(field),
        "type": "DATASET_FIELD",
        "data": {
            "namespace": field[0],
            "dataset": field[1],
            "datasetVersion": None,
            "field": field[2],
            "fieldType": None,
            "transformationDescription": None,
            "transformationType": None,
            "inputFields": [
                {
                    "namespace": source[0],
                    "dataset": source[1],
                    "datasetVersion": None,
                    "field": source[2],
                    "transformationDescription": None,
                    "transformationType": kind or None,
                }
                for source, kind in inputs
            ],
        },
        "inEdges": [{"origin": _field_id(source), "destination": _field_id(field)} for source, _kind in inputs],
        "outEdges": [{"origin": _field_id(field), "destination": _field_id(target)} for target in outputs],
    }
