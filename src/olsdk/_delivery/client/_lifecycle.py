"""The process hooks of the clients, in one place, and why each exists.

A client's events are in the store before ``emit`` returns, so no hook is needed to keep
them: these hooks only make delivery prompter and say where undelivered events are.

* **after a fork, in the child** (``os.register_at_fork``): the parent's threads do not
  exist in the child and a lock one of them held would never be released; each live client
  starts afresh there (its store reconnects on first use: a SQLite connection is never used
  across a fork). The child is marked forked: it may end with ``os._exit`` (Airflow's task
  runner does), so what it leaves undelivered is said when it happens, not at close.
* **at interpreter exit** (``atexit``): each client still open is closed, so what its
  buffered workers hold is written and its retries get their last chance within the close
  timeout. Transports have no exit hook of their own: their client closes them.
* **at logging shutdown** (a ``logging.Handler`` attached to no logger): ``logging.shutdown()``
  flushes every handler ever made, attached or not. Programs that end with ``os._exit`` call
  it first to keep their last log lines (the Airflow provider's forked child does), and no
  exit hook runs after it: this handler hands what the clients hold in memory (a batch
  filling up) to their transports there, bounded by each client's ``close_timeout``.
* **at a multiprocessing child's exit** (``multiprocessing.util.Finalize``): a process pool's
  worker runs its finalizers and then ends with ``os._exit``, skipping ``atexit``: the
  clients made in it, or inherited by it through the fork, are closed by a finalizer there
  (an inherited one's is registered once multiprocessing has cleared the parent's).
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import sys
import weakref
from typing import Protocol

__all__ = ["forked_child", "track"]

log = logging.getLogger("olsdk.client")


class Client(Protocol):
    def close(self, timeout: float | None = None) -> bool: ...
    def hand_over(self) -> None: ...
    def after_fork_in_child(self) -> None: ...
    @property
    def open_here(self) -> bool: ...


_LIVE: weakref.WeakSet[Client] = weakref.WeakSet()
_state = {"forked": False, "finalized_in": 0}


def forked_child() -> bool:
    """True in a process made by ``fork`` (it may end with ``os._exit``)."""
    return bool(_state["forked"])


def track(client: Client) -> None:
    """Give ``client`` the hooks (until it is garbage)."""
    _LIVE.add(client)
    _finalize_in_multiprocessing_child()


def _after_fork_in_child() -> None:
    _state["forked"] = True
    for client in list(_LIVE):
        client.after_fork_in_child()
    mp_util = sys.modules.get("multiprocessing.util")
    if mp_util is not None and _LIVE:  # run in a multiprocessing child after it clears finalizers
        mp_util.register_after_fork(_close_all, lambda _: _finalize_in_multiprocessing_child())


def _close_all() -> None:
    for client in list(_LIVE):
        if client.open_here:
            try:
                client.close()
            except Exception:
                log.exception("closing the OpenLineage client at exit failed")


class _HandOverAtLoggingShutdown(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:  # attached to no logger: never called
        pass

    def flush(self) -> None:
        for client in list(_LIVE):
            if client.open_here:
                with contextlib.suppress(Exception):  # logging is shutting down: nothing to report through
                    client.hand_over()


def _finalize_in_multiprocessing_child() -> None:
    multiprocessing = sys.modules.get("multiprocessing")
    if multiprocessing is None or os.getpid() == _state["finalized_in"] or multiprocessing.parent_process() is None:
        return
    _state["finalized_in"] = os.getpid()
    import multiprocessing.util

    multiprocessing.util.Finalize(None, _close_all, exitpriority=100)


_LOGGING_SHUTDOWN_HOOK = _HandOverAtLoggingShutdown()
os.register_at_fork(after_in_child=_after_fork_in_child)
atexit.register(_close_all)
