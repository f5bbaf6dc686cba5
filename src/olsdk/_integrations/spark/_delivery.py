"""The listener's outbox: events go to the emitter from one thread, and nothing is lost.

Building events never waits for the network: they queue here and a sender thread
hands them to the emitter one by one. When the application stops (``spark.stop()``,
interpreter exit, SIGTERM) the outbox gets until a deadline to drain; whatever it
still holds then, including the event being sent at that moment, is written to the
spool instead (``olsdk replay`` sends it later). An event in flight at the deadline
may so reach the backend twice: at least once, never lost.

The spool is the emitter's (``OpenLineageClient.spool``); an emitter without a
``spool`` attribute gets olsdk's default spool file; one whose spool is switched off
(``spool: None``) loses what it cannot deliver, and every such event is logged.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from typing import TYPE_CHECKING, Any

from olsdk._integrations.spark._jvm import log

if TYPE_CHECKING:
    from olsdk._builders._build import Emitter
    from olsdk._delivery.client._spool import Spool
    from olsdk._models import RunEvent

__all__ = ["Outbox", "spool_of"]


def _cause(error: BaseException) -> str:
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


class Outbox:
    """Events waiting for the emitter; sent in order by one daemon thread."""

    def __init__(self, emitter: Emitter) -> None:
        self.emitter = emitter
        self.spool = spool_of(emitter)
        self._queue: deque[RunEvent] = deque()
        self._cond = threading.Condition()
        self._in_flight: RunEvent | None = None
        self._stopped = False
        self.emitted = 0  # handed to the emitter without an exception
        self.failed = 0  # the emitter raised (then spooled, by it or here)
        self.spilled = 0  # spooled at a deadline without being sent
        self.lost = 0  # could not be spooled either (logged)
        self._thread = threading.Thread(target=self._run, name="olsdk-spark-emit", daemon=True)
        self._thread.start()

    def put(self, event: RunEvent) -> None:
        with self._cond:
            if not self._stopped:
                self._queue.append(event)
                self._cond.notify_all()
                return
        self._spill([event], "the listener was already closed")

    def pending(self) -> int:
        with self._cond:
            return len(self._queue) + (self._in_flight is not None)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._stopped:
                    self._cond.wait()
                if self._stopped:
                    return
                event = self._in_flight = self._queue.popleft()
            try:
                self._send(event)
            finally:
                with self._cond:
                    self._in_flight = None
                    self._cond.notify_all()

    def _send(self, event: RunEvent) -> None:
        try:
            self.emitter.emit(event)
            self.emitted += 1
        except Exception as error:  # a transport problem must not break the pipeline
            self.failed += 1
            kept = self._after_failure(event, error)
            kind = event.eventType.value if event.eventType is not None else "an"
            log.warning("olsdk.spark: %s event of job %s not sent (%s): %s", kind, event.job.name, kept, _cause(error))

    def _after_failure(self, event: RunEvent, error: Exception) -> str:
        """Hand an event the emitter did not take to the spool; says where the event is now."""
        from olsdk import DeliveryError

        if isinstance(error, DeliveryError) and getattr(self.emitter, "spool", None) is not None:
            return f"spooled to {self.spool.path if self.spool else 'the spool'} by the client"
        return self._write_spool(event, _cause(error))

    def _write_spool(self, event: RunEvent, reason: str) -> str:
        from olsdk import DeliveryError, to_json
        from olsdk._delivery.transports._base import Payload

        if self.spool is None:
            self.lost += 1
            return "lost: the emitter's spool is switched off"
        try:
            self.spool.append(Payload.from_json(to_json(event)), DeliveryError(reason, target="olsdk.spark"))
        except Exception as error:
            self.lost += 1
            return f"lost: spool {self.spool.path} failed: {_cause(error)}"
        return f"spooled to {self.spool.path}"

    def drain(self, deadline: float) -> bool:
        """Wait until every queued event was handed to the emitter, or ``deadline`` (monotonic)."""
        with self._cond:
            while self._queue or self._in_flight is not None:
                left = deadline - time.monotonic()
                if left <= 0 or self._stopped:
                    return False
                self._cond.wait(min(left, 0.5))
        return True

    def spill(self, reason: str) -> int:
        """Spool what is still queued (and in flight) now, without sending it; returns how many."""
        with self._cond:
            events = [*([self._in_flight] if self._in_flight is not None else []), *self._queue]
            self._queue.clear()
        return self._spill(events, reason)

    def stop(self, reason: str) -> int:
        """No more sending: spool whatever is left and end the sender thread."""
        with self._cond:
            self._stopped = True
            events = [*([self._in_flight] if self._in_flight is not None else []), *self._queue]
            self._queue.clear()
            self._cond.notify_all()
        return self._spill(events, reason)

    def _spill(self, events: list[RunEvent], reason: str) -> int:
        for event in events:
            where = self._write_spool(event, reason)
            if where.startswith("lost"):
                log.warning("olsdk.spark: %s event of job %s %s", event.eventType, event.job.name, where)
            else:
                self.spilled += 1
        if events:
            log.warning("olsdk.spark: %d lineage events not sent (%s), %s", len(events), reason, self._where())
        return len(events)

    def _where(self) -> str:
        return f"spooled to {self.spool.path}" if self.spool is not None else "lost (no spool)"
