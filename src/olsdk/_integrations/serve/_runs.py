"""What the page needs of the runs, kept up to date from the runs changed since the last look.

The page shows each job's `RUN_HISTORY` latest runs, its run counts by state, and the
`FAILED_RUNS` latest failed runs. Computing those from the whole ``runs`` table costs
seconds at 100,000 runs; every write stamps the runs it touched with the sequence number
of its last event (``updated_seq``), so a refresh reads only those and folds them into
what it holds. Folding a run twice changes nothing, so a refresh that overlaps a write
is harmless.
"""

from __future__ import annotations

import heapq
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import Connection

from olsdk._integrations._graph._facts import FAIL
from olsdk._integrations._graph._model import FAILED_RUNS, RUN_HISTORY, RunSummary
from olsdk._integrations.serve import _schema as t

__all__ = ["RunIndex"]

_COLUMNS = [c for c in t.runs.c if c.name not in ("facets", "facet_times")]  # what a summary needs

Key = tuple[str, str]  # (job_key, run_key)


@dataclass(slots=True)
class _Job:
    namespace: str
    name: str
    latest: list[tuple[tuple[str, str, str], str, RunSummary]] = field(default_factory=list)  # latest first
    totals: Counter[str] = field(default_factory=Counter)


class RunIndex:
    """Each job's latest runs and run counts, and the failed runs, as of `seq`."""

    def __init__(self) -> None:
        self.seq = -1
        self._jobs: dict[str, _Job] = {}
        self._states: dict[Key, str] = {}
        self._failed: dict[Key, tuple[str, str, RunSummary]] = {}

    def refresh(self, conn: Connection, seq: int, summary_of: Any) -> None:
        """Fold in the runs written after `self.seq` (the first time: load what is stored)."""
        if self.seq < 0:
            self._load(conn, summary_of)
            self.seq = seq
            return
        query = select(*_COLUMNS).where(t.runs.c.updated_seq > self.seq)
        stale: set[str] = set()
        for row in conn.execute(query):
            if self._fold(row, summary_of(row)):
                stale.add(row.job_key)
        for job_key in stale:  # a run moved back past runs no longer held: read the job's latest again
            rows = conn.execute(
                select(*_COLUMNS).where(t.runs.c.job_key == job_key).order_by(*t.RUN_ORDER).limit(RUN_HISTORY)
            )
            held = [(summary.order_key(), row.run_key, summary) for row in rows for summary in [summary_of(row)]]
            self._jobs[job_key].latest = held
        self.seq = seq

    def _load(self, conn: Connection, summary_of: Any) -> None:
        """Everything stored, by the database: states and counts of all runs, each job's
        latest runs (a window over the runs' order index), the failed runs."""
        runs = t.runs.c
        for row in conn.execute(select(runs.job_key, runs.run_key, runs.state, runs.job_namespace, runs.job_name)):
            job = self._jobs.get(row.job_key)
            if job is None:
                job = self._jobs[row.job_key] = _Job(row.job_namespace, row.job_name)
            job.totals[row.state] += 1
            self._states[row.job_key, row.run_key] = row.state
        place = func.row_number().over(partition_by=runs.job_key, order_by=t.RUN_ORDER).label("place")
        ranked = select(*_COLUMNS, place).subquery()
        for row in conn.execute(select(ranked).where(ranked.c.place <= RUN_HISTORY).order_by(ranked.c.place)):
            summary = summary_of(row)
            self._jobs[row.job_key].latest.append((summary.order_key(), row.run_key, summary))
        for row in conn.execute(select(*_COLUMNS).where(runs.state == FAIL)):
            self._failed[row.job_key, row.run_key] = (row.job_namespace, row.job_name, summary_of(row))

    def _fold(self, row: Any, summary: RunSummary) -> bool:
        """Fold one run in; True when the job's latest runs must be read again."""
        key = (row.job_key, row.run_key)
        job = self._jobs.get(row.job_key)
        if job is None:
            job = self._jobs[row.job_key] = _Job(row.job_namespace, row.job_name)
        before = self._states.get(key)
        if before is not None:
            job.totals[before] -= 1
            if not job.totals[before]:
                del job.totals[before]
        job.totals[row.state] += 1
        self._states[key] = row.state
        order = summary.order_key()
        held = next((entry for entry in job.latest if entry[1] == row.run_key), None)
        # a held run that moved back (an earlier event arrived) while runs were left out: they may pass it
        stale = held is not None and order < held[0] and len(job.latest) == RUN_HISTORY < sum(job.totals.values())
        kept = [entry for entry in job.latest if entry[1] != row.run_key]
        kept.append((order, row.run_key, summary))
        kept.sort(key=lambda entry: entry[0], reverse=True)
        job.latest = kept[:RUN_HISTORY]
        if row.state == FAIL:
            self._failed[key] = (row.job_namespace, row.job_name, summary)
        else:
            self._failed.pop(key, None)
        return stale

    def runs(self) -> list[tuple[str, str, RunSummary]]:
        return [(job.namespace, job.name, entry[2]) for job in self._jobs.values() for entry in job.latest]

    def job_totals(self) -> dict[tuple[str, str], dict[str, int]]:
        return {(job.namespace, job.name): dict(job.totals) for job in self._jobs.values()}

    def runs_by_state(self) -> dict[str, int]:
        total: Counter[str] = Counter()
        for job in self._jobs.values():
            total.update(job.totals)
        return dict(total)

    def failed_runs(self) -> list[tuple[str, str, RunSummary]]:
        return heapq.nlargest(FAILED_RUNS, self._failed.values(), key=lambda f: (f[2].order_key(), f[0], f[1]))
