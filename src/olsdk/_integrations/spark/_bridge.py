"""The JVM half of the listener: olsdk's ``SparkListener``, compiled by Janino at run time.

Why a JVM listener: a Python ``SparkListenerInterface`` gets every task and stage
event through py4j (about 0.5 ms each), and a Python ``QueryExecutionListener`` only
hears of a query once it is over, only for its own session. The Java class in
``OlsdkLineageBridge.java`` (package data, read by ``_bridge_source``) listens on the
SparkContext (every session), drops task events in the JVM, reads each SQL execution's
plan in Java when it starts (so START can be sent while the query runs), and makes one
py4j call per execution start and end, with the plan already turned into JSON. It gets a
listener-bus queue of its own, so a slow Python side never delays Spark's other listeners.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

from olsdk._integrations.spark import _bridge_source
from olsdk._integrations.spark._jvm import call, log

__all__ = ["Bridge", "describe_plan"]

_QUEUE = "olsdkLineage"  # Spark's listener bus gives each named queue its own thread
_COMPILED: dict[int, Any] = {}  # id(JVM view) -> the compiled class
_COMPILE_LOCK = threading.Lock()


def _compiled_class(sc: Any) -> Any:
    """The listener class in this JVM, compiled on first use (about a second, once)."""
    jvm = sc._jvm
    key = id(sc._gateway)
    with _COMPILE_LOCK:
        cls = _COMPILED.get(key)
        if cls is None:
            compiler = jvm.org.codehaus.janino.SimpleCompiler()
            compiler.setParentClassLoader(jvm.java.lang.Thread.currentThread().getContextClassLoader())
            compiler.cook(_bridge_source.source())
            cls = compiler.getClassLoader().loadClass(_bridge_source.CLASS_NAME)
            _COMPILED[key] = cls
    return cls


def _new_instance(sc: Any) -> Any:
    gateway = sc._gateway
    jvm = sc._jvm
    cls = _compiled_class(sc)
    no_types = gateway.new_array(jvm.java.lang.Class, 0)
    no_args = gateway.new_array(jvm.java.lang.Object, 0)
    return cls.getDeclaredConstructor(no_types).newInstance(no_args)


class _Sink:
    """What the Java listener calls (a ``java.util.function.BiConsumer``): kind and JSON text."""

    def __init__(self, receive: Callable[[str, str], None]) -> None:
        self._receive = receive

    def accept(self, kind: str, payload: str) -> None:
        try:
            self._receive(kind, payload)
        except Exception as error:  # never raise back into the JVM
            log.warning("olsdk.spark: listener message dropped: %s: %s", type(error).__name__, error)

    def andThen(self, other: Any) -> Any:  # part of BiConsumer; never called by the listener
        return self

    class Java:
        implements = ["java.util.function.BiConsumer"]  # noqa: RUF012


class Bridge:
    """One registered instance of the JVM listener, forwarding to ``receive(kind, json)``."""

    def __init__(self, spark_context: Any, receive: Callable[[str, str], None], *, forward_reads: bool) -> None:
        from pyspark.java_gateway import ensure_callback_server_started

        ensure_callback_server_started(spark_context._gateway)  # type: ignore[no-untyped-call]
        self._listener = _new_instance(spark_context)
        self._sink = _Sink(receive)
        self._listener.setSink(self._sink)
        self._listener.setForwardReads(forward_reads)
        self._bus = spark_context._jsc.sc().listenerBus()
        self._bus.addToQueue(self._listener, _QUEUE)
        self.registered = True

    def forward_reads(self, value: bool) -> None:
        call(self._listener, "setForwardReads", value)

    def costs_ns(self) -> list[int]:
        """Nanoseconds the listener thread spent per forwarded SQL event (latest 4096)."""
        text = call(self._listener, "costs") or ""
        return [int(v) for v in str(text).split(",") if v]

    def describe_rdd(self, rdd: Any) -> str:
        """The input files of a JVM RDD's lineage, as JSON text (a list of paths)."""
        return str(self._listener.describeRddJson(rdd))

    def wait_for_bus(self, timeout: float) -> bool:
        """Wait until Spark's listener bus has delivered every posted event."""
        try:
            self._bus.waitUntilEmpty(max(1, int(timeout * 1000)))
        except Exception:  # a timeout raises in the JVM; a stopped context has no bus
            return False
        return True

    def unregister(self) -> None:
        if not self.registered:
            return
        self.registered = False
        call(self._listener, "setSink", None)
        call(self._bus, "removeListener", self._listener)


def describe_plan(spark: Any, plan: Any) -> dict[str, Any]:
    """The Java description of a logical plan (as ``datasets(df)`` needs it), parsed."""
    sc = spark.sparkContext
    instance = _new_instance(sc)
    text = instance.describePlanJson(plan, spark._jsparkSession)
    described: dict[str, Any] = json.loads(str(text))
    return described
