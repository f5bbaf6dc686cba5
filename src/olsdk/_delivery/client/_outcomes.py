"""What happens to an event that was not delivered: one path, whoever found out.

Whether ``send`` raised in the caller, an asynchronous transport reported later, or the
relay's retry failed, the failure comes here. Each failed destination's record either stays
owed (``retrying``: the relay tries again) or is given up (``given_up``: ``olsdk replay``
resends it), then the error policy applies:

* ``log`` (default): a warning (repeats of one reason are folded), never an exception;
* ``raise``: ``emit`` raises :class:`DeliveryError`; failures found by a background
  thread are raised by the next ``flush()`` or ``close()``;
* a callable ``(payload, error) -> None``: called after the record is kept.

Failure reasons are scrubbed of credentials before they are logged, kept or raised.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from olsdk._delivery.client._lifecycle import forked_child
from olsdk._delivery.client._relay import owes
from olsdk._delivery.client._store import Store
from olsdk._delivery.client._targets import Destinations
from olsdk._delivery.transports._base import Payload
from olsdk._foundation._exceptions import DeliveryError, Problem, ValidationError
from olsdk._foundation._secrets import scrub

if TYPE_CHECKING:
    from olsdk._delivery.client._input import Refused
    from olsdk._delivery.client._relay import Relay
    from olsdk._delivery.client._settings import ErrorPolicy
    from olsdk._delivery.client._spool import Spool

__all__ = ["ErrorCallback", "Outcomes"]

log = logging.getLogger("olsdk.client")

ErrorCallback = Callable[[Payload, DeliveryError], None]
_WARN_EVERY = 30.0  # seconds between warnings for one repeated failure reason


class Outcomes:
    """The failure path of one client (see the module docstring); thread-safe."""

    def __init__(self, store: Store, policy: ErrorPolicy, callback: ErrorCallback | None) -> None:
        self.store = store
        self.policy = policy
        self.callback = callback
        self.secrets: list[str] = []
        self.relay: Relay | None = None
        # given-up records go there (held in memory on a full disk); None: no spool, the store
        # is in memory and what cannot be delivered is lost
        self.spool: Spool | None = None
        self.destinations = Destinations(None)
        self.closed = False
        self.reset()

    def reset(self) -> None:
        self._lock = threading.Lock()
        self._async_errors: list[DeliveryError] = []
        self._answered: set[int] = set()  # the bodies of events whose failure `emit` answered for
        self._warned: dict[str, tuple[float, int]] = {}
        self._last_warned: dict[str, str] = {}  # target -> the key of its last failure told
        self.given_up = 0  # events of this client given up (this process)
        self.lost = 0  # events that could not be kept either (no spool, or the store failed)
        self._told = False

    # -- failures -----------------------------------------------------------------------

    def failed(self, payload: Payload, error: DeliveryError, *, sync: bool) -> None:
        _scrub_error(error, self.secrets)
        original: dict[str | None, int] = dict(payload.ref) if isinstance(payload.ref, Mapping) else {}
        ref = dict(original)
        leaves = error.leaves()
        where = ""
        for leaf in leaves:  # one delivery owed per failed child of a composite
            target = self.destinations.target_of(leaf.target)
            if target is None and len(leaves) > 1:
                target = leaf.target  # a composite below a wrapper: resend to that child only
            children = self.destinations.targets
            if children and target not in children:  # the composite itself (closed, behind): each child
                for child in children:
                    where = self._keep(payload, _record_for(self.store, ref, original, child), child, leaf)
                continue
            where = self._keep(payload, _record_for(self.store, ref, original, target), target, leaf)
        self._warn(error, where)
        self._call_back(payload, error)
        if self.policy == "raise":
            told = hash(payload.body)
            with self._lock:
                if sync:  # `emit` answered for it: the failures of its retries are not raised again
                    self._answered.add(told)
                elif told in self._answered:
                    if not owes(error):  # its last failure: nothing more will come for it
                        self._answered.discard(told)
                elif not error.partial:
                    self._async_errors.append(error)
            if sync and not error.partial:
                raise error

    def _call_back(self, payload: Payload, error: DeliveryError) -> None:
        if self.callback is not None:
            try:
                self.callback(payload, error)
            except Exception:
                log.exception("OpenLineage error callback raised")

    def _keep(
        self, payload: Payload, record: int | None, target: str | None, error: DeliveryError, kind: str = "event"
    ) -> str:
        """The record owed again (the relay retries it) or given up; where the event is now.
        ``kind="raw"``: input that is no event, kept as text, never sent."""
        relay = self.relay
        try:
            if relay is not None and owes(error) and not (self.closed and record is None):
                if record is None:
                    (record,) = self.store.add(payload.body, payload.ordering_key, (target,))
                relay.owe(record, payload.ordering_key, error, target, error.target)
                self._tell_early(error)
                if self.closed:
                    return f" (kept in the store {self.store.path} for a later client)"
                return " (retried in the background)"
            return self._give_up(payload, record, target, error, kind)
        except (OSError, sqlite3.Error) as exc:
            with self._lock:
                self.lost += 1
            return f" (the store {self.store.path} failed, event lost: {exc})"

    def _give_up(
        self, payload: Payload, record: int | None, target: str | None, error: DeliveryError, kind: str
    ) -> str:
        """Retrying cannot help: the record is given up, for ``olsdk replay``."""
        failed_by, spool = target or error.target, self.spool
        if spool is None:
            if record is not None:
                self.store.delete([record])
            with self._lock:
                self.lost += 1
            where = " (no spool configured: it is lost)"
        elif record is None:
            on_disk = spool.keep(
                body=payload.body, run_key=payload.ordering_key if kind == "event" else kind, kind=kind, target=target,
                reason=error.reason, attempts=max(error.attempts, 1), failed_by=failed_by, retriable=error.retriable,
            )  # fmt: skip
            where = f" (spooled to {self.store.path})" if on_disk else f" (held for the spool {self.store.path})"
        else:
            self.store.failed(
                record, state="given_up", reason=error.reason, attempts=error.attempts,
                failed_by=failed_by, retriable=error.retriable, target=target,
            )  # fmt: skip
            where = f" (spooled to {self.store.path})"
        if record is not None and self.relay is not None:
            self.relay.settled(record)
        if spool is not None:
            with self._lock:
                self.given_up += 1
        if kind == "event":  # input that is no event is never sent: nothing to deliver later
            self._tell_early(error)
        return where

    def refused(self, refused: Refused) -> None:
        """Input that is no event: kept as text (never sent), then the error policy."""
        reason = scrub(refused.reason, self.secrets)
        error = DeliveryError(f"refused: {reason}", target="client", retriable=False)
        payload = Payload(body=refused.text.encode("utf-8", "backslashreplace"))
        where = self._keep(payload, None, None, error, kind="raw")  # never owed: not retriable
        log.error("OpenLineage event refused, it cannot be serialised as an event: %s%s", reason, where)
        self._call_back(payload, error)
        if self.policy == "raise":
            raise ValidationError([Problem(refused.path, reason)], title="OpenLineage event refused") from None

    # -- telling ------------------------------------------------------------------------

    def _tell_early(self, error: DeliveryError) -> None:
        """In a forked child (which may end with os._exit, skipping every exit hook), say once,
        now, where undelivered events are and how they get delivered."""
        if not forked_child() or self._told or self.spool is None:
            return
        self._told = True
        log.warning(
            "OpenLineage: an event of this process (pid %d) was not delivered (%s); it is kept in the store %s and "
            "a later client delivers it in the background, or resend it with `olsdk replay %s`",
            os.getpid(),
            error.reason,
            self.store.path,
            self.store.path,
        )

    def _warn(self, error: DeliveryError, where: str) -> None:
        key = f"{error.target}:{error.reason[:60]}"
        now = time.monotonic()
        not_tried = all(leaf.attempts == 0 for leaf in error.leaves())
        with self._lock:
            if not_tried:  # a consequence of a failure already told (open circuit, behind it): folded in
                key = self._last_warned.get(str(error.target), key)
            else:
                self._last_warned[str(error.target)] = key
            last, folded = self._warned.get(key, (0.0, 0))
            if now - last < _WARN_EVERY:
                self._warned[key] = (last, folded + 1)
                return
            self._warned[key] = (now, 0)
        more = f" [{folded} more like this]" if folded else ""
        log.warning("OpenLineage event not delivered: %s%s%s", error.reason, where, more)

    def report_close(self, left: int, waiting: int) -> bool:
        """Say at close what was not delivered; True when everything was."""
        path = self.store.path
        if self.given_up or left:
            log.warning(
                "OpenLineage: %d events of this client were not delivered and are in the spool %s "
                "(%d given up, %d left for a later client, which delivers them in the background); "
                "resend them with `olsdk replay %s`",
                self.given_up + left, path, self.given_up, left, path,
            )  # fmt: skip
        if waiting:
            log.error("OpenLineage: %d events could not be written to the spool %s and are lost", waiting, path)
        if self.lost:
            log.error("OpenLineage: %d events of this client were neither delivered nor spooled", self.lost)
        return not self.given_up and not left and not self.lost and not waiting

    def raise_async_errors(self) -> None:
        if self.policy != "raise":
            return
        with self._lock:
            errors, self._async_errors = self._async_errors, []
        if errors:
            reasons = "; ".join(sorted({e.reason for e in errors}))
            raise DeliveryError(f"{len(errors)} events not delivered: {reasons}", causes=errors)


def _record_for(
    store: Store, ref: dict[str | None, int], original: dict[str | None, int], target: str | None
) -> int | None:
    """The record of ``target``'s delivery: its own, the whole event's (taken once), or a copy."""
    if target in ref:
        return ref.pop(target)
    if None in ref:
        return ref.pop(None)
    if original:  # one more destination than records (a composite below a wrapper): a copy
        return store.copy_for(next(iter(original.values())), target)
    return None


def _scrub_error(error: DeliveryError, secrets: list[str]) -> None:
    """Mask credentials in a failure's reason (and its causes') before anyone sees it."""
    for item in (error, *error.leaves()):
        clean = scrub(item.reason, secrets)
        if clean != item.reason:
            item.reason = clean
            item.args = (clean,)
