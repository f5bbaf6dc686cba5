"""``load_config``: the client's whole configuration, every section checked.

``olsdk._config`` merges ``openlineage.yml``, environment variables and code and
validates the client's own keys; the ``transport`` section is checked here by the
transports layer (``olsdk._config`` knows no transport), so a misspelt transport key
fails when the configuration is loaded, not when the first event is sent.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from olsdk._config import LoadedConfig, fail, load
from olsdk._runtime import PATTERN_RULES, URI_PATTERN
from olsdk.transports._factory import check_transport

__all__ = ["load_config"]


def load_config(
    config: Mapping[str, Any] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    cwd: str | None = None,
    home: str | None = None,
) -> LoadedConfig:
    """Merge file, environment and code configuration (code > environment > file) and
    validate all of it; a problem raises ``ConfigError`` naming the key and its source.
    """
    loaded = load(config, environ=environ, cwd=cwd, home=home)
    if loaded.settings.transport:
        check_transport(loaded.settings.transport, ("transport",), loaded.origins)
    producer = loaded.settings.producer
    if producer is not None and not re.match(URI_PATTERN, producer):
        # the models check the same rule; failing here keeps it out of the user's `with client.run(...)`
        rule = PATTERN_RULES[URI_PATTERN]
        raise fail(f"{rule} (e.g. https://example.com/my-pipeline), got {producer!r}", ("producer",), loaded.origins)
    return loaded
