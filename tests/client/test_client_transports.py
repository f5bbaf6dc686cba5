"""File, console, composite and Kafka transports, and the replay command."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from client_testkit import LineageServer, run_event

from olsdk.cli import main
from olsdk.client import ConfigError, DeliveryError, OpenLineageClient, Spool, replay
from olsdk.transports import (
    CompositeTransport,
    ConsoleSettings,
    ConsoleTransport,
    FileSettings,
    FileTransport,
    KafkaTransport,
    Payload,
    create_transport,
)
from olsdk.transports.kafka import message_key


def test_file_transport_concurrent_writers(tmp_path: Path) -> None:
    path = tmp_path / "out" / "events.ndjson"
    writers = [FileTransport(FileSettings(log_file_path=str(path))) for _ in range(2)]
    body = json.dumps(run_event(job="x" * 5000)).encode()  # long lines tear if unsynchronised

    def write(transport: FileTransport, n: int) -> None:
        for _ in range(n):
            transport.send(Payload.from_json(body))

    threads = [threading.Thread(target=write, args=(writers[i % 2], 300)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b""
    assert len(lines) - 1 == 1800
    assert all(json.loads(line) == json.loads(body) for line in lines[:-1])


def test_file_transport_one_file_per_event(tmp_path: Path) -> None:
    transport = create_transport({"type": "file", "log_file_path": str(tmp_path / "ev"), "append": False})
    for i in range(3):
        transport.send(Payload.from_json(json.dumps(run_event(job=f"j{i}"))))
    assert len(list(tmp_path.glob("ev-*.json"))) == 3
    with pytest.raises(ConfigError, match="remote file systems"):
        create_transport({"type": "file", "log_file_path": "s3://bucket/events"})


def test_console_transport(capsys: pytest.CaptureFixture[str]) -> None:
    event = run_event()
    ConsoleTransport().send(Payload.from_json(json.dumps(event)))
    ConsoleTransport(ConsoleSettings(pretty=True)).send(Payload.from_json(json.dumps(event)))
    out = capsys.readouterr().out
    first, rest = out.split("\n", 1)
    assert json.loads(first) == event
    assert json.loads(rest) == event and "\n  " in rest


def test_composite_partial_failure_spools_for_the_failed_child_only(
    server: LineageServer, free_port: int, tmp_path: Path
) -> None:
    log = tmp_path / "events.ndjson"
    spool = tmp_path / "spool"
    config = {
        "type": "composite",
        "transports": {
            "file": {"type": "file", "log_file_path": str(log)},
            "marquez": {"type": "http", "url": f"http://127.0.0.1:{free_port}", "retry": {"total": 0}},
        },
    }
    with OpenLineageClient(config={"transport": config, "error_policy": "raise"}, spool=spool, environ={}) as client:
        client.emit(run_event())  # partial failure: not raised even in raise mode
    assert len(log.read_text().splitlines()) == 1
    (record,) = Spool(spool).records()
    assert record["target"] == "marquez"

    # replay resends to that child only: the file gets no duplicate
    config["transports"]["marquez"]["url"] = server.url  # type: ignore[index]
    transport = create_transport(config)
    result = replay(spool, transport)
    transport.close()
    assert result.delivered == 1 and len(server.events) == 1
    assert len(log.read_text().splitlines()) == 1


def test_composite_fail_fast(free_port: int, tmp_path: Path) -> None:
    config = {
        "type": "composite",
        "continue_on_failure": False,
        "transports": [
            {"type": "http", "url": f"http://127.0.0.1:{free_port}", "retry": {"total": 0}, "name": "down"},
            {"type": "file", "log_file_path": str(tmp_path / "ev.ndjson"), "name": "file"},
        ],
    }
    client = OpenLineageClient(
        config={"transport": config, "error_policy": "raise"}, spool=tmp_path / "spool", environ={}
    )
    assert isinstance(client.transport, CompositeTransport)
    with pytest.raises(DeliveryError, match="2 of 2 transports failed"):
        client.emit(run_event())
    assert not (tmp_path / "ev.ndjson").exists()  # not attempted after the failure...
    targets = [r["target"] for r in Spool(tmp_path / "spool").records()]
    assert targets == ["down", "file"]  # ...but spooled for it, so nothing is lost


def test_cli_replay(
    server: LineageServer,
    free_port: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    spool = tmp_path / "spool.ndjson"
    down = OpenLineageClient(
        config={"transport": {"type": "http", "retry": {"total": 0}, "url": f"http://127.0.0.1:{free_port}"}},
        spool=spool,
        environ={},
    )
    down.emit(run_event())
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("OPENLINEAGE_URL", server.url)
    assert main(["replay", str(spool), "--dry-run"]) == 0
    assert "would resend 1" in capsys.readouterr().out
    assert main(["replay", str(spool)]) == 0
    assert "delivered 1, kept 0" in capsys.readouterr().out
    assert server.events == [run_event()]


# -- Kafka: no broker can run here ----------------------------------------------------

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
    assert len(transport.producer) == 1
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
    (record,) = Spool(tmp_path / "spool").records()
    assert record["target"] == "kafka" and "kafka:" in record["reason"]
    assert record["event"] == run_event()
    client.close(timeout=1)
