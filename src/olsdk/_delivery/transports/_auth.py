"""Authentication of the http transport: the official client's ``auth:`` types.

* ``api_key``: ``Authorization: Bearer <apiKey>``;
* ``jwt``: the api key is exchanged for a token at ``tokenEndpoint`` (form fields
  ``grant_type``, ``response_type``, ``apikey``);
* ``oauth2``: the OAuth 2.0 client credentials grant (RFC 6749 4.4), the client
  authenticating with ``client_secret_basic`` (default) or ``client_secret_post``;
* any other ``type`` is the dotted path of a token provider class, built as the
  official client builds it: ``cls(auth_section_as_a_dict)``, then
  ``get_bearer() -> str | None`` per request (a subclass of the official
  ``TokenProvider`` works as it is).

Tokens from an endpoint are cached until ``tokenRefreshBuffer`` seconds (120) before
they expire (``expires_in``, or the JWT's ``exp`` claim); without either, a token is
fetched for every request, with a warning. Secrets never appear in reprs, logs or
errors.
"""

from __future__ import annotations

import base64
import importlib
import json
import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Protocol
from urllib.parse import quote_plus

from pydantic import Field, SecretStr, field_validator, model_validator

from olsdk._delivery._config import Settings, display_names, suggest
from olsdk._foundation._exceptions import ConfigError

__all__ = ["AuthSettings", "TokenProvider", "secret", "token_provider"]

log = logging.getLogger("olsdk._delivery.transports._auth")

BUILT_IN = ("api_key", "jwt", "oauth2")
_CLIENT_AUTH_METHODS = ("client_secret_basic", "client_secret_post")
_WHERE = "transport.auth"


class TokenProvider(Protocol):
    """The official client's token provider interface."""

    def get_bearer(self) -> str | None: ...


class AuthSettings(Settings):
    """The ``auth:`` section. A dotted ``type`` takes any further keys (``properties``)."""

    # keys the settings do not declare go to this field (custom providers' own keys)
    __extra_keys__: ClassVar[str] = "properties"

    type: str | None = None
    api_key: SecretStr | None = Field(default=None, validation_alias="apiKey")
    token_endpoint: str | None = Field(default=None, validation_alias="tokenEndpoint")
    token_fields: list[str] | None = Field(default=None, validation_alias="tokenFields")
    expires_in_field: str = Field(default="expires_in", validation_alias="expiresInField")
    token_refresh_buffer: int = Field(default=120, validation_alias="tokenRefreshBuffer")
    grant_type: str = Field(default="urn:ietf:params:oauth:grant-type:jwt-bearer", validation_alias="grantType")
    response_type: str = Field(default="token", validation_alias="responseType")
    client_id: str | None = Field(default=None, validation_alias="clientId")
    client_secret: SecretStr | None = Field(default=None, validation_alias="clientSecret")
    scope: str | None = None
    client_auth_method: str = Field(default="client_secret_basic", validation_alias="clientAuthMethod")
    properties: dict[str, Any] = Field(default_factory=dict)

    @field_validator("type")
    @classmethod
    def _built_in_lower(cls, kind: str | None) -> str | None:
        return kind.lower() if kind is not None and kind.lower() in BUILT_IN else kind

    @model_validator(mode="after")
    def _complete(self) -> AuthSettings:
        kind, names = self.type, display_names(AuthSettings)
        if kind in BUILT_IN and self.properties:
            key = next(iter(self.properties))
            hint = suggest(key, [n for f, n in names.items() if f != "properties"])
            did_you_mean = f"; did you mean '{hint}'?" if hint else ""
            raise ConfigError(f"{_WHERE}.{key}: unknown key for auth type '{kind}'{did_you_mean}", f"{_WHERE}.{key}")
        required = {"api_key": ("api_key",), "jwt": ("api_key", "token_endpoint")}
        required["oauth2"] = ("client_id", "client_secret", "token_endpoint")
        for name in required.get(kind or "", ()):
            if not secret(getattr(self, name)):
                where = f"{_WHERE}.{names[name]}"
                raise ConfigError(f"{where}: required when auth type is '{kind}'", where)
        if kind == "oauth2" and self.client_auth_method not in _CLIENT_AUTH_METHODS:
            raise ConfigError(
                f"{_WHERE}.clientAuthMethod: must be one of {', '.join(_CLIENT_AUTH_METHODS)}, "
                f"got {self.client_auth_method!r}",
                f"{_WHERE}.clientAuthMethod",
            )
        if kind is not None and kind not in BUILT_IN and "." not in kind:
            hint = suggest(kind, list(BUILT_IN))
            did_you_mean = f"; did you mean '{hint}'?" if hint else ""
            raise ConfigError(
                f"{_WHERE}.type: unknown auth type {kind!r}{did_you_mean} "
                "(api_key, jwt, oauth2, or the dotted path of a token provider class)",
                f"{_WHERE}.type",
            )
        return self

    def as_dict(self) -> dict[str, Any]:
        """The section as the official client hands it to a custom provider (secrets in clear)."""
        out: dict[str, Any] = {"type": self.type}
        for name, shown in display_names(AuthSettings).items():
            value = getattr(self, name)
            if (
                name not in ("type", "properties")
                and value is not None
                and value != AuthSettings.model_fields[name].default
            ):
                out[shown] = secret(value)
        out.update(self.properties)
        return out

    def secrets(self) -> list[str]:
        return [s for s in (secret(self.api_key), secret(self.client_secret)) if s]

    def __repr__(self) -> str:  # never show a secret
        shown = {k: ("***" if k in ("apiKey", "clientSecret") else v) for k, v in self.as_dict().items()}
        return f"AuthSettings({shown!r})"


def secret(value: Any) -> Any:
    """The clear text of a ``SecretStr`` (any other value as it is)."""
    return value.get_secret_value() if isinstance(value, SecretStr) else value


class _ApiKey:
    def __init__(self, api_key: str) -> None:
        self._bearer = f"Bearer {api_key}"

    def get_bearer(self) -> str | None:
        return self._bearer


class _TokenEndpoint:
    """A short-lived bearer token from a token endpoint, cached until shortly before expiry."""

    default_fields: ClassVar[tuple[str, ...]] = ("access_token",)
    what: ClassVar[str] = "token"

    def __init__(self, settings: AuthSettings, clock: Callable[[], float] = time.time) -> None:
        self.settings = settings
        self.endpoint = str(settings.token_endpoint)
        self.fields = list(settings.token_fields or self.default_fields)
        self._clock = clock
        self._token: str | None = None
        self._expires: float | None = None
        self._lock = threading.Lock()

    def form(self) -> dict[str, str]:
        raise NotImplementedError

    def authorization(self) -> str | None:
        return None

    def get_bearer(self) -> str | None:
        with self._lock:
            if not self._valid():
                self._fetch()
            return f"Bearer {self._token}" if self._token else None

    def invalidate(self) -> None:
        """Forget the cached token (the server refused it)."""
        with self._lock:
            self._token = self._expires = None

    @property
    def current(self) -> str | None:
        return self._token

    def _valid(self) -> bool:
        if not self._token or not self._expires:
            return False
        return self._clock() < self._expires - self.settings.token_refresh_buffer

    def _fetch(self) -> None:
        import requests  # loaded already: the http transport imports it when it is built

        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        authorization = self.authorization()
        if authorization:
            headers["Authorization"] = authorization
        try:
            response = requests.post(self.endpoint, data=self.form(), headers=headers, timeout=10)
            response.raise_for_status()
            body = response.json()
        except (requests.RequestException, ValueError) as exc:
            raise RuntimeError(f"cannot fetch the {self.what} from {self.endpoint}: {type(exc).__name__}") from None
        token = _lookup(body, self.fields) if isinstance(body, dict) else None
        if not token:
            raise RuntimeError(f"no {self.what} in the answer of {self.endpoint} (looked for {', '.join(self.fields)})")
        self._token = str(token)
        expires_in = _expires_in(body, self.settings.expires_in_field)
        self._expires = self._clock() + expires_in if expires_in else _jwt_expiry(self._token)
        if not self._expires:
            log.warning(
                "%s from %s carries no expiry: a new one is fetched for every request "
                "(set expiresInField if the answer names it differently)",
                self.what,
                self.endpoint,
            )


class _Jwt(_TokenEndpoint):
    default_fields = ("token", "access_token")
    what = "JWT"

    def form(self) -> dict[str, str]:
        s = self.settings
        return {"grant_type": s.grant_type, "response_type": s.response_type, "apikey": str(secret(s.api_key))}


class _OAuth2(_TokenEndpoint):
    what = "OAuth2 access token"

    def form(self) -> dict[str, str]:
        s = self.settings
        data = {"grant_type": "client_credentials"}
        if s.scope:
            data["scope"] = s.scope
        if s.client_auth_method == "client_secret_post":
            data["client_id"], data["client_secret"] = str(s.client_id), str(secret(s.client_secret))
        return data

    def authorization(self) -> str | None:
        s = self.settings
        if s.client_auth_method == "client_secret_post":
            return None
        # RFC 6749 2.3.1: form-urlencode each credential before base64
        pair = f"{quote_plus(str(s.client_id))}:{quote_plus(str(secret(s.client_secret)))}"
        return "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii")


def _lookup(body: Mapping[str, Any], names: list[str]) -> Any:
    for name in names:
        if name in body:
            return body[name]
        for key, value in body.items():
            if str(key).lower() == name.lower():
                return value
    return None


def _expires_in(body: Mapping[str, Any], name: str) -> float | None:
    wanted = name.lower().replace("_", "")
    for key, value in body.items():
        if str(key).lower().replace("_", "") == wanted:
            try:
                return float(value)
            except (TypeError, ValueError):
                return None
    return None


def _jwt_expiry(token: str) -> float | None:
    parts = token.split(".")
    if len(parts) != 3:
        return None
    try:
        claims = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
        return float(claims["exp"]) if isinstance(claims, dict) and "exp" in claims else None
    except (ValueError, TypeError):
        return None


def token_provider(settings: AuthSettings | None) -> TokenProvider | None:
    """The provider an ``auth:`` section describes (None: no auth)."""
    if settings is None or settings.type is None:
        return None
    if settings.type == "api_key":
        return _ApiKey(str(secret(settings.api_key)))
    if settings.type == "jwt":
        return _Jwt(settings)
    if settings.type == "oauth2":
        return _OAuth2(settings)
    module_name, _, class_name = settings.type.rpartition(".")
    try:
        cls = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ConfigError(
            f"{_WHERE}.type: cannot import token provider {settings.type!r}: {exc}", f"{_WHERE}.type"
        ) from None
    if not isinstance(cls, type) or not callable(getattr(cls, "get_bearer", None)):
        raise ConfigError(
            f"{_WHERE}.type: {settings.type!r} is not a token provider class (a class with get_bearer())",
            f"{_WHERE}.type",
        )
    try:
        provider: TokenProvider = cls(settings.as_dict())
    except Exception as exc:
        raise ConfigError(f"{_WHERE}: token provider {settings.type!r} refused its settings: {exc}", _WHERE) from None
    return provider
