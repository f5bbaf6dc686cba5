"""The Java agent's expected events (``tests/spark/agent_reference``), matched partially.

The agent's own tests compare events with templates that name only what they check;
``${json-unit.regex}...`` matches by regular expression, ``${json-unit.any-string}``
any string, ``${json-unit.ignore}`` anything. ``mismatches`` lists where an event
differs, so a failing test says which field and why.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

# A copy of ../shared/spark-agent-reference (see its README.md): the tests need no outside folder.
REFERENCE = Path(__file__).resolve().parent / "agent_reference"


def template(name: str, replace: dict[str, str] | None = None) -> Any:
    """A reference template, with literal text replaced (the agent's app names by ours)."""
    text = (REFERENCE / name).read_text()
    for old, new in (replace or {}).items():
        text = text.replace(old, new)
    return json.loads(text)


def mismatches(actual: Any, expected: Any, path: str = "$", skip: frozenset[str] = frozenset()) -> list[str]:
    """Where ``actual`` does not match the partial template ``expected`` (empty: it matches).

    Lists match when every template item matches some actual item (order aside).
    ``skip`` holds JSON paths (``$.outputs[0].facets.dataSource.uri``) left unchecked.
    """
    if path in skip:
        return []
    if isinstance(expected, str) and expected.startswith("${json-unit."):
        if expected == "${json-unit.ignore}":
            return []
        if expected == "${json-unit.any-string}":
            return [] if isinstance(actual, str) else [f"{path}: want a string, got {actual!r}"]
        pattern = expected[len("${json-unit.regex}") :]
        return [] if isinstance(actual, str) and re.fullmatch(pattern, actual) else [f"{path}: {actual!r} !~ {pattern}"]
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{path}: want an object, got {actual!r}"]
        out: list[str] = []
        for key, value in expected.items():
            if key not in actual:
                if f"{path}.{key}" not in skip:
                    out.append(f"{path}.{key}: missing")
                continue
            out.extend(mismatches(actual[key], value, f"{path}.{key}", skip))
        return out
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return [f"{path}: want a list, got {actual!r}"]
        out = []
        for i, item in enumerate(expected):
            tried = [mismatches(a, item, f"{path}[{i}]", skip) for a in actual]
            if not any(not t for t in tried):
                out.append(f"{path}[{i}]: no item matches; closest: {min(tried, key=len) if tried else 'empty list'}")
        return out
    return [] if actual == expected else [f"{path}: {actual!r} != {expected!r}"]
