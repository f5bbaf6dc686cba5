"""Documents a user hands olsdk: event files and folders of them, and (read within limits) an
``openlineage.yml`` or JSON text in a variable.

A broken or hostile document fails with an error saying which limit it passed, never by exhausting
memory or the stack: at most 1 MiB of text and 32 levels of nesting; YAML with at most 100 aliases,
none referring to a node that contains it; and at most 10,000 values once every alias is expanded
(a few hundred bytes of nested aliases otherwise expand to billions). PyYAML is imported only when
a YAML document is read.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from olsdk._foundation._exceptions import ConfigError

__all__ = ["EVENT_FILE_SUFFIXES", "MAX_DEPTH", "MAX_TEXT_BYTES", "check_shape", "event_files", "json_text"]
__all__ += ["read_yaml_file"]

MAX_DEPTH = 32  # nesting levels of a configuration document; a real one needs fewer than 10
MAX_NODES = 10_000  # values, counting every alias expansion; a real configuration has a few hundred
MAX_TEXT_BYTES = 1_048_576  # an openlineage.yml or a JSON variable
MAX_ALIASES = 100
# the files a folder given to `validate`, `send`, `graph` or `inspect` contributes
EVENT_FILE_SUFFIXES = (".json", ".ndjson", ".jsonl")


def event_files(path: Path) -> list[Path]:
    """The event files a folder holds (recursively, in name order), or the file itself."""
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.is_file() and p.name.lower().endswith(EVENT_FILE_SUFFIXES))
    return [path]


def _no_constant(name: str) -> Any:
    raise ValueError(f"the JSON text holds {name}, which is not JSON")


def json_text(value: str) -> Any:
    """JSON text given for a section; a ValueError never echoes the text (it may hold secrets)."""
    if len(value) > MAX_TEXT_BYTES:
        raise ValueError(f"JSON text of {len(value)} characters, over the limit of {MAX_TEXT_BYTES}")
    try:
        data = json.loads(value, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        where = f"{exc.msg} at line {exc.lineno} column {exc.colno}"
        raise ValueError(f"expected a mapping or JSON text; the text is not valid JSON ({where})") from None
    except RecursionError:
        raise ValueError(f"JSON text nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:
        raise ValueError(f"expected a mapping or JSON text; {exc}") from None
    check_shape(data, "the JSON text")
    return data


def check_shape(data: Any, what: str = "configuration") -> None:
    """Refuse documents nested deeper than MAX_DEPTH, holding a cycle (a recursive YAML
    alias) or expanding to more than MAX_NODES values (an alias bomb); ConfigError."""
    sizes: dict[int, int] = {}
    ancestors: set[int] = set()

    def size(node: Any, depth: int) -> int:
        if not isinstance(node, dict | list | tuple):
            return 1
        if id(node) in ancestors:
            raise ConfigError(f"{what} refers to itself (a recursive alias)")
        if id(node) not in sizes:
            if depth > MAX_DEPTH:
                raise ConfigError(f"{what} is nested deeper than {MAX_DEPTH} levels")
            ancestors.add(id(node))
            sizes[id(node)] = 1 + sum(size(c, depth + 1) for c in (node.values() if isinstance(node, dict) else node))
            ancestors.discard(id(node))
            if sizes[id(node)] > MAX_NODES:
                raise ConfigError(f"{what} expands to more than {MAX_NODES} values (aliases included)")
        return sizes[id(node)]

    size(data, 0)


@functools.cache
def _loader_class() -> type[Any]:
    """PyYAML's safe loader refusing deep nesting, many aliases and recursive ones."""
    import yaml

    class _BoundedLoader(yaml.SafeLoader):
        depth = aliases = 0
        open_anchors: frozenset[str] = frozenset()

        def compose_node(self, parent: Any, index: Any) -> Any:
            event = self.peek_event()  # type: ignore[no-untyped-call]
            line, anchor = event.start_mark.line + 1 if event.start_mark else 0, getattr(event, "anchor", None)
            if isinstance(event, yaml.AliasEvent):
                self.aliases += 1
                if self.aliases > MAX_ALIASES:
                    raise ConfigError(f"more than {MAX_ALIASES} aliases (line {line})")
                if anchor in self.open_anchors:
                    raise ConfigError(f"alias *{anchor} refers to a node that contains it (line {line})")
                return super().compose_node(parent, index)
            if self.depth >= MAX_DEPTH:
                raise ConfigError(f"nested deeper than {MAX_DEPTH} levels (line {line})")
            outer = self.open_anchors
            self.depth += 1
            self.open_anchors = outer | {anchor} if anchor else outer
            try:
                return super().compose_node(parent, index)
            finally:
                self.depth, self.open_anchors = self.depth - 1, outer

    return _BoundedLoader


def read_yaml_file(path: Path, what: str) -> Any:
    """The YAML document at ``path`` (``what`` names it in errors), within the limits but for
    the count of values (``check_shape``, once the caller has looked at the top level); ConfigError."""
    import yaml

    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_TEXT_BYTES + 1)
        if len(raw) > MAX_TEXT_BYTES:
            raise ConfigError(f"larger than {MAX_TEXT_BYTES} bytes")
        loader = _loader_class()(raw.decode("utf-8-sig"))
        try:
            data = loader.get_single_data()
        finally:
            loader.dispose()
    except OSError as exc:
        raise ConfigError(f"cannot read {what}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{what}: not valid UTF-8 (byte {exc.start}: {raw[exc.start : exc.start + 1]!r})") from None
    except ConfigError as exc:
        raise ConfigError(f"{what}: {exc}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"cannot read {what}: {exc}") from None
    return data
