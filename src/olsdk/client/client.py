"""``OpenLineageClient``: serialise once, hand to a transport, never lose an event.

Delivery failures go through one path (:meth:`OpenLineageClient._undeliverable`),
whether ``send`` raised or an asynchronous transport reported later: the event is
appended to the spool, then the error policy applies:

* ``log`` (default): a warning (repeats of one reason are folded), never an exception;
* ``raise``: ``emit`` raises :class:`DeliveryError`; failures found by a background
  thread are raised by the next ``flush()`` or ``close()``;
* a callable ``(payload, error) -> None``: called after spooling.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal

from olsdk.client.config import LoadedConfig, is_disabled, load_config
from olsdk.client.filters import JobNameFilter
from olsdk.client.spool import Spool, default_spool_path
from olsdk.transports.base import DeliveryError, Payload, Transport, describe_event
from olsdk.transports.console import ConsoleTransport
from olsdk.transports.noop import NoopTransport
from olsdk.transports.registry import create_transport

if TYPE_CHECKING:
    from olsdk.client.run import DatasetLike, RunContext

__all__ = ["ErrorCallback", "OpenLineageClient"]

log = logging.getLogger("olsdk.client")

ErrorCallback = Callable[[Payload, DeliveryError], None]
_WARN_EVERY = 30.0  # seconds between warnings for one repeated failure reason


def _producer_default() -> str:
    import olsdk

    return olsdk.get_default_producer()


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
        error_policy: Literal["log", "raise"] | ErrorCallback | None = None,
        spool: str | os.PathLike[str] | Literal[False] | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        env = os.environ if environ is None else environ
        self._apply_logging_level(env)
        code: dict[str, Any] = dict(config or {})
        if producer is not None:
            code["producer"] = producer
        if isinstance(error_policy, str):
            code["error_policy"] = error_policy
        if spool is False:
            code["spool"] = {**dict(code.get("spool") or {}), "enabled": False}
        elif spool is not None:
            code["spool"] = {**dict(code.get("spool") or {}), "path": os.fspath(spool)}

        self.disabled = is_disabled(env)
        self.config: LoadedConfig | None = None
        self._callback: ErrorCallback | None = error_policy if callable(error_policy) else None
        self._filters: list[JobNameFilter] = []
        self.spool: Spool | None = None
        self.producer = producer or _producer_default()
        self.error_policy: str = "log"
        self._lock = threading.Lock()
        self._async_errors: list[DeliveryError] = []
        self._warned: dict[str, tuple[float, int]] = {}
        self._closed = False
        if self.disabled:  # OPENLINEAGE_DISABLED=true: do nothing, read nothing
            self.transport: Transport = NoopTransport()
            return

        self.config = load_config(code, environ=env)
        settings = self.config.settings
        self.error_policy = settings.error_policy
        if settings.producer:
            import olsdk

            self.producer = settings.producer
            olsdk.set_default_producer(settings.producer)  # facets' _producer too
        if settings.spool.enabled:
            self.spool = Spool(settings.spool.path or default_spool_path(dict(env)))
        self._filters = [JobNameFilter(f) for f in settings.filters]
        for key, value in (
            ("facets.environment_variables", settings.facets.environment_variables),
            ("tags", settings.tags.job or settings.tags.run),
            ("dataset.reducing_enabled", settings.dataset.reducing_enabled),
        ):
            if value:
                log.warning("OpenLineage config %s is accepted but not applied by olsdk", key)

        if transport is not None:
            self.transport = transport
        elif settings.transport:
            self.transport = create_transport(
                settings.transport, ("transport",), self.config.origins
            )
        else:
            log.warning("no OpenLineage transport configured; events go to the console")
            self.transport = ConsoleTransport()
        self.transport.set_failure_handler(self._async_failure)

    @staticmethod
    def _apply_logging_level(env: Mapping[str, str]) -> None:
        level = env.get("OPENLINEAGE_CLIENT_LOGGING")
        if level and isinstance(logging.getLevelName(level.upper()), int):
            logging.getLogger("olsdk").setLevel(level.upper())

    # -- emitting -----------------------------------------------------------------

    def emit(self, event: Any) -> None:
        """Send one event: a model (``RunEvent``, ``DatasetEvent``, ``JobEvent``),
        or event JSON as a dict, str or bytes."""
        if self.disabled:
            return
        try:
            payload = self._payload(event)
        except Exception as exc:  # not an event at all: nothing to spool
            if self.error_policy == "raise":
                raise
            log.error("OpenLineage event not emitted, it cannot be serialised: %s", exc)
            return
        if payload is None:
            return
        if self._closed:
            self._undeliverable(payload, DeliveryError("client is closed"), sync=True)
            return
        try:
            self.transport.send(payload)
        except DeliveryError as exc:
            self._undeliverable(payload, exc, sync=True)
        except Exception as exc:  # a transport bug must not break the pipeline
            error = DeliveryError(f"{type(exc).__name__}: {exc}", target=self.transport.label)
            self._undeliverable(payload, error, sync=True)

    def _payload(self, event: Any) -> Payload | None:
        if isinstance(event, str | bytes | bytearray):
            raw = event.encode("utf-8") if isinstance(event, str) else bytes(event)
            self._check_raw(raw)
            payload = Payload.from_json(raw)
        elif isinstance(event, Mapping):
            raw = json.dumps(event, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
            self._check_raw(raw)
            payload = describe_event(event, raw)
        else:
            import olsdk

            meta = describe_event(event, b"")
            if JobNameFilter.any_drops(self._filters, meta):
                return None
            return dataclasses.replace(meta, body=olsdk.to_json(event).encode("utf-8"))
        return None if JobNameFilter.any_drops(self._filters, payload) else payload

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

    # -- failures -----------------------------------------------------------------

    def _async_failure(self, payload: Payload, error: DeliveryError) -> None:
        self._undeliverable(payload, error, sync=False)

    def _undeliverable(self, payload: Payload, error: DeliveryError, *, sync: bool) -> None:
        spooled = False
        if self.spool is not None:
            try:
                for leaf in error.leaves():
                    self.spool.append(payload, leaf)
                spooled = True
            except OSError as exc:
                log.error("OpenLineage spool %s not writable, event lost: %s", self.spool.path, exc)
        self._warn(error, spooled)
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

    def _warn(self, error: DeliveryError, spooled: bool) -> None:
        where = f" (spooled to {self.spool.path})" if spooled and self.spool else ""
        key = f"{error.target}:{error.reason[:60]}"
        now = time.monotonic()
        with self._lock:
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
        """Wait for queued events; True when all were handled."""
        if self.disabled:
            return True
        done = self.transport.flush(timeout)
        if self.error_policy == "raise":
            self._raise_async_errors()
        return done

    def close(self, timeout: float | None = None) -> bool:
        """Flush and release the transport; undelivered events end up in the spool."""
        if self.disabled:
            return True
        if self._closed:
            return True
        self._closed = True
        done = self.transport.close(timeout)
        if self.error_policy == "raise":
            self._raise_async_errors()
        return done

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
        parent: Any = None,
        run_id: str | None = None,
        run_facets: Mapping[str, Any] | None = None,
        job_facets: Mapping[str, Any] | None = None,
    ) -> RunContext:
        """A run of a job: START on enter, COMPLETE on exit, FAIL (and re-raise) on
        an exception, ABORT on KeyboardInterrupt. See :class:`RunContext`."""
        from olsdk.client.run import RunContext

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
