"""The store: events and what is derived from them, in SQLite (a file, WAL) or PostgreSQL.

Writes come from one thread (`_writer`), a group of events per transaction, and every
write transaction first locks the ``writes`` row of `olsdk_store`: the derived rows (runs,
jobs' facets, ...) are read, merged and written back without races, also when several
server processes share one PostgreSQL database. The writer keeps the derived rows it
wrote last, valid while no other process wrote in between (`WriteCache`), and runs its
statements on the driver's cursor. Reads run on the request threads, each on its own
pooled connection; SQLite's WAL lets them read while the writer writes.
"""

from __future__ import annotations

import contextlib
import functools
import json
import operator
import sqlite3
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, TypeVar

from pydantic_core import PydanticSerializationError, to_json
from sqlalchemy import (
    BigInteger,
    Engine,
    Table,
    Text,
    bindparam,
    case,
    cast,
    create_engine,
    delete,
    event,
    func,
    insert,
    inspect,
    select,
    text,
    update,
)
from sqlalchemy.dialects import postgresql as pg_dialect
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import ArgumentError

from olsdk._foundation._exceptions import ConfigError, Problem
from olsdk._integrations._graph._facts import NO_TIME, ColumnEdge, EventFacts, extract
from olsdk._integrations._graph._model import (  # the graph's own run rule, so the page and the API agree
    Edge,
    LineageGraph,
    ParentLink,
    RunSummary,
    _RunAccumulator,
    build_from_parts,
    run_state,
)
from olsdk._integrations.serve import _migrate, _retention
from olsdk._integrations.serve import _schema as t
from olsdk._integrations.serve._runs import RunIndex
from olsdk._readers._wire import JSONProblem, decode

__all__ = ["PROJECT_CHUNK", "Received", "Refusal", "Store", "database_url", "describe_database", "now"]

_CHUNK: Final = 500  # keys per IN (...) list
_T = TypeVar("_T")
WRITES: Final = "writes"  # the row of `olsdk_store` every write locks first: how many writes were made
RETAINED: Final = "retained"  # the row of `olsdk_store` counting the retention passes that deleted rows
PROJECTED: Final = "projected"  # the row of `olsdk_store` holding the last event whose derived rows are written
PROJECT_CHUNK: Final = 5000  # events projected per transaction
_SCHEMA_LOCK: Final = 0x6F6C73646B  # PostgreSQL advisory lock held while a server creates the schema
_CACHED_ROWS: Final = 20_000  # derived rows a writer holds per table (emptied when full)
_CACHED_CHARS: Final = 64 * 1024 * 1024  # characters of facets a writer holds in all (emptied when full)
BUSY_TIMEOUT_MS: Final = 30_000  # SQLite: how long the writer thread waits for another process's write lock


class WriteCache:
    """The derived rows (and edge keys) this process wrote last, so that a write need not read
    them back: valid while no other process wrote in between (see `Store.write`)."""

    def __init__(self) -> None:
        self.written: int | None = None
        # rows as plain dicts of text and numbers: the garbage collector leaves such dicts alone
        self.rows: dict[str, dict[Any, dict[str, Any]]] = {"jobs": {}, "datasets": {}, "runs": {}}
        self.held_chars = 0  # of the facets held: large facets are not kept in memory by the thousand
        self.keys: dict[str, set[Any]] = {"edges": set(), "column_edges": set(), "parent_links": set()}

    def check(self, written: int) -> None:
        """`written`: the writes count this write took; anything held is dropped unless it follows ours."""
        if self.written is None or written != self.written + 1:
            self.clear()
        self.written = written

    def clear(self) -> None:
        self.written = None
        self.clear_rows()
        for keys in self.keys.values():
            keys.clear()

    def hold(self, table: str, key: Any, value: dict[str, Any]) -> None:
        rows = self.rows[table]
        size = len(value["facets"]) + len(value.get("fields") or "")
        if size > _CACHED_CHARS // 8:
            rows.pop(key, None)  # read back from the database when needed again
            return
        if len(rows) >= _CACHED_ROWS or self.held_chars + size > _CACHED_CHARS:
            self.clear_rows()
        self.held_chars += size
        rows[key] = value

    def clear_rows(self) -> None:
        self.held_chars = 0
        for rows in self.rows.values():
            rows.clear()

    def new_keys(self, table: str, keys: Iterable[Any]) -> list[Any]:
        """Those of `keys` not written yet (as far as this process knows); they count as written now."""
        held = self.keys[table]
        if len(held) >= _CACHED_ROWS * 5:
            held.clear()
        fresh = [key for key in keys if key not in held]
        held.update(fresh)
        return fresh


def now() -> str:
    """The current time as canonical UTC text (the store's time format)."""
    moment = datetime.now(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond:06d}Z"


def clean(text: str) -> str:
    """`text` without NUL characters, which PostgreSQL's text cannot hold (the event's JSON keeps them)."""
    return text.replace("\x00", "\ufffd") if "\x00" in text else text


def _maybe(text: str | None) -> str | None:
    return None if text is None else clean(text)


def _dumps(value: Any) -> str:
    """Compact JSON text (pydantic-core's encoder; the standard one for what it refuses)."""
    if not value and isinstance(value, dict):  # most runs' and jobs' facets
        return "{}"
    try:
        return to_json(value).decode("utf-8")
    except (PydanticSerializationError, UnicodeDecodeError):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@dataclass(slots=True)
class Received:
    """An event to store: its JSON text, its graph facts and its spec problems ([] when valid)."""

    body: str
    document: Mapping[str, Any]
    facts: EventFacts
    problems: list[Problem]
    received_at: str

    @property
    def happened_at(self) -> str:
        """When the event happened: its ``eventTime``, or its time of receipt when it has none.
        Rows are stamped with it, as Marquez stamps them (created at the first, updated at the latest)."""
        return self.facts.time or self.received_at


@dataclass(slots=True)
class Refusal:
    """A request (or one event of a batch) that was not stored, and why."""

    endpoint: str
    status: int
    reason: str
    size: int
    head: bytes
    received_at: str
    problems: list[dict[str, Any]] = field(default_factory=list)
    sha256: str | None = None
    producer: str | None = None


def database_url(db: str) -> str:
    """The SQLAlchemy URL of ``--db``: a file path (SQLite), or a ``postgresql://`` URL (psycopg 3)."""
    if "://" not in db:
        return "sqlite:///" + str(Path(db).expanduser().resolve())
    scheme, _, rest = db.partition("://")
    if scheme in ("postgresql", "postgres", "postgresql+psycopg"):
        return "postgresql+psycopg://" + rest
    if scheme == "sqlite":
        return db
    raise ConfigError(f"--db: {scheme}:// is not a database olsdk serve stores in (a file path or postgresql://)", "db")


def describe_database(db: str) -> str:
    """``--db`` for messages: a path as it is, a URL without its password."""
    try:
        return make_url(database_url(db)).render_as_string(hide_password=True)
    except (ArgumentError, ValueError):
        return "(a database URL that does not parse)"


def _facet_map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}  # decoded JSON: a dict, never another mapping


def _merge_facets(facets: dict[str, Any], times: dict[str, str], new: Mapping[str, Any], time: str) -> None:
    """Keep the facet of the latest event under each key (later arrivals win a tie)."""
    if not new:
        return
    for key, value in new.items():
        if time >= times.get(key, NO_TIME):
            facets[key] = value
            times[key] = time


def _merged(stored: str, stored_times: str, facets: dict[str, Any], times: dict[str, str]) -> tuple[str, str]:
    """A stored row's facets and their times (JSON) with `facets` merged over them, by time;
    the stored text as it is when there is nothing to merge."""
    if not facets:
        return stored, stored_times
    merged, merged_times = json.loads(stored), json.loads(stored_times)
    for key, facet in facets.items():
        _merge_facets(merged, merged_times, {key: facet}, times[key])
    return _dumps(merged), _dumps(merged_times)


@dataclass(slots=True)
class _Entity:
    namespace: str
    name: str
    first: str
    last: str
    facets: dict[str, Any] = field(default_factory=dict)
    facet_times: dict[str, str] = field(default_factory=dict)
    invalid: int = 0
    fields: tuple[str, str] | None = None  # (time, page fields JSON)
    texts: tuple[str, str] | None = None  # (facets, facet times) as JSON, merged on the stored row's


@dataclass(slots=True)
class _Run:
    job_namespace: str
    job_name: str
    run_id: str
    first: str
    last: str
    facts: list[EventFacts] = field(default_factory=list)
    facets: dict[str, Any] = field(default_factory=dict)
    facet_times: dict[str, str] = field(default_factory=dict)
    invalid: int = 0
    texts: tuple[str, str] | None = None  # (facets, facet times) as JSON, merged on the stored row's


def _entity(table: dict[str, _Entity], key: str, namespace: str, name: str, at: str) -> _Entity:
    found = table.get(key)
    if found is None:
        found = table[key] = _Entity(namespace, name, at, at)
    elif at < found.first:
        found.first = at
    elif at > found.last:
        found.last = at
    return found


@dataclass(slots=True)
class _Rows:
    """What one transaction writes, gathered from its events: the events' rows, and the
    derived rows (namespaces, jobs, datasets, edges, runs, ...) merged per key."""

    counted: list[tuple[str, str]] = field(default_factory=list)  # a (kind, name) per count
    spaces: dict[str, _Entity] = field(default_factory=dict)
    jobs: dict[str, _Entity] = field(default_factory=dict)
    datasets: dict[str, _Entity] = field(default_factory=dict)
    # (job key, direction, dataset key) -> (job namespace, job name, dataset namespace, dataset name)
    edges: dict[tuple[str, str, str], tuple[str, str, str, str]] = field(default_factory=dict)
    runs: dict[tuple[str, str], _Run] = field(default_factory=dict)
    columns: dict[str, dict[str, Any]] = field(default_factory=dict)
    parents: dict[str, dict[str, str]] = field(default_factory=dict)

    def add(self, item: Received) -> None:
        self._count(item)
        if item.facts.job is not None:
            self._add_job(item)
        self._add_datasets(item)
        self._merge_dataset_facets(item)

    def _count(self, item: Received) -> None:
        facts, counted = item.facts, self.counted
        counted.append(("event", facts.kind))
        counted.append(("stored", "invalid" if item.problems else "valid"))
        if facts.producer is not None:
            counted.append(("producer", facts.producer))
        if facts.facet_keys:
            counted.extend([("facet", key) for key in facts.facet_keys])
        if facts.notes:
            counted.extend([("note", note) for note in facts.notes])
        for rule in sorted({p.rule for p in item.problems}):
            counted.append(("rule", rule))
            counted.append(("producer_rule", _dumps([facts.producer or "", rule])))

    def _add_job(self, item: Received) -> None:
        facts, at = item.facts, item.happened_at
        assert facts.job is not None
        job_ns, job_name = facts.job
        job_key = t.name_key(job_ns, job_name)
        _entity(self.spaces, t.name_key(job_ns), job_ns, job_ns, at)
        job = _entity(self.jobs, job_key, job_ns, job_name, at)
        job.invalid += bool(item.problems)
        _merge_facets(job.facets, job.facet_times, _facet_map(item.document["job"].get("facets")), facts.time)
        for direction, pairs in (("input", facts.inputs), ("output", facts.outputs)):
            for ds_ns, ds_name in pairs:
                self.edges[job_key, direction, t.name_key(ds_ns, ds_name)] = (job_ns, job_name, ds_ns, ds_name)
        if facts.parent is not None and facts.parent[:2] != facts.job:  # never a job's own parent
            parent_ns, parent_name = facts.parent[:2]
            key = t.name_key(parent_ns, parent_name, job_ns, job_name)
            self.parents[key] = {
                "key": key,
                "parent_namespace": clean(parent_ns),
                "parent_name": clean(parent_name),
                "child_namespace": clean(job_ns),
                "child_name": clean(job_name),
            }
        if facts.run_id is not None:
            self._add_run(item, job_key)

    def _add_run(self, item: Received, job_key: str) -> None:
        facts, at = item.facts, item.happened_at
        assert facts.job is not None and facts.run_id is not None
        run_key = t.name_key(facts.run_id)
        run = self.runs.get((job_key, run_key))
        if run is None:
            run = self.runs[job_key, run_key] = _Run(facts.job[0], facts.job[1], facts.run_id, at, at)
        if at < run.first:
            run.first = at
        elif at > run.last:
            run.last = at
        run.facts.append(facts)
        run.invalid += bool(item.problems)
        _merge_facets(run.facets, run.facet_times, _facet_map(item.document["run"].get("facets")), facts.time)

    def _add_datasets(self, item: Received) -> None:
        """The datasets an event names (with their fields and column lineage)."""
        facts, at = item.facts, item.happened_at
        for dataset in facts.datasets:
            key = t.name_key(dataset.namespace, dataset.name)
            _entity(self.spaces, t.name_key(dataset.namespace), dataset.namespace, dataset.namespace, at)
            row = _entity(self.datasets, key, dataset.namespace, dataset.name, at)
            if dataset.fields is not None:
                candidate = (facts.time, dataset.fields)
                if row.fields is None or candidate > row.fields:
                    row.fields = candidate
            for column in dataset.columns:
                self.columns[t.name_key(key, *_column_parts(column))] = _column_row(key, dataset, column)

    def _merge_dataset_facets(self, item: Received) -> None:
        for container in _dataset_containers(item.document, item.facts.kind):
            for holder in container:
                if not isinstance(holder, dict) or not (facets := _facet_map(holder.get("facets"))):
                    continue  # no facets to merge
                ns, name = holder.get("namespace"), holder.get("name")
                if not (isinstance(ns, str) and isinstance(name, str) and ns and name):
                    continue
                held = self.datasets.get(t.name_key(ns, name))
                if held is not None:
                    _merge_facets(held.facets, held.facet_times, facets, item.facts.time)


def _event_row(item: Received) -> dict[str, Any]:
    """The ``events`` row of an event: what it is, its keys, its problems and its JSON text."""
    facts = item.facts
    dataset_key = None
    if facts.kind == "dataset" and facts.datasets:
        dataset_key = t.name_key(facts.datasets[-1].namespace, facts.datasets[-1].name)
    return {
        "received_at": item.received_at,
        "kind": facts.kind,
        "job_key": None if facts.job is None else t.name_key(*facts.job),
        "dataset_key": dataset_key,
        "run_id": _maybe(facts.run_id),
        "event_type": _maybe(facts.event_type),
        "event_time": facts.time,
        "producer": _maybe(facts.producer),
        "valid": not item.problems,
        "problems": _dumps([_problem_dict(p) for p in item.problems]) if item.problems else None,
        "body": item.body,
    }


def _column_row(key: str, dataset: Any, column: ColumnEdge) -> dict[str, Any]:
    return {
        "key": t.name_key(key, *_column_parts(column)),
        "dataset_key": key,
        "dataset_namespace": clean(dataset.namespace),
        "dataset_name": clean(dataset.name),
        "field": _maybe(column.field),
        "upstream_namespace": clean(column.upstream_namespace),
        "upstream_name": clean(column.upstream_name),
        "upstream_field": _maybe(column.upstream_field),
        "transformation": clean(column.transformation),
    }


def _edge_row(key: tuple[str, str, str], names: tuple[str, str, str, str]) -> dict[str, Any]:
    job_key, direction, dataset_key = key
    job_namespace, job_name, dataset_namespace, dataset_name = names
    return {
        "job_key": job_key,
        "direction": direction,
        "dataset_key": dataset_key,
        "job_namespace": clean(job_namespace),
        "job_name": clean(job_name),
        "dataset_namespace": clean(dataset_namespace),
        "dataset_name": clean(dataset_name),
    }


class _Reads:
    """The store's reads for the page and olsdk's own calls (Marquez's are `_marquez`'s)."""

    engine: Engine
    _graph_lock: threading.Lock
    _graph_cache: tuple[tuple[int, int], LineageGraph] | None
    _runs: RunIndex
    _retained_seen: int

    def cursor(self) -> tuple[int, int]:
        """(last event seq, refused requests counted + retention passes that deleted rows):
        changes whenever anything was received or deleted."""
        last, refused, retained = self._marks()
        return (last, refused + retained)

    def _marks(self) -> tuple[int, int, int]:
        with self.engine.connect() as conn:
            info = t.store_info.c  # the last event whose derived rows are written: what reads see
            last = conn.execute(select(info.value).where(info.name == PROJECTED)).scalar() or 0
            refused = conn.execute(select(func.max(t.refused.c.id))).scalar() or 0
            retained = conn.execute(select(info.value).where(info.name == RETAINED)).scalar() or 0
        return (int(last), int(refused), int(retained))

    def counters(self, conn: Connection, kind: str) -> dict[str, int]:
        rows = conn.execute(select(t.counters.c.name, t.counters.c.count).where(t.counters.c.kind == kind))
        return {name: int(count) for name, count in rows}

    def graph(self) -> tuple[tuple[int, int], LineageGraph]:
        """The `LineageGraph` of everything stored (what `olsdk graph` would draw), cached per cursor."""
        with self._graph_lock:
            last, refused, retained = self._marks()
            cursor = (last, refused + retained)
            if self._graph_cache is not None and self._graph_cache[0] == cursor:
                return self._graph_cache
            if retained != self._retained_seen:  # runs were deleted: the run index is read again
                self._runs, self._retained_seen = RunIndex(), retained
            with self.engine.connect() as conn:
                graph = self._build_graph(conn, cursor)
            self._graph_cache = (cursor, graph)
            return self._graph_cache

    def _build_graph(self, conn: Connection, cursor: tuple[int, int]) -> LineageGraph:
        edge_list = [
            Edge(r.direction, r.job_namespace, r.job_name, r.dataset_namespace, r.dataset_name)
            for r in conn.execute(select(t.edges))
        ]
        # As the Spark path does: each job's latest runs and the failed ones, with the counts
        # over all runs; kept by `RunIndex` from the runs changed since the last graph.
        self._runs.refresh(conn, cursor[0], run_summary)
        columns = [
            (
                r.dataset_namespace,
                r.dataset_name,
                ColumnEdge(r.field, r.upstream_namespace, r.upstream_name, r.upstream_field, r.transformation),
            )
            for r in conn.execute(select(t.column_edges))
        ]
        fields: dict[tuple[str, str], str] = {}
        dataset_keys = []
        for r in conn.execute(select(t.datasets.c.namespace, t.datasets.c.name, t.datasets.c.fields)):
            dataset_keys.append((r.namespace, r.name))
            if r.fields is not None:
                fields[r.namespace, r.name] = r.fields
        job_keys = [(r.namespace, r.name) for r in conn.execute(select(t.jobs.c.namespace, t.jobs.c.name))]
        return build_from_parts(
            jobs=job_keys,
            datasets=dataset_keys,
            edges=edge_list,
            runs=self._runs.runs(),
            fields=fields,
            columns=columns,
            events=self.counters(conn, "event"),
            unreadable=self.counters(conn, "refused"),
            unreadable_samples=[],
            notes=self.counters(conn, "note"),
            producers=self.counters(conn, "producer"),
            facet_keys=self.counters(conn, "facet"),
            parents=[
                ParentLink(r.parent_namespace, r.parent_name, r.child_namespace, r.child_name)
                for r in conn.execute(select(t.parent_links))
            ],
            runs_by_state=self._runs.runs_by_state(),
            job_totals=self._runs.job_totals(),
            failed_runs=self._runs.failed_runs(),
        )

    def flagged_jobs(self) -> dict[tuple[str, str], int]:
        """Jobs with events stored with spec problems, and how many."""
        query = select(t.jobs.c.namespace, t.jobs.c.name, t.jobs.c.invalid_events).where(t.jobs.c.invalid_events > 0)
        with self.engine.connect() as conn:
            return {(r.namespace, r.name): int(r.invalid_events) for r in conn.execute(query)}

    def events_after(self, seq: int, limit: int) -> list[Any]:
        with self.engine.connect() as conn:
            return list(
                conn.execute(select(t.events).where(t.events.c.seq > seq).order_by(t.events.c.seq).limit(limit))
            )

    def refused_rows_after(self, last_id: int, limit: int) -> list[Any]:
        with self.engine.connect() as conn:
            return list(
                conn.execute(select(t.refused).where(t.refused.c.id > last_id).order_by(t.refused.c.id).limit(limit))
            )


class _Database:
    """The write side's connection and statements: each statement compiled once and run on the
    driver's own cursor, in transactions that take the ``writes`` lock first (`exclusive`)."""

    engine: Engine
    dialect: str
    _sql: dict[str, Any]
    _texts: dict[tuple[str, tuple[str, ...]], tuple[str, tuple[str, ...] | None]]
    _conn: Connection | None
    _waits: bool  # whether the writer's connection waits for another process's write lock (SQLite)
    _cache: WriteCache
    _write_lock: threading.Lock

    def _insert(self, table: Table) -> Any:
        module = pg_dialect if self.dialect == "postgresql" else sqlite_dialect
        return module.insert(table)

    def _statements(self) -> dict[str, Any]:
        """The write statements, built once: building an upsert's ``excluded`` columns costs
        more than running it (about 20 ms a transaction when built each time)."""

        def upsert(table: Table, keys: list[Any], kept: tuple[str, ...]) -> Any:
            stmt = self._insert(table)
            updated = {c.name: stmt.excluded[c.name] for c in table.c if c.name not in kept}
            return stmt.on_conflict_do_update(index_elements=keys, set_=updated)

        counters = self._insert(t.counters)
        identity = ("key", "namespace_key", "namespace", "name")
        return {
            "events": insert(t.events),
            "event_seq": insert(t.events).returning(t.events.c.seq),
            "refused": insert(t.refused),
            "edges": self._insert(t.edges).on_conflict_do_nothing(),
            "column_edges": self._insert(t.column_edges).on_conflict_do_nothing(),
            "parent_links": self._insert(t.parent_links).on_conflict_do_nothing(),
            "counters": counters.on_conflict_do_update(
                index_elements=[t.counters.c.key], set_={"count": t.counters.c.count + counters.excluded["count"]}
            ),
            "namespaces": _namespace_upsert(self._insert(t.namespaces)),
            "jobs": upsert(t.jobs, [t.jobs.c.key], identity),
            "datasets": upsert(t.datasets, [t.datasets.c.key], identity),
            "runs": upsert(
                t.runs,
                [t.runs.c.job_key, t.runs.c.run_key],
                ("job_key", "run_key", "run_id", "job_namespace", "job_name"),
            ),
            "take_writes": update(t.store_info)
            .where(t.store_info.c.name == WRITES)
            .values(value=cast(cast(t.store_info.c.value, BigInteger) + 1, Text))
            .returning(t.store_info.c.value),
            "count_retained": update(t.store_info)
            .where(t.store_info.c.name == RETAINED)
            .values(value=cast(cast(t.store_info.c.value, BigInteger) + 1, Text))
            .returning(t.store_info.c.value),
            "last_seq": select(func.max(t.events.c.seq)),
            "projected": select(t.store_info.c.value).where(t.store_info.c.name == PROJECTED),
            "set_projected": update(t.store_info)
            .where(t.store_info.c.name == bindparam("mark_name"))
            .values(value=bindparam("mark")),
        }

    def exclusive(self, work: Callable[[Connection, int], _T], counted: bool = True) -> _T:
        """`work(connection, writes count)` in one write transaction on the writer's connection.

        Every write first takes the lock of the ``writes`` row (and counts itself in it), so
        that several server processes on one PostgreSQL database write one at a time: event
        numbers rise in the order they are committed, and the derived rows are merged on what
        the previous write left. A write that leaves the derived rows alone (`counted` False)
        need not count itself on SQLite, whose file lock orders the writes of every process:
        its `work` is given 0."""
        with self._write_lock:
            return self._transaction(work, counted=counted)

    def exclusive_now(self, work: Callable[[Connection, int], _T], counted: bool = True) -> tuple[bool, _T | None]:
        """`exclusive`, unless it would wait: for another thread of this process writing, or
        (SQLite) for another process holding the database's write lock, which SQLite's busy
        wait would wait for (up to `BUSY_TIMEOUT_MS`): (whether it ran, what it returned)."""
        if not self._write_lock.acquire(blocking=False):
            return False, None
        try:
            return True, self._transaction(work, wait=False, counted=counted)
        except Exception as exc:
            if _busy(exc):
                return False, None
            raise
        finally:
            self._write_lock.release()

    def _transaction(self, work: Callable[[Connection, int], _T], wait: bool = True, counted: bool = True) -> _T:
        conn = self._write_connection(wait)
        try:
            with conn.begin():
                counted = counted or self.dialect != "sqlite"
                return work(conn, int(self._scalar(conn, "take_writes")) if counted else 0)
        except BaseException:
            self._cache.clear()  # what this write held is not stored
            with contextlib.suppress(Exception):
                conn.close()
            self._conn = None
            raise

    def _pipeline(self, conn: Connection) -> contextlib.AbstractContextManager[Any]:
        """On PostgreSQL, psycopg's pipeline mode: the statements whose results are not read
        go out together, and the transaction costs a few round trips rather than one each."""
        if self.dialect != "postgresql" or not _pipeline_supported():  # libpq 14 or later
            return contextlib.nullcontext()
        pipeline: contextlib.AbstractContextManager[Any] = conn.connection.driver_connection.pipeline()  # type: ignore[union-attr]
        return pipeline

    def _compiled(self, name: str, columns: tuple[str, ...]) -> tuple[str, tuple[str, ...] | None]:
        """The SQL text of a write statement for rows of `columns`, and the order of its
        parameters when the driver takes them by position (SQLite); compiled once."""
        found = self._texts.get((name, columns))
        if found is None:
            statement, dialect = self._sql[name], self.engine.dialect
            compiled = (
                statement.compile(dialect=dialect, column_keys=list(columns))
                if columns
                else statement.compile(dialect=dialect, compile_kwargs={"literal_binds": True})  # no parameters
            )
            positions = compiled.positiontup
            found = self._texts[name, columns] = (str(compiled), tuple(positions) if positions else None)
        return found

    def _put(self, conn: Connection, name: str, rows: Sequence[dict[str, Any]]) -> None:
        """Run a write statement for `rows` on the driver's own cursor: SQLAlchemy's work per
        call (about 60 us) is most of the cost of a small write, and these statements are
        the same every time."""
        if not rows:
            return
        sql, positions = self._compiled(name, tuple(rows[0]))
        cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
        try:
            params = rows if positions is None else list(map(_row_values(positions), rows))
            if len(params) == 1:  # psycopg's executemany enters and leaves a pipeline: dearer for one row
                cursor.execute(sql, params[0])
            else:
                cursor.executemany(sql, params)
        finally:
            cursor.close()

    def _put_returning(self, conn: Connection, name: str, row: dict[str, Any]) -> Any:
        """Run a write statement with ``RETURNING`` for one row: the value it returns."""
        sql, positions = self._compiled(name, tuple(row))
        cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
        try:
            cursor.execute(sql, row if positions is None else tuple(row[key] for key in positions))
            found = cursor.fetchone()
        finally:
            cursor.close()
        return found[0]

    def _rows_of(self, conn: Connection, name: str, keys: list[str]) -> list[dict[str, Any]]:
        """The stored rows of `keys` (a run's: by run key) of table `name`, on the driver's cursor."""
        table = t.metadata.tables[name]
        column = "run_key" if name == "runs" else "key"
        mark = "?" if self.engine.dialect.paramstyle == "qmark" else "%s"
        names = [c.name for c in table.c]
        sql = (
            f"SELECT {', '.join(f'{chr(34)}{n}{chr(34)}' for n in names)} FROM {name} "
            f'WHERE "{column}" IN ({", ".join([mark] * len(keys))})'
        )
        cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
        try:
            cursor.execute(sql, keys)
            return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
        finally:
            cursor.close()

    def _scalar(self, conn: Connection, name: str) -> Any:
        sql, _ = self._compiled(name, ())
        cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
        try:
            cursor.execute(sql)
            row = cursor.fetchone()
        finally:
            cursor.close()
        return None if row is None else row[0]

    def _write_connection(self, wait: bool = True) -> Connection:
        """The writer's own connection, kept between writes (a pool checkout costs more than a
        small write); on SQLite, set to wait for another process's write lock or not (`wait`)."""
        if self._conn is None or self._conn.closed or self._conn.invalidated:
            self._conn = self.engine.connect()
            self._waits = True  # `_sqlite_pragmas`
        if self.dialect == "sqlite" and wait != self._waits:
            cursor = self._conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
            try:
                cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS if wait else 0}")
            finally:
                cursor.close()
            self._waits = wait
        return self._conn


class _Writes(_Database):
    """The rows derived from events (`_derive`), and refused requests (`_refuse`)."""

    refused_rows: int

    def _refuse(self, conn: Connection, refusals: Sequence[Refusal]) -> None:
        """Keep refused requests (their first bytes) and count them by reason."""
        self._put(
            conn,
            "refused",
            [
                {
                    "received_at": r.received_at,
                    "endpoint": clean(r.endpoint),
                    "status": r.status,
                    "reason": clean(r.reason),
                    "problems": _dumps(r.problems) if r.problems else None,
                    "size": r.size,
                    "sha256": r.sha256,
                    "head": r.head,
                    "producer": _maybe(r.producer),
                }
                for r in refusals
            ],
        )
        self._count(conn, Counter(("refused", r.reason) for r in refusals))
        newest = conn.execute(select(func.max(t.refused.c.id))).scalar() or 0
        if newest > self.refused_rows:
            conn.execute(delete(t.refused).where(t.refused.c.id <= newest - self.refused_rows))

    def _derive(self, conn: Connection, batch: Sequence[Received], last_seq: int) -> None:
        """The derived rows of `batch` (events stored already, the last of them numbered `last_seq`),
        merged on those stored."""
        rows = _Rows()
        for item in batch:
            rows.add(item)
        self._upsert_namespaces(conn, rows.spaces)
        self._upsert_entities(conn, t.jobs, rows.jobs)
        self._upsert_entities(conn, t.datasets, rows.datasets)
        new = self._cache.new_keys
        if edges := new("edges", rows.edges):
            self._put(conn, "edges", [_edge_row(key, rows.edges[key]) for key in edges])
        if columns := new("column_edges", rows.columns):
            self._put(conn, "column_edges", [rows.columns[key] for key in columns])
        if parents := new("parent_links", rows.parents):
            self._put(conn, "parent_links", [rows.parents[key] for key in parents])
        self._upsert_runs(conn, rows.runs, last_seq)
        self._count(conn, Counter(rows.counted))

    def _count(self, conn: Connection, counts: Counter[tuple[str, str]]) -> None:
        if not counts:
            return
        self._put(
            conn,
            "counters",
            [
                {"key": t.name_key(kind, name), "kind": kind, "name": clean(name), "count": n}
                for (kind, name), n in counts.items()
            ],
        )

    def _upsert_namespaces(self, conn: Connection, spaces: dict[str, _Entity]) -> None:
        if not spaces:
            return
        self._put(
            conn,
            "namespaces",
            [{"key": k, "name": clean(e.name), "created_at": e.first, "updated_at": e.last} for k, e in spaces.items()],
        )

    def _existing(self, conn: Connection, table: str, keys: Iterable[Any]) -> Iterator[Any]:
        """The stored rows of `keys` (a run's key: (job key, run key)): those this process
        wrote last from memory, the others from the database."""
        held = self._cache.rows[table]
        missing = set()
        for key in keys:
            row = held.get(key)
            if row is None:
                missing.add(key)
            else:
                yield row
        asked = sorted({key[1] for key in missing} if table == "runs" else missing)
        for start in range(0, len(asked), _CHUNK):
            for found in self._rows_of(conn, table, asked[start : start + _CHUNK]):
                # a run: not the same run id of another job
                if table != "runs" or (found["job_key"], found["run_key"]) in missing:
                    yield found

    def _upsert_entities(self, conn: Connection, table: Table, rows: dict[str, _Entity]) -> None:
        if not rows:
            return
        has_fields = table is t.datasets
        for old in self._existing(conn, table.name, rows):
            row = rows[old["key"]]
            row.first, row.last = min(row.first, old["created_at"]), max(row.last, old["updated_at"])
            row.texts = _merged(old["facets"], old["facet_times"], row.facets, row.facet_times)
            if has_fields:
                old_fields = old["fields"]
                if old_fields is not None and (row.fields is None or (old["fields_time"], old_fields) > row.fields):
                    row.fields = (old["fields_time"], old_fields)
            else:
                row.invalid += old["invalid_events"]
        values = []
        for key, row in rows.items():
            texts = row.texts or (_dumps(row.facets), _dumps(row.facet_times))
            value: dict[str, Any] = {
                "key": key,
                "namespace_key": t.name_key(row.namespace),
                "namespace": clean(row.namespace),
                "name": clean(row.name),
                "created_at": row.first,
                "updated_at": row.last,
                "facets": texts[0],
                "facet_times": texts[1],
            }
            if has_fields:
                value["fields"] = None if row.fields is None else row.fields[1]
                value["fields_time"] = None if row.fields is None else row.fields[0]
            else:
                value["invalid_events"] = row.invalid
            values.append(value)
        self._put(conn, table.name, values)
        for value in values:
            self._cache.hold(table.name, value["key"], value)

    def _upsert_runs(self, conn: Connection, rows: dict[tuple[str, str], _Run], last_seq: int) -> None:
        if not rows:
            return
        accumulators = {key: _RunAccumulator() for key in rows}
        invalid = {key: run.invalid for key, run in rows.items()}
        for old in self._existing(conn, "runs", rows):
            key = (old["job_key"], old["run_key"])
            run = rows[key]
            accumulators[key] = _accumulator_of(old)
            run.first, run.last = min(run.first, old["created_at"]), max(run.last, old["updated_at"])
            run.texts = _merged(old["facets"], old["facet_times"], run.facets, run.facet_times)
            invalid[key] += old["invalid_events"]
        values = []
        for key, run in rows.items():
            accumulator = accumulators[key]
            texts = run.texts or (_dumps(run.facets), _dumps(run.facet_times))
            for facts in run.facts:
                accumulator.add(facts)
            terminal = accumulator.terminal
            values.append(
                {
                    "job_key": key[0],
                    "run_key": key[1],
                    "run_id": clean(run.run_id),
                    "job_namespace": clean(run.job_namespace),
                    "job_name": clean(run.job_name),
                    "created_at": run.first,
                    "updated_at": run.last,
                    "start_time": accumulator.start or NO_TIME,
                    "last_time": accumulator.last,
                    "terminal_time": None if terminal is None else terminal[0],
                    "terminal_rank": None if terminal is None else terminal[1],
                    "terminal_type": None if terminal is None else terminal[2],
                    "active": accumulator.active,
                    "state": run_state(terminal, accumulator.active),
                    "error_time": None if accumulator.error is None else accumulator.error[0],
                    "error": None if accumulator.error is None else clean(accumulator.error[1]),
                    "events": accumulator.events,
                    "facets": texts[0],
                    "facet_times": texts[1],
                    "invalid_events": invalid[key],
                    "parent_time": None if accumulator.parent is None else accumulator.parent[0],
                    "parent_namespace": None if accumulator.parent is None else clean(accumulator.parent[1][0]),
                    "parent_name": None if accumulator.parent is None else clean(accumulator.parent[1][1]),
                    "parent_run_id": None if accumulator.parent is None else clean(accumulator.parent[1][2]),
                    "updated_seq": last_seq,
                }
            )
        self._put(conn, "runs", values)
        for value in values:
            self._cache.hold("runs", (value["job_key"], value["run_key"]), value)


class _Log(_Writes):
    """Writes in two steps: an event is acknowledged once its ``events`` row is committed
    (`append`), and the rows derived from it are written afterwards, many events a transaction
    (`project`). The ``projected`` row of `olsdk_store` holds the last event derived, in the
    same transaction as its rows: what a killed server appended but did not derive is derived
    by the next `project`, reading the events back."""

    def append(self, batch: Sequence[Received], refusals: Sequence[Refusal] = ()) -> int:
        """Store the events of `batch` and keep `refusals`, in one transaction: the number (seq)
        of the last event of `batch` (0 when it is empty); the events are numbered one after
        another, in the order of `batch`, since every write takes its turn (`exclusive`)."""
        return self.exclusive(self._appending(batch, refusals), counted=bool(refusals))

    def append_now(self, batch: Sequence[Received]) -> int | None:
        """`append`, unless another thread of this process is writing (None: nothing was stored)."""
        ran, last = self.exclusive_now(self._appending(batch, ()), counted=False)
        return last if ran else None

    def _appending(self, batch: Sequence[Received], refusals: Sequence[Refusal]) -> Callable[[Connection, int], int]:
        def work(conn: Connection, written: int) -> int:
            if written:  # a write that leaves the derived rows alone may go uncounted (`exclusive`)
                self._cache.check(written)
            last = 0
            if len(batch) == 1:  # a single post: its number comes back with it, one round trip fewer
                last = int(self._put_returning(conn, "event_seq", _event_row(batch[0])))
            elif batch:
                self._put(conn, "events", [_event_row(item) for item in batch])
                last = int(self._scalar(conn, "last_seq") or 0)
            if refusals:
                self._refuse(conn, refusals)
            return last

        return work

    def project(self, held: Mapping[int, Received], limit: int = PROJECT_CHUNK) -> tuple[int, int]:
        """Write the derived rows of the next `limit` events not derived yet, in one transaction:
        (the last event now derived, how many were derived). `held`: events by number that this
        process appended (the others are read back from the database)."""

        def work(conn: Connection, written: int) -> tuple[int, int]:
            self._cache.check(written)
            mark = int(self._scalar(conn, "projected") or 0)
            seqs = self._seqs_after(conn, mark, limit)
            if not seqs:
                return mark, 0
            batch = self._events_of(conn, seqs, held)
            with self._pipeline(conn):  # the statements of `_derive` read no results through SQLAlchemy
                self._derive(conn, batch, seqs[-1])
                self._put(conn, "set_projected", [{"mark": str(seqs[-1]), "mark_name": PROJECTED}])
            return seqs[-1], len(seqs)

        return self.exclusive(work)

    def skip(self) -> int:
        """Count the next event not derived yet as derived, without deriving it (an event whose
        rows cannot be written): its number (0 when there is none)."""

        def work(conn: Connection, written: int) -> int:
            self._cache.check(written)
            seqs = self._seqs_after(conn, int(self._scalar(conn, "projected") or 0), 1)
            if seqs:
                self._put(conn, "set_projected", [{"mark": str(seqs[0]), "mark_name": PROJECTED}])
            return seqs[0] if seqs else 0

        return self.exclusive(work)

    def pending(self) -> bool:
        """Whether events are stored whose derived rows are not written yet (by any server)."""
        with self.engine.connect() as conn:
            info = t.store_info.c
            mark = conn.execute(select(info.value).where(info.name == PROJECTED)).scalar() or 0
            return bool(conn.execute(select(t.events.c.seq).where(t.events.c.seq > int(mark)).limit(1)).first())

    def _seqs_after(self, conn: Connection, mark: int, limit: int) -> list[int]:
        mark_style = "?" if self.engine.dialect.paramstyle == "qmark" else "%s"
        cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
        try:
            cursor.execute(f"SELECT seq FROM events WHERE seq > {mark_style} ORDER BY seq LIMIT {int(limit)}", (mark,))
            return [int(row[0]) for row in cursor.fetchall()]
        finally:
            cursor.close()

    def _events_of(self, conn: Connection, seqs: list[int], held: Mapping[int, Received]) -> list[Received]:
        """The events numbered `seqs`: those in `held` as they are, the others read back and sorted again."""
        missing = [seq for seq in seqs if seq not in held]
        found: dict[int, Received] = {}
        mark_style = "?" if self.engine.dialect.paramstyle == "qmark" else "%s"
        cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
        try:
            for start in range(0, len(missing), _CHUNK):
                part = missing[start : start + _CHUNK]
                marks = ", ".join([mark_style] * len(part))
                cursor.execute(f"SELECT seq, received_at, body, problems FROM events WHERE seq IN ({marks})", part)
                for seq, received_at, body, problems in cursor.fetchall():
                    found[int(seq)] = _received_again(body, problems, received_at)
        finally:
            cursor.close()
        return [held[seq] if seq in held else found[seq] for seq in seqs if seq in held or seq in found]


class Store(_Reads, _Log):
    """Events and their derived tables in one database (created when missing)."""

    def __init__(
        self,
        db: str,
        *,
        refused_rows: int = 10_000,
        max_response_bytes: int = 64 * 1024 * 1024,
        retention_days: float | None = None,
    ) -> None:
        url = database_url(db)
        self.description = describe_database(db)
        self.refused_rows = refused_rows
        self.max_response_bytes = max_response_bytes  # of stored JSON one read answer may hold
        if url.startswith("sqlite"):
            path = url.removeprefix("sqlite:///")
            if path and path != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            self.engine: Engine = create_engine(
                url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000, "check_same_thread": False}
            )
            event.listen(self.engine, "connect", _sqlite_pragmas)
        else:
            self.engine = create_engine(url, pool_size=8, max_overflow=8, pool_pre_ping=True)
        self.dialect = self.engine.dialect.name
        self._sql = self._statements()
        self._texts: dict[tuple[str, tuple[str, ...]], tuple[str, tuple[str, ...] | None]] = {}
        self._graph_lock = threading.Lock()
        self._write_lock = threading.Lock()  # the writer's connection: one thread at a time
        self._graph_cache: tuple[tuple[int, int], LineageGraph] | None = None
        self._runs = RunIndex()
        self._retained_seen = 0
        self.retention_days = retention_days
        self._conn: Connection | None = None  # the writer's
        self._waits = True
        self._cache = WriteCache()
        self._open_schema()

    def _open_schema(self) -> None:
        """Create what is missing (tables, indexes, the ``writes`` row) and check the schema's version;
        on PostgreSQL under a lock, so that servers started together do not create it twice."""
        with self.engine.begin() as conn:
            if self.dialect == "postgresql":
                conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _SCHEMA_LOCK})
            new = self._new_or_refused(conn)
            t.metadata.create_all(conn)
            _migrate.migrate(conn)  # a store made by an earlier olsdk
            info = t.store_info.c
            if new:
                conn.execute(insert(t.store_info).values(name="schema", value=str(t.SCHEMA_VERSION)))
            for counter in (WRITES, RETAINED):
                if conn.execute(select(info.value).where(info.name == counter)).scalar() is None:
                    conn.execute(insert(t.store_info).values(name=counter, value="0"))
            if conn.execute(select(info.value).where(info.name == PROJECTED)).scalar() is None:
                # a store written before events were derived apart from them: all of them are derived
                last = conn.execute(select(func.max(t.events.c.seq))).scalar() or 0
                conn.execute(insert(t.store_info).values(name=PROJECTED, value=str(last)))

    def _new_or_refused(self, conn: Connection) -> bool:
        """Whether the store on `conn` is new (no schema version yet); a store of another version
        is refused before anything in it is created or changed (on SQLite, the tables and
        indexes `create_all` and `_migrate` make are not undone by a rollback)."""
        if not inspect(conn).has_table(t.store_info.name):
            return True
        info = t.store_info.c
        found = conn.execute(select(info.value).where(info.name == "schema")).scalar()
        if found is not None and found != str(t.SCHEMA_VERSION):
            raise ConfigError(f"{self.description}: store schema {found}, this olsdk reads {t.SCHEMA_VERSION}", "db")
        return found is None

    def close(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(Exception):
                self._conn.close()
            self._conn = None
        self.engine.dispose()

    def retain(self, days: float, now: datetime | None = None) -> dict[str, int]:
        """Delete what is older than `days` days, as Marquez's retention does (`_retention`):
        how many jobs, runs, datasets and events, in batches of one transaction each."""
        limit = _retention.cutoff(days, now)
        deleted = {}
        for name, step in _retention.STEPS:

            def work(conn: Connection, _written: int, step: Callable[[Connection, str], int] = step) -> int:
                self._cache.clear()  # rows this process holds may go
                done = step(conn, limit)
                if done:
                    self._scalar(conn, "count_retained")  # the page's run index is read again
                return done

            total = batch = self.exclusive(work)
            while batch == _retention.BATCH:
                batch = self.exclusive(work)
                total += batch
            deleted[name] = total
        return deleted


def _namespace_upsert(stmt: Any) -> Any:
    """A namespace's row, or its times widened: created at the earliest event, updated at the latest."""
    stored, new = t.namespaces.c, stmt.excluded
    earliest = case((new.created_at < stored.created_at, new.created_at), else_=stored.created_at)
    latest = case((new.updated_at > stored.updated_at, new.updated_at), else_=stored.updated_at)
    return stmt.on_conflict_do_update(index_elements=[stored.key], set_={"created_at": earliest, "updated_at": latest})


@functools.cache
def _row_values(positions: tuple[str, ...]) -> Callable[[dict[str, Any]], tuple[Any, ...]]:
    """A row's values in the order of a statement's parameters (SQLite's positional ones)."""
    if len(positions) == 1:
        return lambda row: (row[positions[0]],)
    getter: Callable[[dict[str, Any]], tuple[Any, ...]] = operator.itemgetter(*positions)
    return getter


@functools.cache
def _pipeline_supported() -> bool:
    import psycopg

    return bool(psycopg.Pipeline.is_supported())


def run_summary(row: Any) -> RunSummary:
    """A stored run as the graph model's `RunSummary`."""
    return _accumulator_of(row._mapping).summary(row.run_id)


def _accumulator_of(row: Mapping[str, Any]) -> _RunAccumulator:
    """A stored run's row (by column name) as the graph model's accumulator."""
    terminal = (
        None if row["terminal_type"] is None else (row["terminal_time"], row["terminal_rank"], row["terminal_type"])
    )
    error = None if row["error"] is None else (row["error_time"], row["error"])
    parent = (
        None
        if row["parent_run_id"] is None
        else (row["parent_time"], (row["parent_namespace"], row["parent_name"], row["parent_run_id"]))
    )
    return _RunAccumulator(
        parent=parent,
        start=row["start_time"] or None,  # stored as "" when no event had a time
        last=row["last_time"],
        terminal=terminal,
        active=bool(row["active"]),
        error=error,
        events=row["events"],
    )


def _column_parts(column: ColumnEdge) -> tuple[str, ...]:
    return (
        column.field if column.field is not None else "\x01",
        column.upstream_namespace,
        column.upstream_name,
        column.upstream_field if column.upstream_field is not None else "\x01",
        column.transformation,
    )


def _dataset_containers(document: Mapping[str, Any], kind: str) -> Iterable[list[Any]]:
    if kind == "dataset":
        yield [document["dataset"]]
        return
    for side in ("inputs", "outputs"):
        items = document.get(side)
        if isinstance(items, list):
            yield items


def _received_again(body: str, problems: str | None, received_at: str) -> Received:
    """A stored event as `Received`, from its row (to derive what a server appended but did not derive)."""
    try:
        document = decode(body)
    except JSONProblem:  # a lone surrogate, kept as received
        document = json.loads(body)
    stored = [Problem(p["path"], p["rule"], p.get("value")) for p in json.loads(problems)] if problems else []
    return Received(body, document, extract(document), stored, received_at)


def _problem_dict(problem: Problem) -> dict[str, Any]:
    return {"path": problem.path, "rule": problem.rule, "value": problem.value}


def _busy(exc: BaseException) -> bool:
    """Whether `exc` is SQLite's SQLITE_BUSY: another connection holds the lock it needed."""
    for error in (exc, getattr(exc, "orig", None)):
        code = getattr(error, "sqlite_errorcode", 0)  # an extended code: the primary one in its low byte
        if isinstance(error, sqlite3.OperationalError) and (code & 0xFF) == sqlite3.SQLITE_BUSY:
            return True
    return False


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")  # readers never wait for the writer
    # a 2xx answer means committed: it survives the server being killed; FULL would also survive
    # a power loss, at one fsync per transaction (about 40 single posts a second here, not 200+)
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    cursor.close()
