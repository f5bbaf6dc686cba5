"""How the listener's events reach the emitter, and where the ones it does not take go.

Each event is handed to the emitter by the thread that built it (the listener's worker,
or the thread of an RDD write), one at a time: an ``OpenLineageClient`` never waits on
the network in ``emit``, so Spark's listener bus never waits on lineage. An event the
emitter refuses (it raises) is written to the spool, unless the client kept it there.
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

import threading
import time
from typing import TYPE_CHECKING, Any

from olsdk._integrations.spark._jvm import log

if TYPE_CHECKING:
    from olsdk._builders._build import Emitter
    from olsdk._delivery.client._spool import Spool
    from olsdk._models import RunEvent

__all__ = ["Delivery", "spool_of"]


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


class Delivery:
    """Hands events to the emitter, one at a time; past the close deadline, spools them."""

    def __init__(self, emitter: Emitter) -> None:
        self.emitter = emitter
        self.spool = spool_of(emitter)
        self._turn = threading.Lock()  # not reentrant: a SIGTERM handler waits for its turn
        self._deadline: float | None = None  # set at close: past it, events are spooled
        self._reason = ""
        self._stopped = False
        self._in_flight: RunEvent | None = None
        self.emitted = 0  # handed to the emitter without an exception
        self.failed = 0  # the emitter raised (then spooled, by it or here)
        self.spilled = 0  # spooled at close without being handed

    def put(self, event: RunEvent) -> None:
        if not self._take_turn():
            self._spill(event, self._reason)
            return
        try:
            self._in_flight = event
            self._send(event)
        finally:
            self._in_flight = None
            self._turn.release()

    def _take_turn(self) -> bool:
        """The emitter is this thread's (lock held), unless closing ended before that."""
        if self._deadline is None:
            return self._turn.acquire()
        left = self._deadline - time.monotonic()
        if self._stopped or left <= 0 or not self._turn.acquire(timeout=left):
            return False
        if self._stopped:
            self._turn.release()
            return False
        return True

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
            return "lost: the emitter's spool is switched off"
        try:
            self.spool.append(Payload.from_json(to_json(event)), DeliveryError(reason, target="olsdk.spark"))
        except Exception as error:
            return f"lost: spool {self.spool.path} failed: {_cause(error)}"
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
        self._reason = "the listener was already closed"

    def _spill(self, event: RunEvent, reason: str) -> None:
        where = self._write_spool(event, reason)
        self.spilled += not where.startswith("lost")
        log.warning("olsdk.spark: %s event of job %s not sent (%s), %s", event.eventType, event.job.name, reason, where)
