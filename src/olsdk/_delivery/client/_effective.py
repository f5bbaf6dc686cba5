"""Every effective configuration value with where it came from, defaults included
(what ``olsdk config show`` prints)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, SecretStr

from olsdk._delivery._config import display_names, norm
from olsdk._delivery.client._config import LoadedConfig, spool_setting
from olsdk._delivery.client._spool import default_spool_path
from olsdk._delivery.transports._factory import TransportSpec, parse_transport
from olsdk._foundation._secrets import MASK, mask_url, masked

__all__ = ["Entry", "effective"]

Entry = tuple[tuple[str, ...], Any, str]  # (path, value, origin)

# fields that hold nested transport sections: shown through the parsed children instead
_NESTED = frozenset({"transports", "transport"})


def _origin(loaded: LoadedConfig, path: tuple[str, ...]) -> str:
    """Where the value at ``path`` came from: its own source or a parent's (a JSON section
    in one variable), else the sources of the keys set inside it (``tags.job.team`` in the
    file makes ``tags.job`` the file's), else ``default``."""
    found = loaded.origin(*path)
    if found is not None:
        return found
    key = tuple(norm(p) for p in path)
    inside = sorted({origin for where, origin in loaded.origins.items() if where[: len(key)] == key})
    return "; ".join(inside) if inside else "default"


def _fields(value: Any) -> dict[str, str] | None:
    """A settings object's attribute names -> display names (None: not a settings object)."""
    if isinstance(value, BaseModel) or (dataclasses.is_dataclass(value) and not isinstance(value, type)):
        return display_names(type(value))
    return None


def _plain(value: Any) -> Any:
    """Settings objects inside a value (the ``filters`` list) as the mappings a yml holds:
    display names, unset (None) fields left out; secrets masked."""
    names = _fields(value)
    if names is not None:
        return {
            shown: _plain(getattr(value, name)) for name, shown in names.items() if getattr(value, name) is not None
        }
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return masked(value)  # free keys (headers, properties): secret-looking names are masked
    if isinstance(value, SecretStr):
        return MASK if value.get_secret_value() else ""
    return mask_url(value) if isinstance(value, str) else value


def _walk(obj: Any, path: tuple[str, ...], loaded: LoadedConfig, skip: frozenset[str] = frozenset()) -> list[Entry]:
    """Every value of a settings object: a declared field is masked when it holds a secret
    (``SecretStr``), a key of a free mapping (``custom_headers``) when its name looks secret."""
    out: list[Entry] = []
    for name, shown in (_fields(obj) or {}).items():
        value, here = getattr(obj, name), (*path, shown)
        if name in skip:
            continue
        if _fields(value) is not None:
            out.extend(_walk(value, here, loaded))
        elif isinstance(value, dict) and value:  # free keys (tags.job, custom_headers): one line each
            out.extend(((*here, str(k)), _plain({k: v})[k], _origin(loaded, (*here, str(k)))) for k, v in value.items())
        else:
            out.append((here, _plain(value), _origin(loaded, here)))
    return out


def _transport(spec: TransportSpec, path: tuple[str, ...], loaded: LoadedConfig) -> list[Entry]:
    out: list[Entry] = [((*path, "type"), spec.kind, _origin(loaded, (*path, "type")))]
    if spec.name is not None:
        out.append(((*path, "name"), spec.name, _origin(loaded, (*path, "name"))))
    if spec.settings is not None:
        out.extend(_walk(spec.settings, path, loaded, skip=_NESTED if spec.children else frozenset()))
    for index, child in enumerate(spec.children):
        label = child.name or str(index)
        below = (*path, "transports", label) if spec.kind == "composite" else (*path, "transport")
        out.extend(_transport(child, below, loaded))
    return out


def effective(loaded: LoadedConfig, environ: Mapping[str, str] | None = None) -> list[Entry]:
    """(path, value, origin) of every setting: the client's, the spool's and the transport's."""
    env = os.environ if environ is None else environ
    settings = loaded.settings
    out = _walk(settings, (), loaded, skip=frozenset({"transport", "spool", "producer"}))
    if settings.producer is None:
        import olsdk

        out.append((("producer",), olsdk.get_default_producer(), "default"))
    else:
        out.append((("producer",), settings.producer, _origin(loaded, ("producer",))))
    configured, key = spool_setting(loaded)
    spool_path = configured or str(default_spool_path(dict(env)))
    origin = _origin(loaded, key) if configured else "default"
    out.append(
        (
            ("spool", "path"),
            spool_path,
            origin + (" (the olsdk.compat.OlsdkTransport's spool)" if configured and key[0] == "transport" else ""),
        )
    )
    out.extend(_walk(settings.spool, ("spool",), loaded, skip=frozenset({"path"})))
    if settings.transport:
        out.extend(
            _transport(parse_transport(settings.transport, ("transport",), loaded.origins), ("transport",), loaded)
        )
    else:
        out.append((("transport", "type"), "console", "default (no transport configured)"))
    return out
