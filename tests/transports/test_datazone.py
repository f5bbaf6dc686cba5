"""``type: amazon_datazone_api`` through the real boto3 client: to a server on 127.0.0.1
(``endpointOverride``) next to the official transport, and with botocore's ``Stubber``
for the service's errors.

Untested here: Amazon DataZone itself and real AWS credentials."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from olsdk.client import OpenLineageClient
from olsdk.transports import create_transport
from tests.support.client_testkit import LineageServer, Reply, kept
from tests.support.official import official_run_event, to_json

pytest.importorskip("boto3")

ANSWER = Reply(200, {"Content-Type": "application/json"}, b'{"id": "ev-1", "domainId": "dzd_1"}')


@pytest.fixture
def fake_aws(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for key, value in {
        "AWS_ACCESS_KEY_ID": "AKIAEXAMPLE",
        "AWS_SECRET_ACCESS_KEY": "not-a-secret",
        "AWS_DEFAULT_REGION": "eu-west-1",
        "AWS_CONFIG_FILE": str(tmp_path / "none"),
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "none"),
        "AWS_EC2_METADATA_DISABLED": "true",
    }.items():
        monkeypatch.setenv(key, value)


def test_events_are_posted_as_the_official_transport_posts_them(fake_aws: None, tmp_path: Path) -> None:
    from openlineage.client.transport.amazon_datazone import AmazonDataZoneConfig, AmazonDataZoneTransport

    event = official_run_event("nightly")
    seen = []
    for side in ("official", "olsdk"):
        srv = LineageServer()
        srv.script.append(ANSWER)
        section = {"domainId": "dzd_1", "region": "eu-west-1", "endpointOverride": srv.url}
        try:
            if side == "official":
                official = AmazonDataZoneTransport(AmazonDataZoneConfig.from_dict(section))
                official.emit(event)
                official.close()
            else:
                config = {"transport": {"type": "amazon_datazone_api", **section}}
                with OpenLineageClient(config=config, spool=tmp_path / "spool", environ={}) as client:
                    client.emit(to_json(event))
        finally:
            srv.stop()
        seen.append([(r.path, json.loads(r.body)) for r in srv.requests])
    assert seen[1] == seen[0]
    assert seen[1][0][0] == "/v2/domains/dzd_1/lineage/events"
    assert kept(tmp_path / "spool") == []


def test_service_errors_are_spooled(fake_aws: None, tmp_path: Path) -> None:
    from botocore.stub import Stubber

    transport = create_transport({"type": "amazon_datazone_api", "domainId": "dzd_1", "region": "eu-west-1"})
    stubber = Stubber(transport.client)  # type: ignore[attr-defined]
    stubber.add_client_error("post_lineage_event", service_error_code="AccessDeniedException", http_status_code=403)
    body = to_json(official_run_event())
    stubber.add_response(
        "post_lineage_event", {"id": "ev-2", "domainId": "dzd_1"}, {"domainIdentifier": "dzd_1", "event": body.encode()}
    )
    with stubber, OpenLineageClient(transport, spool=tmp_path / "spool", environ={}) as client:
        client.emit(body)  # refused: spooled
        client.emit(body)  # accepted, with exactly these parameters
    stubber.assert_no_pending_responses()
    (record,) = kept(tmp_path / "spool")
    assert record["target"] == "amazon_datazone_api" and "AccessDeniedException" in record["reason"]
