"""How the listener's events reach the emitter, and where the ones it does not take go.

The worker thread (``Worker``) reads the JVM's messages in order and turns them into
events. Events are queued as they are built (the builder may hold its own lock: queueing
never waits), then handed to the emitter in that order by the thread that built them (the
worker, or the thread of an RDD write), one emit at a time, with no lock of the builder
held: an ``OpenLineageClient`` never waits on the network in ``emit``, so Spark's listener
bus never waits on lineage. An event the emitter refuses (it raises) is written to the
spool, unless the client kept it there.

When the application stops (``spark.stop()``, interpreter exit, SIGTERM) the close
timeout bounds the handing: an event that cannot be handed by the deadline, including
one the emitter still holds then, is written to the spool instead (``olsdk replay``
sends it later). An event held at the deadline may so reach the backend twice: at
least once, never lost.

The spool is the emitter's (``OpenLineageClient.spool``); an emitter without a
``spool`` attribute gets olsdk's default spool file; one whose spool is switched off
(``spool: None``) loses what it cannot deliver, and every such event is logged.
"""

from __future__ import annotations

import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from olsdk._integrations.spark._jvm import log

if TYPE_CHECKING:
    from olsdk._builders._build import Emitter
    from olsdk._delivery.client._spool import Spool
    from olsdk._models import RunEvent

__all__ = ["Delivery", "Worker", "cause", "spool_of"]


def cause(error: BaseException) -> str:
    """How a failure is told in the listener's warnings: its type and message."""
    return f"{type(error).__name__}: {error}"


def spool_of(emitter: Any) -> Spool | None:
    """Where undeliverable events of ``emitter`` go: its spool, else olsdk's default spool."""
    from olsdk._delivery.client._spool import Spool

    spool = getattr(emitter, "spool", Ellipsis)
    if isinstance(spool, Spool):
        return spool
    if spool is Ellipsis:  # an emitter of the user's own, with no spool of its own
        from olsdk._delivery.client._spool import default_spool_path

        return Spool(default_spool_path())
    return None  # switched off on purpose


class Delivery:
    """Queued events, handed to the emitter one at a time; past the close deadline, spooled."""

    def __init__(self, emitter: Emitter) -> None:
        self.emitter = emitter
        self.spool = spool_of(emitter)
        self._turn = threading.Lock()  # not reentrant: a SIGTERM handler waits for its turn
        self._deadline: float | None = None  # set at close: past it, events are spooled
        self._reason = ""
        self._stopped = False
        self._pending: deque[RunEvent] = deque()  # queued, not handed yet
        self._in_flight: RunEvent | None = None
        self.emitted = 0  # handed to the emitter without an exception
        self.failed = 0  # the emitter raised (then spooled, by it or here)
        self.spilled = 0  # spooled at close without being handed

    def put(self, event: RunEvent) -> None:
        """Queue ``event`` (never waits); the same thread's next ``hand()`` sends it."""
        self._pending.append(event)

    def hand(self) -> None:
        """Hand every queued event to the emitter, in order (after an emit of another thread)."""
        if not self._take_turn():
            self._spill_pending()
            return
        try:
            while (event := self._next()) is not None:
                if self._late():  # closing took too long: the rest goes to the spool
                    self._spill(event, self._reason)
                    continue
                self._in_flight = event
                self._send(event)
        finally:
            self._in_flight = None
            self._turn.release()

    def _next(self) -> RunEvent | None:
        try:
            return self._pending.popleft()
        except IndexError:
            return None

    def _late(self) -> bool:
        return self._stopped or (self._deadline is not None and time.monotonic() >= self._deadline)

    def _take_turn(self) -> bool:
        """The emitter is this thread's (lock held), unless closing ended before that."""
        if self._deadline is None:
            return self._turn.acquire()
        left = max(0.0, self._deadline - time.monotonic())
        return not self._late() and self._turn.acquire(timeout=left)

    def _send(self, event: RunEvent) -> None:
        try:
            self.emitter.emit(event)
            self.emitted += 1
        except Exception as error:  # a transport problem must not break the pipeline
            self.failed += 1
            kept = self._after_failure(event, error)
            kind = event.eventType.value if event.eventType is not None else "an"
            log.warning("olsdk.spark: %s event of job %s not sent (%s): %s", kind, event.job.name, kept, cause(error))

    def _after_failure(self, event: RunEvent, error: Exception) -> str:
        """Hand an event the emitter did not take to the spool; says where the event is now."""
        from olsdk import DeliveryError

        if isinstance(error, DeliveryError) and getattr(self.emitter, "spool", None) is not None:
            return f"spooled to {self.spool.path if self.spool else 'the spool'} by the client"
        return self._write_spool(event, cause(error))

    def _write_spool(self, event: RunEvent, reason: str) -> str:
        from olsdk import DeliveryError, to_json
        from olsdk._delivery.transports._base import Payload

        if self.spool is None:
            return "lost: the emitter's spool is switched off"
        try:
            self.spool.append(Payload.from_json(to_json(event)), DeliveryError(reason, target="olsdk.spark"))
        except Exception as error:
            return f"lost: spool {self.spool.path} failed: {cause(error)}"
        return f"spooled to {self.spool.path}"

    def closing(self, deadline: float, reason: str) -> None:
        """From now on an event not handed by ``deadline`` (monotonic) is spooled for ``reason``."""
        self._deadline, self._reason = deadline, reason

    def stop(self) -> None:
        """No more handing: later events are spooled, and so is one the emitter still holds."""
        if self._deadline is None:
            self._deadline, self._reason = time.monotonic(), "the listener was already closed"
        self._stopped = True
        held = self._in_flight
        if held is not None:
            self._spill(held, self._reason)
        self._spill_pending()
        self._reason = "the listener was already closed"

    def _spill_pending(self) -> None:
        while (event := self._next()) is not None:
            self._spill(event, self._reason)

    def _spill(self, event: RunEvent, reason: str) -> None:
        where = self._write_spool(event, reason)
        self.spilled += not where.startswith("lost")
        log.warning("olsdk.spark: %s event of job %s not sent (%s), %s", event.eventType, event.job.name, reason, where)


class Worker:
    """The listener's worker thread: handles each message from the JVM in order (``handle``
    queues the events it builds in ``delivery``), then hands those events to the emitter."""

    def __init__(self, handle: Callable[[str, str], None], delivery: Delivery) -> None:
        self._handle = handle
        self._delivery = delivery
        self.messages: queue.Queue[Any] = queue.Queue()
        self.seconds: list[float] = []  # time spent per message (the first 4096)
        self._thread = threading.Thread(target=self._run, name="olsdk-spark-lineage", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while self._one(self.messages.get()):
            pass

    def _one(self, item: Any) -> bool:
        """Handle one message (or a marker); False for the end of the queue."""
        try:
            if isinstance(item, threading.Event):
                item.set()
            elif item is not None:
                started = time.perf_counter()
                try:
                    self._handle(*item)
                finally:
                    self._delivery.hand()
                if len(self.seconds) < 4096:
                    self.seconds.append(time.perf_counter() - started)
        except Exception as error:  # keep the worker alive whatever happens
            log.warning("olsdk.spark: could not emit lineage: %s", cause(error))
        finally:
            self.messages.task_done()
        return item is not None

    def through(self, deadline: float) -> bool:
        """Wait until every message queued before now was handled, or ``deadline`` (monotonic)."""
        done = threading.Event()
        self.messages.put(done)
        return done.wait(max(0.0, deadline - time.monotonic()))

    def finish(self, deadline: float) -> None:
        """Wait for the end of the queue until ``deadline``. Past it, the worker is held up by
        an emit that does not return: the messages it has not read are handled here (their
        events spooled, see ``Delivery``), and the worker finds the queue ended should it return."""
        self._thread.join(max(0.0, deadline - time.monotonic()))
        if not self._thread.is_alive():
            return
        while True:
            try:
                item = self.messages.get_nowait()
            except queue.Empty:
                break
            self._one(item)
        self.messages.put(None)
