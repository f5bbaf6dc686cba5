"""``OpenLineageClient``: serialise once, write ahead, hand to a transport, never lose an event.

Every event is written to the outbox (``<spool>.outbox/``, see ``_outbox``) before
``emit`` returns, and acknowledged there once delivered, so a process killed or ended
with ``os._exit`` loses nothing: a later client (``_relay``) or ``olsdk replay`` delivers
what it left. ``emit`` makes at most one attempt: none while the destination's breaker is
open or an earlier event of the same run waits; retries happen in the background relay.

Delivery failures go through one path (:meth:`OpenLineageClient._undeliverable`),
whether ``send`` raised or an asynchronous transport reported later: the event stays in
the outbox for the relay (or, when retrying cannot help, is moved to the spool file),
then the error policy applies:

* ``log`` (default): a warning (repeats of one reason are folded), never an exception;
* ``raise``: ``emit`` raises :class:`DeliveryError`; failures found by a background
  thread are raised by the next ``flush()`` or ``close()``;
* a callable ``(payload, error) -> None``: called after spooling.

Input that is not an event at all (text that is not JSON, ``NaN``/``Infinity``, a
list, an object olsdk cannot serialise, more than ``max_event_bytes``) is refused
with a reason naming what is wrong: it is kept in the spool as text (never sent,
never dropped) and, with ``raise``, ``emit`` raises :class:`olsdk.ValidationError`.
Failure reasons are scrubbed of credentials before they are logged, spooled or
raised. ``close()`` returns False when any event of this client went to the spool
instead of its destination.
"""

from __future__ import annotations

import atexit
import functools
import json
import logging
import os
import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal

from olsdk._delivery._config import BreakerSettings, ClientSettings, ErrorPolicy, LoadedConfig, is_disabled
from olsdk._delivery.client._config import load_config
from olsdk._delivery.client._filters import JobNameFilter
from olsdk._delivery.client._input import EventInput, Refused, serialise
from olsdk._delivery.client._outbox import Outbox, OutboxRecord
from olsdk._delivery.client._relay import Relay
from olsdk._delivery.client._spool import Spool, default_spool_path
from olsdk._delivery.transports._attempts import ONE_ATTEMPT as _ONE_ATTEMPT
from olsdk._delivery.transports._attempts import SINGLE_ATTEMPT as _SINGLE_ATTEMPT
from olsdk._delivery.transports._base import Payload, Transport, describe_event
from olsdk._delivery.transports._breaker import Breaker
from olsdk._delivery.transports._buffered import BufferedTransport as _Buffered  # noqa: F401  (see below)
from olsdk._delivery.transports._composite import CompositeTransport
from olsdk._delivery.transports._factory import create_transport
from olsdk._foundation._exceptions import DeliveryError, Problem, ValidationError
from olsdk._foundation._secrets import scrub, secret_values
from olsdk._models._runtime._bases import (
    _DEFAULT_PRODUCER as BUILTIN_PRODUCER,
)  # what a model gets before any is configured

if TYPE_CHECKING:
    from olsdk._delivery.client._enrich import Enricher
    from olsdk._delivery.client._run import DatasetLike, RunContext
    from olsdk._models import ParentRunFacet

__all__ = ["ErrorCallback", "OpenLineageClient"]

log = logging.getLogger("olsdk.client")

ErrorCallback = Callable[[Payload, DeliveryError], None]
_WARN_EVERY = 30.0  # seconds between warnings for one repeated failure reason
_MAX_EVENT_BYTES = 10 * 1024 * 1024  # when no configuration is loaded (a disabled client)

_LIVE: weakref.WeakSet[OpenLineageClient] = weakref.WeakSet()
# a forked child may end with os._exit (Airflow's workers do): no exit hook runs there, so
# what it leaves undelivered is said when it happens, not at close
_FORKED_CHILD = False


def _after_fork_in_child() -> None:
    global _FORKED_CHILD
    _FORKED_CHILD = True
    for client in list(_LIVE):
        client._reset_after_fork()


def _close_all_at_exit() -> None:
    # before the transports' own exit hook (registered earlier, so run later): what the
    # buffered workers still hold reaches the spool, and the spool's backlog the disk
    for client in list(_LIVE):
        if client._closed or client._pid != os.getpid():
            continue
        try:
            client.close()
        except Exception:
            log.exception("closing the OpenLineage client at exit failed")


class _FlushAtLoggingShutdown(logging.Handler):
    """``logging.shutdown()`` flushes every handler ever made, attached or not. Programs that
    end with ``os._exit`` call it first to keep their last log lines (the Airflow provider's
    forked child does), and no exit hook runs after it: this handler, attached to no logger,
    hands what olsdk's clients hold in memory (a batch filling up, a queue) to their
    transports there, bounded by each client's ``close_timeout``. It does not close them
    and leaves the relay's retries alone (those are in the outbox already)."""

    def emit(self, record: logging.LogRecord) -> None:  # attached to no logger: never called
        pass

    def flush(self) -> None:
        for client in list(_LIVE):
            if client._closed or client.disabled or client._pid != os.getpid():
                continue
            try:
                client.transport.flush(client.close_timeout)
                if client.spool is not None:
                    client.spool.flush()
            except Exception:  # logging is shutting down: nothing to report through
                pass


_LOGGING_SHUTDOWN_HOOK = _FlushAtLoggingShutdown()
_FINALIZED_IN: int | None = None  # the multiprocessing child whose exit closes the clients


def _close_at_multiprocessing_exit() -> None:
    """A multiprocessing child (a process pool's worker: the Airflow provider emits its DAG
    run events from one) runs its finalizers and then ends with ``os._exit``, skipping
    ``atexit``: the clients made in it are closed by a finalizer there."""
    global _FINALIZED_IN
    multiprocessing = sys.modules.get("multiprocessing")
    if multiprocessing is None or os.getpid() == _FINALIZED_IN or multiprocessing.parent_process() is None:
        return
    _FINALIZED_IN = os.getpid()
    import multiprocessing.util

    multiprocessing.util.Finalize(None, _close_all_at_exit, exitpriority=100)


os.register_at_fork(after_in_child=_after_fork_in_child)
# registered after the buffered wrapper's (imported above for this), so it runs before it
atexit.register(_close_all_at_exit)


def _producer_default() -> str:
    import olsdk

    return olsdk.get_default_producer()


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
        self._apply_logging_level(env)
        self.disabled = is_disabled(env)
        self.config: LoadedConfig | None = None
        self._callback: ErrorCallback | None = error_policy if callable(error_policy) else None
        self._filters: list[JobNameFilter] = []
        self._enricher: Enricher | None = None
        self.spool: Spool | None = None
        self.producer = producer or _producer_default()
        self.error_policy: ErrorPolicy = "log"
        self._lock = threading.Lock()
        self._async_errors: list[DeliveryError] = []
        self._warned: dict[str, tuple[float, int]] = {}
        self._last_warned: dict[str, str] = {}  # target -> the key of its last failure told
        self._closed = False
        self._close_result = True
        self._spooled = 0  # events of this client that went to the spool (this process)
        self._lost = 0  # events that could not be spooled either (spool disabled or unwritable)
        self._told = False  # a forked child said what it left undelivered
        self._write_ahead_warned = False
        self._secrets: list[str] = []
        self._pid = os.getpid()
        self.max_event_bytes = _MAX_EVENT_BYTES
        self._builtin_producer = json.dumps(BUILTIN_PRODUCER).encode()
        self._producer_swap: tuple[tuple[bytes, bytes], ...] | None = None
        self.close_timeout = 5.0
        self.outbox: Outbox | None = None
        self._targets: tuple[str, ...] | None = None  # a composite's children: each acknowledges
        self._child_of: dict[str, str] = {}  # a label anywhere below a composite child -> that child
        if self.disabled:  # OPENLINEAGE_DISABLED=true: do nothing, read nothing
            from olsdk._delivery.transports._noop import NoopTransport

            self.transport: Transport = NoopTransport()
            self.relay: Relay | None = None
            return
        self.config = load_config(_code_config(config, producer, error_policy, spool), environ=env)
        self._secrets = secret_values(self.config.data)
        settings = self.config.settings
        self._apply_settings(settings, env)
        if transport is not None:
            self.transport = transport
        elif settings.transport:
            self.transport = create_transport(settings.transport, ("transport",), self.config.origins)
        else:
            from olsdk._delivery.transports._console import ConsoleTransport

            log.warning("no OpenLineage transport configured; events go to the console")
            self.transport = ConsoleTransport()
        self.transport.set_failure_handler(self._async_failure)
        self.transport.set_delivery_handler(self._delivered)
        self._async_top = self.transport.asynchronous
        if isinstance(self.transport, CompositeTransport):
            self._targets = tuple(child.label for child in self.transport.transports)
            self._child_of = {
                label: child.label for child in self.transport.transports for label in _labels_below(child)
            }
        shared = self.outbox.directory if self.outbox is not None else None
        if shared is None and self.spool is not None:
            from olsdk._delivery.client._outbox import outbox_dir

            shared = outbox_dir(self.spool.path)
        breakers = _install_breakers(self.transport, settings.breaker, shared)
        self.relay = Relay(
            self.transport,
            self.outbox,
            self.spool,
            breakers=breakers,
            target_of=self._target_of,
            on_dead_letter=self._dead_letter_from_relay,
            finish=settings.spool.finish,
            finish_delay=settings.spool.finish_delay,
        )
        if self.outbox is not None and settings.spool.finish and self.outbox.directory.is_dir():
            self.relay.start()  # segments of processes that are gone may wait there
        _LIVE.add(self)
        _close_at_multiprocessing_exit()

    def _reset_after_fork(self) -> None:
        # a lock held by another thread at fork time would never be released in the child
        self._lock = threading.Lock()
        self._async_errors = []
        self._warned = {}
        self._last_warned = {}
        self._spooled = self._lost = 0
        self._told = False
        self._pid = os.getpid()
        if self.spool is not None:
            self.spool.after_fork_in_child()
        if self.outbox is not None:
            self.outbox.after_fork_in_child()
        if self.relay is not None:
            self.relay.after_fork_in_child()
            for breaker in self.relay.breakers:
                breaker.after_fork_in_child()

    def _apply_settings(self, settings: ClientSettings, env: Mapping[str, str]) -> None:
        self.error_policy = settings.error_policy
        self.max_event_bytes = settings.max_event_bytes
        if settings.producer:
            import olsdk

            self.producer = settings.producer
            olsdk.set_default_producer(settings.producer)  # facets' _producer too
        self.close_timeout = settings.close_timeout
        if settings.spool.enabled:
            self.spool = Spool(settings.spool.path or default_spool_path(dict(env)))
            if settings.spool.write_ahead:
                self.outbox = Outbox(self.spool.outbox_dir, settings.spool.fsync)
        self._filters = [JobNameFilter(f) for f in settings.filters]
        if self.producer != BUILTIN_PRODUCER:
            mine = json.dumps(self.producer).encode()
            self._producer_swap = tuple(
                (b'"%s":%s' % (key, self._builtin_producer), b'"%s":%s' % (key, mine))
                for key in (b"producer", b"_producer")
            )
        if settings.enriches:  # the enrichment code (and the naming builders it uses) only when asked
            from olsdk._delivery.client._enrich import Enricher

            self._enricher = Enricher(settings, self.producer, env)

    @staticmethod
    def _apply_logging_level(env: Mapping[str, str]) -> None:
        level = env.get("OPENLINEAGE_CLIENT_LOGGING")
        if level and isinstance(logging.getLevelName(level.upper()), int):
            logging.getLogger("olsdk").setLevel(level.upper())

    # -- emitting -----------------------------------------------------------------

    def emit(self, event: EventInput) -> None:
        """Send one event: a model (``RunEvent``, ``DatasetEvent``, ``JobEvent``), event
        JSON as a dict, str or bytes, or an event object of the official client.

        Anything else (a ``Run``, a list, ...) is a type error for mypy and pyright; at run
        time it is refused (kept in the spool as text, never sent) with a reason."""
        if self.disabled:
            return
        try:
            payload = self._payload(event)
        except Refused as refused:  # not an event at all: kept as text, never sent
            self._refuse(refused)
            return
        if payload is None:
            return
        if self._closed:
            self._undeliverable(payload, DeliveryError("client is closed"), sync=True)
            return
        record = None
        if self.outbox is not None:
            record = self._write_ahead(payload)
        relay = self.relay
        assert relay is not None
        if not relay.started and relay.finish:  # finishes what processes that are gone left, later
            relay.start()
        if relay.pending and relay.holds(payload.ordering_key):  # keep the run's order: queue behind
            reason = relay.reason_of(payload.ordering_key)
            behind = DeliveryError(
                f"not tried: behind an undelivered event of its run ({reason})",
                target=self.transport.label,
                attempts=0,
            )
            self._undeliverable(payload, behind, sync=True)
            return
        token = _SINGLE_ATTEMPT.set(_ONE_ATTEMPT)  # never a retry in the caller: the relay retries
        try:
            self.transport.deliver(payload)
        except DeliveryError as exc:
            self._undeliverable(payload, exc, sync=True)
            return
        except Exception as exc:  # a transport bug must not break the pipeline
            error = DeliveryError(f"{type(exc).__name__}: {exc}", target=self.transport.label)
            self._undeliverable(payload, error, sync=True)
            return
        finally:
            _SINGLE_ATTEMPT.reset(token)
        if record is not None and self._targets is None and not self._async_top:
            self.outbox.ack(record)  # type: ignore[union-attr]

    def _write_ahead(self, payload: Payload) -> OutboxRecord | None:
        """The event on disk before anything else; a disk that refuses costs the write-ahead only."""
        assert self.outbox is not None
        try:
            record = self.outbox.write(payload.body, self._targets)
        except OSError as exc:
            if not self._write_ahead_warned:
                self._write_ahead_warned = True
                log.error(
                    "OpenLineage outbox %s not writable (%s): events are sent without being written ahead",
                    self.outbox.directory,
                    exc.strerror or exc,
                )
            return None
        object.__setattr__(payload, "ref", record)  # the payload is ours until it is handed on
        return record

    def _delivered(self, payload: Payload, label: str | None) -> None:
        """An asynchronous transport (or a composite's child) delivered ``payload``."""
        record = payload.ref
        if self.outbox is None or not isinstance(record, OutboxRecord):
            return
        if self._targets is None:
            self.outbox.ack(record)
        elif label is not None:
            self.outbox.ack(record, self._child_of.get(label, label))

    def _target_of(self, label: str | None) -> str | None:
        """The composite child a failure's target belongs to (None: no composite at the top)."""
        if self._targets is None or label is None:
            return None
        return self._child_of.get(label, label)

    def _payload(self, event: Any) -> Payload | None:
        """The payload to send, None when a filter drops the event; Refused when it is no event."""
        raw, data = serialise(event, self.max_event_bytes)
        if data is None:  # a model: typed and valid already
            raw = self._own_producer(raw)
            meta = describe_event(event, raw)
            if JobNameFilter.any_drops(self._filters, meta):
                return None
            if self._enricher is not None:
                return self._enriched(json.loads(raw))
            return meta
        self._check_raw(raw)
        if self._enricher is not None:
            return self._enriched(json.loads(raw))  # a copy: the caller's mapping is not changed
        payload = describe_event(data, raw)
        return None if JobNameFilter.any_drops(self._filters, payload) else payload

    def _own_producer(self, raw: bytes) -> bytes:
        """A model built before any producer was configured (before this client existed)
        carries olsdk's built-in default as its ``producer`` and its facets' ``_producer``:
        this client's producer takes its place. A producer given explicitly is kept."""
        if self._producer_swap is None or self._builtin_producer not in raw:
            return raw
        for old, new in self._producer_swap:
            raw = raw.replace(old, new)
        return raw

    def _enriched(self, data: Any) -> Payload | None:
        """The payload of ``data`` (event JSON as Python data) after the filters and enrichment."""
        if not isinstance(data, dict):
            raise ValueError("an OpenLineage event must be a JSON object")
        if JobNameFilter.any_drops(self._filters, describe_event(data, b"")):
            return None
        assert self._enricher is not None
        data = self._enricher.apply(data)
        return describe_event(data, json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))

    def _check_raw(self, raw: bytes) -> None:
        """Validate event JSON given as text or a dict against the spec's models.

        With the `raise` policy a mismatch raises `olsdk.ValidationError`; otherwise it
        is logged with every problem and the event is still sent as given: the sender's
        data is not dropped, and the backend keeps the last word.
        """
        import olsdk

        try:
            olsdk.parse_event(raw)
        except olsdk.ValidationError as exc:
            if self.error_policy == "raise":
                raise
            log.warning("OpenLineage event does not match the spec; sending it as given. %s", exc)

    def _refuse(self, refused: Refused) -> None:
        """Input that is no event: spooled as text (never resent), then the error policy."""
        reason = scrub(refused.reason, self._secrets)
        error = DeliveryError(f"refused: {reason}", target="client", retriable=False)
        where = self._keep(lambda spool: spool.append_raw(refused.text, error))
        log.error("OpenLineage event refused, it cannot be serialised as an event: %s%s", reason, where)
        if self._callback is not None:
            try:
                self._callback(Payload(body=refused.text.encode("utf-8", "backslashreplace")), error)
            except Exception:
                log.exception("OpenLineage error callback raised")
        if self.error_policy == "raise":
            raise ValidationError([Problem(refused.path, reason)], title="OpenLineage event refused") from None

    def _keep(self, write: Callable[[Spool], bool]) -> str:
        """Write one spool record; count it; return where it went (for the log line)."""
        if self.spool is None:
            with self._lock:
                self._lost += 1
            return " (no spool configured: it is lost)"
        try:
            on_disk = write(self.spool)
        except OSError as exc:
            with self._lock:
                self._lost += 1
            return f" (spool {self.spool.path} not writable, event lost: {exc.strerror or exc})"
        with self._lock:
            self._spooled += 1
        return f" (spooled to {self.spool.path})" if on_disk else f" (held for the spool {self.spool.path})"

    # -- failures -----------------------------------------------------------------

    def _async_failure(self, payload: Payload, error: DeliveryError) -> None:
        self._undeliverable(payload, error, sync=False)

    def _undeliverable(self, payload: Payload, error: DeliveryError, *, sync: bool) -> None:
        _scrub_error(error, self._secrets)
        where = ""
        record = payload.ref if isinstance(payload.ref, OutboxRecord) else None
        leaves = error.leaves()
        for leaf in leaves:  # one delivery owed per failed child of a composite
            target = self._target_of(leaf.target)
            if target is None and len(leaves) > 1:
                target = leaf.target  # a composite below a wrapper: resend to that child only
            if record is not None and self.outbox is not None:
                self.outbox.fail(record, leaf, target)  # attempts counted as they happen
            where = self._owe(payload, record, target, leaf)
        self._warn(error, where)
        if self._callback is not None:
            try:
                self._callback(payload, error)
            except Exception:
                log.exception("OpenLineage error callback raised")
        if self.error_policy == "raise" and not error.partial:
            if sync:
                raise error
            with self._lock:
                self._async_errors.append(error)

    def _owe(self, payload: Payload, record: OutboxRecord | None, target: str | None, error: DeliveryError) -> str:
        """Keep one failed delivery: in the outbox for the relay, or in the spool file when
        retrying cannot help (or nothing is written ahead and no retry is left)."""
        relay = self.relay
        if self._closed and record is not None and relay is not None and relay.owes(error):
            # close() released the outbox while this emit was in flight: the record stays there,
            # for a later client (written to the spool file too, it could be delivered twice)
            return f" (kept in the outbox {record.segment.path.parent} for a later client)"
        if self._closed or relay is None or not relay.owes(error):
            return self._dead_letter(payload, error, target, record)
        if record is None and error.resume is None:  # nothing written ahead: on disk now, as before
            return self._dead_letter(payload, error, target, record)
        relay.take(payload, record, target, error)
        if record is None:
            return " (retried in the background)"
        self._tell_early(error)
        return f" (kept in the outbox {record.segment.path.parent}; delivered in the background)"

    def _dead_letter(
        self, payload: Payload, error: DeliveryError, target: str | None, record: OutboxRecord | None = None
    ) -> str:
        """Into the spool file (``olsdk replay`` resends it), then settled in the outbox."""
        if target is not None and error.target != target:
            error = DeliveryError(error.reason, target=target, retriable=error.retriable, attempts=error.attempts)
        attempts = record.attempts if record is not None and record.attempts else error.attempts
        where = self._keep(functools.partial(_append, payload=payload, error=error, attempts=attempts))
        if record is not None and self.outbox is not None and self.spool is not None and "spooled" in where:
            self.outbox.moved(record, self.spool.path, target)
        self._tell_early(error)
        return where

    def _dead_letter_from_relay(self, payload: Payload, error: DeliveryError, target: str | None) -> None:
        record = payload.ref if isinstance(payload.ref, OutboxRecord) else None
        _scrub_error(error, self._secrets)
        where = self._dead_letter(payload, error, target, record)
        self._warn(error, where)

    def _tell_early(self, error: DeliveryError) -> None:
        """In a forked child (which may end with os._exit, skipping every exit hook), say once,
        now, where undelivered events are and how they get delivered."""
        if not _FORKED_CHILD or self._told or self.spool is None:
            return
        self._told = True
        log.warning(
            "OpenLineage: an event of this process (pid %d) was not delivered (%s); it is kept in %s and "
            "a later client delivers it in the background, or resend it with `olsdk replay %s`",
            os.getpid(),
            error.reason,
            self.spool.outbox_dir if self.outbox is not None else self.spool.path,
            self.spool.path,
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

    def _raise_async_errors(self) -> None:
        with self._lock:
            errors, self._async_errors = self._async_errors, []
        if errors:
            reasons = "; ".join(sorted({e.reason for e in errors}))
            raise DeliveryError(f"{len(errors)} events not delivered: {reasons}", causes=errors)

    # -- lifecycle ----------------------------------------------------------------

    def flush(self, timeout: float | None = None) -> bool:
        """Wait for queued events (and the relay's retries that are due); True when all
        were handled."""
        if self.disabled:
            return True
        deadline = None if timeout is None else time.monotonic() + timeout
        done = self.transport.flush(timeout)
        if self.relay is not None and self.relay.pending:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            done = self.relay.flush(left) and done
        if self.spool is not None:
            done = self.spool.flush() == 0 and done
        if self.error_policy == "raise":
            self._raise_async_errors()
        return done

    def close(self, timeout: float | None = None) -> bool:
        """Flush and release the transport; undelivered events end up in the spool.

        Returns False when any event of this client was spooled (or lost) instead of
        delivered, and says how many in a warning.
        """
        if self.disabled:
            return True
        if self._closed:
            return self._close_result
        self._closed = True
        budget = self.close_timeout if timeout is None else timeout
        deadline = time.monotonic() + budget
        done = self.transport.close(timeout)
        own_left = adopted_left = 0
        if self.relay is not None:
            self.relay.close(max(deadline, time.monotonic()))
            if self.outbox is None:  # nothing written ahead: what the relay still owes goes to the spool file
                for held in self.relay.drain():
                    if held.payload is not None:
                        error = DeliveryError(held.reason or "not delivered before close", target=held.target)
                        self._keep(functools.partial(_append, payload=held.payload, error=error, attempts=1))
        if self.outbox is not None:
            own_left, adopted_left = self.outbox.close()
        waiting = self.spool.flush() if self.spool is not None else 0
        with self._lock:
            spooled, lost = self._spooled + own_left, self._lost
        if spooled and self.spool is not None:
            also = (
                f" (its outbox {self.spool.outbox_dir}: a later client delivers them in the background)"
                if own_left
                else ""
            )
            log.warning(
                "OpenLineage: %d events of this client were not delivered and are in the spool %s%s; "
                "resend them with `olsdk replay %s`",
                spooled,
                self.spool.path,
                also,
                self.spool.path,
            )
        if adopted_left and self.spool is not None:
            log.warning(
                "OpenLineage: %d events that processes now gone left are still in the outbox %s",
                adopted_left,
                self.spool.outbox_dir,
            )
        if waiting:
            log.error(
                "OpenLineage: %d events could not be written to the spool %s and are lost",
                waiting,
                self.spool.path if self.spool else "",
            )
        if lost:
            log.error("OpenLineage: %d events of this client were neither delivered nor spooled", lost)
        self._close_result = done and not spooled and not lost and not waiting
        if self.error_policy == "raise":
            self._raise_async_errors()
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


def _append(spool: Spool, *, payload: Payload, error: DeliveryError, attempts: int | None = None) -> bool:
    return spool.append(payload, error, attempts=attempts if attempts is not None else error.attempts)


def _labels_below(transport: Transport) -> list[str]:
    """Every label in the tree under (and including) ``transport``."""
    labels = [transport.label]
    for child in transport.children():
        labels.extend(_labels_below(child))
    return labels


def _install_breakers(transport: Transport, settings: BreakerSettings, shared: Any) -> list[Breaker]:
    """A breaker on every destination of the tree that has none yet (shared state beside the outbox)."""
    children = transport.children()
    if children:
        return [b for child in children for b in _install_breakers(child, settings, shared)]
    if transport.breaker is None:
        transport.breaker = Breaker(transport.breaker_identity, settings, shared)
    return [transport.breaker]


def _scrub_error(error: DeliveryError, secrets: list[str]) -> None:
    """Mask credentials in a failure's reason (and its causes') before anyone sees it."""
    for item in (error, *error.leaves()):
        clean = scrub(item.reason, secrets)
        if clean != item.reason:
            item.reason = clean
            item.args = (clean,)
