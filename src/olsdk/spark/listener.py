"""``install()``: lineage for every write of a SparkSession, from a Python listener.

A Python object implementing Spark's ``QueryExecutionListener`` is registered through
py4j. Spark calls it on its listener-bus thread after each query, so the query itself
never waits on us; the callback only reads the plan (a few dozen py4j calls) and hands
a plain record to a worker thread, which groups, builds and emits the events, so a slow
transport cannot hold up Spark's listener bus either.

Nested executions are one run: ``saveAsTable`` reports a file write, a CTAS and a
``SaveAsV1TableCommand``; a JDBC save adds a ``foreachPartition``. Spark's SQL status
store tells each execution's root, so records wait for their root's callback and the
whole group becomes one run (the CTAS is reported, the file write gives the metrics).
"""

from __future__ import annotations

import atexit
import datetime as dt
import logging
import os
import queue
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from olsdk.spark import _build, _ids
from olsdk.spark._jvm import call, class_name, opt, seq
from olsdk.spark.plan import PlanDataset, PlanWalker, WriteTarget

__all__ = ["SparkLineage", "install"]

log = logging.getLogger("olsdk.spark")

Emit = Callable[[Any], Any]

# Commands that are a table write of their own: reported in preference to what they nest.
_PRIMARY = frozenset(
    {
        "CreateDataSourceTableAsSelectCommand",
        "CreateHiveTableAsSelectCommand",
        "OptimizedCreateHiveTableAsSelectCommand",
        "CreateDataSourceTableCommand",
    }
)
_STACK_LIMIT = 20_000  # characters of a JVM stack trace kept in errorMessage


@dataclass
class _Record:
    """What one listener callback saw, as plain data."""

    func: str
    kind: str  # analyzed plan root
    command: str  # executed plan root, as the agent names it
    exec_id: int | None
    root_id: int | None
    start: dt.datetime
    end: dt.datetime
    target: WriteTarget | None = None
    inputs: list[PlanDataset] = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)
    error: tuple[str, str] | None = None
    column_lineage: Any = None
    errors: list[str] = field(default_factory=list)

    @property
    def nested(self) -> bool:
        return self.root_id is not None and self.exec_id is not None and self.root_id != self.exec_id


class _QueryListener:
    """The py4j proxy Spark calls; everything it does is guarded."""

    def __init__(self, owner: SparkLineage) -> None:
        self._owner = owner

    def onSuccess(self, funcName: str, qe: Any, durationNs: int) -> None:
        self._owner._on_query(funcName, qe, durationNs, None)

    def onFailure(self, funcName: str, qe: Any, exception: Any) -> None:
        self._owner._on_query(funcName, qe, None, exception)

    class Java:
        implements = ["org.apache.spark.sql.util.QueryExecutionListener"]  # noqa: RUF012


_HANDLES: dict[int, SparkLineage] = {}
_HANDLES_LOCK = threading.Lock()
_STOP_PATCHED = False


class SparkLineage:
    """Lineage for one SparkSession; returned by ``install()``.

    ``app_run`` is the application run every write run points at as its parent.
    ``flush()`` waits until the events of finished queries are emitted; ``close()``
    (called by ``spark.stop()`` and at interpreter exit) also ends the application run.
    """

    def __init__(
        self,
        spark: Any,
        emit: Emit,
        *,
        namespace: str,
        column_lineage: bool,
        emit_reads: bool,
        on_close: Callable[[], Any] | None = None,
        producer: str | None = None,
    ) -> None:
        self._spark = spark
        self.client: Any = None  # what install() was given (for lineage_run)
        self._emit_fn = emit
        self._on_close = on_close
        self.namespace = namespace
        self.column_lineage = column_lineage
        self.emit_reads = emit_reads
        jsession = spark._jsparkSession
        self._jsession = jsession
        conf = spark.conf
        self.app_name = str(conf.get("spark.openlineage.appName", None) or conf.get("spark.app.name", "unknown"))
        self.spark_version = str(spark.version)
        self._properties = {
            "spark.master": str(conf.get("spark.master", "")),
            "spark.app.name": str(conf.get("spark.app.name", "")),
        }
        self.app_run = _build.RunRef(namespace, _ids.normalize(self.app_name), _new_run_id())
        self._external_parent, self._external_root = _parent_from_conf(conf)
        self._store = call(call(jsession, "sharedState"), "statusStore")
        self.producer = producer
        self._queue: queue.Queue[Any] = queue.Queue()
        self._pending: dict[int, list[_Record]] = {}
        self._closed = False
        self._lock = threading.Lock()
        self.emitted = 0
        self.failed_emits = 0
        self._worker = threading.Thread(target=self._work, name="olsdk-spark-lineage", daemon=True)
        self._worker.start()
        self._emit(self._app_event("START"))
        self._listener = _QueryListener(self)
        jsession.listenerManager().register(self._listener)

    # -- callbacks (Spark's listener-bus thread) ---------------------------------------

    def _on_query(self, func: str, qe: Any, duration_ns: int | None, exc: Any) -> None:
        if self._closed:
            return
        try:
            record = self._extract(str(func), qe, duration_ns, exc)
        except Exception as error:  # never raise into Spark
            log.warning("olsdk.spark: could not read a query's plan: %s", error)
            return
        if record is not None:
            self._queue.put(record)

    def _extract(self, func: str, qe: Any, duration_ns: int | None, exc: Any) -> _Record | None:
        now = dt.datetime.now(dt.UTC)
        analyzed = call(qe, "analyzed")
        if analyzed is None:
            return None  # analysis failed: nothing ran, nothing to report
        kind = str(call(analyzed, "nodeName") or "")
        exec_id, root_id, submitted = self._execution(qe)
        if submitted is not None:
            start = submitted
        elif duration_ns is not None:
            start = now - dt.timedelta(microseconds=duration_ns / 1000)
        else:
            start = now
        walker = PlanWalker(self._jsession, column_lineage=self.column_lineage)
        target = walker.write_target(analyzed)
        record = _Record(func, kind, _command_name(qe), exec_id, root_id, start, now, target)
        if exc is not None:
            record.error = (str(call(exc, "getMessage") or exc), _stack_trace(exc))
        if target is None and (record.nested or not self.emit_reads):
            return record  # grouping still needs to see it; it carries no lineage
        source = target.query if target is not None else analyzed
        if source is not None:
            record.inputs = walker.inputs(source)
        if target is not None:
            record.stats = _write_metrics(qe)
            if self.column_lineage and source is not None:
                from olsdk.spark.column_lineage import column_lineage_facet

                record.column_lineage = column_lineage_facet(source, record.inputs)
        record.errors = walker.errors
        return record

    def _execution(self, qe: Any) -> tuple[int | None, int | None, dt.datetime | None]:
        """(execution id, root execution id, submission time) from the SQL status store."""
        query_id = str(call(call(qe, "queryId"), "toString") or "")
        if not query_id or self._store is None:
            return None, None, None
        count = int(call(self._store, "executionsCount") or 0)
        window = 32
        for item in reversed(seq(call(self._store, "executionsList", max(0, count - window), window))):
            if str(call(call(item, "queryId"), "toString") or "") == query_id:
                submitted = call(item, "submissionTime")
                when = dt.datetime.fromtimestamp(int(submitted) / 1000, dt.UTC) if submitted is not None else None
                return int(item.executionId()), int(item.rootExecutionId()), when
        return None, None, None

    # -- worker thread -----------------------------------------------------------------

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            try:
                if item is None:
                    return
                if isinstance(item, threading.Event):
                    item.set()
                elif isinstance(item, _Record):
                    self._group(item)
            except Exception as error:  # keep the worker alive whatever happens
                log.warning("olsdk.spark: could not emit lineage: %s", error)
            finally:
                self._queue.task_done()

    def _group(self, record: _Record) -> None:
        if record.nested and record.root_id is not None:
            self._pending.setdefault(record.root_id, []).append(record)
            return
        group = [*self._pending.pop(record.exec_id, []), record] if record.exec_id is not None else [record]
        self._emit_group(group)

    def _emit_group(self, group: list[_Record]) -> None:
        root = group[-1]
        writes = [r for r in group if r.target is not None]
        if not writes:
            if self.emit_reads and not root.nested and root.inputs:
                self._emit_run(root, None, root.inputs, {})
            return
        primary = next((r for r in writes if r.kind in _PRIMARY), None)
        primary = primary or (root if root.target is not None else writes[-1])
        stats = primary.stats or next((r.stats for r in writes if r.stats), {})
        error = root.error or next((r.error for r in group if r.error), None)
        start = min(r.start for r in group)
        end = max(r.end for r in group)
        merged = _Record(
            primary.func,
            primary.kind,
            primary.command,
            root.exec_id,
            root.root_id,
            start,
            end,
            primary.target,
            primary.inputs,
            stats,
            error,
            primary.column_lineage,
            [e for r in group for e in r.errors],
        )
        self._emit_run(merged, merged.target, merged.inputs, stats)

    def _emit_run(
        self,
        record: _Record,
        target: WriteTarget | None,
        inputs: list[PlanDataset],
        stats: dict[str, int],
    ) -> None:
        from olsdk.models import (
            ErrorMessageRunFacet,
            ExtractionErrorRunFacet,
            ExtractionErrorRunFacetError,
            LifecycleStateChange,
            LifecycleStateChangeDatasetFacet,
            OutputStatisticsOutputDatasetFacet,
        )

        suffix = target.suffix if target is not None else None
        job = (self.namespace, _ids.job_name(self.app_name, record.command, suffix))
        run_id = _new_run_id()
        facets: dict[str, Any] = {
            "parent": _build.parent_facet(self.app_run, self._root()),
            "processing_engine": _build.processing_engine(self.spark_version),
        }
        facets.update(self._spark_facets())
        job_facets = {"jobType": _build.job_type()}
        ins = [d.as_input() for d in inputs]
        outs = []
        extra: dict[str, Any] = {}
        if target is not None:
            if target.lifecycle:
                extra["lifecycleStateChange"] = LifecycleStateChangeDatasetFacet(
                    lifecycleStateChange=LifecycleStateChange(target.lifecycle)
                )
            if record.column_lineage is not None:
                extra["columnLineage"] = record.column_lineage
            outs.append(target.dataset.as_output(**extra))
        start_event = _build.run_event(
            "START",
            record.start,
            run_id,
            job,
            run_facets=facets,
            job_facets=job_facets,
            inputs=ins,
            outputs=outs,
            producer=self.producer,
        )
        end_facets = dict(facets)
        if record.errors:
            end_facets["extractionError"] = ExtractionErrorRunFacet(
                totalTasks=len(record.errors),
                failedTasks=len(record.errors),
                errors=[ExtractionErrorRunFacetError(errorMessage=e, task="plan") for e in record.errors],
            )
        if record.error is not None:
            message, stack = record.error
            end_facets["errorMessage"] = ErrorMessageRunFacet(
                message=message, programmingLanguage="JAVA", stackTrace=stack or None
            )
        if target is not None and stats and record.error is None:
            outs = [
                target.dataset.as_output(
                    output_facets={
                        "outputStatistics": OutputStatisticsOutputDatasetFacet(
                            rowCount=stats.get("rowCount"), size=stats.get("size"), fileCount=stats.get("fileCount")
                        )
                    },
                    **extra,
                )
            ]
        end_event = _build.run_event(
            "FAIL" if record.error is not None else "COMPLETE",
            record.end,
            run_id,
            job,
            run_facets=end_facets,
            job_facets=job_facets,
            inputs=ins,
            outputs=outs,
            producer=self.producer,
        )
        self._emit(start_event)
        self._emit(end_event)

    @property
    def root_run(self) -> _build.RunRef:
        """The root of the run chain: the orchestrator's root run, else the application run."""
        return self._external_root or self._external_parent or self.app_run

    def _root(self) -> _build.RunRef:
        return self.root_run

    def _spark_facets(self) -> dict[str, Any]:
        try:
            from olsdk.spark.agent_facets import spark_properties_facet
        except ImportError:
            return {}
        return {"spark_properties": spark_properties_facet(self._properties)}

    def _app_event(self, event_type: str) -> Any:
        facets: dict[str, Any] = {"processing_engine": _build.processing_engine(self.spark_version)}
        if self._external_parent is not None:
            facets["parent"] = _build.parent_facet(self._external_parent, self._external_root)
        facets.update(self._spark_facets())
        return _build.run_event(
            event_type,
            None,
            self.app_run.run_id,
            (self.namespace, self.app_run.name),
            run_facets=facets,
            job_facets={"jobType": _build.job_type("APPLICATION", "NONE")},
            producer=self.producer,
        )

    def _emit(self, event: Any) -> None:
        try:
            self._emit_fn(event)
            self.emitted += 1
        except Exception as error:  # a transport problem must not break the pipeline
            self.failed_emits += 1
            log.warning("olsdk.spark: could not emit an event: %s", error)

    # -- public ------------------------------------------------------------------------

    def flush(self, timeout: float = 30.0) -> bool:
        """Wait until the events of every finished query are emitted. True if drained."""
        if self._closed:
            return True
        jsc = getattr(self._spark.sparkContext, "_jsc", None)
        bus = call(call(jsc, "sc"), "listenerBus")
        if bus is not None:
            call(bus, "waitUntilEmpty", int(timeout * 1000))
        done = threading.Event()
        self._queue.put(done)
        return done.wait(timeout)

    def close(self, timeout: float = 30.0) -> None:
        """Emit what is pending, end the application run, unregister the listener."""
        with self._lock:
            if self._closed:
                return
            self.flush(timeout)
            self._closed = True
        call(call(self._jsession, "listenerManager"), "unregister", self._listener)
        for group in self._pending.values():  # roots that never reported: emit as they are
            for record in group:
                self._queue.put(_Record(**{**record.__dict__, "root_id": record.exec_id}))
        self._pending = {}
        self._queue.put(None)
        self._worker.join(timeout)
        self._emit(self._app_event("COMPLETE"))
        with _HANDLES_LOCK:
            for key, handle in list(_HANDLES.items()):
                if handle is self:
                    del _HANDLES[key]
        if self._on_close is not None:
            try:
                self._on_close()
            except Exception as error:
                log.warning("olsdk.spark: closing the client failed: %s", error)


def _new_run_id() -> str:
    try:
        from olsdk.client.uuid7 import uuid7
    except ImportError:
        return str(uuid.uuid4())
    return str(uuid7())


def _command_name(qe: Any) -> str:
    """Root node of the executed plan, with adaptive/codegen wrappers around a command unwrapped."""
    root = call(qe, "executedPlan")
    node = root
    for _ in range(8):
        name = str(call(node, "nodeName") or "")
        if name == "AdaptiveSparkPlan":
            node = call(node, "executedPlan")
        elif name.startswith("WholeStageCodegen"):
            node = call(node, "child")
        elif class_name(node).endswith("QueryStageExec"):
            node = call(node, "plan")
        else:
            break
    name = str(call(node, "nodeName") or "")
    if name.startswith("Execute "):
        return name
    return str(call(root, "nodeName") or "unknown")


def _write_metrics(qe: Any) -> dict[str, int]:
    """rowCount/size/fileCount from the write command's SQL metrics, when there are any."""
    node = call(qe, "executedPlan")
    for _ in range(8):
        kind = class_name(node)
        if kind == "AdaptiveSparkPlanExec":
            node = call(node, "executedPlan")
        elif kind.endswith("QueryStageExec"):
            node = call(node, "plan")
        elif kind.startswith("WholeStageCodegen"):
            node = call(node, "child")
        else:
            break
    metrics = call(call(node, "cmd"), "metrics")
    out: dict[str, int] = {}
    for key, name in (("rowCount", "numOutputRows"), ("size", "numOutputBytes"), ("fileCount", "numFiles")):
        metric = opt(call(metrics, "get", name))
        if metric is not None:
            out[key] = int(metric.value())
    return out


def _stack_trace(exc: Any) -> str:
    try:
        frames = list(exc.getStackTrace())[:60]
        lines = [str(exc.toString()), *(f"\tat {f.toString()}" for f in frames)]
    except Exception:
        return ""
    return "\n".join(lines)[:_STACK_LIMIT]


def _parent_from_conf(conf: Any) -> tuple[_build.RunRef | None, _build.RunRef | None]:
    """The orchestrator run set with ``spark.openlineage.parent*`` (see ``parent_conf``)."""

    def ref(prefix: str) -> _build.RunRef | None:
        ns = conf.get(f"spark.openlineage.{prefix}JobNamespace", None)
        name = conf.get(f"spark.openlineage.{prefix}JobName", None)
        run_id = conf.get(f"spark.openlineage.{prefix}RunId", None)
        return _build.RunRef(str(ns), str(name), str(run_id)) if ns and name and run_id else None

    return ref("parent"), ref("rootParent")


def _resolve_emit(client: Any) -> tuple[Emit, Callable[[], Any] | None, Any]:
    if client is None:
        from olsdk.client import OpenLineageClient

        client = OpenLineageClient()
        return client.emit, client.close, client
    if hasattr(client, "emit"):
        return client.emit, None, client
    if callable(client):
        return client, None, client
    raise TypeError("install: client must have an emit(event) method or be a callable")


def install(
    spark: Any,
    client: Any = None,
    *,
    namespace: str | None = None,
    column_lineage: bool = False,
    emit_reads: bool = False,
) -> SparkLineage:
    """Emit lineage for every write of ``spark`` (a classic, JVM-backed SparkSession).

    ``client`` is an ``OpenLineageClient`` (or anything with ``emit(event)``, or a plain
    callable); None builds one from the environment / ``openlineage.yml``.
    ``namespace`` defaults to ``spark.openlineage.namespace``, then
    ``OPENLINEAGE_NAMESPACE``, then ``default``. Installing twice on one SparkContext
    returns the first handle.
    """
    if not hasattr(spark, "_jsparkSession"):
        raise TypeError(
            "install() needs a classic SparkSession with a JVM; on Spark Connect use "
            "olsdk.spark.lineage_run() around the actions instead"
        )
    from pyspark.java_gateway import ensure_callback_server_started

    key = id(spark._sc)
    with _HANDLES_LOCK:
        if key in _HANDLES:
            return _HANDLES[key]
        ensure_callback_server_started(spark.sparkContext._gateway)  # type: ignore[no-untyped-call]
        emit, on_close, client = _resolve_emit(client)
        ns = (
            namespace
            or spark.conf.get("spark.openlineage.namespace", None)
            or os.environ.get("OPENLINEAGE_NAMESPACE")
            or "default"
        )
        handle = SparkLineage(
            spark,
            emit,
            namespace=str(ns),
            column_lineage=column_lineage,
            emit_reads=emit_reads,
            on_close=on_close,
            producer=getattr(client, "producer", None),
        )
        handle.client = client
        _HANDLES[key] = handle
        _patch_stop()
    return handle


def handle_for(spark: Any) -> SparkLineage | None:
    """The ``install()`` handle of ``spark``'s SparkContext, if lineage is installed."""
    sc = getattr(spark, "_sc", None)
    if sc is None:
        return None
    with _HANDLES_LOCK:
        return _HANDLES.get(id(sc))


def _patch_stop() -> None:
    """End the application run when the session stops (``spark.stop()`` or ``with``)."""
    global _STOP_PATCHED
    if _STOP_PATCHED:
        return
    from pyspark.sql import SparkSession

    original = SparkSession.stop

    def stop(self: Any) -> None:
        with _HANDLES_LOCK:
            handle = _HANDLES.get(id(self._sc)) if self._sc is not None else None
        if handle is not None:
            try:
                handle.close()
            except Exception as error:
                log.warning("olsdk.spark: could not close lineage: %s", error)
        original(self)

    SparkSession.stop = stop  # type: ignore[method-assign]
    _STOP_PATCHED = True
    atexit.register(_close_all)


def _close_all() -> None:
    with _HANDLES_LOCK:
        handles = list(_HANDLES.values())
    for handle in handles:
        try:
            handle.close(timeout=5.0)
        except Exception as error:
            log.warning("olsdk.spark: could not close lineage at exit: %s", error)
