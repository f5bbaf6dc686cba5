"""The Kafka transport (optional extra ``kafka``: confluent-kafka).

Message keys follow the official client so that ordering holds where it matters:
a run event is keyed by its root job (``parent.root.job``, else ``parent.job``,
else its own job) as ``run:<namespace>/<name>``, so every event of a run (and of
its child runs) lands in one partition, in order. Job and dataset events are keyed
``job:<ns>/<name>`` and ``dataset:<ns>/<name>``; ``messageKey`` overrides all.

With ``flush: true`` (default, as in the official client) ``send`` waits up to
``flush_timeout`` for the broker's acknowledgement and raises when delivery
failed. Failures that surface later (delivery callbacks, or messages still queued
at ``close``) go to the failure handler, i.e. the spool.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from pydantic import Field, model_validator

from olsdk._delivery._config import Settings
from olsdk._delivery.transports._base import Payload, Transport
from olsdk._foundation._exceptions import ConfigError, DeliveryError

__all__ = ["KafkaSettings", "KafkaTransport", "message_key"]

log = logging.getLogger("olsdk._delivery.transports._kafka")


class KafkaSettings(Settings):
    """The `kafka` transport: the topic, librdkafka properties and the message key."""

    topic: str
    # librdkafka properties, passed to the Producer as given
    config: dict[str, Any] = Field(default_factory=dict)
    message_key: str | None = Field(default=None, validation_alias="messageKey")
    flush: bool = True
    flush_timeout: float = 10.0  # seconds send() waits for the acknowledgement

    @model_validator(mode="after")
    def _servers(self) -> KafkaSettings:
        if not self.config.get("bootstrap.servers"):
            raise ConfigError(
                "transport.config.bootstrap.servers: required for the kafka transport",
                "transport.config.bootstrap.servers",
            )
        return self


def message_key(payload: Payload) -> str:
    """The partitioning key of an event (see the module docstring)."""
    if payload.kind == "dataset":
        return f"dataset:{payload.dataset_namespace}/{payload.dataset_name}"
    if payload.kind == "job":
        return f"job:{payload.job_namespace}/{payload.job_name}"
    if payload.root_job_namespace and payload.root_job_name:
        return f"run:{payload.root_job_namespace}/{payload.root_job_name}"
    return f"run:{payload.job_namespace}/{payload.job_name}"


class _Pending:
    """The outcome of one produced message, filled by the delivery callback."""

    __slots__ = ("done", "error", "payload", "report_later")

    def __init__(self, payload: Payload, report_later: bool) -> None:
        self.payload = payload
        self.done = False
        self.error: DeliveryError | None = None
        self.report_later = report_later


class KafkaTransport(Transport):
    """Produces each event to a Kafka topic (the `kafka` extra)."""

    kind = "kafka"

    def __init__(
        self,
        settings: KafkaSettings,
        *,
        name: str | None = None,
        priority: int = 0,
        producer: Any = None,
    ) -> None:
        super().__init__(name=name, priority=priority)
        self.settings = settings
        self.producer = producer if producer is not None else self._make_producer()
        self._lock = threading.Lock()
        self._pending: set[_Pending] = set()

    def _make_producer(self) -> Any:
        try:
            import confluent_kafka
        except ImportError:
            raise ConfigError(
                "transport.type: the kafka transport needs confluent-kafka (pip install 'olsdk[kafka]')",
                "transport.type",
            ) from None
        try:
            return confluent_kafka.Producer(dict(self.settings.config))
        except confluent_kafka.KafkaException as exc:  # e.g. an unknown property
            raise ConfigError(f"transport.config: {exc.args[0].str()}", "transport.config") from None

    def message(self, payload: Payload) -> tuple[str, str, bytes]:
        """(topic, key, value) of the Kafka message for ``payload``."""
        key = self.settings.message_key or message_key(payload)
        return self.settings.topic, key, payload.body

    def send(self, payload: Payload) -> None:
        topic, key, value = self.message(payload)
        pending = _Pending(payload, report_later=not self.settings.flush)
        with self._lock:
            self._pending.add(pending)

        def on_delivery(err: Any, _msg: Any) -> None:
            error = None
            if err is not None:
                retriable = bool(err.retriable())  # a broker that is down or unreachable
                error = DeliveryError(
                    f"kafka: {err.str()}", target=self.label, retriable=retriable, unreachable=retriable
                )
            with self._lock:
                pending.done, pending.error = True, error
                self._pending.discard(pending)
                report = pending.report_later
            if error is not None and report:
                self.report_failure(payload, error)
            elif report and not self.settings.flush:
                self.report_delivered(payload, self.label)

        try:
            self._produce(topic, key, value, on_delivery)
        except Exception as exc:  # BufferError, KafkaException
            with self._lock:
                self._pending.discard(pending)
            raise DeliveryError(f"kafka: {type(exc).__name__}: {exc}", target=self.label) from None
        if not self.settings.flush:
            self.producer.poll(0)  # serve callbacks of earlier messages
            return
        self.producer.flush(self.settings.flush_timeout)
        with self._lock:
            if not pending.done:
                pending.report_later = True  # still queued: the callback will report
                log.debug("kafka message not acknowledged within %ss", self.settings.flush_timeout)
                return
        if pending.error is not None:
            raise pending.error

    @property
    def asynchronous(self) -> bool:
        return not self.settings.flush  # the delivery callback reports each message

    def _produce(self, topic: str, key: str, value: bytes, callback: Any) -> None:
        try:
            self.producer.produce(topic, value=value, key=key, on_delivery=callback)
        except BufferError:  # local queue full: let it drain once, then retry
            self.producer.poll(1.0)
            self.producer.produce(topic, value=value, key=key, on_delivery=callback)

    def flush(self, timeout: float | None = None) -> bool:
        # never block forever on an unreachable broker
        left: int = self.producer.flush(self.settings.flush_timeout if timeout is None else timeout)
        return left == 0

    def close(self, timeout: float | None = None) -> bool:
        done = self.flush(self.settings.flush_timeout if timeout is None else timeout)
        with self._lock:
            stuck = list(self._pending)
            self._pending.clear()
        for pending in stuck:  # never acknowledged: spool rather than lose
            self.report_failure(
                pending.payload,
                DeliveryError("kafka: not acknowledged before close", target=self.label),
            )
        return done and not stuck

    def __repr__(self) -> str:
        return f"<KafkaTransport topic={self.settings.topic!r}>"
