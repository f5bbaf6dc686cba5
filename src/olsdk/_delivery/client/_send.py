"""Each event's one attempt, and where it is made.

An event is written ahead to the store (one record per child of a composite at the top),
then tried once: none while an earlier event of its run is owed (it queues behind). When
the transport may wait on a network, the attempt is the relay's (see ``_handoff``):
``emit`` returns once the event is in the store, and with the ``raise`` policy waits at
most 50 ms for the answer (none while earlier events are still being tried). Otherwise (a
file, the console, a callback, a transport that queues) ``emit`` makes it itself. A
delivery deletes the records; a failure goes to ``_outcomes``, whoever found it.
"""

from __future__ import annotations

import logging
import sqlite3

from olsdk._delivery.client._handoff import ANSWER_WAIT, Answer, Handed
from olsdk._delivery.client._outcomes import Outcomes
from olsdk._delivery.client._relay import Relay
from olsdk._delivery.client._store import Store
from olsdk._delivery.client._targets import Destinations, waits_on_network
from olsdk._delivery.transports._attempts import ONE_ATTEMPT, SINGLE_ATTEMPT
from olsdk._delivery.transports._base import Payload, Transport, try_deliver
from olsdk._foundation._exceptions import DeliveryError

__all__ = ["Sender"]

log = logging.getLogger("olsdk.client")


class Sender:
    """The attempts of one client's events (see the module docstring)."""

    def __init__(self, transport: Transport, store: Store, outcomes: Outcomes, write_ahead: bool) -> None:
        self.transport = transport
        self.store = store
        self.outcomes = outcomes
        self.write_ahead = write_ahead
        self.to = outcomes.destinations = Destinations(transport)
        self.hands_over = not transport.asynchronous and waits_on_network(transport)
        self.relay: Relay | None = None  # set once the relay is made (it calls in_relay)
        transport.set_failure_handler(self.failed_later)
        transport.set_delivery_handler(self.delivered)

    def send(self, payload: Payload) -> None:
        """Write the event ahead and make (or hand over) its attempt; raises what the policy raises."""
        relay = self.relay
        assert relay is not None
        ids = self.record(payload) if self.write_ahead else []
        if not relay.started and relay.finish:  # finishes what processes that are gone left, later
            relay.start()
        if self.hands_over:  # the relay's thread makes the attempt: emit never waits on a network
            answer = Answer() if self.outcomes.policy == "raise" else None
            next_one = relay.hand(Handed(payload, ids, answer))
            # an answer behind earlier events cannot come in time: then no wait at all
            error = answer.wait(ANSWER_WAIT if next_one else 0.0) if answer is not None else None
            if error is not None and not error.partial:
                raise error
            return
        error = self.attempt(payload, ids)
        if error is not None:
            self.failed(payload, error)

    def attempt(self, payload: Payload, ids: list[int]) -> DeliveryError | None:
        """One attempt (none while an earlier event of its run is owed): its failure, or None
        when it was delivered (its records then leave the store) or accepted."""
        relay = self.relay
        assert relay is not None
        if relay.holds(payload.ordering_key):  # keep the run's order: queue behind
            behind = f"not tried: behind an undelivered event of its run ({relay.reason_of(payload.ordering_key)})"
            return DeliveryError(behind, target=self.transport.label, attempts=0)
        token = SINGLE_ATTEMPT.set(ONE_ATTEMPT)  # never a retry in the attempt: the relay retries
        try:
            error = try_deliver(self.transport, payload)
        finally:
            SINGLE_ATTEMPT.reset(token)
        if error is not None:
            return error
        if ids and not self.to.targets and not self.transport.asynchronous:
            settle(self.store, ids)
        return None

    def in_relay(self, handed: Handed) -> None:
        """The first attempt of an event ``emit`` handed over (in the relay's thread)."""
        error = self.attempt(handed.payload, handed.ids)
        answer = handed.answer
        if error is None or answer is None or not answer.claim():  # nobody waits for a failure
            if error is not None:
                self.failed_later(handed.payload, error)
            if answer is not None:
                answer.give(None)
            return
        try:
            self.failed(handed.payload, error)  # recorded before the waiting emit raises it
        except DeliveryError:
            pass  # the error policy raises it: in the emit that waits for it
        finally:
            answer.give(error)

    def failed(self, payload: Payload, error: DeliveryError) -> None:
        """A failure the caller of ``emit`` answers for (the ``raise`` policy raises it)."""
        self.outcomes.failed(payload, error, sync=True)

    def failed_later(self, payload: Payload, error: DeliveryError) -> None:
        """A failure found after ``emit`` returned (``flush`` or ``close`` raise it)."""
        self.outcomes.failed(payload, error, sync=False)

    def delivered(self, payload: Payload, label: str | None) -> None:
        """An asynchronous transport (or a composite's child) delivered ``payload``."""
        ids = self.to.delivered(payload.ref, label)
        if ids:
            settle(self.store, ids)

    def record(self, payload: Payload) -> list[int]:
        """The event committed to the store before anything else (one record per child of a
        composite); a store that refuses costs the write-ahead only, loudly."""
        keys: tuple[str | None, ...] = self.to.targets or (None,)
        try:
            ids = self.store.add(payload.body, payload.ordering_key, keys)
        except (OSError, sqlite3.Error) as exc:
            log.error(
                "OpenLineage store %s not writable (%s): the event is sent without being kept", self.store.path, exc
            )
            return []
        object.__setattr__(payload, "ref", dict(zip(keys, ids, strict=True)))  # ours until handed on
        return ids

    def record_handed(self) -> None:
        """Give the events handed to the relay and not tried yet a record, if they have none."""
        if self.relay is not None:
            for handed in self.relay.handed.unrecorded():
                handed.ids = self.record(handed.payload)

    def left_at_close(self, left: list[Handed]) -> None:
        """Handed events never tried before close: kept for a later client (or given up)."""
        for handed in left:
            error = DeliveryError("not tried before close", attempts=0, target=self.transport.label)
            self.failed_later(handed.payload, error)


def settle(store: Store, ids: list[int]) -> None:
    """Delivered: the records leave the store."""
    try:
        store.delete(ids)
    except (OSError, sqlite3.Error) as exc:  # the event may be sent again, never lost
        log.warning("OpenLineage store %s: cannot record a delivery (%s)", store.path, exc)
