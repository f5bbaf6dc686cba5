"""``olsdk.compat.OlsdkTransport``: the official client loads it by dotted type and its
events go through olsdk (batching, spool, replay) unchanged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from olsdk.client import OpenLineageClient, Spool, replay
from olsdk.transports import create_transport
from tests.support.client_testkit import LineageServer, write_yml
from tests.support.official import official_env, official_run_event, to_json

COMPAT = "olsdk.compat.OlsdkTransport"


def events() -> list[Any]:
    from openlineage.client.facet_v2 import job_type_job

    jobs = {"jobType": job_type_job.JobTypeJobFacet(processingType="BATCH", integration="DBT", jobType="MODEL")}
    return [
        official_run_event(f"model_{i}", state, job_facets=jobs) for i in range(3) for state in ("START", "COMPLETE")
    ]


def test_the_official_client_delivers_through_olsdk_batches(
    server: LineageServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, restore_environ: None
) -> None:
    from openlineage.client import OpenLineageClient as Official

    inner = {"type": "http", "url": server.url, "batch": {"max_events": 50, "linger": 5}}
    yml = {"transport": {"type": COMPAT, "transport": inner, "spool": {"path": str(tmp_path / "spool")}}}
    write_yml(tmp_path / "openlineage.yml", yml)
    official_env(monkeypatch, tmp_path, {})
    client = Official()
    assert type(client.transport).__name__ == "OlsdkTransport"
    sent = events()
    for event in sent:
        client.emit(event)
    assert client.close(10) is True
    batches = [r for r in server.requests if r.path.endswith("/batch")]
    # olsdk's batch mode (which starts at one event per post and doubles): fewer posts than events
    assert batches and len(server.requests) < len(sent)
    assert server.events == [json.loads(to_json(e)) for e in sent]  # exactly what the official client made


def test_undeliverable_events_are_spooled_and_replayed(
    server: LineageServer, tmp_path: Path, free_port: int, monkeypatch: pytest.MonkeyPatch, restore_environ: None
) -> None:
    from openlineage.client import OpenLineageClient as Official

    spool = tmp_path / "spool.ndjson"
    down = {"type": "http", "url": f"http://127.0.0.1:{free_port}", "retry": {"total": 0}}
    official_env(
        monkeypatch,
        tmp_path,
        {
            "OPENLINEAGE__TRANSPORT__TYPE": COMPAT,
            "OPENLINEAGE__TRANSPORT__TRANSPORT": json.dumps(down),
            "OPENLINEAGE__TRANSPORT__SPOOL": json.dumps({"path": str(spool)}),
        },
    )
    client = Official()
    sent = events()
    for event in sent:
        client.emit(event)  # never raises into the integration
    client.close(5)
    assert len(Spool(spool)) == len(sent)
    result = replay(spool, create_transport({"type": "http", "url": server.url}))
    assert result.delivered == len(sent) and result.ok
    assert server.events == [json.loads(to_json(e)) for e in sent]


def test_olsdk_reads_the_same_file_and_uses_the_inner_transport(server: LineageServer, tmp_path: Path) -> None:
    yml = write_yml(
        tmp_path / "ol.yml", {"transport": {"type": COMPAT, "transport": {"type": "http", "url": server.url}}}
    )
    with OpenLineageClient(environ={"OPENLINEAGE_CONFIG": str(yml)}, spool=False) as client:
        client.emit(to_json(official_run_event()))
    assert len(server.events) == 1


def test_a_section_without_an_inner_transport_is_refused(restore_environ: None) -> None:
    from olsdk import ConfigError
    from olsdk.compat import OlsdkTransportConfig

    with pytest.raises(ConfigError, match=r"transport\.transport: required"):
        OlsdkTransportConfig.from_dict({"type": COMPAT})
    with pytest.raises(ConfigError, match=r"transport\.spol: unknown key of olsdk\.compat\.OlsdkTransport"):
        OlsdkTransportConfig.from_dict({"type": COMPAT, "transport": {"type": "console"}, "spol": {}})
