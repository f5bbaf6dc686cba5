"""How many attempts a delivery may make in this thread, and where its retries stand.

The client's callers make one attempt (never a retry in the caller) and its background
relay makes one at a time, so that each is journaled as it happens and other runs go on
meanwhile. :func:`single_attempt` says so to the http transport (a context variable, so
transports keep their ``send(payload)`` signature), and hands back the retry state a
failed attempt leaves (:class:`Resume`) so the next attempt continues it. Kept apart from
``_retry`` so that a client imports no urllib3 unless it sends over HTTP.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from urllib3.util.retry import Retry

__all__ = ["ONE_ATTEMPT", "SINGLE_ATTEMPT", "Resume", "attempt_mode", "single_attempt"]


@dataclass(frozen=True)
class Resume:
    """Where a delivery's retries stand: the ``Retry`` after its last failure, and the wait
    (backoff or ``Retry-After``) before the next attempt."""

    retry: Retry
    wait: float


_SINGLE: contextvars.ContextVar[tuple[bool, Resume | None]] = contextvars.ContextVar(
    "olsdk_single_attempt", default=(False, None)
)
#: for a hot path that sets the variable itself (``SINGLE_ATTEMPT.set(ONE_ATTEMPT)``, then reset)
SINGLE_ATTEMPT = _SINGLE
ONE_ATTEMPT: tuple[bool, Resume | None] = (True, None)


@contextlib.contextmanager
def single_attempt(resume: Resume | None = None) -> Iterator[None]:
    """Within this block the http transport makes one attempt per send, continuing ``resume``;
    a failed attempt that may be retried raises with ``error.resume`` set (see ``Resume``)."""
    token = _SINGLE.set((True, resume))
    try:
        yield
    finally:
        _SINGLE.reset(token)


def attempt_mode() -> tuple[bool, Resume | None]:
    """(one attempt only?, the retry state to continue) for the current thread of execution."""
    return _SINGLE.get()
