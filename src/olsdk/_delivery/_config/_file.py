"""Reading one ``openlineage.yml``: bounded YAML (size, nesting, aliases) into a checked mapping.

Both the client's configuration lookup (``_load``) and the Airflow provider's
``config_path`` (``_airflow``) read files this way.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from olsdk._delivery._config._engine import MAX_DEPTH, MAX_TEXT_BYTES, check_shape
from olsdk._foundation._exceptions import ConfigError

__all__ = ["read_config_file"]

MAX_ALIASES = 100


@functools.cache
def _loader_class() -> type[Any]:
    """PyYAML's safe loader with limits (made on first use: PyYAML is imported only when a
    configuration file is read, never by a client configured by variables or code)."""
    import yaml

    class _BoundedLoader(yaml.SafeLoader):
        """PyYAML's safe loader with limits on nesting and aliases, and no recursive alias."""

        def __init__(self, stream: str) -> None:
            super().__init__(stream)
            self._depth = 0
            self._aliases = 0
            self._open_anchors: set[str] = set()

        def compose_node(self, parent: Any, index: Any) -> Any:
            event = self.peek_event()  # type: ignore[no-untyped-call]
            line = event.start_mark.line + 1 if event.start_mark else 0
            if isinstance(event, yaml.AliasEvent):
                self._aliases += 1
                if self._aliases > MAX_ALIASES:
                    raise ConfigError(f"more than {MAX_ALIASES} aliases (line {line})")
                if event.anchor in self._open_anchors:
                    raise ConfigError(f"alias *{event.anchor} refers to a node that contains it (line {line})")
                return super().compose_node(parent, index)
            self._depth += 1
            if self._depth > MAX_DEPTH:
                raise ConfigError(f"nested deeper than {MAX_DEPTH} levels (line {line})")
            anchor = getattr(event, "anchor", None)
            if anchor:
                self._open_anchors.add(anchor)
            try:
                return super().compose_node(parent, index)
            finally:
                self._depth -= 1
                if anchor:
                    self._open_anchors.discard(anchor)

    return _BoundedLoader


def read_config_file(path: Path) -> dict[str, Any]:
    where = f"OpenLineage config file {path}"
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_TEXT_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"cannot read {where}: {exc.strerror or exc}") from None
    if len(raw) > MAX_TEXT_BYTES:
        raise ConfigError(f"{where}: larger than {MAX_TEXT_BYTES} bytes")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{where}: not valid UTF-8 (byte {exc.start}: {raw[exc.start : exc.start + 1]!r})") from None
    import yaml

    try:
        loader = _loader_class()(text)
        try:
            data = loader.get_single_data()
        finally:
            loader.dispose()
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"cannot read {where}: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{where}: nested too deeply") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a mapping, got {type(data).__name__}")
    check_shape(data, f"OpenLineage config file {path}")
    return data
