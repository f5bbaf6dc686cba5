"""``type: msk-iam``: the producer's SASL/OAUTHBEARER settings and the MSK IAM token,
made by the real signer from AWS credentials (offline), next to the official
transport's.

Untested here: the SASL handshake with an MSK broker, and ``role_arn`` (it calls AWS STS)."""

from __future__ import annotations

import base64
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from olsdk._delivery.transports._msk_iam import MskIamSettings, msk_oauth_token, producer_config
from olsdk.transports import create_transport

pytest.importorskip("aws_msk_iam_sasl_signer")
pytest.importorskip("confluent_kafka")


@pytest.fixture
def fake_aws(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    credentials = tmp_path / "credentials"
    credentials.write_text("[lineage]\naws_access_key_id = AKIAPROFILE\naws_secret_access_key = profile-secret\n")
    for key, value in {
        "AWS_ACCESS_KEY_ID": "AKIAEXAMPLE",
        "AWS_SECRET_ACCESS_KEY": "not-a-secret",
        "AWS_CONFIG_FILE": str(tmp_path / "none"),
        "AWS_SHARED_CREDENTIALS_FILE": str(credentials),
        "AWS_EC2_METADATA_DISABLED": "true",
    }.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("AWS_REGION", raising=False)
    return credentials


def signed(token: str) -> dict[str, object]:
    """The presigned URL inside an MSK IAM token, without its time-dependent parts."""
    url = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    scope = query["X-Amz-Credential"][0].split("/")  # key id / date / region / service / aws4_request
    return {"host": parts.netloc, "action": query["Action"], "credential": [scope[0], scope[2]]}


@pytest.mark.parametrize("profile", [None, "lineage"])
def test_token_and_producer_settings_equal_the_official_transport(fake_aws: Path, profile: str | None) -> None:
    from openlineage.client.transport.msk_iam import MSKIAMConfig, _oauth_cb

    section = {"topic": "lineage", "config": {"bootstrap.servers": "127.0.0.1:9"}, "region": "eu-west-1"}
    if profile:
        section["aws_profile"] = profile
    official_token, official_expiry = _oauth_cb(MSKIAMConfig.from_dict(dict(section)))
    settings = MskIamSettings(**section)  # type: ignore[arg-type]
    ours, expiry = msk_oauth_token(settings, "eu-west-1")
    assert signed(ours) == signed(official_token)
    assert signed(ours)["credential"] == ["AKIAPROFILE" if profile else "AKIAEXAMPLE", "eu-west-1"]
    assert abs(expiry - official_expiry) < 120
    config = producer_config(settings)
    assert (config["security.protocol"], config["sasl.mechanism"]) == ("SASL_SSL", "OAUTHBEARER")
    assert config["oauth_cb"]("ignored")[0].startswith("aHR0cHM6Ly9rYWZrYS5ldS13ZXN0LTE")  # https://kafka.eu-west-1


def test_region_comes_from_the_environment_or_is_required(fake_aws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from olsdk import ConfigError

    section = {"type": "msk-iam", "topic": "t", "config": {"bootstrap.servers": "127.0.0.1:9"}, "flush": False}
    monkeypatch.setenv("AWS_REGION", "us-east-2")
    transport = create_transport(section)
    assert transport.producer_config["oauth_cb"].args[1] == "us-east-2"  # type: ignore[attr-defined]
    transport.close(0)
    monkeypatch.delenv("AWS_REGION")
    monkeypatch.delenv("AWS_DEFAULT_REGION", raising=False)
    with pytest.raises(ConfigError, match=r"transport\.region: required for msk-iam"):
        create_transport(section)
