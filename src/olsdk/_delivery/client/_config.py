"""``load_config``: the client's whole configuration, every section checked.

``olsdk._delivery._config`` merges ``openlineage.yml``, environment variables and code and
validates the client's own keys; the ``transport`` section is checked here by the
transports layer (``olsdk._delivery._config`` knows no transport), so a misspelt transport key
fails when the configuration is loaded, not when the first event is sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from olsdk._delivery._config import HostConfig, LoadedConfig, fail, load, norm
from olsdk._delivery.transports._factory import COMPAT_TRANSPORT, CompatSettings, check_transport, parse_transport
from olsdk._models._runtime import PATTERN_RULES, URI_PATTERN, is_uri

__all__ = ["load_config", "spool_setting"]


def load_config(
    config: Mapping[str, Any] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    cwd: str | None = None,
    home: str | None = None,
    host: HostConfig | None = None,
) -> LoadedConfig:
    """Merge file, environment and code configuration (code > environment > file) and
    validate all of it; a problem raises ``ConfigError`` naming the key and its source.
    ``host``: what a host program configures counts too (the CLI's commands: Airflow's provider).
    """
    loaded = load(config, environ=environ, cwd=cwd, home=home, host=host)
    if loaded.settings.transport:
        check_transport(loaded.settings.transport, ("transport",), loaded.origins)
    producer = loaded.settings.producer
    if producer is not None and not is_uri(producer):
        # the models check the same rule; failing here keeps it out of the user's `with client.run(...)`
        rule = PATTERN_RULES[URI_PATTERN]
        raise fail(f"{rule} (e.g. https://example.com/my-pipeline), got {producer!r}", ("producer",), loaded.origins)
    return loaded


def spool_setting(loaded: LoadedConfig) -> tuple[str | None, tuple[str, ...]]:
    """The configured spool path (None: the default) and the key that sets it.

    When the transport is ``olsdk.compat.OlsdkTransport`` (how Airflow's provider and dbt-ol
    load olsdk), its own ``spool`` is where those events were kept: the official client
    loads it with that section only, so the top-level ``spool`` does not apply to them.
    """
    if loaded.settings.transport:
        spec = parse_transport(loaded.settings.transport, ("transport",), loaded.origins)
        if spec.kind in COMPAT_TRANSPORT and isinstance(spec.settings, CompatSettings):
            spool = {norm(str(k)): v for k, v in (spec.settings.spool or {}).items()}
            path = spool.get("path")
            return (str(path) if path else None), ("transport", "spool", "path")
    return loaded.settings.spool.path, ("spool", "path")
