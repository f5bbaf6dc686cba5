"""naming._streaming: Kafka and Pub/Sub."""

import pytest

from olsdk import naming
from olsdk.naming import DatasetId


def test_pubsub_subscription_form_and_exclusivity() -> None:
    sub = naming.pubsub(project_id="p", subscription_id="s1")
    assert sub == DatasetId("pubsub", "subscription:p:s1")
    with pytest.raises(ValueError, match="exactly one"):
        naming.pubsub(project_id="p", topic_id="t", subscription_id="s")


def test_kafka_topic_follows_kafka_rules() -> None:
    with pytest.raises(ValueError, match="kafka: topic must be a Kafka topic name"):
        naming.kafka(bootstrap_server_host="k", port=9092, topic="bad/topic")
