"""A circuit breaker per destination: a backend that cannot be reached costs the caller nothing.

Closed (the normal state), every event is tried. A failure that says the backend could not
be reached at all (connection refused, a connect or read timeout, a connection cut off, a
host that does not resolve: ``DeliveryError.unreachable``) opens it after ``threshold`` such
failures in a row. While it is open, the client's callers and the buffered workers do not
try: events stay in the store. After ``cooldown`` seconds (with jitter) one *probe* is
granted, to the client's background relay only, never to a caller; its success closes
the breaker, and the relay then delivers the backlog; its failure opens it again: for
``cooldown`` again when the probe was refused at once (it cost nothing, and the backend's
return is then seen within seconds), for twice the last wait (up to ``max_cooldown``)
when it waited for a timeout. An answer of any kind (even a 503) proves the backend
reachable: it closes the breaker (retries of such answers follow the ``retry:`` keys).

Processes share what they learnt through the client's store (one row per destination): a
process that opens the breaker writes when it may be probed again, a process whose delivery
succeeds removes the row, and a process whose breaker is closed reads it at most once a
second, so a freshly forked worker does not wait for a timeout the previous one already met.
Such a worker's caller may make the probe once it is due, claiming it in the store first
(see :meth:`Breaker.permits`).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import random
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import Protocol

from pydantic import Field

from olsdk._delivery._config import Settings
from olsdk._foundation._exceptions import DeliveryError

__all__ = ["Breaker", "BreakerSettings", "SharedState"]

log = logging.getLogger("olsdk._delivery.transports._breaker")

_SHARED_CHECK_EVERY = 1.0  # seconds between reads of the shared state while closed
_PROBE_LEASE = 120.0  # a probe that never reported (its thread died) is given up after this
# jitter from a generator of its own: the global `random` state is the user's (seeded for
# reproducible runs, or drawn by hypothesis), and relays draw from background threads
_JITTER = random.Random()
_CHEAP_PROBE = 0.25  # seconds: a probe that failed faster (refused, no route) does not double the cooldown


class BreakerSettings(Settings):
    """The circuit breaker of each destination (``breaker:`` in the configuration)."""

    enabled: bool = True
    threshold: int = Field(default=1, ge=1)  # unreachable failures in a row that open it
    cooldown: float = Field(default=1.0, gt=0)  # first wait before a probe, seconds
    max_cooldown: float = Field(default=60.0, gt=0)  # the longest wait between probes


class SharedState(Protocol):
    """Where processes share breaker state (the client's store)."""

    def breaker_state(self, identity: str) -> tuple[float, float, str] | None: ...
    def set_breaker(self, identity: str, until: float, cooldown: float, reason: str) -> None: ...
    def clear_breaker(self, identity: str | None = None) -> None: ...
    def claim_probe(self, identity: str, cooldown: float) -> bool: ...


class Breaker:
    """See the module docstring. Thread-safe; reset in a forked child by its owner."""

    def __init__(
        self, identity: str, settings: BreakerSettings | None = None, shared: SharedState | None = None
    ) -> None:
        self.settings = settings or BreakerSettings()
        self.identity = identity
        self.shared = shared
        # the destination as its hash: an identity may hold a credential, the store never does
        self._key = hashlib.sha1(identity.encode("utf-8", "replace")).hexdigest()
        self._on_close: list[Callable[[], None]] = []
        self._reset()

    def _reset(self) -> None:
        self._lock = threading.Lock()
        self._open = False
        self._failures = 0
        self._cooldown = 0.0
        self._open_until = 0.0  # monotonic
        self._probe_since: float | None = None
        self._probe_thread = 0
        self._next_shared_check = 0.0
        self._learnt = False  # open because another process said so (its shared file)
        self.last_reason = ""

    def after_fork_in_child(self) -> None:
        """The child keeps what the parent learnt (open or not) but no probe in flight."""
        state = self._open, self._open_until, self._cooldown, self.last_reason, self._learnt
        self._reset()
        self._open, self._open_until, self._cooldown, self.last_reason, self._learnt = state

    def on_close(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` (without the lock) whenever the breaker closes after being open."""
        self._on_close.append(callback)

    # -- asking ------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        """True when events may be tried now (callers and workers ask this; never a probe)."""
        if not self.settings.enabled:
            return True
        if self._open:
            return False
        now = time.monotonic()
        if self.shared is not None and now >= self._next_shared_check:
            self._next_shared_check = now + _SHARED_CHECK_EVERY
            self._read_shared(now)
        return not self._open

    @property
    def cooldown(self) -> float:
        """The wait before the next probe, before jitter (0 while closed)."""
        return self._cooldown

    def probe_delay(self) -> float:
        """Seconds until a probe may be tried (0: now, or closed)."""
        if not self._open:
            return 0.0
        with self._lock:
            if self._probe_since is not None and time.monotonic() - self._probe_since < _PROBE_LEASE:
                return max(0.05, self._open_until - time.monotonic())
            return max(0.0, self._open_until - time.monotonic())

    def try_probe(self) -> bool:
        """True when the caller may try one delivery now: closed, or open and due for a probe
        that nobody else holds (the relay asks this)."""
        if self.closed:
            return True
        with self._lock:
            now = time.monotonic()
            if now < self._open_until:
                return False
            if self._probe_since is not None and now - self._probe_since < _PROBE_LEASE:
                return False
            self._probe_since = now
            self._probe_thread = threading.get_ident()
            return True

    def permits(self) -> bool:
        """True when a delivery may be tried in this thread: closed, or this thread holds the probe.

        A breaker opened by another process's word (a process that has not met the failure
        itself, typically a fresh forked worker) lets its caller make the probe once it is
        due, after claiming it in the shared file for the next cooldown: otherwise workers
        that live for one event would never see the backend come back. At most one caller
        of all processes probes per cooldown, so a backend that never answers costs one
        timeout per cooldown (doubling up to ``max_cooldown``), not one per worker."""
        if self.closed:
            return True
        if self._probe_since is not None and self._probe_thread == threading.get_ident():
            return True
        if self._learnt and time.monotonic() >= self._open_until and self._claim_shared_probe():
            with self._lock:
                if self._probe_since is None:
                    self._probe_since = time.monotonic()
                    self._probe_thread = threading.get_ident()
                    return True
        return False

    def _claim_shared_probe(self) -> bool:
        """Move the shared probe time on by the next cooldown; False when another process did first.
        The claim is a lease for one cooldown: its failure doubles the cooldown, its success
        removes the shared state, and a prober killed before either leaves the lease to expire."""
        if self.shared is None:
            return True
        try:
            claimed = self.shared.claim_probe(self._key, max(self._cooldown, self.settings.cooldown))
        except sqlite3.Error:
            return True  # sharing is an optimisation: this process's own state still holds
        if not claimed:
            with self._lock:
                self._open_until = time.monotonic() + self.settings.cooldown
        return claimed

    # -- telling -----------------------------------------------------------------------

    def success(self) -> None:
        if not self._open and not self._failures:
            return
        with self._lock:
            was_open = self._open
            self._open = False
            self._learnt = False
            self._failures = 0
            self._cooldown = 0.0
            self._probe_since = None
        if was_open:
            log.info("OpenLineage backend %s reachable again", self.identity_text)
            self._remove_shared()
            for callback in list(self._on_close):
                try:
                    callback()
                except Exception:
                    log.exception("OpenLineage breaker callback failed")

    def failure(self, error: DeliveryError) -> None:
        """Record a failed delivery; only unreachable failures count towards opening."""
        if not any(leaf.unreachable for leaf in error.leaves()):
            self.success()  # the backend answered: reachable
            return
        if not self.settings.enabled:
            return
        with self._lock:
            self.last_reason = error.reason
            if self._open and self._probe_since is None:
                return  # an attempt that began before it opened: only a failed probe waits longer
            probe_took = None if self._probe_since is None else time.monotonic() - self._probe_since
            self._failures += 1
            self._probe_since = None
            if self._failures < self.settings.threshold and not self._open:
                return
            s = self.settings
            if not self._cooldown or (probe_took is not None and probe_took < _CHEAP_PROBE):
                # a probe refused at once cost nothing: keep probing every `cooldown` seconds, so
                # the backend's return is seen soon; one that waited for a timeout doubles the wait
                self._cooldown = min(s.max_cooldown, s.cooldown)
            else:
                self._cooldown = min(s.max_cooldown, self._cooldown * 2)
            wait = self._cooldown * _JITTER.uniform(0.8, 1.2)
            first = not self._open
            self._open = True
            self._open_until = time.monotonic() + wait
        if first:
            log.info(
                "OpenLineage backend %s unreachable (%s); events wait in the store", self.identity_text, error.reason
            )
        self._write_shared(wait, error.reason)

    @property
    def identity_text(self) -> str:
        from olsdk._foundation._secrets import mask_url

        return mask_url(self.identity)

    # -- shared state ------------------------------------------------------------------

    def _read_shared(self, now: float) -> None:
        assert self.shared is not None
        try:
            state = self.shared.breaker_state(self._key)
        except sqlite3.Error:
            return
        if state is None:
            return
        # the row stays until a delivery succeeds: while it is there the backend has not been
        # seen back, and ``until`` says when the next probe is due (it may be due already)
        until, cooldown, reason = state
        with self._lock:
            if not self._open:
                self._open = True
                self._learnt = True
                self._failures = max(self._failures, self.settings.threshold)
                self._cooldown = max(
                    self._cooldown, min(self.settings.max_cooldown, cooldown or self.settings.cooldown)
                )
                self._open_until = now + max(0.0, until - time.time())
                self.last_reason = reason or "unreachable (found by another process)"

    def _write_shared(self, wait: float, reason: str) -> None:
        if self.shared is not None:
            with contextlib.suppress(sqlite3.Error):  # sharing is an optimisation: this process's state holds
                self.shared.set_breaker(self._key, time.time() + wait, self._cooldown, reason)

    def _remove_shared(self) -> None:
        if self.shared is not None:
            with contextlib.suppress(sqlite3.Error):
                self.shared.clear_breaker(self._key)

    def __repr__(self) -> str:
        return f"<Breaker {self.identity_text} {'open' if self._open else 'closed'}>"
