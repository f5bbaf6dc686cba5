"""Loading the configuration: code > environment > file, and where each value came from.

Sources, lowest precedence first:

1. ``openlineage.yml``, the first found of: ``$OPENLINEAGE_CONFIG``, the working
   directory, ``~/.openlineage/`` (the official client's order).
2. Environment variables: ``OPENLINEAGE__A__B=value`` sets ``a.b`` (keys are
   lower-cased; a value may be JSON for a whole section), and the shorthand
   ``OPENLINEAGE_URL`` / ``OPENLINEAGE_ENDPOINT`` / ``OPENLINEAGE_API_KEY`` for an
   HTTP transport. The shorthand replaces a file's transport, yields to a type set
   by ``OPENLINEAGE__TRANSPORT__TYPE`` or code, and, when the final transport is a
   composite, becomes its child ``default_http`` (as in the official client).
3. The ``config`` mapping given in code.

Higher sources override lower ones key by key, except that a section whose ``type``
changes (``transport``, ``auth``) is replaced as a whole. Note the official client
ranks the file above environment variables; olsdk puts the environment above the
file so that a deployment can override a checked-in file.

Nothing here mutates ``os.environ`` or the mappings it is given.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from olsdk.client.settings import ClientSettings
from olsdk.transports.registry import check_transport
from olsdk.transports.settings import ConfigError, build, masked, norm

__all__ = [
    "LoadedConfig",
    "env_layer",
    "find_config_file",
    "is_disabled",
    "load_config",
    "masked",
]

ENV_PREFIX = "OPENLINEAGE__"
DEFAULT_HTTP = "default_http"


def is_disabled(environ: Mapping[str, str]) -> bool:
    return environ.get("OPENLINEAGE_DISABLED", "").strip().lower() == "true"


def find_config_file(
    environ: Mapping[str, str], cwd: str | None = None, home: str | None = None
) -> Path | None:
    """The official client's lookup: $OPENLINEAGE_CONFIG, ./openlineage.yml, ~/.openlineage/."""
    candidates: list[str] = []
    if environ.get("OPENLINEAGE_CONFIG"):
        candidates.append(environ["OPENLINEAGE_CONFIG"])
    candidates.append(os.path.join(cwd or os.getcwd(), "openlineage.yml"))
    home_dir = home or os.path.expanduser("~")
    candidates.append(os.path.join(home_dir, ".openlineage", "openlineage.yml"))
    for candidate in candidates:
        path = Path(candidate).expanduser()
        if path.is_file() and os.access(path, os.R_OK):
            return path
    return None


def _read_file(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"cannot read OpenLineage config file {path}: {exc}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a mapping, got {type(data).__name__}")
    return data


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


def _shorthand_origins(
    shorthand: dict[str, Any], prefix: tuple[str, ...]
) -> dict[tuple[str, ...], str]:
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


def _leaf_origins(
    tree: Any, label: str, prefix: tuple[str, ...] = ()
) -> dict[tuple[str, ...], str]:
    if isinstance(tree, dict) and tree:
        out: dict[tuple[str, ...], str] = {}
        for key, value in tree.items():
            out.update(_leaf_origins(value, label, (*prefix, norm(str(key)))))
        return out
    return {prefix: label}


def _overlay_origins(
    origins: dict[tuple[str, ...], str], merged: Any, layer: Mapping[tuple[str, ...], str]
) -> None:
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
    """The merged configuration, validated, with where each value came from."""

    data: dict[str, Any]
    settings: ClientSettings
    origins: dict[tuple[str, ...], str] = field(default_factory=dict)
    file: Path | None = None
    disabled: bool = False

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


def load_config(
    config: Mapping[str, Any] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    cwd: str | None = None,
    home: str | None = None,
) -> LoadedConfig:
    """Merge file, environment and code configuration and validate the result."""
    env = os.environ if environ is None else environ
    merged: dict[str, Any] = {}
    origins: dict[tuple[str, ...], str] = {}
    path = find_config_file(env, cwd, home)
    if path is not None:
        file_data = _read_file(path)
        merged = _merge(merged, file_data)
        _overlay_origins(origins, merged, _leaf_origins(file_data, str(path)))
    env_data, env_origins = env_layer(env)
    if env_data:
        merged = _merge(merged, env_data)
        _overlay_origins(origins, merged, env_origins)
    shorthand = url_shorthand(env)
    code_kind = _type_of((config or {}).get("transport"))
    env_kind = _type_of(env_data.get("transport"))
    if shorthand and not code_kind and not env_kind:
        # OPENLINEAGE_URL outranks the file (environment > file) unless a type is set
        # explicitly by OPENLINEAGE__TRANSPORT__TYPE or in code
        merged = _merge(merged, {"transport": shorthand})
        _overlay_origins(origins, merged, _shorthand_origins(shorthand, ("transport",)))
    if config:
        merged = _merge(merged, dict(config))
        _overlay_origins(origins, merged, _leaf_origins(dict(config), "code"))
    transport = merged.get("transport")
    if shorthand and _type_of(transport) == "composite" and isinstance(transport, dict):
        # as in the official client, the URL becomes the composite's `default_http` child
        children = next((v for k, v in transport.items() if norm(str(k)) == "transports"), None)
        if isinstance(children, dict) and DEFAULT_HTTP not in children:
            children[DEFAULT_HTTP] = shorthand
            prefix = ("transport", "transports", norm(DEFAULT_HTTP))
            _overlay_origins(origins, merged, _shorthand_origins(shorthand, prefix))
    settings = build(ClientSettings, merged, (), origins)
    if settings.transport:
        check_transport(settings.transport, ("transport",), origins)
    return LoadedConfig(
        data=merged, settings=settings, origins=origins, file=path, disabled=is_disabled(env)
    )
