"""An event handed from ``emit`` to the relay's thread, and the answer ``emit`` may wait for.

``emit`` never waits on the network: when the client's transport sends over one, the event
(already committed to the store) is handed to the relay, whose thread makes its first
attempt. With the ``raise`` error policy ``emit`` waits for that attempt's answer at most
:data:`ANSWER_WAIT` seconds (not at all while events handed before it are still waiting or
being tried: its answer cannot come in time): a failure known by then is raised by ``emit`` itself, a later
one by the next ``flush()`` or ``close()``. Either way each failure is raised once.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from olsdk._delivery.transports._base import Payload
from olsdk._foundation._exceptions import DeliveryError

__all__ = ["ANSWER_WAIT", "Answer", "Handed", "Handoffs"]

ANSWER_WAIT = 0.05  # seconds: the longest an emit waits for its event's first attempt


class Answer:
    """The outcome of a handed event's first attempt, for an ``emit`` that waits for it."""

    __slots__ = ("_done", "_lock", "_state", "error")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._state = "waiting"  # "claimed": the caller raises it; "abandoned": it stopped waiting
        self.error: DeliveryError | None = None

    def claim(self) -> bool:
        """Called by the relay on a failure: True when the caller still waits (it raises the
        failure); False when it stopped waiting (the failure is raised later, by ``flush``)."""
        with self._lock:
            if self._state == "waiting":
                self._state = "claimed"
            return self._state == "claimed"

    def give(self, error: DeliveryError | None) -> None:
        self.error = error
        self._done.set()

    def wait(self, seconds: float) -> DeliveryError | None:
        """The failure to raise in the caller, if the attempt's answer came within ``seconds``."""
        if not self._done.wait(seconds):
            with self._lock:
                if self._state == "waiting":
                    self._state = "abandoned"
                    return None
            self._done.wait()  # claimed: the failure is being recorded in the store, no network
        return self.error


@dataclass(eq=False)
class Handed:
    """An event waiting for its first attempt in the relay's thread: its payload, its records
    in the store (none when nothing was written ahead), and who waits for the answer."""

    payload: Payload
    ids: list[int] = field(default_factory=list)
    answer: Answer | None = None


class Handoffs:
    """The events handed to the relay, waiting for their first attempt in its thread, in emit
    order. ``lock`` is the relay's: its thread is woken by it when one comes."""

    def __init__(self, lock: threading.Condition, attempt: Callable[[Handed], None]) -> None:
        self.lock = lock
        self.attempt = attempt
        self.queue: deque[Handed] = deque()
        self.in_flight: Handed | None = None

    def __len__(self) -> int:
        return len(self.queue) + (self.in_flight is not None)

    def run(self, stop: Callable[[], bool]) -> bool:
        """Make the first attempt of each (in the relay's thread) until none is left or ``stop()``
        says so (called with the lock held); whether any was made."""
        tried = False
        while True:
            with self.lock:
                if stop() or not self.queue:
                    return tried
                handed = self.in_flight = self.queue.popleft()
            try:
                self.attempt(handed)
            finally:
                with self.lock:
                    self.in_flight = None
                    self.lock.notify_all()
            tried = True

    def tried(self, timeout: float) -> bool:
        """Wait until every event handed so far had its first attempt; False at the timeout."""
        with self.lock:  # woken by each attempt's end (``run``) and by ``take``
            return self.lock.wait_for(lambda: not self, max(0.0, timeout))

    def unrecorded(self) -> list[Handed]:
        """The events not tried yet that have no record in the store."""
        with self.lock:
            return [handed for handed in self.queue if not handed.ids]

    def take(self) -> tuple[list[Handed], bool]:
        """(called with the lock held) The events never tried, taken out; whether one is being tried."""
        left, self.queue = list(self.queue), deque()
        self.lock.notify_all()
        return left, self.in_flight is not None
