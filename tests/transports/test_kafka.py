"""The Kafka transport. No broker can run here: keys and configuration are checked
against the official client, and an unreachable broker against the spool."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from olsdk._delivery.transports._kafka import message_key
from olsdk.client import ConfigError, OpenLineageClient, Spool
from olsdk.transports import KafkaTransport, Payload, create_transport
from tests.support.client_testkit import run_event

PARENT_ROOT = {
    "parent": {
        "_producer": "https://x",
        "_schemaURL": "https://x#/$defs/ParentRunFacet",
        "run": {"runId": "0190e5c6-0000-7000-8000-000000000001"},
        "job": {"namespace": "airflow", "name": "dag.task"},
        "root": {
            "run": {"runId": "0190e5c6-0000-7000-8000-000000000002"},
            "job": {"namespace": "airflow", "name": "dag"},
        },
    }
}


def kafka_cases() -> list[dict[str, Any]]:
    run = run_event()
    child = run_event()
    child["run"]["facets"] = PARENT_ROOT
    parent_only = run_event()
    parent_only["run"]["facets"] = {"parent": {k: v for k, v in PARENT_ROOT["parent"].items() if k != "root"}}
    dataset = {
        "eventTime": "2024-01-01T00:00:00Z",
        "producer": "https://x",
        "schemaURL": "https://x#/$defs/DatasetEvent",
        "dataset": {"namespace": "s3://b", "name": "t"},
    }
    job = {
        "eventTime": "2024-01-01T00:00:00Z",
        "producer": "https://x",
        "schemaURL": "https://x#/$defs/JobEvent",
        "job": {"namespace": "n", "name": "j"},
    }
    return [run, child, parent_only, dataset, job]


@pytest.mark.kafka
def test_kafka_message_keys_match_the_official_client() -> None:
    from openlineage.client.transport.kafka import KafkaConfig
    from openlineage.client.transport.kafka import KafkaTransport as OfficialKafka

    official = OfficialKafka(
        KafkaConfig.from_dict({"topic": "t", "config": {"bootstrap.servers": "127.0.0.1:9", "log_level": 0}})
    )
    keys = []
    for data in kafka_cases():
        payload = Payload.from_json(json.dumps(data))
        official_event = _official_event(data)
        assert message_key(payload) == official._get_message_key(official_event)
        keys.append(message_key(payload))
    assert keys == ["run:tests/job", "run:airflow/dag", "run:airflow/dag.task", "dataset:s3://b/t", "job:n/j"]
    official.close(0)


def _official_event(data: dict[str, Any]) -> Any:
    from openlineage.client.event_v2 import Dataset, DatasetEvent, Job, JobEvent, Run, RunEvent
    from openlineage.client.facet_v2 import parent_run

    if "dataset" in data:
        return DatasetEvent(eventTime=data["eventTime"], producer="https://x", dataset=Dataset(**data["dataset"]))
    job = Job(namespace=data["job"]["namespace"], name=data["job"]["name"])
    if "run" not in data:
        return JobEvent(eventTime=data["eventTime"], producer="https://x", job=job)
    facets: dict[str, Any] = {}
    p = data["run"].get("facets", {}).get("parent")
    if p:
        root = p.get("root")
        facets["parent"] = parent_run.ParentRunFacet(
            run=parent_run.Run(runId=p["run"]["runId"]),
            job=parent_run.Job(**p["job"]),
            root=parent_run.Root(
                run=parent_run.RootRun(runId=root["run"]["runId"]), job=parent_run.RootJob(**root["job"])
            )
            if root
            else None,
        )
    return RunEvent(
        eventTime=data["eventTime"], producer="https://x", job=job, run=Run(runId=data["run"]["runId"], facets=facets)
    )


@pytest.mark.kafka
def test_kafka_producer_configuration_and_message() -> None:
    transport = create_transport(
        {
            "type": "kafka",
            "topic": "lineage",
            "flush": False,
            "config": {"bootstrap.servers": "127.0.0.1:9", "acks": "all", "linger.ms": 5, "log_level": 0},
        }
    )
    assert isinstance(transport, KafkaTransport)
    payload = Payload.from_json(json.dumps(run_event()))
    assert transport.message(payload) == ("lineage", "run:tests/job", payload.body)
    transport.send(payload)  # a real confluent-kafka Producer queues it locally
    # (len() also counts librdkafka's queued events, such as "connection refused" from the
    # missing broker, when one arrives in time: at least the message.)
    assert len(transport.producer) >= 1
    fixed = create_transport(
        {
            "type": "kafka",
            "topic": "t",
            "messageKey": "all-in-one",
            "config": {"bootstrap.servers": "127.0.0.1:9", "log_level": 0},
        }
    )
    assert fixed.message(payload)[1] == "all-in-one"  # type: ignore[attr-defined]
    with pytest.raises(ConfigError, match=r"transport\.config.*no\.such\.property"):
        create_transport(
            {"type": "kafka", "topic": "t", "config": {"bootstrap.servers": "x:1", "no.such.property": "1"}}
        )
    with pytest.raises(ConfigError, match=r"bootstrap\.servers: required"):
        create_transport({"type": "kafka", "topic": "t", "config": {}})
    transport.producer.purge()  # nothing can be delivered without a broker


@pytest.mark.kafka
def test_kafka_undeliverable_message_is_spooled(free_port: int, tmp_path: Path) -> None:
    config = {
        "type": "kafka",
        "topic": "lineage",
        "flush": True,
        "flush_timeout": 20,
        "config": {"bootstrap.servers": f"127.0.0.1:{free_port}", "message.timeout.ms": 1000, "log_level": 0},
    }
    client = OpenLineageClient(config={"transport": config}, spool=tmp_path / "spool", environ={})
    client.emit(run_event())  # the delivery report says "timed out": spooled, not raised
    assert client.relay is not None and client.relay.handed.tried(60)
    (record,) = Spool(tmp_path / "spool").records()
    assert record["target"] == "kafka" and "kafka:" in record["reason"]
    assert record["event"] == run_event()
    client.close(timeout=1)
