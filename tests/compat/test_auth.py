"""Auth like the official client: ``jwt``, ``oauth2`` (client_secret_basic/_post, scope)
and a token provider by dotted path. Both clients talk to the same token endpoint and
lineage server on 127.0.0.1; what they send is compared."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from olsdk.client import ConfigError, OpenLineageClient
from tests.support.client_testkit import LineageServer, kept, stored_bytes
from tests.support.official import TokenServer, official_run_event, to_json

HEADERS_COMPARED = ("content-type", "authorization")


@pytest.fixture
def tokens() -> Iterator[TokenServer]:
    srv = TokenServer()
    yield srv
    srv.stop()


def emit_both(auth: dict[str, Any], server: LineageServer, tokens: TokenServer, tmp_path: Path, n: int = 3) -> Any:
    """Send ``n`` events through each client; return per client (token requests, lineage auth headers)."""
    from openlineage.client import OpenLineageClient as Official

    results = []
    for official_side in (True, False):
        tokens.requests.clear()
        server.requests.clear()
        transport = {"type": "http", "url": server.url, "auth": auth, "retry": {"total": 0}}
        if official_side:
            client: Any = Official(config={"transport": transport})
            for i in range(n):
                client.emit(official_run_event(f"job{i}"))
            client.close(1)
        else:
            client = OpenLineageClient(config={"transport": transport}, spool=tmp_path / "spool", environ={})
            for i in range(n):
                client.emit(to_json(official_run_event(f"job{i}")))
            client.close()
        token_requests = [(form, {k: h.get(k) for k in HEADERS_COMPARED}) for form, h in tokens.requests]
        results.append((token_requests, [r.headers.get("Authorization") for r in server.requests]))
    assert kept(tmp_path / "spool") == [], "olsdk could not deliver"
    return results


def test_jwt_exchange_and_cache_equal_the_official_client(
    server: LineageServer, tokens: TokenServer, tmp_path: Path, restore_environ: None
) -> None:
    tokens.field = "token"
    auth = {"type": "jwt", "apiKey": "k3y", "tokenEndpoint": tokens.url, "responseType": "cloud_iam"}
    official, ours = emit_both(auth, server, tokens, tmp_path)
    assert ours == official
    token_requests, lineage_auth = ours
    assert len(token_requests) == 1  # cached for the three events
    assert token_requests[0][0] == {
        "grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer",
        "response_type": "cloud_iam",
        "apikey": "k3y",
    }
    assert lineage_auth == ["Bearer tok-1"] * 3


def test_tokens_are_refreshed_before_expiry_like_the_official_client(
    server: LineageServer, tokens: TokenServer, tmp_path: Path, restore_environ: None
) -> None:
    tokens.expires_in = 60  # inside the refresh buffer of 120 s: never good enough to cache
    auth = {"type": "oauth2", "clientId": "id", "clientSecret": "s", "tokenEndpoint": tokens.url}
    official, ours = emit_both(auth, server, tokens, tmp_path)
    assert ours == official
    assert ours[1] == ["Bearer tok-1", "Bearer tok-2", "Bearer tok-3"]
    tokens.expires_in = 60
    official, ours = emit_both({**auth, "tokenRefreshBuffer": 30}, server, tokens, tmp_path)
    assert ours == official and len(ours[0]) == 1


def test_the_expiry_of_a_jwt_is_read_from_its_exp_claim(
    server: LineageServer, tokens: TokenServer, tmp_path: Path, restore_environ: None
) -> None:
    claims = base64.urlsafe_b64encode(json.dumps({"exp": 4102444800}).encode()).decode().rstrip("=")
    tokens.expires_in, tokens.fixed_token = None, f"eyJhbGciOiJub25lIn0.{claims}.sig"
    auth = {"type": "oauth2", "clientId": "id", "clientSecret": "s", "tokenEndpoint": tokens.url}
    official, ours = emit_both(auth, server, tokens, tmp_path)
    assert ours == official and len(ours[0]) == 1


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post"])
def test_oauth2_client_credentials_equal_the_official_client(
    method: str, server: LineageServer, tokens: TokenServer, tmp_path: Path, restore_environ: None
) -> None:
    auth = {
        "type": "oauth2",
        "clientId": "my client",
        "clientSecret": "s3cr3t:+/",
        "tokenEndpoint": tokens.url,
        "scope": "lineage.write",
        "clientAuthMethod": method,
    }
    official, ours = emit_both(auth, server, tokens, tmp_path)
    assert ours == official
    form, headers = ours[0][0]
    assert form["grant_type"] == "client_credentials" and form["scope"] == "lineage.write"
    if method == "client_secret_basic":
        assert "client_secret" not in form
        assert base64.b64decode(str(headers["authorization"]).split()[1]) == b"my+client:s3cr3t%3A%2B%2F"
    else:
        assert (form["client_id"], form["client_secret"]) == ("my client", "s3cr3t:+/")
        assert headers["authorization"] is None


def test_a_token_provider_by_dotted_path(
    server: LineageServer, tokens: TokenServer, tmp_path: Path, restore_environ: None
) -> None:
    auth = {"type": "tests.support.official.OfficialStaticTokenProvider", "prefix": "custom", "tenant": "t1"}
    official, ours = emit_both(auth, server, tokens, tmp_path)
    assert ours == official
    assert ours[1] == ["Bearer custom-t1"] * 3
    # a provider that is no subclass of the official TokenProvider works in olsdk too
    plain = {**auth, "type": "tests.support.official.StaticTokenProvider"}
    with OpenLineageClient(config={"transport": {"type": "http", "url": server.url, "auth": plain}}, environ={}) as c:
        c.emit(to_json(official_run_event()))
    assert server.requests[-1].headers["Authorization"] == "Bearer custom-t1"


def test_a_failing_token_endpoint_spools_the_event_without_leaking_secrets(
    server: LineageServer, tmp_path: Path, free_port: int
) -> None:
    endpoint = f"http://127.0.0.1:{free_port}/token"
    auth = {"type": "oauth2", "clientId": "id", "clientSecret": "very-secret", "tokenEndpoint": endpoint}
    spool = tmp_path / "spool"
    with OpenLineageClient(
        config={"transport": {"type": "http", "url": server.url, "auth": auth}}, spool=spool, environ={}
    ) as c:
        c.emit(to_json(official_run_event()))
    assert not server.requests
    (record,) = kept(spool)
    assert "cannot fetch the OAuth2 access token" in record["reason"]
    assert b"very-secret" not in stored_bytes(spool)
    assert "very-secret" not in repr(c.transport.settings) + repr(c.config)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("auth", "message"),
    [
        ({"type": "jwt", "apiKey": "k"}, r"transport\.auth\.tokenEndpoint: required when auth type is 'jwt'"),
        ({"type": "oauth2", "clientId": "i", "tokenEndpoint": "http://t"}, r"auth\.clientSecret: required"),
        (
            {
                "type": "oauth2",
                "clientId": "i",
                "clientSecret": "s",
                "tokenEndpoint": "http://t",
                "clientAuthMethod": "x",
            },
            r"auth\.clientAuthMethod: must be one of client_secret_basic, client_secret_post, got 'x'",
        ),
        ({"type": "jwt", "apiKey": "k", "tokenEndpont": "http://t"}, r"did you mean 'tokenEndpoint'"),
        ({"type": "jwd", "apiKey": "k"}, r"auth\.type: unknown auth type 'jwd'; did you mean 'jwt'"),
        ({"type": "nowhere.Provider"}, r"auth\.type: cannot import token provider 'nowhere\.Provider'"),
    ],
)
def test_bad_auth_sections_are_config_errors(auth: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        OpenLineageClient(config={"transport": {"type": "http", "url": "http://127.0.0.1:9", "auth": auth}}, environ={})


def test_the_official_client_accepts_the_same_sections(restore_environ: None) -> None:
    """The sections used above load in the official client too (no olsdk-only spelling)."""
    from openlineage.client.transport.http import HttpConfig

    for auth in (
        {"type": "jwt", "apiKey": "k", "tokenEndpoint": "http://t", "tokenRefreshBuffer": 30},
        {"type": "oauth2", "clientId": "i", "clientSecret": "s", "tokenEndpoint": "http://t", "scope": "x"},
    ):
        assert type(HttpConfig.from_dict({"url": "http://127.0.0.1:9", "auth": auth}).auth).__name__ != "TokenProvider"
