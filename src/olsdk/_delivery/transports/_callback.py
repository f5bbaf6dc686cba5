"""The callback transport: hands every event to a function of yours.

``CallbackTransport(fn)`` calls ``fn(payload)`` with the :class:`Payload` of each
event: ``payload.body`` is the event JSON exactly as the client serialised it (bytes),
``payload.event()`` decodes it, and the routing facts (``kind``, ``run_id``,
``event_type``, ``job_name``...) are read without decoding anything. The payload
is passed rather than a model so that the function sees what any other transport
would send, and ``olsdk.parse_event(payload.body)`` gives the typed event back.

Calls are made one at a time (a re-entrant lock), so ``fn`` need not be thread-safe.
If ``fn`` raises, the event counts as undelivered: the client spools it and applies
its error policy, as for any transport. A :class:`DeliveryError` raised by ``fn``
is passed on as it is (raise one to choose the reason or ``retriable``).

It is built in code only (a function cannot be written in ``openlineage.yml``)::

    seen = []
    client = OpenLineageClient(CallbackTransport(seen.append))
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from olsdk._delivery.transports._base import Payload, Transport
from olsdk._foundation._exceptions import DeliveryError

__all__ = ["CallbackTransport"]


class CallbackTransport(Transport):
    """Calls ``fn(payload)`` for every event; see the module docstring."""

    kind = "callback"

    def __init__(self, fn: Callable[[Payload], object], *, name: str | None = None, priority: int = 0) -> None:
        if not callable(fn):
            raise TypeError(f"CallbackTransport: fn must be callable, got {type(fn).__name__}")
        super().__init__(name=name, priority=priority)
        self.fn = fn
        self._lock = threading.RLock()

    def send(self, payload: Payload) -> None:
        try:
            with self._lock:
                self.fn(payload)
        except DeliveryError:
            raise
        except Exception as exc:
            reason = f"callback {_name(self.fn)} raised {type(exc).__name__}: {exc}"
            raise DeliveryError(reason, target=self.label) from exc

    def __repr__(self) -> str:
        return f"<CallbackTransport fn={_name(self.fn)}>"


def _name(fn: Callable[..., object]) -> str:
    return str(getattr(fn, "__qualname__", None) or type(fn).__name__)
