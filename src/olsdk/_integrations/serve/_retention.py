"""Retention: what is older than a number of days is deleted, as Marquez's retention deletes it.

Marquez's retention (its database retention job, run at start and then every 15 minutes)
deletes jobs and runs last updated before the limit, datasets last updated before it that
no job it keeps reads or writes, and lineage events whose event time is before it; it keeps
namespaces. `olsdk serve --retention-days N` deletes the same from its store:

- jobs last updated (the latest event time of their events) before the limit, with their
  edges, runs and parent links;
- runs last updated before the limit;
- datasets last updated before the limit that no job left reads or writes, with their
  column lineage;
- events whose event time is before the limit (their time of receipt when they have none),
  every one of them: the store never numbers an event again once its number was given
  (`_migrate`), so the events stored afterwards are derived as any others.

Namespaces stay, and so do the counters (of everything ever received). Rows go in batches
of `BATCH`, one transaction each, so writes wait for at most one batch.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Final

from sqlalchemy import and_, delete, exists, or_, select, tuple_
from sqlalchemy.engine import Connection

from olsdk._integrations._graph._facts import NO_TIME
from olsdk._integrations.serve import _schema as t

__all__ = ["BATCH", "EVERY_SECONDS", "STEPS", "cutoff"]

BATCH: Final = 1000  # rows deleted per transaction
EVERY_SECONDS: Final = 15 * 60.0  # as often as Marquez applies its retention by default
_MAX_DAYS: Final = 700_000.0  # back to about the year 100: as far back as `datetime` reaches


def cutoff(days: float, now: datetime | None = None) -> str:
    """The store's time text `days` days before `now`: rows older than it are deleted."""
    moment = (now or datetime.now(UTC)) - timedelta(days=min(days, _MAX_DAYS))
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond:06d}Z"


def _jobs(conn: Connection, limit: str) -> int:
    jobs = t.jobs.c
    found = conn.execute(select(jobs.key, jobs.namespace, jobs.name).where(jobs.updated_at < limit).limit(BATCH)).all()
    if not found:
        return 0
    keys = [row.key for row in found]
    names = [(row.namespace, row.name) for row in found]
    links = t.parent_links.c
    conn.execute(delete(t.edges).where(t.edges.c.job_key.in_(keys)))
    conn.execute(delete(t.runs).where(t.runs.c.job_key.in_(keys)))
    conn.execute(
        delete(t.parent_links).where(
            or_(
                tuple_(links.child_namespace, links.child_name).in_(names),
                tuple_(links.parent_namespace, links.parent_name).in_(names),
            )
        )
    )
    conn.execute(delete(t.jobs).where(jobs.key.in_(keys)))
    return len(keys)


def _runs(conn: Connection, limit: str) -> int:
    runs = t.runs.c
    found = conn.execute(select(runs.job_key, runs.run_key).where(runs.updated_at < limit).limit(BATCH)).all()
    if found:
        conn.execute(delete(t.runs).where(tuple_(runs.job_key, runs.run_key).in_([tuple(row) for row in found])))
    return len(found)


def _datasets(conn: Connection, limit: str) -> int:
    datasets = t.datasets.c
    used = exists().where(t.edges.c.dataset_key == datasets.key)
    found = conn.scalars(select(datasets.key).where(datasets.updated_at < limit, ~used).limit(BATCH)).all()
    if found:
        conn.execute(delete(t.column_edges).where(t.column_edges.c.dataset_key.in_(found)))
        conn.execute(delete(t.datasets).where(datasets.key.in_(found)))
    return len(found)


def _events(conn: Connection, limit: str) -> int:
    events = t.events.c
    old = or_(
        and_(events.event_time != NO_TIME, events.event_time < limit),
        and_(events.event_time == NO_TIME, events.received_at < limit),
    )
    found = conn.scalars(select(events.seq).where(old).limit(BATCH)).all()
    if found:
        conn.execute(delete(t.events).where(events.seq.in_(found)))
    return len(found)


# In Marquez's order: jobs (their runs and edges with them), runs, then datasets no job
# left uses, and events last.
STEPS: Final[tuple[tuple[str, Callable[[Connection, str], int]], ...]] = (
    ("jobs", _jobs),
    ("runs", _runs),
    ("datasets", _datasets),
    ("events", _events),
)
