"""olsdk's validation error: every problem as `<JSON path>: <rule>`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError as PydanticValidationError

from olsdk._runtime import PATTERN_RULES


@dataclass(frozen=True)
class Problem:
    path: str  # e.g. "run.facets.parent.run.runId", "inputs[0].name"
    rule: str  # e.g. "not a UUID", "required field missing"
    value: Any = None

    def __str__(self) -> str:
        return f"{self.path or '(event)'}: {self.rule}"


def _path(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part and part[0].isupper() and out:
            # pydantic names the union member it tried (e.g. 'InputSubsetInputDatasetFacet');
            # that is not part of the JSON path.
            continue
        else:
            out += ("." if out else "") + part
    return out


def _rule(error: Any) -> str:
    kind = error["type"]
    ctx = error.get("ctx") or {}
    if kind == "missing":
        return "required field missing"
    if kind == "string_pattern_mismatch":
        return PATTERN_RULES.get(ctx.get("pattern", ""), f"does not match the pattern {ctx.get('pattern')!r}")
    if kind == "enum":
        return f"must be one of {ctx.get('expected', '')}"
    if kind == "literal_error":
        return f"must be {ctx.get('expected', '')}"
    if kind == "extra_forbidden":
        return "unknown field (the spec does not allow extra fields here)"
    if kind == "json_invalid":
        return f"not valid JSON ({ctx.get('error', '')})"
    if kind == "value_error":
        return str(ctx.get("error", error["msg"]))
    if kind.endswith("_type"):
        return f"must be {kind[: -len('_type')].replace('_', ' ')}; {error['msg'][0].lower()}{error['msg'][1:]}"
    return str(error["msg"])


_KEYED_RULE = re.compile(r"^facet '(?P<key>[^']+)': (?P<rule>.*)$", re.S)


class ValidationError(ValueError):
    """Input that does not match the OpenLineage spec.

    `problems` lists each problem with its JSON path and the rule it breaks; the message
    shows them one per line.
    """

    def __init__(self, problems: list[Problem], title: str = "invalid OpenLineage event") -> None:
        self.problems = problems
        lines = "\n".join(f"  {p}" for p in problems)
        super().__init__(f"{title}: {len(problems)} problem{'s' if len(problems) != 1 else ''}\n{lines}")

    @classmethod
    def from_pydantic(cls, exc: PydanticValidationError, title: str = "invalid OpenLineage event") -> ValidationError:
        problems: list[Problem] = []
        seen: set[tuple[str, str]] = set()
        for error in exc.errors(include_url=False):
            loc = tuple(error["loc"])
            # The event dispatcher adds the event kind as the first location part.
            if loc and loc[0] in ("run", "dataset", "job") and exc.title.startswith("tagged-union"):
                loc = loc[1:]
            path, rule = _path(loc), _rule(error)
            # A facet container names the key at fault in its message.
            keyed = _KEYED_RULE.match(rule) if error["type"] == "value_error" else None
            if keyed:
                path, rule = (f"{path}.{keyed['key']}" if path else keyed["key"]), keyed["rule"]
            problem = Problem(path, rule, error.get("input"))
            if (problem.path, problem.rule) not in seen:
                seen.add((problem.path, problem.rule))
                problems.append(problem)
        return cls(problems, title)
