"""Loading the configuration the official client's way: code > ``openlineage.yml`` > ``OPENLINEAGE__*``.

``OPENLINEAGE__A__B=value`` sets ``a.b`` (a value may be JSON for a whole section, which wins over its own
``__`` leaves); the file is the first of ``$OPENLINEAGE_CONFIG`` (which must exist), ``./`` and
``~/.openlineage/``, read by PyYAML's safe loader within limits (1 MiB, 32 levels, 100 aliases, none
recursive, 10,000 values). Higher sources override lower ones key by key, keys compared in any spelling,
except that a section whose ``type`` changes is replaced whole. ``OPENLINEAGE_URL`` / ``_ENDPOINT`` /
``_API_KEY`` describe an HTTP transport used only when no source names a transport ``type`` (a composite
gets it as its ``default_http`` child; an ``async_http`` one from variables takes its missing keys). Each
value keeps where it came from. What the merged sources mean is the settings classes' business.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from olsdk._delivery._config._engine import Origins, norm
from olsdk._foundation._documents import MAX_DEPTH, check_shape, read_yaml_file
from olsdk._foundation._exceptions import ConfigError

ENV_PREFIX = "OPENLINEAGE__"
Tree = dict[str, Any]


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


def read_config_file(path: Path) -> Tree:
    """One ``openlineage.yml`` (the client's lookup and Airflow's ``config_path``); a ConfigError names it."""
    where = f"OpenLineage config file {path}"
    data = read_yaml_file(path, where)
    if not isinstance(data, dict | None):
        raise ConfigError(f"{path}: the top level must be a mapping, got {type(data).__name__}")
    check_shape(data, where)
    return data or {}


def env_layer(environ: Mapping[str, str]) -> tuple[Tree, dict[tuple[str, ...], str]]:
    """The configuration ``OPENLINEAGE__*`` variables describe (values stay text), and each leaf's variable."""
    tree: Tree = {}
    origins: dict[tuple[str, ...], str] = {}
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


def url_shorthand(environ: Mapping[str, str]) -> tuple[Tree, Origins] | None:
    """The HTTP transport OPENLINEAGE_URL / _ENDPOINT / _API_KEY describe, if any, with each key's variable."""
    if not environ.get("OPENLINEAGE_URL"):
        return None
    names = {"type": "URL", "url": "URL", "endpoint": "ENDPOINT", "auth": "API_KEY"}
    shorthand: Tree = {"type": "http", "url": environ["OPENLINEAGE_URL"]}
    if environ.get("OPENLINEAGE_ENDPOINT"):
        shorthand["endpoint"] = environ["OPENLINEAGE_ENDPOINT"]
    if environ.get("OPENLINEAGE_API_KEY"):
        shorthand["auth"] = {"type": "api_key", "apiKey": environ["OPENLINEAGE_API_KEY"]}
    return shorthand, {(key,): f"environment variable OPENLINEAGE_{names[key]}" for key in shorthand}


def _get(tree: Any, key: str) -> Any:
    """``tree``'s value for ``key`` in any spelling (None when absent or not a mapping)."""
    return next((v for k, v in tree.items() if norm(str(k)) == key), None) if isinstance(tree, dict) else None


def _type_of(value: Any) -> str | None:
    kind = _get(value, "type")
    return None if kind is None else str(kind).lower()


def _merge(low: Any, high: Any) -> Any:
    """``high`` deep-merged over ``low``, keys compared in any spelling; a section whose ``type``
    changes is replaced, not mixed."""
    low_type, high_type = _type_of(low), _type_of(high)
    if not (isinstance(low, dict) and isinstance(high, dict)) or (low_type and high_type and low_type != high_type):
        return copy.deepcopy(high)
    merged = copy.deepcopy(low)
    for key, value in high.items():
        existing = next((k for k in merged if norm(str(k)) == norm(str(key))), None)
        merged[key] = _merge(merged.pop(existing), value) if existing is not None else copy.deepcopy(value)
    return merged


def _leaves(tree: Any, label: str, prefix: tuple[str, ...] = ()) -> Origins:
    if not (isinstance(tree, dict) and tree):
        return {prefix: label}
    return {at: o for key, value in tree.items() for at, o in _leaves(value, label, (*prefix, norm(str(key)))).items()}


@dataclass(frozen=True)
class HostConfig:
    """What a host program hands the client as code would (Airflow's OpenLineage provider): ``data``, or
    the ``file`` to read; ``source`` says where it was set (None: nothing, the official lookup applies
    alone); ``disabled_by`` a setting of the host's that turns OpenLineage off; ``warnings`` for the user."""

    data: dict[str, Any]
    source: str | None
    disabled_by: str | None = None
    warnings: tuple[str, ...] = ()
    file: Path | None = None


@dataclass(frozen=True)
class Merged:
    """The sources merged (``data``), where each value came from, and the configuration file read."""

    data: Tree
    origins: Origins = field(default_factory=dict)
    file: Path | None = None


class _Layers:
    """The sources merged one over the other, with each leaf's origin."""

    def __init__(self) -> None:
        self.data: Tree = {}
        self.origins: dict[tuple[str, ...], str] = {}

    def add(self, layer: Tree, source: str | Origins, at: tuple[str, ...] = ()) -> None:
        """``layer`` over what is there (at key path ``at``); ``source`` labels every leaf, or gives each its own."""
        for key in reversed(at):
            layer = {key: layer}
        self.data = _merge(self.data, layer)
        at = tuple(norm(k) for k in at)
        origins = _leaves(layer, source) if isinstance(source, str) else {(*at, *p): o for p, o in source.items()}
        self.origins = {p: o for p, o in {**self.origins, **origins}.items() if self._exists(p)}

    def _exists(self, path: tuple[str, ...]) -> bool:
        node: Any = self.data
        for key in path:
            node = _get(node, key)
        return node is not None


def merge_sources(
    config: Mapping[str, Any] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    cwd: str | None = None,
    home: str | None = None,
    host: HostConfig | None = None,
) -> Merged:
    """Merge file, environment and code configuration (see the module docstring), not validated.

    ``host``: what a host program configures counts too, where Airflow's OpenLineage provider applies
    it: over file and environment, under code.
    """
    env = os.environ if environ is None else environ
    if config:
        check_shape(config, "the configuration given in code")
    layers, (env_data, env_origins), shorthand = _Layers(), env_layer(env), url_shorthand(env)
    if shorthand and _type_of(env_data.get("transport")) == "async_http":  # the official switch to async_http
        missing = {k: v for k, v in shorthand[0].items() if _get(env_data["transport"], norm(k)) is None}
        env_data["transport"].update(missing)
        env_origins.update({("transport", *p): o for p, o in shorthand[1].items() if p[0] in missing})
    layers.add(env_data, env_origins)
    if (path := find_config_file(env, cwd, home)) is not None:
        layers.add(read_config_file(path), str(path))
    if host is not None and host.source:
        layers.add(read_config_file(host.file) if host.file else host.data, host.source)
    if config:
        layers.add(dict(config), "code")
    if shorthand:
        _add_shorthand(layers, shorthand)
    return Merged(layers.data, layers.origins, path)


def _add_shorthand(layers: _Layers, shorthand: tuple[Tree, Origins]) -> None:
    """OPENLINEAGE_URL: the transport when no source names a ``type`` (keys set without one, e.g.
    OPENLINEAGE__TRANSPORT__TIMEOUT, still apply); a composite's ``default_http`` child."""
    transport = layers.data.get("transport")
    children = _get(transport, "transports")
    if not _type_of(transport):
        layers.add(*shorthand, ("transport",))
    elif _type_of(transport) == "composite" and isinstance(children, dict) and "default_http" not in children:
        layers.add(*shorthand, ("transport", "transports", "default_http"))
