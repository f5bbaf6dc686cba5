"""Keeping secrets out of what olsdk prints: reprs, logs, error messages, ``config show``,
spool records, replay output and the values problems show.

A leaf (standard library only), at the bottom of the layers: the readers use it for
the values of problems, the configuration and the client for everything else.

Three tools:

* :func:`masked` copies a configuration, replacing the values of secret-looking keys
  (``apiKey``, ``X-Api-Key``, ``token``, ``Authorization``, ``cookie``, ...) and the
  secret parts of URLs;
* :func:`mask_url` replaces, in any text, the password of every URL (whole, whatever
  characters it holds) and the values of secret query parameters (``api_key``,
  ``token``, ``sig``, ...);
* :func:`scrub` makes a failure reason safe to store and show: URL secrets, credentials
  as they appear in headers (``Basic ...``, ``Bearer ...``), the caller's own secrets
  (raw and as a Basic token), cut to a bounded length.
"""

from __future__ import annotations

import base64
import logging
import re
import threading
from collections.abc import Iterable
from typing import Any

__all__ = [
    "SecretMaskingFilter",
    "basic_token",
    "install_log_masking",
    "is_secret_key",
    "mask_url",
    "masked",
    "scrub",
    "secret_values",
]

MASK = "***"

# setting, header and query-parameter names whose values are secrets (any case, any separator)
_SECRET_NAME = re.compile(
    r"(api[-_.]?key|secret|password|passwd|pwd|token|auth|credential|cookie|session[-_.]?id|private[-_.]?key"
    r"|signature|^sig$|^key$|^code$|sas)",
    re.IGNORECASE,
)
# "scheme://user:" starts a URL's user-info; the password runs to the "@" before the host.
# Every pattern here is tried once per run of the characters it repeats (a look-behind, or
# a class without its own separator) and never backtracks into that run: linear in the text.
_URL_USER = re.compile(r"(?<![\w+.-])(?:(?![a-zA-Z])[\w+.-])*+[a-zA-Z][\w+.-]*+://[^:/@\s\"'<>]*+:")
# a host after the password's "@": then a path, query, fragment or the end of the URL
_HOST_AFTER_AT = re.compile(r"@(?:\[[0-9a-fA-F:.]+\]|[\w.\-]+)(?::\d+)?(?=[/?#\s\"'<>),;]|$)")
_TOKEN_END = re.compile(r"[\s\"'<>]")
_QUERY_PARAM = re.compile(r"(?P<sep>[?&;])(?P<name>[^=&;?#\s\"'<>]++)=(?P<value>[^&;#\s\"'<>]*)")
# credentials as they travel in headers, echoed back by some servers
_HEADER_CREDENTIAL = re.compile(
    # the schemes as headers spell them: a lower-case "token from ..." in prose is no credential
    r"\b(?P<scheme>Basic|Bearer|Token|Digest|Negotiate|ApiKey|BASIC|BEARER|basic|bearer)\s+[^\s\"',;]+"
)
_SECRET_HEADER_LINE = re.compile(
    r"(?<![\w-])(?=[\w-]*?(?:api[-_]?key|token|auth|secret|password|cookie))"
    r"(?P<name>[\w-]++)(?P<sep>\"?\s*[:=]\s*\"?)(?P<value>[^\s\"',;&?#]+)",
    re.IGNORECASE,
)
_SECRET_WORDS = re.compile(r"api[-_]?key|token|auth|secret|password|cookie")  # on lower-cased text
#: how much of a failure reason (a server's answer, say) is kept
REASON_LIMIT = 300


def is_secret_key(name: str) -> bool:
    """True when a setting, header or query parameter of this name holds a secret."""
    return bool(_SECRET_NAME.search(name))


def _mask_passwords(text: str) -> str:
    out: list[str] = []
    pos = 0
    limit, last_host = -1, -1  # the end of the token being read, its last host (scanned once per token)
    for start in _URL_USER.finditer(text):
        if start.start() < pos:
            continue  # inside a URL already masked
        begin = start.end()
        if begin > limit:
            end_of_token = _TOKEN_END.search(text, begin)
            limit = end_of_token.start() if end_of_token else len(text)
            # the password may hold "@", "/", "#", "?": it runs to the last "@" of the URL that a
            # host follows (a path holding "@" is masked too: better too much than too little)
            last_host = max((m.start() for m in _HOST_AFTER_AT.finditer(text, begin, limit)), default=-1)
        if last_host < begin:
            continue
        out.append(text[pos:begin])
        out.append(MASK)
        pos = last_host
    out.append(text[pos:])
    return "".join(out)


def _mask_query(text: str) -> str:
    def repl(match: re.Match[str]) -> str:
        if is_secret_key(match["name"]) and match["value"]:
            return f"{match['sep']}{match['name']}={MASK}"
        return match.group(0)

    return _QUERY_PARAM.sub(repl, text) if ("?" in text or "&" in text) else text


def mask_url(text: str) -> str:
    """``text`` with every URL password and secret query parameter value replaced by ``***``."""
    return _mask_query(_mask_passwords(text))


def masked(value: Any, key: str = "") -> Any:
    """A copy of ``value`` with secrets (by key name, or inside URLs) replaced by ``***``."""
    if isinstance(value, dict):
        return {k: masked(v, str(k)) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [masked(v, key) for v in value]
    if key and is_secret_key(key) and value not in (None, ""):
        return MASK
    if isinstance(value, str):
        return mask_url(value)
    return value


def basic_token(user: str, password: str) -> str:
    """The token a ``Basic`` Authorization header carries for these credentials."""
    return base64.b64encode(f"{user}:{password}".encode()).decode()


def secret_values(config: Any) -> list[str]:
    """Every secret a configuration holds (values of secret keys, URL passwords, and the
    Basic tokens URL credentials become), to scrub from text the outside world sends back."""
    from urllib.parse import unquote, urlsplit

    found: set[str] = set()
    stack: list[tuple[str, Any]] = [("", config)]
    while stack:
        key, value = stack.pop()
        if isinstance(value, dict):
            stack.extend((str(k), v) for k, v in value.items())
        elif isinstance(value, list | tuple):
            stack.extend((key, v) for v in value)
        elif isinstance(value, str) and value:
            if key and is_secret_key(key):
                found.add(value)
            if "://" in value and "@" in value:
                try:
                    parts = urlsplit(value.strip())
                except ValueError:
                    continue
                if parts.password:
                    user = parts.username or ""
                    for password in {parts.password, unquote(parts.password)}:
                        found.update({password, basic_token(user, password), basic_token(unquote(user), password)})
    return sorted(found)


def scrub(text: str, secrets: Iterable[str] = (), limit: int = REASON_LIMIT) -> str:
    """``text`` safe to log, spool and print: secrets masked, then cut to ``limit``."""
    for secret in sorted((s for s in secrets if s and len(s) >= 3), key=len, reverse=True):
        text = text.replace(secret, MASK)
    text = mask_url(text)
    text = _HEADER_CREDENTIAL.sub(lambda m: f"{m['scheme']} {MASK}", text)
    if _SECRET_WORDS.search(text.lower()):  # a plain substring search first: the pattern costs more
        text = _SECRET_HEADER_LINE.sub(lambda m: f"{m['name']}{m['sep']}{MASK}", text)
    if len(text) > limit:
        text = text[:limit] + f"... [{len(text) - limit} more characters]"
    return text


class SecretMaskingFilter(logging.Filter):
    """Masks URL secrets and header credentials in the records of a logger it is added to.

    Runs only for records the logger lets through (its level first), so it costs nothing
    while, say, urllib3's DEBUG log is off; when it is on, a URL such as
    ``https://host/lineage?api_key=...`` is logged with the key masked.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            text = record.getMessage()
        except Exception:  # a broken record is the logging module's to report
            return True
        clean = scrub(text, limit=len(text) + 1)
        if clean != text:
            record.msg, record.args = clean, None
        return True


# the loggers of the libraries olsdk sends through: urllib3 logs every request line at DEBUG
# ('POST /api/v1/lineage?api_key=... HTTP/1.1'), and its retry and proxy messages carry URLs
_LIBRARY_LOGGERS = (
    "urllib3.connectionpool",
    "urllib3.connection",
    "urllib3.poolmanager",
    "urllib3.response",
    "urllib3.util.retry",
    "urllib3.http2.connection",
    "urllib3.contrib.pyopenssl",
    "requests",
    # olsdk's own messages are scrubbed where they are made; these filters are the second line
    "olsdk._delivery.client._client",
    "olsdk._delivery.client._outcomes",
    "olsdk._delivery.client._prepare",
    "olsdk._delivery.client._relay",
    "olsdk._delivery.client._spool",
    "olsdk._delivery.transports._base",
    "olsdk._delivery.transports._http",
    "olsdk._delivery.transports._buffered",
    "olsdk._integrations.compat._transport",
)
_installed = False
_install_lock = threading.Lock()


def install_log_masking() -> None:
    """Add :class:`SecretMaskingFilter` to the loggers of the HTTP libraries (once per process)."""
    global _installed
    if _installed:
        return
    with _install_lock:
        if _installed:
            return
        mask = SecretMaskingFilter()
        for name in _LIBRARY_LOGGERS:
            logger = logging.getLogger(name)
            if not any(isinstance(f, SecretMaskingFilter) for f in logger.filters):
                logger.addFilter(mask)
        _installed = True
