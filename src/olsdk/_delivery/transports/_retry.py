"""Retries of the http transport on urllib3's ``Retry``, driven here.

The official client hands its ``retry:`` section to ``urllib3.util.Retry`` and
mounts it on the session. olsdk builds the same ``Retry`` from the same keys, so
every key means what it means to urllib3 (which counter an error spends, when a
status is retried, the backoff formula), but runs the attempts itself: each wait
is a sleep that ``close()`` cuts short, and each attempt's outcome is known (for
spool reasons and logs).

Defaults differ from the official ones where olsdk's are safer; each is a key a
configuration can set back:

* ``status_forcelist`` adds 429 (too many requests) to 500, 502, 503, 504;
* ``Retry-After`` is honoured and capped at ``retry_after_max`` (60 s);
* ``backoff_max`` is 30 s (urllib3: 120) and ``backoff_jitter`` 0.2 s (urllib3: 0);
* ``other`` is 0: errors that are neither connect, read nor status errors (TLS
  failures) are not retried (urllib3: they spend ``total`` only).
"""

from __future__ import annotations

import inspect
import itertools
import random
from typing import Any

import urllib3
from pydantic import Field
from urllib3.util.retry import Retry

from olsdk._delivery._config import Settings

__all__ = ["RetrySettings", "backoff_time", "new_retry", "retry_after"]


_RETRY_KEYS = frozenset(inspect.signature(Retry.__init__).parameters) - {"self"}


class RetrySettings(Settings):
    """The keyword arguments of ``urllib3.util.Retry`` (what the official ``retry:`` takes)."""

    total: int | bool | None = 5
    connect: int | None = 5
    read: int | None = 5
    redirect: int | bool | None = None
    status: int | None = None
    other: int | None = 0  # TLS errors fail at once (urllib3: None)
    backoff_factor: float = 0.3
    backoff_max: float = 30.0
    backoff_jitter: float = 0.2
    # 429 is retried too (the official client's default list is 500, 502, 503, 504)
    status_forcelist: list[int] | None = Field(default_factory=lambda: [429, 500, 502, 503, 504])
    # POST must be listed for a read error or a status to be retried, as with urllib3
    allowed_methods: list[str] | None = Field(default_factory=lambda: ["HEAD", "POST"])
    raise_on_status: bool = True
    raise_on_redirect: bool = True  # redirects are never followed (a POST body is not resent elsewhere)
    remove_headers_on_redirect: list[str] = Field(
        default_factory=lambda: ["Authorization", "Proxy-Authorization", "Cookie"]
    )
    respect_retry_after_header: bool = True
    retry_after_max: float = 60.0  # cap on a server-requested wait, seconds


def new_retry(settings: RetrySettings) -> Retry:
    """A fresh ``Retry`` with the settings' counters (one per request)."""
    kwargs: dict[str, Any] = {}
    for name in RetrySettings.model_fields:
        if name not in _RETRY_KEYS:
            continue  # an older urllib3 without retry_after_max: capped in retry_after()
        value = getattr(settings, name)
        if name == "retry_after_max":
            value = int(value)
        elif isinstance(value, list):
            value = frozenset(v.upper() for v in value) if name == "allowed_methods" else frozenset(value)
        kwargs[name] = value
    return Retry(**kwargs)


# jitter from a generator of its own: urllib3 draws it from the global `random` state, which is
# the user's (seeded for reproducible runs), and retries run in the relay's background thread
_JITTER = random.Random()


def backoff_time(retry: Retry) -> float:
    """urllib3's wait before the next attempt (``Retry.get_backoff_time``: the factor doubled
    per consecutive error after the first, plus jitter, capped), the jitter drawn from
    olsdk's own generator."""
    jitter = float(getattr(retry, "backoff_jitter", 0.0) or 0.0)
    if not jitter:
        return float(retry.get_backoff_time())
    errors = len(list(itertools.takewhile(lambda r: r.redirect_location is None, reversed(retry.history))))
    if errors <= 1:
        return 0.0
    value = retry.backoff_factor * 2 ** (errors - 1) + _JITTER.random() * jitter
    return float(max(0.0, min(retry.backoff_max, value)))


def retry_after(retry: Retry, settings: RetrySettings, response: urllib3.BaseHTTPResponse) -> float | None:
    """The server-requested wait (``Retry-After``), capped; None when absent or unreadable."""
    if not settings.respect_retry_after_header or not response.headers.get("Retry-After"):
        return None
    try:
        seconds = retry.get_retry_after(response)
    except urllib3.exceptions.InvalidHeader:
        return None
    return None if seconds is None else min(float(seconds), settings.retry_after_max)
