"""From SQL execution starts and ends to runs: START when a write begins, COMPLETE/FAIL when it ends.

Spark runs some writes as several nested executions (``saveAsTable``: a wrapper, a
CTAS, a file write; a JDBC save adds a ``foreachPartition``), all sharing the root
execution's id. The rule: an execution that writes opens a run, unless a run opened
by an earlier execution of the same root is still open, which it then joins (its
write metrics count for that run). Writes inside ``foreachBatch`` are nested in the
micro-batch's execution, which opens no run: each gets a run of its own and, when
its plan only reads the batch's in-memory rows, the micro-batch's inputs.

When the listener thread reached an execution's start after the execution was over,
its plan arrives with its end ("late"). Late executions of one root are held until
the root ends, then grouped by the dataset they write into runs whose START and end
are sent together. Held groups are bounded in number, so nothing grows without end.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from olsdk._integrations.spark._jvm import log
from olsdk._integrations.spark._plan import PlanFacts, PlanReader
from olsdk._integrations.spark._run_events import Application, QueryRun, new_run_id
from olsdk._integrations.spark._streaming import StreamTracker

if TYPE_CHECKING:
    from olsdk._models import RunEvent

__all__ = ["Tracker"]

# Commands that create the table a nested write fills: preferred as a late group's run.
_PRIMARY = frozenset(
    {
        "CreateDataSourceTableAsSelectCommand",
        "CreateHiveTableAsSelectCommand",
        "OptimizedCreateHiveTableAsSelectCommand",
        "CreateTableAsSelect",
        "ReplaceTableAsSelect",
    }
)
_MAX_LATE_GROUPS = 256
_MAX_EXECUTIONS = 10_000  # executions whose end never came (a listener queue overflow)


def _time(millis: Any) -> dt.datetime:
    try:
        return dt.datetime.fromtimestamp(int(millis) / 1000, dt.UTC)
    except (TypeError, ValueError):
        return dt.datetime.now(dt.UTC)


@dataclass
class _Execution:
    id: int
    root: int
    start: dt.datetime
    facts: PlanFacts | None = None  # None: the start was seen too late for the plan
    run: QueryRun | None = None
    owner: bool = False  # it opened ``run`` (else it joined it)


@dataclass
class _Late:
    execution: _Execution
    end: dt.datetime
    error: dict[str, str] | None
    stats: dict[str, int] = field(default_factory=dict)


class Tracker:
    """Turns the JVM listener's messages into run events (on the listener's worker thread)."""

    def __init__(
        self,
        app: Application,
        reader: PlanReader,
        emit: Callable[[RunEvent], None],
        *,
        column_lineage: bool,
        emit_reads: bool,
        streaming_interval: float = 60.0,
    ) -> None:
        self.app = app
        self.reader = reader
        self._emit = emit
        self.column_lineage = column_lineage
        self.emit_reads = emit_reads
        self._executions: dict[int, _Execution] = {}
        self._late: dict[int, list[_Late]] = {}
        self._lock = threading.RLock()  # SIGTERM handling runs on the main thread
        self.build_failures = 0  # events that could not be built (logged)
        self.streams = StreamTracker(app, self._send, interval=streaming_interval)

    # -- messages --------------------------------------------------------------------

    def on_start(self, message: dict[str, Any]) -> None:
        with self._lock:
            exec_id, root = int(message["id"]), int(message.get("root", message["id"]))
            execution = _Execution(exec_id, root, _time(message.get("time")))
            if len(self._executions) >= _MAX_EXECUTIONS:
                self._executions.pop(next(iter(self._executions)))
            self._executions[exec_id] = execution
            plan = message.get("plan")
            if plan is None:
                return
            execution.facts = self.reader.read(plan)
            self._open(execution)

    def on_end(self, message: dict[str, Any]) -> None:
        with self._lock:
            exec_id = int(message["id"])
            end = _time(message.get("time"))
            error = message.get("error")
            execution = self._executions.pop(exec_id, None)
            if execution is None:  # started before the listener was installed
                execution = _Execution(exec_id, int(message.get("root", exec_id)), end)
            if execution.facts is None and message.get("plan") is not None:
                execution.facts = self.reader.read(message["plan"])
                self._late_end(execution, end, error, message.get("metrics") or {})
            elif execution.run is not None:
                self._finish(execution, end, error, message)
            if exec_id in self._late:  # a root whose nested executions came late
                self._resolve_late(exec_id)

    def on_stream(self, kind: str, message: dict[str, Any]) -> None:
        """A streaming query started, progressed or terminated."""
        with self._lock:
            if kind == "streamStarted":
                self.streams.started(message)
            elif kind == "streamProgress":
                self.streams.progress(message)
            elif kind == "streamTerminated":
                self.streams.terminated(message)

    # -- live runs -------------------------------------------------------------------

    def _open(self, execution: _Execution) -> None:
        facts = execution.facts
        assert facts is not None
        if facts.target is None and not (self.emit_reads and execution.root == execution.id and facts.inputs):
            return  # no write: nothing to report (its plan may still lend inputs, see _lend_inputs)
        joined = self._open_run_of(execution.root, execution.id)
        if joined is not None:
            execution.run = joined
            return
        self._lend_inputs(execution)
        run = self._new_run(facts, execution.start)
        run.parent = self._stream_parent(execution)
        execution.run, execution.owner = run, True
        self._send(run, "START")

    def _open_run_of(self, root: int, exec_id: int) -> QueryRun | None:
        """A run still open in this root's group, opened by another execution."""
        for other in reversed(list(self._executions.values())):
            if other.root == root and other.id != exec_id and other.owner and other.run is not None:
                return other.run
        return None

    def _lend_inputs(self, execution: _Execution) -> None:
        """A nested write that reads only in-memory rows (``foreachBatch``) gets its root's inputs."""
        facts = execution.facts
        if facts is None or facts.inputs or execution.root == execution.id:
            return
        root = self._executions.get(execution.root)
        if root is not None and root.facts is not None and root.facts.inputs:
            facts.inputs = list(root.facts.inputs)

    def _stream_parent(self, execution: _Execution) -> Any:
        """A write inside a streaming query's ``foreachBatch``: the query's run is its parent."""
        root = self._executions.get(execution.root)
        facts = root.facts if root is not None else execution.facts
        return self.streams.parent_of(facts.stream_run_id) if facts is not None else None

    def _new_run(self, facts: PlanFacts, start: dt.datetime) -> QueryRun:
        target = facts.target
        suffix = target.suffix if target is not None else None
        run = QueryRun(new_run_id(), self.app.job_name(facts.command, suffix), start, facts)
        if facts.root.startswith("WriteToMicroBatch") or facts.root == "WriteToDataSourceV2":
            run.processing = "STREAMING"
        run.errors = list(facts.errors)
        if self.column_lineage and target is not None and target.dataset is not None and facts.nodes:
            run.column_lineage = self._column_lineage(facts, run.errors)
        return run

    def _column_lineage(self, facts: PlanFacts, errors: list[str]) -> Any:
        from olsdk._integrations.spark._column_lineage import column_lineage_facet

        try:
            return column_lineage_facet(
                facts.nodes, facts.leaf_columns, dataset_lineage=self.app.settings.dataset_lineage
            )
        except Exception as error:  # a facet, never the run
            errors.append(f"column lineage: {type(error).__name__}: {error}")
            return None

    def _finish(self, execution: _Execution, end: dt.datetime, error: Any, message: dict[str, Any]) -> None:
        run = execution.run
        assert run is not None
        metrics = message.get("metrics") or {}
        if not execution.owner:  # a nested execution of an open run: its metrics, its failure
            if metrics and not run.stats:
                run.stats = dict(metrics)
            return
        if metrics:
            run.stats = dict(metrics)
        target = message.get("target")
        facts = run.facts
        if target and facts.target is not None and facts.target.lifecycle != "DROP":
            # DDL: what the command changed, read again once done (ALTER's new columns)
            changed = self.reader.target(target, run.errors)
            if changed is not None and changed.dataset is not None:
                facts.target.dataset = changed.dataset
        run.end = end
        run.error = error
        self._send(run, "FAIL" if error else "COMPLETE")

    # -- late executions ---------------------------------------------------------------

    def _late_end(self, execution: _Execution, end: dt.datetime, error: Any, metrics: dict[str, int]) -> None:
        facts = execution.facts
        assert facts is not None
        open_run = self._open_run_of(execution.root, execution.id)
        if open_run is not None and facts.target is not None:
            if metrics and not open_run.stats:
                open_run.stats = dict(metrics)
            return
        if len(self._late) >= _MAX_LATE_GROUPS and execution.root not in self._late:
            self._resolve_late(next(iter(self._late)))
        self._late.setdefault(execution.root, []).append(_Late(execution, end, error, dict(metrics)))

    def _resolve_late(self, root: int) -> None:
        """The runs of a root's late executions: one per written dataset, primary command first."""
        held = self._late.pop(root, [])
        by_target: dict[Any, list[_Late]] = {}
        for item in held:
            facts = item.execution.facts
            assert facts is not None
            target = facts.target
            if target is None:
                if self.emit_reads and item.execution.id == root and facts.inputs:
                    by_target.setdefault(("read", item.execution.id), []).append(item)
                continue
            key = target.dataset.ident if target.dataset is not None else ("nowhere", item.execution.id)
            by_target.setdefault(key, []).append(item)
        for group in by_target.values():
            primary = next((i for i in group if i.execution.facts and i.execution.facts.root in _PRIMARY), None)
            primary = primary or group[-1]  # the last to end is the outermost
            facts = primary.execution.facts
            assert facts is not None
            self._lend_inputs(primary.execution)
            run = self._new_run(facts, min(i.execution.start for i in group))
            run.stats = primary.stats or next((i.stats for i in group if i.stats), {})
            run.end = max(i.end for i in group)
            run.error = primary.error or next((i.error for i in group if i.error), None)
            self._send(run, "START")
            self._send(run, "FAIL" if run.error else "COMPLETE")

    # -- closing ---------------------------------------------------------------------

    def close(self, event_type: str = "ABORT", reason: str | None = None) -> None:
        """End what is still open: late groups as they are, open runs with ``event_type``."""
        with self._lock:
            for root in list(self._late):
                self._resolve_late(root)
            self.streams.close(event_type, reason or "the Spark application ended while the query was running")
            now = dt.datetime.now(dt.UTC)
            for execution in list(self._executions.values()):
                run = execution.run
                if run is not None and execution.owner:
                    run.end = now
                    if reason:
                        run.error = {"message": reason}
                    self._send(run, event_type)
            self._executions.clear()

    def send_run(self, run: QueryRun, event_type: str) -> None:
        """An event of a run made outside the SQL listener (an RDD write)."""
        with self._lock:
            self._send(run, event_type)

    def _send(self, run: QueryRun, event_type: str) -> None:
        try:
            event = self.app.query_event(run, event_type)
        except Exception as error:
            log.warning(
                "olsdk.spark: no lineage for the run of %s, its %s event could not be built: %s: %s",
                run.facts.command,
                event_type,
                type(error).__name__,
                error,
            )
            self.build_failures += 1
            return
        run.started = run.started or event_type == "START"
        self._emit(event)
