"""``OpenLineageClient``: the facade over the parts that move an event out of the process.

* input and enrichment (``_prepare``): the event serialised once, with this client's
  producer, filters and enrichment; input that is no event is refused with a reason;
* the store (``_store``): every event is committed to the spool's SQLite database before
  ``emit`` returns and leaves it once delivered, so a process killed or ended with
  ``os._exit`` loses nothing: a later client or ``olsdk replay`` delivers what it left;
* the transports: each event gets one attempt, none while the destination's breaker is
  open or an earlier event of the same run is owed; ``emit`` makes it itself only when the
  transport does not wait on a network (a file, the console, a callback, a queue);
* the relay (``_relay``): makes the first attempt of the other events, in emit order, so
  that ``emit`` never waits on a network (with the ``raise`` policy it waits at most 50 ms
  for the answer, see ``_handoff``), and retries in the background; the failure path
  (``_outcomes``) decides what stays owed and what is given up, and applies the error policy;
* the process hooks (``_lifecycle``): fork, exit, logging shutdown.

``close()`` (or leaving a ``with`` block) ends the client: it returns False when any event
of this client was not delivered (given up to the spool, or left to a later client).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from collections.abc import Iterable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal

from olsdk._delivery.client._config import LoadedConfig, is_disabled, load_config
from olsdk._delivery.client._input import EventInput, Refused
from olsdk._delivery.client._lifecycle import track
from olsdk._delivery.client._outcomes import ErrorCallback, Outcomes
from olsdk._delivery.client._prepare import Preparer
from olsdk._delivery.client._relay import Relay
from olsdk._delivery.client._send import Sender
from olsdk._delivery.client._settings import ClientSettings, ErrorPolicy
from olsdk._delivery.client._spool import Spool, default_spool_path
from olsdk._delivery.client._store import SharedBreakers, Store
from olsdk._delivery.client._targets import install_breakers
from olsdk._delivery.transports._base import Transport
from olsdk._delivery.transports._factory import create_transport
from olsdk._foundation._exceptions import DeliveryError
from olsdk._foundation._secrets import secret_values

if TYPE_CHECKING:
    from olsdk._delivery.client._run import DatasetLike, RunContext
    from olsdk._models import ParentRunFacet

__all__ = ["ErrorCallback", "OpenLineageClient"]

log = logging.getLogger("olsdk.client")

_MAX_EVENT_BYTES = 10 * 1024 * 1024  # when no configuration is loaded (a disabled client)


def _code_config(
    config: Mapping[str, Any] | None,
    producer: str | None,
    error_policy: ErrorPolicy | ErrorCallback | None,
    spool: str | os.PathLike[str] | Literal[False] | None,
) -> dict[str, Any]:
    """The configuration given in code: ``config`` with the keyword shortcuts applied."""
    code: dict[str, Any] = dict(config or {})
    if producer is not None:
        code["producer"] = producer
    if isinstance(error_policy, str):
        code["error_policy"] = error_policy
    if spool is False:
        code["spool"] = {**dict(code.get("spool") or {}), "enabled": False}
    elif spool is not None:
        code["spool"] = {**dict(code.get("spool") or {}), "path": os.fspath(spool)}
    return code


class OpenLineageClient:
    """Emit OpenLineage events.

    With no arguments the client configures itself from ``openlineage.yml`` and
    ``OPENLINEAGE_*`` environment variables like the official client. ``config``
    is a mapping in the ``openlineage.yml`` format that overrides both; the keyword
    arguments are shortcuts for its keys. A ``transport`` object replaces the
    configured one. ``environ`` replaces ``os.environ`` as the source of
    environment variables (it is never modified).
    """

    def __init__(
        self,
        transport: Transport | None = None,
        *,
        config: Mapping[str, Any] | None = None,
        producer: str | None = None,
        error_policy: ErrorPolicy | ErrorCallback | None = None,
        spool: str | os.PathLike[str] | Literal[False] | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        env = os.environ if environ is None else environ
        self.environ = env  # what the client reads instead of os.environ (the run helper's OPENLINEAGE_CONTEXT too)
        _apply_logging_level(env)
        self.disabled = is_disabled(env)
        self.config: LoadedConfig | None = None
        self.spool: Spool | None = None
        self.store = Store(":memory:")
        self.relay: Relay | None = None
        self.close_timeout = 5.0
        self.write_ahead = False
        self._pid = os.getpid()
        self._closed = False
        self._close_result = True
        self._prepare = Preparer(producer or _producer_default(), _MAX_EVENT_BYTES)
        callback = error_policy if callable(error_policy) else None
        self._outcomes = Outcomes(self.store, "log", callback)
        if self.disabled:  # OPENLINEAGE_DISABLED=true: do nothing, read nothing
            from olsdk._delivery.transports._noop import NoopTransport

            self.transport: Transport = NoopTransport()
            return
        self.config = load_config(_code_config(config, producer, error_policy, spool), environ=env)
        self._outcomes.secrets = secret_values(self.config.data)
        settings = self.config.settings
        self._apply_settings(settings, env)
        self.transport = transport if transport is not None else _configured_transport(self.config)
        self._connect(settings)
        track(self)

    def _apply_settings(self, settings: ClientSettings, env: Mapping[str, str]) -> None:
        self._prepare.configure(settings, env)
        self._outcomes.policy = settings.error_policy
        self.close_timeout = settings.close_timeout
        if settings.spool.enabled:
            self.spool = Spool(settings.spool.path or default_spool_path(dict(env)), settings.spool.fsync)
            self.store = self._outcomes.store = self.spool.store
            self._outcomes.spool = self.spool
            self.write_ahead = settings.spool.write_ahead

    def _connect(self, settings: ClientSettings) -> None:
        """The attempts (the transport's handlers), the breakers (sharing their state in the
        store), the relay."""
        self._send = Sender(self.transport, self.store, self._outcomes, self.write_ahead)
        shared = SharedBreakers(self.store) if self.spool is not None else None
        self.relay = Relay(
            self.transport,
            self.store,
            breakers=install_breakers(self.transport, settings.breaker, shared),
            on_failure=self._send.failed_later,
            first_attempt=self._send.in_relay,
            finish=settings.spool.finish and self.spool is not None,
            finish_delay=settings.spool.finish_delay,
        )
        self._outcomes.relay = self._send.relay = self.relay
        if self.relay.finish and self.store.path.exists():
            self.relay.start()  # records of processes that are gone may wait there

    @property
    def producer(self) -> str:
        return self._prepare.producer

    @property
    def error_policy(self) -> ErrorPolicy:
        return self._outcomes.policy

    @error_policy.setter
    def error_policy(self, policy: ErrorPolicy) -> None:
        self._outcomes.policy = policy
        self._prepare.strict = policy == "raise"

    @property
    def max_event_bytes(self) -> int:
        return self._prepare.max_event_bytes

    # -- emitting -----------------------------------------------------------------

    def emit(self, event: EventInput) -> None:
        """Send one event: a model (``RunEvent``, ``DatasetEvent``, ``JobEvent``), event
        JSON as a dict, str or bytes, or an event object of the official client.

        Anything else (a ``Run``, a list, ...) is a type error for mypy and pyright; at run
        time it is refused (kept in the spool as text, never sent) with a reason."""
        if self.disabled:
            return
        try:
            payload = self._prepare.payload(event)
        except Refused as refused:  # not an event at all: kept as text, never sent
            self._outcomes.refused(refused)
            return
        if payload is None:
            return
        if self._closed:
            self._outcomes.failed(payload, DeliveryError("client is closed"), sync=True)
            return
        self._send.send(payload)

    # -- lifecycle ----------------------------------------------------------------

    @property
    def open_here(self) -> bool:
        """Open, and made in this process (the hooks of ``_lifecycle`` act on such clients)."""
        return not self._closed and not self.disabled and self._pid == os.getpid()

    def after_fork_in_child(self) -> None:
        """The parent's records and retries stay the parent's; the child starts afresh."""
        self._pid = os.getpid()
        self._outcomes.reset()
        if self.relay is not None:
            self.relay.after_fork_in_child()
            for breaker in self.relay.breakers:
                breaker.after_fork_in_child()

    def hand_over(self) -> None:
        """Hand what the transports hold in memory on (at logging shutdown: see ``_lifecycle``):
        the events handed to the relay get their first attempt within the close timeout, and
        each gets a record in the store first if it has none."""
        deadline = time.monotonic() + self.close_timeout
        if self.relay is not None:
            if self.spool is not None:
                self._send.record_handed()
            self.relay.handed.tried(self.close_timeout)
        self.transport.flush(max(0.0, deadline - time.monotonic()))
        if self.spool is not None:
            self.spool.flush()

    def flush(self, timeout: float | None = None) -> bool:
        """Wait for queued events (and the relay's retries that are due); True when all were handled."""
        if self.disabled:
            return True
        deadline = None if timeout is None else time.monotonic() + timeout
        done = self.transport.flush(timeout)
        if self.relay is not None and self.relay.pending:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            done = self.relay.flush(left) and done
        if self.spool is not None:
            done = self.spool.flush() == 0 and done
        self._outcomes.raise_async_errors()
        return done

    def close(self, timeout: float | None = None) -> bool:
        """Flush and release the transport; what is not delivered stays in the spool.

        Returns False when any event of this client was given up, left to a later client or
        lost instead of delivered, and says how many in a warning."""
        if self.disabled or self._closed:
            return self._close_result
        deadline = time.monotonic() + (self.close_timeout if timeout is None else timeout)
        if self.relay is not None:  # the events handed to the relay reach the transport before it closes
            self.relay.handed.tried(max(0.0, deadline - time.monotonic()))
        done = self.transport.close(timeout)
        left, trying = self.relay.close(max(deadline, time.monotonic())) if self.relay is not None else ([], False)
        self._closed = self._outcomes.closed = True
        self._send.left_at_close(left)  # never tried: kept for a later client (or given up to the spool)
        done = done and not trying
        owed = _release(self.store, self._outcomes)
        waiting = self.spool.flush() if self.spool is not None else 0
        self._close_result = self._outcomes.report_close(owed, waiting) and done
        self._outcomes.raise_async_errors()
        return self._close_result

    def __enter__(self) -> OpenLineageClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def run(
        self,
        job_namespace: str,
        job_name: str,
        *,
        inputs: Iterable[DatasetLike] = (),
        outputs: Iterable[DatasetLike] = (),
        parent: RunContext | ParentRunFacet | None = None,
        run_id: str | None = None,
        run_facets: Mapping[str, Any] | None = None,
        job_facets: Mapping[str, Any] | None = None,
    ) -> RunContext:
        """A run of a job: START on enter, COMPLETE on exit, FAIL (and re-raise) on
        an exception, ABORT on KeyboardInterrupt. See :class:`RunContext`."""
        from olsdk._delivery.client._run import RunContext

        return RunContext(
            self,
            job_namespace,
            job_name,
            inputs=inputs,
            outputs=outputs,
            parent=parent,
            run_id=run_id,
            run_facets=run_facets,
            job_facets=job_facets,
        )

    def __repr__(self) -> str:
        return f"<OpenLineageClient transport={self.transport!r} policy={self.error_policy}>"


def _apply_logging_level(env: Mapping[str, str]) -> None:
    level = env.get("OPENLINEAGE_CLIENT_LOGGING")
    if level and isinstance(logging.getLevelName(level.upper()), int):
        logging.getLogger("olsdk").setLevel(level.upper())


def _configured_transport(loaded: LoadedConfig) -> Transport:
    if loaded.settings.transport:
        return create_transport(loaded.settings.transport, ("transport",), loaded.origins)
    from olsdk._delivery.transports._console import ConsoleTransport

    log.warning("no OpenLineage transport configured; events go to the console")
    return ConsoleTransport()


def _producer_default() -> str:
    from olsdk._models._runtime import get_default_producer

    return get_default_producer()


def _release(store: Store, outcomes: Outcomes) -> int:
    """This process's records still owed, released for a later client (lost without a spool)."""
    try:
        if outcomes.spool is None:
            outcomes.lost += store.owed()
            return 0
        return store.release()
    except (OSError, sqlite3.Error) as exc:
        log.error("OpenLineage store %s: cannot release its records (%s)", store.path, exc)
        return 0
