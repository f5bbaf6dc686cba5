"""The tables of `olsdk serve`, in SQLAlchemy Core: one schema for SQLite and PostgreSQL.

``events`` holds every stored event as it was received (its JSON text) with the
problems it was stored with; ``refused`` the first bytes of every request that was not
stored, and why. The other tables are derived from the events as they arrive (one
transaction with them), so that reads never scan the events: namespaces, jobs,
datasets, edges, runs, column lineage and counters.

Rows are keyed by a hash of their names (`name_key`), not by the names: a name may be
longer than PostgreSQL's index rows allow, and the hash keeps every key the same size.
For the same reason no index holds a whole name or run id, only its first `INDEXED_CHARS`
characters (`indexed_prefix`): any length the server accepts can be stored.
"""

from __future__ import annotations

import functools
import hashlib

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    func,
    literal_column,
)
from sqlalchemy.sql.elements import ColumnElement

__all__ = [
    "DATASET_ORDER",
    "INDEXED_CHARS",
    "RETIRED_INDEXES",
    "RUN_ORDER",
    "SCHEMA_VERSION",
    "column_edges",
    "counters",
    "datasets",
    "edges",
    "events",
    "indexed_prefix",
    "jobs",
    "metadata",
    "name_key",
    "namespaces",
    "parent_links",
    "refused",
    "runs",
    "store_info",
]

SCHEMA_VERSION = 1

metadata = MetaData()

# SQLite's INTEGER PRIMARY KEY is its rowid (auto-incremented); BIGINT is not.
_SEQUENCE = BigInteger().with_variant(Integer(), "sqlite")
_KEY = String(32)
_TIME = String(32)  # canonical UTC text (`YYYY-MM-DDTHH:MM:SS.ffffffZ`), sortable as text
INDEXED_CHARS = 128  # characters of a name or run id an index holds (an index row holds only so much)
# indexes of earlier stores that held whole names or run ids: replaced (`_migrate`)
RETIRED_INDEXES = ("jobs_namespace", "datasets_namespace", "runs_job_order")


@functools.lru_cache(maxsize=65_536)  # the same namespaces, jobs and datasets come back in every event
def name_key(*parts: str) -> str:
    """A fixed-size key for a tuple of names (128 bits of BLAKE2b)."""
    digest = hashlib.blake2b(digest_size=16)
    for part in parts:
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\x00")
    return digest.hexdigest()


store_info = Table(
    "olsdk_store",
    metadata,
    Column("name", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

events = Table(
    "events",
    metadata,
    Column("seq", _SEQUENCE, primary_key=True, autoincrement=True),
    Column("received_at", _TIME, nullable=False),
    Column("kind", String(8), nullable=False),  # run, job, dataset
    Column("job_key", _KEY),
    Column("dataset_key", _KEY),  # dataset events
    Column("run_id", Text),
    Column("event_type", Text),
    Column("event_time", _TIME, nullable=False),
    Column("producer", Text),
    Column("valid", Boolean, nullable=False),
    Column("problems", Text),  # JSON list of {path, rule, value}; NULL when valid
    Column("body", Text, nullable=False),
    Index("events_job", "job_key", "seq"),
    Index("events_time", "event_time"),
    sqlite_autoincrement=True,  # a number is never given again, even once its event is deleted (`_migrate`)
)


def indexed_prefix(column: ColumnElement[str]) -> ColumnElement[str]:
    """The first `INDEXED_CHARS` characters of a name or run id: what indexes hold of it (it may be
    longer than PostgreSQL's index rows allow). Queries match it and then the whole value."""
    return func.substr(column, literal_column("1"), literal_column(str(INDEXED_CHARS)))


# a run's events (its datasets): created in stores made before it too (`_migrate`)
Index("events_run", indexed_prefix(events.c.run_id))

refused = Table(
    "refused",
    metadata,
    Column("id", _SEQUENCE, primary_key=True, autoincrement=True),
    Column("received_at", _TIME, nullable=False),
    Column("endpoint", Text, nullable=False),
    Column("status", Integer, nullable=False),
    Column("reason", Text, nullable=False),
    Column("problems", Text),  # JSON list of {path, rule, value}
    Column("size", BigInteger, nullable=False),  # bytes received (or announced)
    Column("sha256", String(64)),  # of the bytes received, when all of them were
    Column("head", LargeBinary, nullable=False),  # the first bytes received
    Column("producer", Text),
)

namespaces = Table(
    "namespaces",
    metadata,
    Column("key", _KEY, primary_key=True),
    Column("name", Text, nullable=False),
    Column("created_at", _TIME, nullable=False),
    Column("updated_at", _TIME, nullable=False),
)

jobs = Table(
    "jobs",
    metadata,
    Column("key", _KEY, primary_key=True),
    Column("namespace_key", _KEY, nullable=False),
    Column("namespace", Text, nullable=False),
    Column("name", Text, nullable=False),
    Column("created_at", _TIME, nullable=False),
    Column("updated_at", _TIME, nullable=False),
    Column("facets", Text, nullable=False),  # JSON: the latest facet under each key
    Column("facet_times", Text, nullable=False),  # JSON: the event time of each
    Column("invalid_events", Integer, nullable=False),
)
Index("jobs_namespace_name", jobs.c.namespace_key, indexed_prefix(jobs.c.name))

datasets = Table(
    "datasets",
    metadata,
    Column("key", _KEY, primary_key=True),
    Column("namespace_key", _KEY, nullable=False),
    Column("namespace", Text, nullable=False),
    Column("name", Text, nullable=False),
    Column("created_at", _TIME, nullable=False),
    Column("updated_at", _TIME, nullable=False),
    Column("fields", Text),  # the page's [[name, type], ...] of the latest schema facet
    Column("fields_time", _TIME),
    Column("facets", Text, nullable=False),
    Column("facet_times", Text, nullable=False),
)
# a namespace's datasets by name (`DATASET_ORDER`)
Index("datasets_namespace_name", datasets.c.namespace_key, indexed_prefix(datasets.c.name))
DATASET_ORDER = (indexed_prefix(datasets.c.name), datasets.c.name)

edges = Table(
    "edges",
    metadata,
    Column("job_key", _KEY, primary_key=True),
    Column("direction", String(6), primary_key=True),  # input: dataset -> job; output: job -> dataset
    Column("dataset_key", _KEY, primary_key=True),
    Column("job_namespace", Text, nullable=False),
    Column("job_name", Text, nullable=False),
    Column("dataset_namespace", Text, nullable=False),
    Column("dataset_name", Text, nullable=False),
    Index("edges_dataset", "dataset_key"),
)

runs = Table(
    "runs",
    metadata,
    Column("job_key", _KEY, primary_key=True),
    Column("run_key", _KEY, primary_key=True),
    Column("run_id", Text, nullable=False),
    Column("job_namespace", Text, nullable=False),
    Column("job_name", Text, nullable=False),
    Column("created_at", _TIME, nullable=False),
    Column("updated_at", _TIME, nullable=False),
    Column("start_time", _TIME, nullable=False),  # "" when no event had a time (sorts first)
    Column("last_time", _TIME, nullable=False),
    Column("terminal_time", _TIME),
    Column("terminal_rank", Integer),
    Column("terminal_type", String(16)),
    Column("active", Boolean, nullable=False),
    Column("state", String(16), nullable=False),  # the graph's run state (COMPLETE, FAIL, ..., RUNNING, OTHER)
    Column("error_time", _TIME),
    Column("error", Text),
    Column("events", Integer, nullable=False),
    Column("facets", Text, nullable=False),
    Column("facet_times", Text, nullable=False),
    Column("invalid_events", Integer, nullable=False),
    # its parent run (the parent run facet of its latest event that has one)
    Column("parent_time", _TIME),
    Column("parent_namespace", Text),
    Column("parent_name", Text),
    Column("parent_run_id", Text),
    Column("updated_seq", BigInteger, nullable=False),  # the last event seq of the write that changed it
    Index("runs_run_key", "run_key"),
    Index("runs_updated", "updated_seq"),
    Index("runs_state", "state"),
)
# a job's runs, latest first: by first event time, then last, then run id (`RUN_ORDER`)
Index("runs_job_latest", runs.c.job_key, runs.c.start_time, runs.c.last_time, indexed_prefix(runs.c.run_id))
RUN_ORDER = (
    runs.c.start_time.desc(),
    runs.c.last_time.desc(),
    indexed_prefix(runs.c.run_id).desc(),
    runs.c.run_id.desc(),
)

parent_links = Table(
    "parent_links",
    metadata,
    Column("key", _KEY, primary_key=True),  # a run of the parent job started a run of the child job
    Column("parent_namespace", Text, nullable=False),
    Column("parent_name", Text, nullable=False),
    Column("child_namespace", Text, nullable=False),
    Column("child_name", Text, nullable=False),
)

column_edges = Table(
    "column_edges",
    metadata,
    Column("key", _KEY, primary_key=True),
    Column("dataset_key", _KEY, nullable=False),
    Column("dataset_namespace", Text, nullable=False),
    Column("dataset_name", Text, nullable=False),
    Column("field", Text),  # NULL: the whole dataset (filters, joins)
    Column("upstream_namespace", Text, nullable=False),
    Column("upstream_name", Text, nullable=False),
    Column("upstream_field", Text),
    Column("transformation", Text, nullable=False),
    Index("column_edges_dataset", "dataset_key"),
)

counters = Table(
    "counters",
    metadata,
    Column("key", _KEY, primary_key=True),
    # event (by kind), producer, facet (entity:key), note (parts of events left out),
    # rule (spec problems of stored events), producer_rule (JSON [producer, rule]),
    # refused (by reason)
    Column("kind", String(16), nullable=False),
    Column("name", Text, nullable=False),
    Column("count", BigInteger, nullable=False),
    Index("counters_kind", "kind"),
)
