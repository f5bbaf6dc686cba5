"""Masking: no secret in reprs, logs or ``config show``."""

from __future__ import annotations

from olsdk._foundation._secrets import mask_url, masked


def test_url_passwords_are_masked_wherever_they_stand() -> None:
    assert mask_url("http://u:hunter2@Host:5000/x") == "http://u:***@Host:5000/x"
    assert mask_url("https://u:p@ss@host/x") == "https://u:***@host/x"  # "@" inside the password
    assert mask_url("to https://a:b@c and http://d:e@f/g") == "to https://a:***@c and http://d:***@f/g"
    for plain in ("http://host:5000/x", "http://user@host/x", "no url at all"):
        assert mask_url(plain) == plain


def test_masked_hides_secret_keys_at_any_depth_and_copies() -> None:
    config = {
        "transport": {
            "url": "https://u:pw@h",
            "auth": {"type": "api_key", "apiKey": "abc"},
            "custom_headers": {"Authorization": "Bearer abc", "X-Team": "data"},
            "transports": [{"config": {"sasl.password": "s3", "client_secret": ""}}],
        },
        "token": None,
    }
    shown = masked(config)
    assert shown == {
        "transport": {
            "url": "https://u:***@h",
            "auth": {"type": "api_key", "apiKey": "***"},
            "custom_headers": {"Authorization": "***", "X-Team": "data"},
            "transports": [{"config": {"sasl.password": "***", "client_secret": ""}}],
        },
        "token": None,
    }
    assert config["transport"]["auth"]["apiKey"] == "abc"  # type: ignore[index]


def test_a_url_password_is_masked_whole_whatever_it_holds() -> None:
    assert mask_url("http://user:p@ss@h") == "http://user:***@h"
    assert mask_url("http://user:p@ss/w#rd?x@127.0.0.1:9/api") == "http://user:***@127.0.0.1:9/api"
    assert mask_url("'http://u:s3cr3t@[::1]:5000/x'") == "'http://u:***@[::1]:5000/x'"
    assert mask_url("http://u:@h/x") == "http://u:***@h/x"


def test_secret_query_parameters_are_masked() -> None:
    text = "POST http://h/api/v1/lineage?api_key=K&team=blue&sig=S&token=T&x-api-key=A&password=P#frag"
    assert mask_url(text) == (
        "POST http://h/api/v1/lineage?api_key=***&team=blue&sig=***&token=***&x-api-key=***&password=***#frag"
    )


def test_secret_looking_header_names_in_any_case() -> None:
    from olsdk._foundation._secrets import is_secret_key

    for name in (
        "X-Api-Key",
        "x-api-key",
        "API_KEY",
        "Authorization",
        "X-Auth-Token",
        "Cookie",
        "X-Secret",
        "Password",
    ):
        assert is_secret_key(name), name
    for name in ("X-Team", "Content-Type", "url", "endpoint", "timeout"):
        assert not is_secret_key(name), name
    headers = {"X-Api-Key": "k", "Set-Cookie": "c", "X-Team": "blue"}
    assert masked({"custom_headers": headers}) == {
        "custom_headers": {"X-Api-Key": "***", "Set-Cookie": "***", "X-Team": "blue"}
    }


def test_scrub_removes_credentials_servers_echo_and_cuts_long_reasons() -> None:
    from olsdk._foundation._secrets import basic_token, scrub

    token = basic_token("user", "pw")
    reason = f"HTTP 401: denied for Basic {token}, bearer abc.def, X-Api-Key: k-1; echo of pw and {token}"
    # what secret_values() gives for http://user:pw@h plus an apiKey; "pw" is too short to replace blindly
    clean = scrub(reason, secrets=["pw", "k-1", token])
    assert token not in clean and "abc.def" not in clean and "k-1" not in clean
    assert clean.startswith("HTTP 401: denied for Basic ***, bearer ***, X-Api-Key: ***;")
    long = scrub("x" * 1000)
    assert len(long) < 400 and long.endswith("... [700 more characters]")


def test_secret_values_collects_keys_urls_and_basic_tokens() -> None:
    from olsdk._foundation._secrets import basic_token, secret_values

    config = {"transport": {"url": "http://u:p%40ss@h", "auth": {"apiKey": "K"}, "custom_headers": {"X-Token": "T"}}}
    found = secret_values(config)
    assert {"K", "T", "p%40ss", "p@ss", basic_token("u", "p@ss")} <= set(found)


def test_config_show_masks_secrets_only() -> None:
    """A declared setting is masked when it holds a secret (apiKey, clientSecret), not because
    its name looks like one (clientAuthMethod, tokenEndpoint); free keys by their names."""
    from olsdk._delivery.client._config import load_config
    from olsdk._delivery.client._effective import effective

    auth = {
        "type": "oauth2",
        "clientId": "me",
        "clientSecret": "s3cr3t",
        "tokenEndpoint": "https://idp.example/token",
        "clientAuthMethod": "client_secret_post",
    }
    headers = {"X-Api-Key": "k3y", "X-Team": "blue"}
    config = {"transport": {"type": "http", "url": "http://u:pw@h", "auth": auth, "custom_headers": headers}}
    shown = {".".join(path): value for path, value, _ in effective(load_config(config, environ={}), environ={})}
    assert shown["transport.auth.clientAuthMethod"] == "client_secret_post"
    assert shown["transport.auth.tokenEndpoint"] == "https://idp.example/token"
    assert shown["transport.auth.clientId"] == "me"
    assert shown["transport.auth.clientSecret"] == "***"
    assert shown["transport.url"] == "http://u:***@h"
    assert shown["transport.custom_headers.X-Api-Key"] == "***"
    assert shown["transport.custom_headers.X-Team"] == "blue"
    assert "s3cr3t" not in repr(shown) and "k3y" not in repr(shown)
