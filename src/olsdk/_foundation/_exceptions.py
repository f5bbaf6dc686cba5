"""olsdk's exceptions: one tree under `OlsdkError`.

`ValidationError` (input that breaks the spec), `ConfigError` (configuration),
`DeliveryError` (an event that could not be delivered) and `FacetKeyConflict` (two
facet classes for one key). Those that are about a bad value are also `ValueError`s,
as they were before the tree existed, so existing `except ValueError` code still works.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, cast

from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from olsdk._foundation._formats import FORMAT_RULES

# Exceptions users catch name the module they import them from (`olsdk.ConfigError`, not
# `olsdk._foundation._exceptions.ConfigError`) in tracebacks and reprs; pickling finds them there too.
PUBLIC_MODULE = "olsdk"


class OlsdkError(Exception):
    """The root of every exception olsdk raises on purpose."""

    __module__ = PUBLIC_MODULE


@dataclass(frozen=True)
class Problem:
    """One way an event breaks the spec: where (`path`), which rule, and the value found
    there (`value`; None for a missing field). `str(problem)` shows the value too, as
    compact JSON cut to `SHOWN_VALUE_LIMIT` characters, secrets masked."""

    path: str  # e.g. "run.facets.parent.run.runId", "inputs[0].name"
    rule: str  # e.g. "not a UUID", "required field missing"
    value: Any = None

    def __str__(self) -> str:
        text = f"{self.path or '(event)'}: {self.rule}"
        shown = self.shown_value()
        return text if shown is None else f"{text}, got {shown}"

    def shown_value(self) -> str | None:
        """The value as a problem shows it, or None when there is none to show."""
        if self.value is None and not self.rule.startswith("must be"):
            return None  # a missing field, a problem of the whole event: no value to show
        return shown_value(self.value, self.path)


SHOWN_VALUE_LIMIT = 80
"""How many characters of a value a problem shows."""


def shown_value(value: Any, path: str = "") -> str:
    """`value` as compact JSON for a message: never a secret (a value under a secret-looking
    key is `***`; URL passwords and credentials inside are masked), cut to a sensible length."""
    # (Loaded with the first problem shown: `import olsdk` stays the exceptions alone.)
    from olsdk._foundation._secrets import MASK, is_secret_key, scrub

    key = re.split(r"[.\[]", path)[-1] if path else ""
    if key and is_secret_key(key):
        return MASK
    if isinstance(value, Decimal):
        text = str(value)
    elif isinstance(value, float) and not math.isfinite(value):
        text = "a number beyond the range of a 64-bit double" if value == value else "NaN"
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
        except ValueError:  # a structure that refers to itself
            text = repr(value)
    return scrub(text, limit=SHOWN_VALUE_LIMIT)


# A validator's own name in a location: `function-after[<check>(), LineageJobEntry]`,
# `list[str]`, `nullable[int]`. JSON keys of that shape do not occur in the spec.
_VALIDATOR_NAME = re.compile(r"^[a-z][a-z-]*\[.*\]$", re.S)


def union_tag(step: int | str) -> bool:
    """True for the location step pydantic adds to name the union member it tried: a
    model's class name (`InputSubsetInputDatasetFacet`) or a validator's name. It is not
    part of the JSON path."""
    return isinstance(step, str) and (step[:1].isupper() or _VALIDATOR_NAME.match(step) is not None)


def _path(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif out and union_tag(part):
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
        return FORMAT_RULES.get(ctx.get("pattern", ""), f"does not match the pattern {ctx.get('pattern')!r}")
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
    if kind == "float_type" and isinstance(error.get("input"), int) and not isinstance(error.get("input"), bool):
        return DOUBLE_RULE  # an integer too large for the double a number field is held as
    if kind in _JSON_TYPES:
        return f"must be {_JSON_TYPES[kind]}"
    if kind in ("finite_number", "float_parsing"):
        return DOUBLE_RULE
    message = str(error["msg"])
    # Anything else pydantic words as "Input should be ...": the rule in the spec's terms.
    if message.startswith("Input should be "):
        return "must be " + message.removeprefix("Input should be ")
    return message


# pydantic's error types -> JSON Schema's type names (the spec's words).
_JSON_TYPES = {
    "string_type": "string",
    "int_type": "integer",
    "int_from_float": "integer",
    "int_parsing": "integer",
    "float_type": "number",
    "bool_type": "boolean",
    "dict_type": "object",
    "model_type": "object",
    "model_attributes_type": "object",
    "dataclass_type": "object",
    "is_instance_of": "object",
    "list_type": "array",
    "none_required": "null",
}

DOUBLE_RULE = "must be a number within the range of a 64-bit double (about ±1.8e308), which olsdk holds it as"
"""olsdk's documented number limit (docs/how-to/reading-events.md, "Numbers")."""


OTHER_FORM = "olsdk_other_form"
"""The error type of a facet that could have been a deletion marker and is not: the
errors of what it is say what is wrong, so `olsdk.ValidationError` leaves this one out."""

# The union tag of a record's second form: a record built in Python that holds None for
# an optional field (`olsdk._models._runtime`). Where it reports problems, so does the first form
# (`<class name>`), which also refuses the None; the second form's are the ones that apply.
BUILT_TAG = " (built in Python)"


def without_other_forms(errors: list[Any]) -> list[Any]:
    """The errors, less those saying a value is not another form it could have taken
    (see `OTHER_FORM`) when any other error says what is wrong with it, and
    less the first form's errors on a record built in Python (see `BUILT_TAG`)."""
    kept = [error for error in errors if error["type"] != OTHER_FORM] or errors
    built = {
        (tuple(error["loc"][:index]), step[: -len(BUILT_TAG)])
        for error in kept
        if error["type"] != OTHER_FORM
        for index, step in enumerate(error["loc"])
        if isinstance(step, str) and step.endswith(BUILT_TAG)
    }
    if not built:
        return kept
    return [
        error
        for error in kept
        if not any((tuple(error["loc"][:index]), step) in built for index, step in enumerate(error["loc"]))
    ]


_KEYED_RULE = re.compile(r"^facet '(?P<key>[^']+)': (?P<rule>.*)$", re.S)


class ValidationError(OlsdkError, ValueError):
    """Input that does not match the OpenLineage spec.

    `problems` lists each problem with its JSON path and the rule it breaks; the message
    shows them one per line.
    """

    __module__ = PUBLIC_MODULE

    def __init__(self, problems: list[Problem], title: str = "invalid OpenLineage event") -> None:
        self.problems = problems
        self.title = title
        lines = "\n".join(f"  {p}" for p in problems)
        super().__init__(f"{title}: {len(problems)} problem{'s' if len(problems) != 1 else ''}\n{lines}")

    def __reduce__(self) -> tuple[type[ValidationError], tuple[list[Problem], str]]:
        # Picklable (multiprocessing, Spark workers) although __init__ takes the problems.
        return (type(self), (self.problems, self.title))

    @classmethod
    def from_pydantic(
        cls,
        exc: PydanticValidationError,
        title: str = "invalid OpenLineage event",
        *,
        model: type[BaseModel] | None = None,
        leading_tag: str | None = None,
    ) -> ValidationError:
        """The problems of a pydantic error; `model`, when given, names its fields by their
        JSON names; a first location part equal to `leading_tag` (a union tag) is left out."""
        problems: list[Problem] = []
        seen: set[tuple[str, str]] = set()
        for error in without_other_forms(exc.errors(include_url=False)):
            loc = tuple(error["loc"])
            # The event dispatcher adds the event kind (its tag) as the first location part.
            if loc and (loc[0] in (leading_tag, f"{leading_tag}{BUILT_TAG}") or exc.title.startswith("tagged-union")):
                loc = loc[1:]
            if model is not None:
                loc = _json_loc(model, loc)
            for problem in _problems_of(error, _path(loc)):
                if (problem.path, problem.rule) not in seen:
                    seen.add((problem.path, problem.rule))
                    problems.append(problem)
        return cls(problems, title)


def _problems_of(error: Any, path: str) -> list[Problem]:
    nested = (error.get("ctx") or {}).get("error") if error["type"] == "value_error" else None
    if isinstance(nested, ValidationError):
        # A model built inside validation (a custom facet) reported its own problems.
        return [Problem(_join(path, p.path), p.rule, p.value) for p in nested.problems]
    rule = _rule(error)
    # A facet container names the key at fault in its message.
    keyed = _KEYED_RULE.match(rule) if error["type"] == "value_error" else None
    if keyed:
        path, rule = _join(path, keyed["key"]), keyed["rule"]
    # (A missing field has no value: pydantic's input there is the object that lacks it.)
    return [Problem(path, rule, None if error["type"] == "missing" else error.get("input"))]


def _join(path: str, inner: str) -> str:
    if not path or not inner:
        return path or inner
    return path + inner if inner.startswith("[") else f"{path}.{inner}"


def _json_loc(model: type[BaseModel], loc: tuple[int | str, ...]) -> tuple[int | str, ...]:
    """`loc` with the Python names of fields replaced by their JSON names (`producer` -> `_producer`)."""
    out: list[int | str] = []
    models = [model]
    for part in loc:
        field = next((m.model_fields[part] for m in models if isinstance(part, str) and part in m.model_fields), None)
        if field is None:
            out.append(part)
            continue
        out.append(field.alias or str(part))
        models = models_in(field.annotation)
    return tuple(out)


def models_in(annotation: Any) -> list[type[BaseModel]]:
    """The generated classes in an annotation: models, and records (`olsdk._models._runtime._records`:
    dicts that describe their fields in `model_fields` too, and name them in
    `__olsdk_fields__`, which no other class has; this module cannot import them)."""
    if isinstance(annotation, type) and (issubclass(annotation, BaseModel) or hasattr(annotation, "__olsdk_fields__")):
        return [cast("type[BaseModel]", annotation)]
    return [model for arg in getattr(annotation, "__args__", ()) for model in models_in(arg)]


class ConfigError(OlsdkError, ValueError):
    """Invalid OpenLineage configuration; ``key`` is the dotted path at fault."""

    __module__ = PUBLIC_MODULE

    def __init__(self, message: str, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key


class DeliveryError(OlsdkError):
    """An event could not be delivered.

    ``target`` names the transport that failed (useful inside a composite);
    ``retriable`` says whether resending later may succeed; ``partial`` is set by
    a composite when some children received the event and the failure is not
    meant to fail the emit. ``causes`` holds per-child failures. ``attempts`` is how
    many times the transport tried before giving up (its own retries included).
    ``unreachable`` says the backend could not be reached at all (refused, timed out,
    unresolvable), as opposed to an answer that refused the event.
    """

    __module__ = PUBLIC_MODULE

    def __init__(
        self,
        reason: str,
        *,
        target: str | None = None,
        retriable: bool = True,
        partial: bool = False,
        causes: Sequence[DeliveryError] = (),
        attempts: int = 1,
        unreachable: bool = False,
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.target = target
        self.retriable = retriable
        self.partial = partial
        self.causes = tuple(causes)
        self.attempts = attempts
        self.unreachable = unreachable
        #: how a background retry may continue this delivery (the transport's own retry state)
        self.resume: object | None = None
        #: the failing transport already told its circuit breaker
        self.counted = False

    def leaves(self) -> tuple[DeliveryError, ...]:
        """The individual failures (one per failed child transport)."""
        if not self.causes:
            return (self,)
        return tuple(leaf for cause in self.causes for leaf in cause.leaves())


class FacetKeyConflict(OlsdkError, ValueError):
    """Two facet classes claim the same key for the same entity."""

    __module__ = PUBLIC_MODULE
