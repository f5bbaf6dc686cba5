"""Loading the configuration: code > file > environment, and where each value came from.

Sources, lowest precedence first (the official client's order, so that one
``openlineage.yml`` and one set of variables send events to the same place in both
clients):

1. Environment variables: ``OPENLINEAGE__A__B=value`` sets ``a.b`` (keys are
   lower-cased; a value may be JSON for a whole section).
2. ``openlineage.yml``, the first found of: ``$OPENLINEAGE_CONFIG``, the working
   directory, ``~/.openlineage/``.
3. The ``config`` mapping given in code.

Higher sources override lower ones key by key, except that a section whose ``type``
changes (``transport``, ``auth``) is replaced as a whole.

The shorthand ``OPENLINEAGE_URL`` / ``OPENLINEAGE_ENDPOINT`` / ``OPENLINEAGE_API_KEY``
describes an HTTP transport used only when no source names a transport ``type``; when
the transport is a composite it becomes its child ``default_http``, and when
``OPENLINEAGE__TRANSPORT__TYPE`` is ``async_http`` it fills that section's missing
``url``/``endpoint``/``auth`` (all as in the official client).

Nothing here mutates ``os.environ`` or the mappings it is given. The ``transport``
section is kept as a mapping here; ``olsdk.transports`` parses it (this package
knows no transport).

Hostile input fails fast with a ConfigError naming the file or variable: a file over
1 MiB, not UTF-8, nested deeper than 32 levels, with more than 100 aliases, a
recursive alias or aliases expanding past 10,000 values (an "alias bomb"); an
``OPENLINEAGE_CONFIG`` naming a file that is missing or unreadable (never a silent
fallback), and likewise an ``openlineage.yml`` that exists but cannot be read. A
variable that nearly matches an OpenLineage name (``OPENLINEAGE_ULR``,
``OPENLINEAGE_TRANSPORT__TYPE``) gets a warning naming the intended one.
"""

from __future__ import annotations

import copy
import difflib
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from olsdk._delivery._config._airflow import AirflowConfig, airflow_config
from olsdk._delivery._config._engine import MAX_DEPTH, build, check_shape, norm
from olsdk._delivery._config._file import read_config_file
from olsdk._delivery._config._settings import ClientSettings
from olsdk._foundation._exceptions import ConfigError
from olsdk._foundation._secrets import masked

__all__ = [
    "LoadedConfig",
    "env_layer",
    "find_config_file",
    "is_disabled",
    "load",
    "near_misses",
    "url_shorthand",
]

log = logging.getLogger("olsdk.config")

ENV_PREFIX = "OPENLINEAGE__"
DEFAULT_HTTP = "default_http"

# variables the client reads (a near miss of one of these gets a warning)...
CLIENT_VARIABLES = (
    "OPENLINEAGE_URL",
    "OPENLINEAGE_ENDPOINT",
    "OPENLINEAGE_API_KEY",
    "OPENLINEAGE_CONFIG",
    "OPENLINEAGE_DISABLED",
    "OPENLINEAGE_CLIENT_LOGGING",
)
# ...and those other OpenLineage integrations read (Airflow, dbt, Spark): never warned about
OTHER_VARIABLES = frozenset(
    {
        "OPENLINEAGE_NAMESPACE",
        "OPENLINEAGE_PARENT_ID",
        "OPENLINEAGE_ROOT_PARENT_ID",
        "OPENLINEAGE_PARENT_RUN_ID",
        "OPENLINEAGE_EXTRACTORS",
        "OPENLINEAGE_DBT_LOGGING",
        "OPENLINEAGE_DBT_JOB_NAME",
        "OPENLINEAGE_AIRFLOW_DISABLE_SOURCE_CODE",
        "OPENLINEAGE_DISABLE_SOURCE_CODE",
        "OPENLINEAGE_SQL_PARSER",
    }
)


def is_disabled(environ: Mapping[str, str]) -> bool:
    return environ.get("OPENLINEAGE_DISABLED", "").strip().lower() == "true"


def find_config_file(environ: Mapping[str, str], cwd: str | None = None, home: str | None = None) -> Path | None:
    """The official client's lookup: $OPENLINEAGE_CONFIG, ./openlineage.yml, ~/.openlineage/.

    A file named by ``OPENLINEAGE_CONFIG`` must exist and be readable (ConfigError
    otherwise: never a silent fallback to another file); so must an
    ``openlineage.yml`` found in a lookup place (a directory or broken link there is
    an error too).
    """
    explicit = environ.get("OPENLINEAGE_CONFIG")
    if explicit:
        path = Path(explicit).expanduser()
        _check_readable(path, f"OPENLINEAGE_CONFIG={explicit}")
        return path
    home_dir = home or os.path.expanduser("~")
    for candidate in (
        os.path.join(cwd or os.getcwd(), "openlineage.yml"),
        os.path.join(home_dir, ".openlineage", "openlineage.yml"),
    ):
        path = Path(candidate)
        if path.exists() or path.is_symlink():
            _check_readable(path, str(path))
            return path
    return None


def _check_readable(path: Path, named_by: str) -> None:
    if not path.exists():
        why = "is a broken symbolic link" if path.is_symlink() else "does not exist"
        raise ConfigError(f"OpenLineage config file {path} (from {named_by}) {why}", "OPENLINEAGE_CONFIG")
    if not path.is_file():
        raise ConfigError(f"OpenLineage config file {path} (from {named_by}) is not a file", "OPENLINEAGE_CONFIG")
    try:
        with open(path, "rb"):
            pass
    except OSError as exc:
        raise ConfigError(
            f"OpenLineage config file {path} (from {named_by}) cannot be read: {exc.strerror or exc}",
            "OPENLINEAGE_CONFIG",
        ) from None


def near_misses(environ: Mapping[str, str]) -> list[str]:
    """Warnings for variables that nearly match a name OpenLineage reads."""
    found: list[str] = []
    for name in sorted(environ):
        upper = name.upper()
        if not upper.startswith("OPENLINEAGE") or name in CLIENT_VARIABLES or name in OTHER_VARIABLES:
            continue
        if name.startswith(ENV_PREFIX):
            continue
        intended: str | None = None
        if upper.startswith(ENV_PREFIX) or upper in CLIENT_VARIABLES or upper in OTHER_VARIABLES:
            intended = upper  # right name, wrong case: variable names are case-sensitive
        elif upper.startswith("OPENLINEAGE_") and "__" in upper[len("OPENLINEAGE_") :]:
            intended = ENV_PREFIX + upper[len("OPENLINEAGE_") :]  # one "_" short after the prefix
        else:
            hits = difflib.get_close_matches(upper, CLIENT_VARIABLES, n=1, cutoff=0.85)
            intended = hits[0] if hits else None
        if intended and intended != name:
            found.append(f"environment variable {name} is not read by OpenLineage; did you mean {intended}?")
    return found


def _insert(tree: dict[str, Any], keys: list[str], value: Any) -> None:
    node = tree
    for key in keys[:-1]:
        child = node.get(key)
        if not isinstance(child, dict):
            child = node[key] = {}
        node = child
    node[keys[-1]] = value


def env_layer(environ: Mapping[str, str]) -> tuple[dict[str, Any], dict[tuple[str, ...], str]]:
    """The configuration environment variables describe, and each leaf's variable."""
    tree: dict[str, Any] = {}
    origins: dict[tuple[str, ...], str] = {}
    # reverse order, as the official client: OPENLINEAGE__TRANSPORT (a JSON blob) is
    # applied after, and so wins over, OPENLINEAGE__TRANSPORT__URL
    for name in sorted((n for n in environ if n.startswith(ENV_PREFIX)), reverse=True):
        keys = [k.lower() for k in name[len(ENV_PREFIX) :].split("__")]
        if not all(keys):
            raise ConfigError(f"environment variable {name}: empty key segment", name)
        if len(keys) > MAX_DEPTH:
            raise ConfigError(f"environment variable {name}: more than {MAX_DEPTH} key segments", name)
        # values stay strings: settings coerce them to their declared types
        _insert(tree, keys, environ[name])
        origins[tuple(norm(k) for k in keys)] = f"environment variable {name}"
    return tree, origins


def url_shorthand(environ: Mapping[str, str]) -> dict[str, Any] | None:
    """The HTTP transport OPENLINEAGE_URL / _ENDPOINT / _API_KEY describe, if any."""
    url = environ.get("OPENLINEAGE_URL")
    if not url:
        return None
    shorthand: dict[str, Any] = {"type": "http", "url": url}
    if environ.get("OPENLINEAGE_ENDPOINT"):
        shorthand["endpoint"] = environ["OPENLINEAGE_ENDPOINT"]
    if environ.get("OPENLINEAGE_API_KEY"):
        shorthand["auth"] = {"type": "api_key", "apiKey": environ["OPENLINEAGE_API_KEY"]}
    return shorthand


def _shorthand_origins(shorthand: dict[str, Any], prefix: tuple[str, ...]) -> dict[tuple[str, ...], str]:
    names = {
        "type": "OPENLINEAGE_URL",
        "url": "OPENLINEAGE_URL",
        "endpoint": "OPENLINEAGE_ENDPOINT",
        "auth": "OPENLINEAGE_API_KEY",
    }
    return {(*prefix, key): f"environment variable {names[key]}" for key in shorthand}


def _type_of(value: Any) -> str | None:
    if isinstance(value, dict):
        for key, item in value.items():
            if norm(str(key)) == "type":
                return str(item).lower()
    return None


def _merge(low: Any, high: Any) -> Any:
    """Deep-merge ``high`` over ``low``; keys compare like settings keys do."""
    if not (isinstance(low, dict) and isinstance(high, dict)):
        return copy.deepcopy(high)
    low_type, high_type = _type_of(low), _type_of(high)
    if low_type and high_type and low_type != high_type:
        return copy.deepcopy(high)  # a different kind of section: replace, don't mix keys
    merged = copy.deepcopy(low)
    index = {norm(str(k)): k for k in merged}
    for key, value in high.items():
        existing = index.get(norm(str(key)))
        if existing is not None:
            base = merged.pop(existing)
            merged[key] = _merge(base, value)
        else:
            merged[key] = copy.deepcopy(value)
        index[norm(str(key))] = key
    return merged


def _leaf_origins(tree: Any, label: str, prefix: tuple[str, ...] = ()) -> dict[tuple[str, ...], str]:
    if isinstance(tree, dict) and tree:
        out: dict[tuple[str, ...], str] = {}
        for key, value in tree.items():
            out.update(_leaf_origins(value, label, (*prefix, norm(str(key)))))
        return out
    return {prefix: label}


def _overlay_origins(origins: dict[tuple[str, ...], str], merged: Any, layer: Mapping[tuple[str, ...], str]) -> None:
    """Apply a layer's origins; drop lower origins for paths that no longer exist."""
    origins.update(layer)
    for path in list(origins):
        node = merged
        for key in path:
            if not isinstance(node, dict):
                node = None
                break
            match = [v for k, v in node.items() if norm(str(k)) == key]
            node = match[0] if match else None
            if node is None:
                break
        if node is None and path:
            del origins[path]


@dataclass(frozen=True, repr=False)
class LoadedConfig:
    """The merged configuration, validated, with where each value came from.

    ``settings.transport`` is the raw ``transport`` section: the transports layer
    checks and builds it.
    """

    data: dict[str, Any]
    settings: ClientSettings
    origins: dict[tuple[str, ...], str] = field(default_factory=dict)
    file: Path | None = None
    disabled: bool = False
    #: near misses of OpenLineage variable names (also logged as warnings)
    warnings: tuple[str, ...] = ()
    #: what Airflow's OpenLineage provider configures (``load(airflow=True)`` only)
    airflow: AirflowConfig | None = None

    def __repr__(self) -> str:
        return f"LoadedConfig(file={self.file}, data={masked(self.data)!r})"

    def origin(self, *path: str) -> str | None:
        """Where the value at ``path`` came from (a parent's origin covers its leaves)."""
        key = tuple(norm(p) for p in path)
        while key:
            if key in self.origins:
                return self.origins[key]
            key = key[:-1]
        return None


def load(
    config: Mapping[str, Any] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    cwd: str | None = None,
    home: str | None = None,
    airflow: bool = False,
) -> LoadedConfig:
    """Merge file, environment and code configuration and validate the client settings.

    ``airflow``: also read what Airflow's OpenLineage provider configures (its
    ``[openlineage]`` options; see ``olsdk._delivery._config._airflow``), applied where the provider
    applies it: over file and environment, under code.
    """
    env = os.environ if environ is None else environ
    merged: dict[str, Any] = {}
    origins: dict[tuple[str, ...], str] = {}
    host = airflow_config(env, home) if airflow else None
    warnings = (*near_misses(env), *(host.warnings if host else ()))
    for warning in warnings:
        log.warning("%s", warning)
    if config:
        check_shape(config, "the configuration given in code")
    env_data, env_origins = env_layer(env)
    shorthand = url_shorthand(env)
    if shorthand and _type_of(env_data.get("transport")) == "async_http":
        _fill_async_http(env_data, env_origins, shorthand)
    if env_data:
        merged = _apply_layer(merged, origins, env_data, env_origins)
    path = find_config_file(env, cwd, home)
    if path is not None:
        merged = _apply_layer(merged, origins, read_config_file(path), str(path))
    if host is not None and host.data and host.source:
        merged = _apply_layer(merged, origins, host.data, host.source)
    if config:
        merged = _apply_layer(merged, origins, dict(config), "code")
    if shorthand and not _type_of(merged.get("transport")):
        # OPENLINEAGE_URL is the fallback when no source names a transport type (keys
        # set without a type, e.g. OPENLINEAGE__TRANSPORT__TIMEOUT, still apply)
        merged = _apply_layer(merged, origins, {"transport": shorthand}, _shorthand_origins(shorthand, ("transport",)))
    if shorthand:
        _shorthand_into_composite(merged, origins, shorthand)
    settings = build(ClientSettings, merged, (), origins)
    return LoadedConfig(
        data=merged,
        settings=settings,
        origins=origins,
        file=path,
        disabled=is_disabled(env),
        warnings=warnings,
        airflow=host,
    )


def _fill_async_http(env_data: dict[str, Any], origins: dict[tuple[str, ...], str], shorthand: dict[str, Any]) -> None:
    """With OPENLINEAGE__TRANSPORT__TYPE=async_http, OPENLINEAGE_URL & co. fill the keys
    that section lacks (the official client's switch from http to async_http)."""
    section = env_data["transport"]
    present = {norm(str(k)) for k in section}
    for key, value in shorthand.items():
        if key != "type" and norm(key) not in present:
            section[key] = copy.deepcopy(value)
            origins.update(_shorthand_origins({key: value}, ("transport",)))


def _apply_layer(
    merged: dict[str, Any],
    origins: dict[tuple[str, ...], str],
    layer: dict[str, Any],
    source: str | Mapping[tuple[str, ...], str],
) -> dict[str, Any]:
    """``layer`` merged over ``merged``; ``source`` names where its values came from
    (one label for every leaf, or each leaf's own)."""
    result: dict[str, Any] = _merge(merged, layer)
    _overlay_origins(origins, result, _leaf_origins(layer, source) if isinstance(source, str) else source)
    return result


def _shorthand_into_composite(
    merged: dict[str, Any], origins: dict[tuple[str, ...], str], shorthand: dict[str, Any]
) -> None:
    """As in the official client, OPENLINEAGE_URL becomes a composite's ``default_http`` child."""
    transport = merged.get("transport")
    if _type_of(transport) != "composite" or not isinstance(transport, dict):
        return
    children = next((v for k, v in transport.items() if norm(str(k)) == "transports"), None)
    if isinstance(children, dict) and DEFAULT_HTTP not in children:
        children[DEFAULT_HTTP] = shorthand
        prefix = ("transport", "transports", norm(DEFAULT_HTTP))
        _overlay_origins(origins, merged, _shorthand_origins(shorthand, prefix))
