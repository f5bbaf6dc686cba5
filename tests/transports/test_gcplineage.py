"""``type: gcplineage`` through the real Data Lineage SDK (its REST transport) to a
server on 127.0.0.1, next to the official transport with the same SDK client.

Untested here: Google's service itself and credentials (Application Default
Credentials, ``credentials_path``), which need Google Cloud."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from olsdk.client import OpenLineageClient
from olsdk.transports import create_transport
from tests.support.client_testkit import LineageServer, Reply, kept
from tests.support.official import official_run_event, to_json

pytest.importorskip("google.cloud.datacatalog_lineage_v1")

ANSWER = Reply(200, {"Content-Type": "application/json"}, b'{"process": "projects/p/locations/l/processes/x"}')


def sdk_client(url: str) -> Any:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud.datacatalog_lineage_v1 import LineageClient

    return LineageClient(transport="rest", client_options={"api_endpoint": url}, credentials=AnonymousCredentials())


def test_run_events_reach_the_lineage_api_as_the_official_transport_sends_them(tmp_path: Path) -> None:
    from openlineage.client.transport.gcplineage import GCPLineageConfig, GCPLineageTransport

    from olsdk._delivery.transports._gcplineage import GcpLineageSettings, GcpLineageTransport

    event = official_run_event("daily")
    section = {"project_id": "acme-data", "location": "europe-west1", "async_transport_rules": {"x": {"*": True}}}
    seen = []
    for side in ("official", "olsdk"):
        srv = LineageServer()
        srv.script.extend([ANSWER] * 2)
        try:
            if side == "official":
                official = GCPLineageTransport(GCPLineageConfig.from_dict(section))
                official.__dict__["client"] = sdk_client(srv.url)  # its cached_property, given the same SDK client
                official.emit(event)
            else:
                settings = GcpLineageSettings(**section)  # type: ignore[arg-type]
                transport = GcpLineageTransport(settings, client=sdk_client(srv.url))
                with OpenLineageClient(transport, spool=tmp_path / "spool", environ={}) as client:
                    client.emit(to_json(event))
        finally:
            srv.stop()
        seen.append([(r.path.split("?")[0], json.loads(r.body)) for r in srv.requests])
    assert seen[1] == seen[0]
    assert seen[1][0][0] == "/v1/projects/acme-data/locations/europe-west1:processOpenLineageRunEvent"


def test_api_errors_are_spooled_and_other_events_skipped(tmp_path: Path) -> None:
    from olsdk._delivery.transports._gcplineage import GcpLineageSettings, GcpLineageTransport

    srv = LineageServer()
    srv.script.append(
        Reply(403, {"Content-Type": "application/json"}, b'{"error": {"code": 403, "message": "denied"}}')
    )
    try:
        transport = GcpLineageTransport(GcpLineageSettings(project_id="p"), client=sdk_client(srv.url))
        with OpenLineageClient(transport, spool=tmp_path / "spool", environ={}) as client:
            client.emit(to_json(official_run_event()))
            client.emit(
                {
                    "eventTime": "2024-07-01T12:00:00Z",
                    "producer": "https://x",
                    "schemaURL": "https://x#/J",
                    "job": {"namespace": "n", "name": "j"},
                }
            )
    finally:
        srv.stop()
    assert len(srv.requests) == 1  # the job event was skipped (GCP Lineage takes run events only)
    (record,) = kept(tmp_path / "spool")
    assert record["target"] == "gcplineage" and "Forbidden" in record["reason"]


def test_configuration_keys_are_the_official_ones() -> None:
    transport = create_transport({"type": "gcplineage", "project_id": "p", "credentials_path": "/nonexistent.json"})
    assert transport.settings.parent == "projects/p/locations/us-central1"  # type: ignore[attr-defined]
    from olsdk import ConfigError

    with pytest.raises(ConfigError, match=r"transport\.project_id: required key is missing"):
        create_transport({"type": "gcplineage"})
