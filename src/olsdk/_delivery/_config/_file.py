"""Reading one ``openlineage.yml`` (the client's lookup and Airflow's ``config_path``): PyYAML's safe
loader with limits on size (1 MiB), nesting (32 levels) and aliases (100, none recursive), then the
shape checked (an alias bomb expanding past 10,000 values); a ConfigError names the file."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from olsdk._delivery._config._engine import MAX_DEPTH, MAX_TEXT_BYTES, check_shape
from olsdk._foundation._exceptions import ConfigError

MAX_ALIASES = 100


@functools.cache
def _loader_class() -> type[Any]:
    """Made on first use: PyYAML is imported only when a configuration file is read."""
    import yaml

    class _BoundedLoader(yaml.SafeLoader):
        def __init__(self, stream: str) -> None:
            super().__init__(stream)
            self._depth = self._aliases = 0
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
            self._open_anchors |= {anchor} if anchor else set()
            try:
                return super().compose_node(parent, index)
            finally:
                self._depth -= 1
                self._open_anchors.discard(anchor)

    return _BoundedLoader


def read_config_file(path: Path) -> dict[str, Any]:
    where = f"OpenLineage config file {path}"
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_TEXT_BYTES + 1)
        if len(raw) > MAX_TEXT_BYTES:
            raise ConfigError(f"{where}: larger than {MAX_TEXT_BYTES} bytes")
        text = raw.decode("utf-8-sig")
    except OSError as exc:
        raise ConfigError(f"cannot read {where}: {exc.strerror or exc}") from None
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
    if not isinstance(data, dict | None):
        raise ConfigError(f"{path}: the top level must be a mapping, got {type(data).__name__}")
    check_shape(data, where)
    return data or {}
