"""Loading the configuration: code > file > environment (the official client's order), and
where each value came from.

``OPENLINEAGE__A__B=value`` sets ``a.b`` (a value may be JSON for a whole section; that
section wins over its own ``__`` leaves); ``openlineage.yml`` is the first of
``$OPENLINEAGE_CONFIG`` (which must exist), ``./``, ``~/.openlineage/``; code's mapping is on
top. Higher sources override lower ones key by key, keys compared in any spelling, except that
a section whose ``type`` changes is replaced whole. ``OPENLINEAGE_URL`` / ``_ENDPOINT`` /
``_API_KEY`` describe an HTTP transport used only when no source names a transport ``type``
(a composite gets it as its ``default_http`` child; an ``async_http`` one from variables takes
its missing keys), as in the official client. Nothing here mutates its inputs. A variable
that nearly matches an OpenLineage name gets a warning naming the intended one.
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

log = logging.getLogger("olsdk.config")
ENV_PREFIX = "OPENLINEAGE__"
Tree = dict[str, Any]
Origins = dict[tuple[str, ...], str]
# variables the client reads (a near miss of one gets a warning), and those other integrations read
CLIENT_VARIABLES = tuple(
    f"OPENLINEAGE_{n}" for n in ("URL", "ENDPOINT", "API_KEY", "CONFIG", "DISABLED", "CLIENT_LOGGING")
)
_OTHER = ("NAMESPACE", "PARENT_ID", "ROOT_PARENT_ID", "PARENT_RUN_ID", "EXTRACTORS", "DBT_LOGGING", "DBT_JOB_NAME")
OTHER_VARIABLES = {
    f"OPENLINEAGE_{n}" for n in (*_OTHER, "AIRFLOW_DISABLE_SOURCE_CODE", "DISABLE_SOURCE_CODE", "SQL_PARSER")
}


def is_disabled(environ: Mapping[str, str]) -> bool:
    return environ.get("OPENLINEAGE_DISABLED", "").strip().lower() == "true"


def find_config_file(environ: Mapping[str, str], cwd: str | None = None, home: str | None = None) -> Path | None:
    """The official client's lookup; a file it names or finds must be readable (never a silent fallback)."""
    if explicit := environ.get("OPENLINEAGE_CONFIG"):
        return _readable(Path(explicit).expanduser(), f"OPENLINEAGE_CONFIG={explicit}")
    for path in (Path(cwd or os.getcwd()), Path(home or os.path.expanduser("~")) / ".openlineage"):
        if (path := path / "openlineage.yml").exists() or path.is_symlink():
            return _readable(path, str(path))
    return None


def _readable(path: Path, named_by: str) -> Path:
    where = f"OpenLineage config file {path} (from {named_by})"
    if not path.exists():
        why = "is a broken symbolic link" if path.is_symlink() else "does not exist"
        raise ConfigError(f"{where} {why}", "OPENLINEAGE_CONFIG")
    if not path.is_file():
        raise ConfigError(f"{where} is not a file", "OPENLINEAGE_CONFIG")
    try:
        path.open("rb").close()
    except OSError as exc:
        raise ConfigError(f"{where} cannot be read: {exc.strerror or exc}", "OPENLINEAGE_CONFIG") from None
    return path


def near_misses(environ: Mapping[str, str]) -> list[str]:
    """Warnings for variables that nearly match a name OpenLineage reads."""
    found: list[str] = []
    known = {*CLIENT_VARIABLES, *OTHER_VARIABLES}
    for name in sorted(n for n in environ if n.upper().startswith("OPENLINEAGE") and n not in known):
        upper, rest = name.upper(), name.upper()[len("OPENLINEAGE_") :]
        if name.startswith(ENV_PREFIX):
            continue
        if upper.startswith(ENV_PREFIX) or upper in known:
            intended: str | None = upper  # right name, wrong case: variable names are case-sensitive
        elif upper.startswith("OPENLINEAGE_") and "__" in rest:
            intended = ENV_PREFIX + rest  # one "_" short after the prefix
        else:
            intended = next(iter(difflib.get_close_matches(upper, CLIENT_VARIABLES, n=1, cutoff=0.85)), None)
        if intended and intended != name:
            found.append(f"environment variable {name} is not read by OpenLineage; did you mean {intended}?")
    return found


def env_layer(environ: Mapping[str, str]) -> tuple[Tree, Origins]:
    """The configuration ``OPENLINEAGE__*`` variables describe (values stay text), and each leaf's variable."""
    tree: Tree = {}
    origins: Origins = {}
    # reverse order, as the official client: OPENLINEAGE__TRANSPORT (JSON) wins over OPENLINEAGE__TRANSPORT__URL
    for name in sorted((n for n in environ if n.startswith(ENV_PREFIX)), reverse=True):
        keys = [k.lower() for k in name[len(ENV_PREFIX) :].split("__")]
        if not all(keys) or len(keys) > MAX_DEPTH:
            why = "empty key segment" if not all(keys) else f"more than {MAX_DEPTH} key segments"
            raise ConfigError(f"environment variable {name}: {why}", name)
        node = tree
        for key in keys[:-1]:
            if not isinstance(node.get(key), dict):
                node[key] = {}
            node = node[key]
        node[keys[-1]] = environ[name]
        origins[tuple(norm(k) for k in keys)] = f"environment variable {name}"
    return tree, origins


def url_shorthand(environ: Mapping[str, str]) -> Tree | None:
    """The HTTP transport OPENLINEAGE_URL / _ENDPOINT / _API_KEY describe, if any."""
    if not environ.get("OPENLINEAGE_URL"):
        return None
    shorthand: Tree = {"type": "http", "url": environ["OPENLINEAGE_URL"]}
    if environ.get("OPENLINEAGE_ENDPOINT"):
        shorthand["endpoint"] = environ["OPENLINEAGE_ENDPOINT"]
    if environ.get("OPENLINEAGE_API_KEY"):
        shorthand["auth"] = {"type": "api_key", "apiKey": environ["OPENLINEAGE_API_KEY"]}
    return shorthand


def _shorthand_origins(keys: Any, prefix: tuple[str, ...]) -> Origins:
    names = {"type": "URL", "url": "URL", "endpoint": "ENDPOINT", "auth": "API_KEY"}
    return {(*prefix, key): f"environment variable OPENLINEAGE_{names[key]}" for key in keys}


def _type_of(value: Any) -> str | None:
    found = [item for key, item in value.items() if norm(str(key)) == "type"] if isinstance(value, dict) else []
    return str(found[0]).lower() if found else None


def _merge(low: Any, high: Any) -> Any:
    """``high`` deep-merged over ``low``, keys compared in any spelling; a section whose ``type``
    changes is replaced, not mixed."""
    low_type, high_type = _type_of(low), _type_of(high)
    if not (isinstance(low, dict) and isinstance(high, dict)) or (low_type and high_type and low_type != high_type):
        return copy.deepcopy(high)
    merged = copy.deepcopy(low)
    index = {norm(str(k)): k for k in merged}
    for key, value in high.items():
        existing = index.get(norm(str(key)))
        merged[key] = _merge(merged.pop(existing), value) if existing is not None else copy.deepcopy(value)
        index[norm(str(key))] = key
    return merged


def _leaves(tree: Any, label: str, prefix: tuple[str, ...] = ()) -> Origins:
    if not (isinstance(tree, dict) and tree):
        return {prefix: label}
    return {
        path: o for key, value in tree.items() for path, o in _leaves(value, label, (*prefix, norm(str(key)))).items()
    }


def _exists(tree: Any, path: tuple[str, ...]) -> bool:
    for key in path:
        found = [v for k, v in tree.items() if norm(str(k)) == key] if isinstance(tree, dict) else []
        if not found or found[0] is None:
            return False
        tree = found[0]
    return True


@dataclass(frozen=True, repr=False)
class LoadedConfig:
    """The merged configuration, validated, with where each value came from (``settings.transport``
    stays a mapping: the transports layer checks and builds it)."""

    data: Tree
    settings: ClientSettings
    origins: Origins = field(default_factory=dict)
    file: Path | None = None
    disabled: bool = False
    warnings: tuple[str, ...] = ()  # near misses of OpenLineage variable names (logged as warnings too)
    airflow: AirflowConfig | None = None  # what Airflow's OpenLineage provider configures (``load(airflow=True)``)

    def __repr__(self) -> str:
        return f"LoadedConfig(file={self.file}, data={masked(self.data)!r})"

    def origin(self, *path: str) -> str | None:
        """Where the value at ``path`` came from (a parent's origin covers its leaves)."""
        key = tuple(norm(p) for p in path)
        while key and key not in self.origins:
            key = key[:-1]
        return self.origins[key] if key else None


class _Layers:
    """The sources merged one over the other, with each leaf's origin."""

    def __init__(self) -> None:
        self.data: Tree = {}
        self.origins: Origins = {}

    def add(self, layer: Tree, source: str | Origins) -> None:
        """``layer`` over what is there; ``source`` labels every leaf, or gives each leaf's own."""
        self.data = _merge(self.data, layer)
        self.origins.update(_leaves(layer, source) if isinstance(source, str) else source)
        self.origins = {path: o for path, o in self.origins.items() if _exists(self.data, path)}


def load(
    config: Mapping[str, Any] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    cwd: str | None = None,
    home: str | None = None,
    airflow: bool = False,
) -> LoadedConfig:
    """Merge file, environment and code configuration and validate the client settings.

    ``airflow``: what Airflow's OpenLineage provider configures counts too (see ``_airflow``), where
    the provider applies it: over file and environment, under code.
    """
    env = os.environ if environ is None else environ
    host = airflow_config(env, home) if airflow else None
    warnings = (*near_misses(env), *(host.warnings if host else ()))
    for warning in warnings:
        log.warning("%s", warning)
    if config:
        check_shape(config, "the configuration given in code")
    layers, (env_data, env_origins), shorthand = _Layers(), env_layer(env), url_shorthand(env)
    if shorthand and _type_of(env_data.get("transport")) == "async_http":  # the official switch to async_http
        missing = [k for k in shorthand if k != "type" and norm(k) not in {norm(str(n)) for n in env_data["transport"]}]
        env_data["transport"].update({key: copy.deepcopy(shorthand[key]) for key in missing})
        env_origins.update(_shorthand_origins(missing, ("transport",)))
    layers.add(env_data, env_origins)
    path = find_config_file(env, cwd, home)
    if path is not None:
        layers.add(read_config_file(path), str(path))
    if host is not None and host.data and host.source:
        layers.add(host.data, host.source)
    if config:
        layers.add(dict(config), "code")
    if shorthand:
        _add_shorthand(layers, shorthand)
    settings = build(ClientSettings, layers.data, (), layers.origins)
    return LoadedConfig(layers.data, settings, layers.origins, path, is_disabled(env), warnings, host)


def _add_shorthand(layers: _Layers, shorthand: Tree) -> None:
    """OPENLINEAGE_URL: the transport when no source names a ``type`` (keys set without one, e.g.
    OPENLINEAGE__TRANSPORT__TIMEOUT, still apply); a composite's ``default_http`` child."""
    transport = layers.data.get("transport")
    if not _type_of(transport):
        layers.add({"transport": shorthand}, _shorthand_origins(shorthand, ("transport",)))
    elif _type_of(transport) == "composite" and isinstance(transport, dict):
        children = next((v for k, v in transport.items() if norm(str(k)) == "transports"), None)
        if isinstance(children, dict) and "default_http" not in children:
            children["default_http"] = shorthand
            layers.origins.update(_shorthand_origins(shorthand, ("transport", "transports", "defaulthttp")))
