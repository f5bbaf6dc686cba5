"""OpenLineageClient: what emit() accepts, error policies, filters, secrets, disabling."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest

import olsdk
from olsdk import OpenLineageClient
from olsdk.client import DeliveryError, Spool
from olsdk.transports import CallbackTransport, NoopTransport, Payload
from tests.support.client_testkit import collecting_client, http_client, run_event, write_yml
from tests.support.fault_server import FaultServer
from tests.support.processes import run_cli

GOOD = {
    "eventTime": "2026-11-22T10:00:00Z",
    "producer": "https://example.com/p",
    "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    "eventType": "START",
    "run": {"runId": "0190d3a4-7b5c-7a3e-9f00-1234567890ab"},
    "job": {"namespace": "ns", "name": "job"},
}
BAD = {**GOOD, "run": {"runId": "not-a-uuid"}}


def test_raise_policy_rejects_event_json_that_breaks_the_spec() -> None:
    client, sent = collecting_client(error_policy="raise")
    with pytest.raises(olsdk.ValidationError, match=r"run\.runId: not a UUID"):
        client.emit(json.dumps(BAD))
    client.emit(GOOD)
    assert [p.event() for p in sent] == [GOOD]


def test_log_policy_warns_with_the_problem_and_still_sends(caplog: pytest.LogCaptureFixture) -> None:
    client, sent = collecting_client(error_policy="log")
    with caplog.at_level(logging.WARNING):
        client.emit(BAD)
    assert [p.event() for p in sent] == [BAD]
    assert any("run.runId: not a UUID" in record.getMessage() for record in caplog.records)


def test_emit_takes_models_dicts_text_and_bytes_and_sends_them_unchanged() -> None:
    client, sent = collecting_client()
    model = olsdk.parse_event(json.dumps(GOOD))
    text = json.dumps(GOOD, indent=2)
    client.emit(model)
    client.emit(GOOD)
    client.emit(text)
    client.emit(text.encode())
    assert [p.event() for p in sent] == [json.loads(olsdk.to_json(model)), GOOD, GOOD, GOOD]
    assert sent[2].body == text.encode()  # event JSON goes out byte for byte
    assert {p.job_name for p in sent} == {"job"}


def test_something_that_is_no_event_is_logged_or_raised_not_sent(caplog: pytest.LogCaptureFixture) -> None:
    client, sent = collecting_client()
    with caplog.at_level(logging.ERROR):
        client.emit(b"[1, 2]")
    assert not sent and "cannot be serialised" in caplog.text
    strict, _ = collecting_client(error_policy="raise")
    with pytest.raises(olsdk.ValidationError):
        strict.emit("{not json")


def test_filters_drop_run_events_by_job_name_only() -> None:
    filters = [{"type": "exact", "match": "skip"}, {"type": "regex", "regex": "tmp_"}]
    client, sent = collecting_client(config={"filters": filters})
    for job in ("skip", "tmp_x", "x_tmp", "keep"):
        client.emit(run_event(job=job))
    job_event = {k: v for k, v in run_event(job="skip").items() if k not in ("run", "eventType")}
    job_event["schemaURL"] = job_event["schemaURL"].replace("RunEvent", "JobEvent")
    client.emit(job_event)  # not a run event: never filtered
    assert [(p.kind, p.job_name) for p in sent] == [("run", "x_tmp"), ("run", "keep"), ("job", "skip")]


def test_a_closed_client_spools_instead_of_sending(tmp_path: Path) -> None:
    client, sent = collecting_client(spool=tmp_path / "spool")
    client.close()
    client.emit(run_event())
    assert not sent
    (record,) = Spool(tmp_path / "spool").records()
    assert record["reason"] == "client is closed"


def test_a_transport_bug_is_a_delivery_failure(tmp_path: Path) -> None:
    class Buggy(NoopTransport):
        def send(self, payload: Payload) -> None:
            raise ZeroDivisionError("oops")

    client = OpenLineageClient(Buggy(), error_policy="raise", spool=tmp_path / "spool", environ={})
    with pytest.raises(DeliveryError, match="ZeroDivisionError: oops"):
        client.emit(run_event())
    assert len(Spool(tmp_path / "spool")) == 1


def test_raise_policy_raises_and_still_spools(free_port: int, tmp_path: Path) -> None:
    config = {
        "transport": {"type": "http", "url": f"http://127.0.0.1:{free_port}", "retry": {"total": 0}},
        "error_policy": "raise",
    }
    client = OpenLineageClient(config=config, spool=tmp_path / "spool", environ={})
    with pytest.raises(DeliveryError, match="cannot connect"):
        client.emit(run_event())  # raised here when the answer comes within 50 ms...
        client.close(timeout=30)  # ...else by close (emit never waits longer on a network)
    assert len(Spool(tmp_path / "spool")) == 1
    client.close(timeout=0)


def test_callback_policy(free_port: int, tmp_path: Path) -> None:
    seen: list[str] = []
    client = OpenLineageClient(
        config={"transport": {"type": "http", "url": f"http://127.0.0.1:{free_port}", "retry": {"total": 0}}},
        error_policy=lambda payload, error: seen.append(f"{payload.job_name}: {error.target}"),
        spool=tmp_path / "spool",
        environ={},
    )
    client.emit(run_event(job="j1"))  # the attempt is made in the relay's thread
    assert client.relay is not None and client.relay.handed.tried(30)
    assert seen == ["j1: http"]
    client.close(timeout=0)


def test_secrets_stay_out_of_logs_reprs_and_spool(
    free_port: int, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    url = f"http://user:pa55word@127.0.0.1:{free_port}"
    client = http_client(
        url, tmp_path / "spool", retry={"total": 0}, auth={"type": "api_key", "apiKey": "sup3r-s3cret"}
    )
    with caplog.at_level(logging.DEBUG, logger="olsdk"):
        client.emit(run_event())
        assert client.relay is not None and client.relay.handed.tried(30)
        client.close(timeout=0)
    # the event stays in the store (the spool's SQLite database); every file written is checked
    written = "".join(p.read_bytes().decode("utf-8", "replace") for p in sorted(tmp_path.rglob("*")) if p.is_file())
    assert '"eventType":"START"' in written
    texts = [caplog.text, repr(client), repr(client.transport), written, repr(client.config)]
    for text in texts:
        assert "sup3r-s3cret" not in text
        assert "pa55word" not in text
    assert "not delivered" in caplog.text


def test_repeated_failures_are_folded_into_one_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    def refuse(payload: Payload) -> None:
        raise DeliveryError("backend down", target="sink")

    client = OpenLineageClient(CallbackTransport(refuse), spool=tmp_path / "spool", environ={})
    with caplog.at_level(logging.WARNING, logger="olsdk"):
        for _ in range(5):
            client.emit(run_event())
    warnings = [r for r in caplog.records if "not delivered" in r.getMessage()]
    assert len(warnings) == 1 and "spooled to" in warnings[0].getMessage()
    assert len(Spool(tmp_path / "spool")) == 5  # folded in the log, never in the spool


def test_disabled_ignores_even_a_broken_file(tmp_path: Path) -> None:
    yml = write_yml(tmp_path / "ol.yml", {"transport": {"type": "nonsense", "bogus": 1}})
    client = OpenLineageClient(environ={"OPENLINEAGE_DISABLED": "TRUE", "OPENLINEAGE_CONFIG": str(yml)})
    assert isinstance(client.transport, NoopTransport)
    client.emit({"not": "even an event"})
    assert client.close()


# -- issue 13: close() tells, producer checked early, secrets never shown ---------------------


@pytest.mark.slow
def test_close_returns_false_and_says_how_many_when_events_were_spooled(
    free_port: int, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    client = http_client(f"http://127.0.0.1:{free_port}", tmp_path / "spool", retry={"total": 0})
    for _ in range(3):
        client.emit(run_event())
    with caplog.at_level(logging.WARNING, logger="olsdk"):
        assert client.close() is False
    assert "3 events of this client were not delivered and are in the spool" in caplog.text
    assert f"olsdk replay {tmp_path / 'spool'}" in caplog.text
    healthy, _ = collecting_client()
    healthy.emit(run_event())
    assert healthy.close() is True


def test_a_producer_that_is_no_uri_fails_at_client_creation(tmp_path: Path) -> None:
    env = {"OPENLINEAGE__PRODUCER": "acme pipelines", "OPENLINEAGE_URL": "http://127.0.0.1:9"}
    with pytest.raises(olsdk.ConfigError, match=r"^producer: not an absolute URI .*'acme pipelines'") as err:
        OpenLineageClient(environ=env)
    assert err.value.key == "producer"
    assert "(from environment variable OPENLINEAGE__PRODUCER)" in str(err.value)
    with pytest.raises(olsdk.ConfigError, match="producer: not an absolute URI"):
        OpenLineageClient(CallbackTransport(print), producer="my pipeline", environ={})
    previous = olsdk.get_default_producer()
    try:
        ok, sent = collecting_client(producer="https://example.com/acme")
        with ok.run("ns", "job"):
            pass
    finally:
        olsdk.set_default_producer(previous)  # the client sets the process-wide default
    assert [p.event()["producer"] for p in sent] == ["https://example.com/acme"] * 2


def test_a_producer_is_checked_by_the_rule_the_models_check() -> None:
    # a line break after the URI: the models refuse it in an event, so the client refuses it too
    with pytest.raises(olsdk.ConfigError, match="producer: not an absolute URI"):
        OpenLineageClient(CallbackTransport(print), producer="https://example.com/acme\n", environ={})
    from olsdk.models import EventType, Job, Run, RunEvent

    with pytest.raises(olsdk.ValidationError, match="producer"):
        run, job = Run(runId="0190d3a4-7b5c-7a3e-9f00-1234567890ab"), Job(namespace="ns", name="job")
        RunEvent(eventType=EventType.START, run=run, job=job, producer="https://example.com/acme\n")
    OpenLineageClient(CallbackTransport(print), producer="urn:acme:pipelines", environ={}, spool=False).close()


def test_delivery_error_is_importable_from_olsdk() -> None:
    from olsdk import DeliveryError as Exported

    assert Exported is DeliveryError and "DeliveryError" in olsdk.__all__


def test_secret_headers_and_url_passwords_never_show(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    for key in [k for k in os.environ if k.startswith("OPENLINEAGE")]:
        monkeypatch.delenv(key)
    transport = {
        "type": "http",
        "url": "http://user:p@ss/w#rd@127.0.0.1:9",
        "custom_headers": {"X-Api-Key": "hdr-S3CRET", "x-auth-token": "tok-S3CRET", "X-Team": "blue"},
    }
    write_yml(tmp_path / "openlineage.yml", {"transport": transport})
    from olsdk._integrations._cli import main

    assert main(["config", "show"]) == 0
    assert main(["config", "show", "--format", "json"]) == 0
    client = OpenLineageClient(spool=False)
    shown = capsys.readouterr().out + repr(client.config) + repr(client) + repr(client.transport)
    for secret in ("hdr-S3CRET", "tok-S3CRET", "p@ss", "ss/w", "w#rd"):
        assert secret not in shown
    assert "blue" in shown and "user:***@127.0.0.1:9" in shown


def test_a_malformed_section_in_a_variable_never_echoes_it() -> None:
    env = {"OPENLINEAGE__TRANSPORT": '{"type": "http", "url": "http://h", "auth": {"apiKey": "K3Y-S3CRET"'}
    with pytest.raises(olsdk.ConfigError) as err:
        OpenLineageClient(environ=env)
    assert "K3Y-S3CRET" not in str(err.value)
    assert "OPENLINEAGE__TRANSPORT" in str(err.value) and "not valid JSON" in str(err.value)
    auth = {"type": "api_key", "apiKey": ["K3Y-S3CRET"]}
    with pytest.raises(olsdk.ConfigError, match=r"transport\.auth\.apiKey: expected text") as err2:
        OpenLineageClient(config={"transport": {"type": "http", "url": "http://h", "auth": auth}}, environ={})
    assert "K3Y-S3CRET" not in str(err2.value)


def test_credentials_a_server_echoes_stay_out_of_spool_logs_tracebacks_and_replay(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import base64
    import traceback

    server = FaultServer()
    server.echo_auth = True  # answers 401 "denied for Basic <user:password in base64>"
    url = f"http://user:pw-S3CRET@127.0.0.1:{server.port}"
    endpoint = "api/v1/lineage?api_key=Q-S3CRET&team=blue"
    token = base64.b64encode(b"user:pw-S3CRET").decode()
    spool_path = tmp_path / "spool.ndjson"
    try:
        with caplog.at_level(logging.DEBUG, logger="olsdk"):
            client = http_client(url, spool_path, endpoint=endpoint, retry={"total": 0})
            client.emit(run_event())
            strict = http_client(url, tmp_path / "strict", endpoint=endpoint, retry={"total": 0})
            strict.error_policy = "raise"
            try:
                strict.emit(run_event())
            except DeliveryError:
                tb = traceback.format_exc()
            else:
                raise AssertionError("raise policy should raise")
        assert server.posts == 2  # the server did echo the credentials, twice
        done = run_cli(
            "replay",
            str(spool_path),
            home=tmp_path,
            OPENLINEAGE_URL=url,
            OPENLINEAGE_ENDPOINT=endpoint,
            OPENLINEAGE__TRANSPORT__RETRY__TOTAL="0",
        )
    finally:
        server.stop()
    # the store's records as read back, and every byte of its files
    files = "".join(f.read_bytes().decode("utf-8", "replace") for f in tmp_path.glob("spool.ndjson*"))
    spool_text = json.dumps(list(Spool(spool_path).records())) + files
    texts = {"spool": spool_text, "log": caplog.text, "traceback": tb, "replay": done.stdout + done.stderr}
    for where, text in texts.items():
        for secret in ("pw-S3CRET", token, "Q-S3CRET"):
            assert secret not in text, f"{secret} shown in the {where}"
    assert "HTTP 401" in texts["spool"] and "Basic ***" in texts["spool"] and "api_key=***" in texts["spool"]
    assert "still failing: HTTP 401" in done.stdout and "team=blue" in done.stdout


def test_the_configured_producer_reaches_events_built_before_the_client(tmp_path: Path) -> None:
    from olsdk.models import EventType, Job, JobFacets, Run, RunEvent, SQLJobFacet

    builtin = olsdk.get_default_producer()
    assert builtin == "https://github.com/olsdk/olsdk"
    early = RunEvent(
        eventType=EventType.START,
        run=Run(runId="0190d3a4-7b5c-7a3e-9f00-1234567890ab"),
        job=Job(namespace="etl", name="daily", facets=JobFacets(sql=SQLJobFacet(query="select 1"))),
    )
    explicit = early.model_copy(update={"producer": "https://example.com/someone-else"})
    assert early.producer == builtin and early.job.facets and early.job.facets.sql
    assert early.job.facets.sql.producer == builtin
    config = tmp_path / "openlineage.yml"
    config.write_text("transport: {type: console}\nproducer: https://github.com/acme/pipelines\n")
    sent: list[Payload] = []
    try:
        client = OpenLineageClient(CallbackTransport(sent.append), environ={"OPENLINEAGE_CONFIG": str(config)})
        client.emit(early)
        client.emit(explicit)
        client.close()
    finally:
        olsdk.set_default_producer(builtin)  # the client sets the process-wide default
    first, second = (p.event() for p in sent)
    assert first["producer"] == "https://github.com/acme/pipelines"
    assert first["job"]["facets"]["sql"]["_producer"] == "https://github.com/acme/pipelines"
    assert second["producer"] == "https://example.com/someone-else"  # given explicitly: kept
    assert second["job"]["facets"]["sql"]["_producer"] == "https://github.com/acme/pipelines"
    assert early.producer == builtin  # the caller's event is not changed
