"""Builders for event streams: Kafka and Google Pub/Sub."""

from __future__ import annotations

import re

from olsdk._builders.naming import _rules as rules
from olsdk._builders.naming._databases import server_namespace
from olsdk._builders.naming._identifier import DatasetId

__all__ = ["kafka", "pubsub"]

# Kafka's own rule for topic names (kafka.common.internals.Topic).
_KAFKA_TOPIC = re.compile(r"^[A-Za-z0-9._-]{1,249}$")


def kafka_topic(store: str, arg: str, value: object) -> str:
    topic = rules.text(store, arg, value)
    if not _KAFKA_TOPIC.match(topic) or topic in (".", ".."):
        raise rules.fail(store, arg, "must be a Kafka topic name (1-249 of A-Z a-z 0-9 . _ -)", value)
    return topic


def kafka(*, bootstrap_server_host: str, port: int | str, topic: str) -> DatasetId:
    """Kafka: ``kafka://{bootstrap server host}:{port}`` / ``{topic}``.

    Use the first bootstrap server, as the Java agent does (``naming.from_kafka`` picks
    it from a ``bootstrap.servers`` string).
    """
    namespace = server_namespace("kafka", "kafka", bootstrap_server_host, port, host_arg="bootstrap_server_host")
    return DatasetId(namespace, kafka_topic("kafka", "topic", topic))


def pubsub(*, project_id: str, topic_id: str | None = None, subscription_id: str | None = None) -> DatasetId:
    """Pub/Sub: ``pubsub`` / ``topic:{projectId}:{topicId}`` or
    ``subscription:{projectId}:{subscriptionId}``: give exactly one of the two ids."""
    if (topic_id is None) == (subscription_id is None):
        raise rules.fail(
            "pubsub",
            "topic_id/subscription_id",
            "needs exactly one of the two",
            (topic_id, subscription_id),
        )
    project = rules.segment("pubsub", "project_id", project_id)
    if topic_id is not None:
        return DatasetId("pubsub", f"topic:{project}:{rules.segment('pubsub', 'topic_id', topic_id)}")
    subscription = rules.segment("pubsub", "subscription_id", subscription_id)
    return DatasetId("pubsub", f"subscription:{project}:{subscription}")
