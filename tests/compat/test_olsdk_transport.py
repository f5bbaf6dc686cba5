"""``olsdk.compat.OlsdkTransport``: the official client loads it by dotted type and its
events go through olsdk (batching, spool, replay) unchanged."""

from __future__ import annotations

import json
import time
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


@pytest.mark.slow
def test_undeliverable_events_are_spooled_and_replayed(
    server: LineageServer, tmp_path: Path, free_port: int, monkeypatch: pytest.MonkeyPatch, restore_environ: None
) -> None:
    from openlineage.client import OpenLineageClient as Official

    spool = tmp_path / "spool.db"
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


def test_the_default_spool_is_where_olsdk_replay_looks(
    free_port: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, restore_environ: None
) -> None:
    """Without a spool path the official client's olsdk transport spools under XDG_STATE_HOME,
    as olsdk replay with no argument reads it, and ignores OPENLINEAGE_URL (already resolved)."""
    from olsdk._delivery.client._spool import default_spool_path
    from olsdk.compat import OlsdkTransport, OlsdkTransportConfig

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("OPENLINEAGE_URL", "http://127.0.0.1:9")
    down = {"type": "http", "url": f"http://127.0.0.1:{free_port}", "retry": {"total": 0}}
    transport = OlsdkTransport(OlsdkTransportConfig.from_dict({"type": COMPAT, "transport": down}))
    try:
        assert transport.client.spool.path == default_spool_path() == tmp_path / "state" / "olsdk" / "spool.db"
        assert transport.client.transport.url.startswith(f"http://127.0.0.1:{free_port}")
    finally:
        transport.close(5)


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


def test_forked_workers_of_the_official_client_ending_with_os_exit_lose_nothing(tmp_path: Path) -> None:
    """Airflow's fork mode in miniature (issue 23): the official client is loaded by the parent,
    each forked child emits through ``OlsdkTransport`` and ends with ``os._exit``, with the
    backend down; a later olsdk client delivers everything the children left, in order."""
    import socket

    from tests.support.fault_server import FaultServer
    from tests.support.processes import run_script

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    spool = tmp_path / "spool.db"
    section = {"type": COMPAT, "transport": {"type": "http", "url": url}, "spool": {"path": str(spool)}}
    script = f"""
        import os
        from openlineage.client import OpenLineageClient
        from tests.support.official import official_run_event
        client = OpenLineageClient(config={{"transport": {section!r}}})
        for i in range(4):  # a task's START and COMPLETE, each from its own forked worker
            for state in ("START", "COMPLETE"):
                pid = os.fork()
                if pid == 0:
                    client.emit(official_run_event(f"task_{{i}}", state))
                    os._exit(0)
                os.waitpid(pid, 0)
        os._exit(0)
    """
    done = run_script(script, tmp_path)
    assert done.returncode == 0, done.stderr
    assert len(Spool(spool)) == 8  # every event on disk, though no worker closed anything
    server = FaultServer(port=port)
    try:
        config = {"transport": {"type": "http", "url": url}, "spool": {"path": str(spool), "finish_delay": 0}}
        later = OpenLineageClient(config=config, environ={})
        assert later.relay is not None
        for _ in range(1000):  # bounded: until the later client's relay delivered them
            if len(server.events()) >= 8:
                break
            time.sleep(0.02)
        assert later.close()
        stored = server.events()
    finally:
        server.stop()
    sent = [(f"task_{i}", state) for i in range(4) for state in ("START", "COMPLETE")]
    assert [(e["job"]["name"], e["eventType"]) for e in stored] == sent  # each exactly once, in emit order
