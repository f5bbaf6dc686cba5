"""``load_config``: the client's whole configuration, every section checked.

``olsdk._delivery._config`` merges ``openlineage.yml``, environment variables and code; here the
merged sources become the client's settings (``ClientSettings``), the ``transport`` section is
checked by the transports layer (so a misspelt transport key fails when the configuration is
loaded, not when the first event is sent), and variables that nearly match a name OpenLineage
reads get a warning.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from olsdk._delivery._config import ENV_PREFIX, HostConfig, Origins, build, fail, merge_sources, norm, origin_of
from olsdk._delivery.client._settings import ClientSettings
from olsdk._delivery.transports._factory import COMPAT_TRANSPORT, CompatSettings, check_transport, parse_transport
from olsdk._foundation._secrets import masked
from olsdk._models._runtime import PATTERN_RULES, URI_PATTERN, is_uri

__all__ = ["LoadedConfig", "is_disabled", "load_config", "spool_setting"]

log = logging.getLogger("olsdk.config")
# variables the client reads (a near miss of one gets a warning), and those other integrations read
CLIENT_VARIABLES = tuple(
    f"OPENLINEAGE_{n}" for n in ("URL", "ENDPOINT", "API_KEY", "CONFIG", "DISABLED", "CLIENT_LOGGING")
)
_OTHER = ("NAMESPACE", "PARENT_ID", "ROOT_PARENT_ID", "PARENT_RUN_ID", "EXTRACTORS", "DBT_LOGGING", "DBT_JOB_NAME")
KNOWN_VARIABLES = {*CLIENT_VARIABLES, *(f"OPENLINEAGE_{n}" for n in (*_OTHER, "DISABLE_SOURCE_CODE", "SQL_PARSER"))}
KNOWN_VARIABLES.add("OPENLINEAGE_AIRFLOW_DISABLE_SOURCE_CODE")


@dataclass(frozen=True, repr=False)
class LoadedConfig:
    """The merged configuration, validated, with where each value came from (``settings.transport``
    stays a mapping: the transports layer checks and builds it)."""

    data: dict[str, Any]
    settings: ClientSettings
    origins: Origins = field(default_factory=dict)
    file: Path | None = None
    disabled: bool = False
    warnings: tuple[str, ...] = ()  # near misses of OpenLineage variable names (logged as warnings too)
    host: HostConfig | None = None  # what a host program configured (``load_config(host=...)``)

    def __repr__(self) -> str:
        return f"LoadedConfig(file={self.file}, data={masked(self.data)!r})"

    def origin(self, *path: str) -> str | None:
        """Where the value at ``path`` came from (a parent's origin covers its leaves)."""
        return origin_of(self.origins, path)


def is_disabled(environ: Mapping[str, str]) -> bool:
    return environ.get("OPENLINEAGE_DISABLED", "").strip().lower() == "true"


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
    env = os.environ if environ is None else environ
    warnings = (*near_misses(env), *(host.warnings if host else ()))
    for warning in warnings:
        log.warning("%s", warning)
    merged = merge_sources(config, environ=env, cwd=cwd, home=home, host=host)
    settings = build(ClientSettings, merged.data, (), merged.origins)
    loaded = LoadedConfig(merged.data, settings, merged.origins, merged.file, is_disabled(env), warnings, host)
    if settings.transport:
        check_transport(settings.transport, ("transport",), loaded.origins)
    producer = settings.producer
    if producer is not None and not is_uri(producer):
        # the models check the same rule; failing here keeps it out of the user's `with client.run(...)`
        rule = PATTERN_RULES[URI_PATTERN]
        raise fail(f"{rule} (e.g. https://example.com/my-pipeline), got {producer!r}", ("producer",), loaded.origins)
    return loaded


def near_misses(environ: Mapping[str, str]) -> list[str]:
    """Warnings for variables that nearly match a name OpenLineage reads."""
    found: list[str] = []
    for name in sorted(n for n in environ if n.upper().startswith("OPENLINEAGE") and n not in KNOWN_VARIABLES):
        upper, rest = name.upper(), name.upper()[len("OPENLINEAGE_") :]
        if name.startswith(ENV_PREFIX):
            continue
        if upper.startswith(ENV_PREFIX) or upper in KNOWN_VARIABLES:
            intended: str | None = upper  # right name, wrong case: variable names are case-sensitive
        elif upper.startswith("OPENLINEAGE_") and "__" in rest:
            intended = ENV_PREFIX + rest  # one "_" short after the prefix
        else:
            import difflib  # (only for a misspelt variable: not at import)

            intended = next(iter(difflib.get_close_matches(upper, CLIENT_VARIABLES, n=1, cutoff=0.85)), None)
        if intended and intended != name:
            found.append(f"environment variable {name} is not read by OpenLineage; did you mean {intended}?")
    return found


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
