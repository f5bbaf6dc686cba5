"""``install()``: lineage for every write of a Spark application, configured the agent's way.

Two threads, so that Spark never waits on lineage and lineage never waits on the
network to follow Spark:

* the JVM listener (``_bridge``) reads each SQL execution's plan in Java on its own
  listener-bus queue and makes one py4j call per execution start and end;
* the worker thread turns those messages into runs (``_tracker``): START when a write
  begins, COMPLETE/FAIL when it ends, and hands each event to the emitter (``_delivery``;
  an ``OpenLineageClient``'s ``emit`` never waits on the network).

Nothing here raises into Spark. An event that cannot be built or sent is logged as a
WARNING on the ``olsdk.spark`` logger with its cause. At ``spark.stop()``, at
interpreter exit and on SIGTERM, what is still held is sent within the close timeout
or written to the spool; SIGTERM then ends open runs and the application run with
ABORT (the process is being killed: the run did not fail, it was abandoned).
"""

from __future__ import annotations

import atexit
import datetime as dt
import json
import logging
import os
import signal
import threading
import time
from collections.abc import Callable
from typing import Any

from olsdk._builders._build import Emitter, RunRef, chain_root
from olsdk._builders.naming._context import CONTEXT_ENV, context_parent
from olsdk._integrations.spark import _ids
from olsdk._integrations.spark._bridge import Bridge
from olsdk._integrations.spark._dataset import PlanDataset
from olsdk._integrations.spark._delivery import Delivery, Worker, cause
from olsdk._integrations.spark._plan import PlanFacts, PlanReader, SessionFacts, WriteTarget, qualify
from olsdk._integrations.spark._rdd import patch_rdd_writes
from olsdk._integrations.spark._run_events import Application, QueryRun, new_run_id
from olsdk._integrations.spark._settings import SparkSettings
from olsdk._integrations.spark._tracker import Tracker

__all__ = ["CallableEmitter", "EmitterLike", "SparkLineage", "handle_for", "install", "spark_conf"]

log = logging.getLogger("olsdk.spark")

#: what ``install()`` takes as ``client``: an ``Emitter`` (``OpenLineageClient``) or
#: a plain ``emit`` callable
EmitterLike = Emitter | Callable[[Any], object]

DEFAULT_CLOSE_TIMEOUT = 10.0  # seconds spark.stop() may spend delivering what is left
DEFAULT_SIGTERM_TIMEOUT = 5.0  # seconds between SIGTERM and the process ending


class CallableEmitter:
    """An ``Emitter`` around a plain ``emit`` callable; events carry the default producer."""

    def __init__(self, emit: Callable[[Any], object]) -> None:
        self._emit = emit

    @property
    def producer(self) -> str:
        import olsdk

        return olsdk.get_default_producer()

    def emit(self, event: Any) -> None:
        self._emit(event)


_HANDLES: dict[int, SparkLineage] = {}
_HANDLES_LOCK = threading.Lock()
_PATCHED = False


def spark_conf(spark: Any) -> dict[str, str]:
    """The application's settings: the SparkConf, then the session's runtime settings."""
    conf: dict[str, str] = {}
    try:
        conf.update((str(k), str(v)) for k, v in spark.sparkContext.getConf().getAll())
    except Exception as error:
        log.debug("olsdk.spark: SparkConf not readable: %s", error)
    try:
        conf.update((str(k), str(v)) for k, v in spark.conf.getAll.items())
    except Exception as error:
        log.debug("olsdk.spark: runtime conf not readable: %s", error)
    return conf


class SparkLineage:
    """Lineage for one Spark application (every session of its SparkContext); from ``install()``.

    ``app_run`` is the application run every write run points at as its parent.
    ``flush()`` waits until the events of finished queries are handed to the emitter;
    ``close()`` (called by ``spark.stop()`` and at interpreter exit) also ends the
    application run and unregisters the listener. ``emitted`` and ``failed_emits``
    count events handed to the emitter and events that could not be built or sent.
    """

    def __init__(
        self,
        spark: Any,
        client: EmitterLike,
        *,
        namespace: str,
        column_lineage: bool | None = None,
        emit_reads: bool = False,
        close_client: bool = False,
        settings: SparkSettings | None = None,
        close_timeout: float = DEFAULT_CLOSE_TIMEOUT,
        sigterm_timeout: float = DEFAULT_SIGTERM_TIMEOUT,
        streaming_interval: float = 60.0,
    ) -> None:
        self.settings = settings if settings is not None else SparkSettings.from_conf(spark_conf(spark))
        self._spark = spark
        self.client = _as_emitter(client)  # also what lineage_run emits through
        self._close_client = close_client
        self.namespace = namespace
        self.close_timeout = close_timeout
        self.sigterm_timeout = sigterm_timeout
        self.application = _application(spark, namespace, getattr(self.client, "producer", None), self.settings)
        self._delivery = Delivery(self.client)
        self._tracker = Tracker(
            self.application,
            PlanReader(SessionFacts.of(spark)),
            self._delivery.put,
            column_lineage=self.settings.column_lineage if column_lineage is None else column_lineage,
            emit_reads=emit_reads,
            streaming_interval=streaming_interval,
        )
        self._lock = threading.Lock()
        self._closing = False
        self._closed = False
        self._app_failures = 0
        self._worker = Worker(self._handle, self._delivery)
        self.worker_seconds = self._worker.seconds  # time the worker spent per message
        self._send_app("START")
        self._bridge = Bridge(spark.sparkContext, self._on_message, forward_reads=emit_reads)

    # -- switches --------------------------------------------------------------------

    @property
    def column_lineage(self) -> bool:
        """Whether write runs carry a ``columnLineage`` facet (may be switched at any time)."""
        return self._tracker.column_lineage

    @column_lineage.setter
    def column_lineage(self, value: bool) -> None:
        self._tracker.column_lineage = value

    @property
    def emit_reads(self) -> bool:
        """Whether read-only actions get runs of their own (may be switched at any time)."""
        return self._tracker.emit_reads

    @emit_reads.setter
    def emit_reads(self, value: bool) -> None:
        self._tracker.emit_reads = value
        self._bridge.forward_reads(value)

    @property
    def app_run(self) -> RunRef:
        return self.application.run

    @property
    def root_run(self) -> RunRef:
        """The root of the run chain: the orchestrator's root run, else the application run."""
        return self.application.root_run

    @property
    def emitted(self) -> int:
        return self._delivery.emitted

    @property
    def failed_emits(self) -> int:
        """Events that could not be built, or that the emitter refused (logged, spooled when built)."""
        return self._delivery.failed + self._tracker.build_failures + self._app_failures

    @property
    def spooled_at_close(self) -> int:
        """Events written to the spool unsent because the close timeout (or SIGTERM) came first."""
        return self._delivery.spilled

    def callback_costs_ns(self) -> list[int]:
        """Time Spark's listener thread spent per forwarded SQL event (plan read + py4j call)."""
        return self._bridge.costs_ns()

    # -- from the JVM (py4j callback threads) -----------------------------------------

    def _on_message(self, kind: str, payload: str) -> None:
        self._worker.messages.put((kind, payload))

    # -- worker thread -----------------------------------------------------------------

    def _handle(self, kind: str, payload: str) -> None:
        message = json.loads(payload)
        if kind == "start":
            self._tracker.on_start(message)
        elif kind == "end":
            self._tracker.on_end(message)
        elif kind.startswith("stream"):
            self._tracker.on_stream(kind, message)
        elif kind == "appEnd":
            self._on_app_end()
        elif kind == "problem":
            log.warning("olsdk.spark: the JVM listener could not read an execution: %s", message.get("error"))

    def _on_app_end(self) -> None:
        """The SparkContext stopped without ``spark.stop()`` from Python (the JVM stopped it)."""
        with self._lock:
            if self._closing:
                return
        threading.Thread(target=self.close, name="olsdk-spark-close", daemon=True).start()

    def _send_app(self, event_type: str, message: str | None = None) -> None:
        try:
            event = self.application.event(event_type, message=message)
        except Exception as error:
            self._app_failures += 1
            log.warning(
                "olsdk.spark: no lineage for the application run's %s, its events could not be built: %s",
                event_type,
                cause(error),
            )
            return
        self._delivery.put(event)
        self._delivery.hand()

    # -- RDD writes (the caller's thread, see _rdd) --------------------------------------

    def rdd_write_started(self, method: str, rdd: Any, path: str) -> QueryRun | None:
        """START of an RDD save to ``path``; None when lineage cannot describe it (logged)."""
        if self._closing:
            return None
        try:
            text = self._bridge.describe_rdd(rdd._jrdd.rdd())
            inputs = self._tracker.reader.datasets({"type": "files", "paths": json.loads(text)}, None, [])
            output = PlanDataset(_ids.from_location(qualify(str(path))))
            target = WriteTarget(output, None, output.ident.name, method)
            facts = PlanFacts(method, method, target, inputs, [], {})
            run = QueryRun(
                new_run_id(),
                self.application.job_name(method, output.ident.name),
                dt.datetime.now(dt.UTC),
                facts,
                job_kind="RDD_JOB",
            )
        except Exception as error:
            log.warning("olsdk.spark: no lineage for RDD.%s(%r): %s", method, path, cause(error))
            return None
        self._tracker.send_run(run, "START")
        self._delivery.hand()
        return run

    def rdd_write_ended(self, run: QueryRun, error: BaseException | None) -> None:
        run.end = dt.datetime.now(dt.UTC)
        if error is not None:
            run.error = {"message": f"{type(error).__name__}: {error}"}
        self._tracker.send_run(run, "FAIL" if error is not None else "COMPLETE")
        self._delivery.hand()

    # -- public ------------------------------------------------------------------------

    def flush(self, timeout: float = 30.0) -> bool:
        """Wait until the events of every finished query are handed to the emitter. True if drained."""
        if self._closed:
            return True
        deadline = time.monotonic() + timeout
        self._bridge.wait_for_bus(timeout)
        return self._worker.through(deadline)

    def close(self, timeout: float | None = None) -> None:
        """Deliver what is pending (else spool it), end the application run, unregister the listener."""
        with self._lock:
            if self._closing:
                return
            self._closing = True
        limit = self.close_timeout if timeout is None else timeout
        deadline = time.monotonic() + limit
        self._delivery.closing(deadline, f"not delivered within the close timeout ({limit:g} s)")
        try:
            self._bridge.wait_for_bus(max(0.0, deadline - time.monotonic()))
            self._worker.through(deadline)
        finally:
            self._bridge.unregister()
            self._worker.messages.put(None)
        self._worker.finish(deadline)
        self._tracker.close("ABORT", "the Spark application stopped while this query was running")
        self._delivery.hand()
        self._send_app("COMPLETE")
        self._delivery.stop()
        self._finish()

    def terminate(self, signum: int = signal.SIGTERM) -> None:
        """The process is being killed: spool what is pending, then ABORT open runs and the application run."""
        with self._lock:
            if self._closing:
                return
            self._closing = True
        name = signal.Signals(signum).name if signum in signal.Signals._value2member_map_ else str(signum)
        deadline = time.monotonic() + self.sigterm_timeout
        self._worker.through(min(deadline, time.monotonic() + 1.0))
        self._delivery.closing(deadline, f"not delivered before the process ended ({name})")
        reason = f"the application was terminated ({name}) while this query was running"
        self._tracker.close("ABORT", reason)
        self._delivery.hand()
        self._send_app("ABORT", message=f"terminated by {name}")
        self._delivery.stop()
        self._worker.messages.put(None)
        self._finish()

    def _finish(self) -> None:
        self._closed = True
        with _HANDLES_LOCK:
            for key, handle in list(_HANDLES.items()):
                if handle is self:
                    del _HANDLES[key]
        if self._close_client:
            _close(self.client)


def _close(client: Emitter) -> None:
    try:
        close = getattr(client, "close", None)
        if close is not None:
            close()
    except Exception as error:
        log.warning("olsdk.spark: closing the client failed: %s", cause(error))


def _application(spark: Any, namespace: str, producer: str | None, settings: SparkSettings) -> Application:
    """The application run of ``spark``, under the orchestrator's run when one is set."""
    conf = spark_conf(spark)
    app_name = settings.app_name or conf.get("spark.app.name") or "unknown"
    properties = {"spark.master": conf.get("spark.master", ""), "spark.app.name": conf.get("spark.app.name", "")}
    properties.update({key: conf[key] for key in settings.captured_properties if key in conf})
    parent, root, context = _orchestrator(settings)
    return Application(
        namespace=namespace,
        app_name=app_name,
        spark_version=str(spark.version),
        run=RunRef(namespace, _ids.normalize(app_name), settings.application_run_id or new_run_id()),
        parent=parent,
        root=root,
        parent_context=context,
        properties=properties,
        producer=producer,
        settings=settings,
    )


CONTEXT_KEY = "spark.openlineage.context"


def _orchestrator(settings: SparkSettings) -> tuple[RunRef | None, RunRef | None, Any]:
    """The orchestrator's run and root run, and the ``parent`` facet a context payload gave.

    ``spark.openlineage.context`` wins over the ``parent*``/``rootParent*`` keys, as in
    the Java agent; the ``OPENLINEAGE_CONTEXT`` environment variable of the driver comes
    after both. An unusable payload is ignored with a warning.
    """
    context = context_parent(settings.keys.get(CONTEXT_KEY), where=CONTEXT_KEY)
    if context is None and settings.parent is None:
        context = context_parent(os.environ.get(CONTEXT_ENV))
    if context is None:
        return settings.parent, settings.root, None
    parent = RunRef(str(context.job.namespace), str(context.job.name), str(context.run.runId))
    return parent, chain_root(context), context


def _as_emitter(client: EmitterLike) -> Emitter:
    if isinstance(client, Emitter):
        return client
    if callable(client):
        return CallableEmitter(client)
    raise TypeError(f"install: client must have an emit(event) method or be a callable, got {type(client).__name__}")


def _client_from(settings: SparkSettings) -> Emitter:
    """A client for the agent's transport keys, else from ``openlineage.yml`` / ``OPENLINEAGE_*``."""
    from olsdk import ConfigError
    from olsdk._delivery.client._client import OpenLineageClient

    if settings.transport is None:
        return OpenLineageClient()
    try:
        return OpenLineageClient(config={"transport": settings.transport})
    except ConfigError as error:
        key = f"spark.openlineage.{error.key}" if error.key else "spark.openlineage.transport"
        raise ConfigError(f"{key}: {error}", key) from error


class DisabledLineage:
    """What ``install()`` returns when ``spark.openlineage.disabled=true``: no listener, no events."""

    enabled = False
    emitted = 0
    failed_emits = 0

    def flush(self, timeout: float = 30.0) -> bool:
        return True

    def close(self, timeout: float | None = None) -> None:
        return None


def install(
    spark: Any,
    client: EmitterLike | None = None,
    *,
    namespace: str | None = None,
    column_lineage: bool | None = None,
    emit_reads: bool = False,
    close_timeout: float = DEFAULT_CLOSE_TIMEOUT,
    handle_sigterm: bool = True,
    streaming_interval: float = 60.0,
) -> Any:
    """Emit lineage for every write of ``spark``'s application (a classic, JVM-backed session).

    Settings come from the agent's ``spark.openlineage.*`` keys (SparkConf or runtime
    conf): ``transport.*``, ``namespace``, ``appName``, ``context``, ``parent*``/``rootParent*``,
    ``disabled``, ``facets.disabled``, ``capturedProperties``, ``job.tags``,
    ``run.tags``, ``job.owners.*``, ``columnLineage.*``, ``jobName.*``. ``client`` (an
    ``Emitter`` such as an ``OpenLineageClient``, or a plain callable) replaces the
    configured transport; without one and without ``transport.*`` keys the client is
    configured from ``openlineage.yml`` / ``OPENLINEAGE_*`` and closed with the session.
    ``namespace`` defaults to ``spark.openlineage.namespace``, then
    ``OPENLINEAGE_NAMESPACE``, then ``default``. ``column_lineage`` defaults to on,
    unless ``spark.openlineage.facets.columnLineage.disabled=true``. ``close_timeout``
    bounds how long ``spark.stop()`` spends delivering what is left (the rest is
    spooled). ``handle_sigterm`` ends runs and spools pending events on SIGTERM (when
    called from the main thread), then lets the signal do what it did before. A
    streaming query's run gets a RUNNING event at most every ``streaming_interval``
    seconds while it makes progress.
    Installing twice on one SparkContext returns the first handle.
    """
    if not hasattr(spark, "_jsparkSession"):
        raise TypeError(
            "install() needs a classic SparkSession with a JVM; on Spark Connect use "
            "olsdk.spark.lineage_run() around the actions instead"
        )
    existing = _handle_of_context(spark._sc)
    if existing is not None:
        return existing
    settings = SparkSettings.from_conf(spark_conf(spark))
    if settings.disabled:
        log.info("olsdk.spark: spark.openlineage.disabled=true, no lineage")
        return DisabledLineage()
    ns = namespace or settings.namespace or os.environ.get("OPENLINEAGE_NAMESPACE") or "default"
    return _installed(
        spark,
        _client_from(settings) if client is None else client,
        handle_sigterm=handle_sigterm,
        namespace=str(ns),
        column_lineage=column_lineage,
        emit_reads=emit_reads,
        close_client=client is None,
        settings=settings,
        close_timeout=close_timeout,
        streaming_interval=streaming_interval,
    )


def _installed(spark: Any, emitter: EmitterLike, *, handle_sigterm: bool, **options: Any) -> SparkLineage:
    """A new handle for ``spark``'s context (its stop, RDD writes and SIGTERM hooked), or the one
    another thread installed meanwhile."""
    key = id(spark._sc)
    with _HANDLES_LOCK:
        if key in _HANDLES:  # installed meanwhile by another thread
            return _HANDLES[key]
        handle = SparkLineage(spark, emitter, **options)
        _HANDLES[key] = handle
    _patch_stop()
    patch_rdd_writes(_handle_of_context)
    if handle_sigterm:
        _handle_sigterm()
    return handle


def handle_for(spark: Any) -> SparkLineage | None:
    """The ``install()`` handle of ``spark``'s SparkContext, if lineage is installed."""
    sc = getattr(spark, "_sc", None)
    if sc is None:
        return None
    with _HANDLES_LOCK:
        return _HANDLES.get(id(sc))


def _handle_of_context(sc: Any) -> SparkLineage | None:
    with _HANDLES_LOCK:
        return _HANDLES.get(id(sc)) if sc is not None else None


def _patch_stop() -> None:
    """End the application run when the context stops (``spark.stop()``, ``sc.stop()``, ``with``)."""
    global _PATCHED
    with _HANDLES_LOCK:
        if _PATCHED:
            return
        _PATCHED = True
    from pyspark import SparkContext

    original = SparkContext.stop

    def stop(self: Any) -> None:
        with _HANDLES_LOCK:
            handle = _HANDLES.get(id(self))
        if handle is not None:
            try:
                handle.close()
            except Exception as error:
                log.warning("olsdk.spark: could not close lineage: %s", cause(error))
        original(self)

    SparkContext.stop = stop  # type: ignore[method-assign]
    atexit.register(_close_all)


def _close_all() -> None:
    with _HANDLES_LOCK:
        handles = list(_HANDLES.values())
    for handle in handles:
        try:
            handle.close()
        except Exception as error:
            log.warning("olsdk.spark: could not close lineage at exit: %s", cause(error))


_SIGTERM_INSTALLED = False


def _handle_sigterm() -> None:
    """On SIGTERM: every handle spools and ends its runs, then the signal's previous handling runs."""
    global _SIGTERM_INSTALLED
    if _SIGTERM_INSTALLED or threading.current_thread() is not threading.main_thread():
        return
    previous = signal.getsignal(signal.SIGTERM)
    if previous is signal.SIG_IGN:
        return  # the application chose to ignore SIGTERM: so do we

    def on_sigterm(signum: int, frame: Any) -> None:
        with _HANDLES_LOCK:
            handles = list(_HANDLES.values())
        for handle in handles:
            try:
                handle.terminate(signum)
            except Exception as error:
                log.warning("olsdk.spark: could not end lineage on SIGTERM: %s", cause(error))
        if callable(previous):
            previous(signum, frame)
        else:  # the default action: end the process as SIGTERM would have
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)

    signal.signal(signal.SIGTERM, on_sigterm)
    _SIGTERM_INSTALLED = True
