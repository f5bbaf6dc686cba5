"""`olsdk.validate_event`: every problem of an event, with its JSON path, no objects built.

The engine is jsonschema-rs over the spec's own schema documents (shipped with the
generated models, `olsdk._models._generated._schemas`), rewritten once into the exact contract
the strict parser implements:

- each facet map (`run.facets`, `inputs[].inputFacets`, the parent facet's maps, ...)
  checks every key a facet file declares against that file's schema for its entity
  (the generated `FACET_KEYS` and `SCHEMA_URLS`), and any other key against the
  entity's base facet, as the core schema does; a deletion marker (`_deleted: true`)
  under a job or dataset facet key is checked as the base facet (job and dataset
  facets are the ones the spec lets be deleted);
- `format`s become olsdk's exact patterns (`olsdk._foundation._formats`), the same the parser
  checks, so both read `2024-02-30T...` and `file` alike; a date-time with second 60
  is a leap second only at 23:59:60 UTC (`_formats.exact_datetime_pattern`: every
  local time listed with its two offsets, no Python called while validating);
- the event kinds' `oneOf` is decided the way `parse_event` decides it, so a problem is
  reported where it is (`run.runId`), not as "matches no branch" at the root.

Facets under keys with a custom class in the facet registry (the default one, or the
one given) are checked by that class (pydantic), as parsing checks them. The verdict
equals strict parsing's: the list is empty exactly when `olsdk.parse_event(data)`
accepts `data`.
"""

from __future__ import annotations

import copy
import functools
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from pydantic import ValidationError as PydanticValidationError

from olsdk._foundation import _registry
from olsdk._foundation._exceptions import DOUBLE_RULE, Problem, ValidationError
from olsdk._foundation._formats import DATETIME_PATTERN, FORMAT_PATTERNS, FORMAT_RULES, exact_datetime_pattern
from olsdk._models import FACET_KEYS
from olsdk._models._spec import ENTITIES, EVENT_CLASSES, EventKind, event_kind
from olsdk._readers._strict import _candidates
from olsdk._readers._wire import JSONProblem, check_data, decode_exact, exact_numbers

__all__ = ["unchecked_facet_keys", "validate_document", "validate_event"]


def validate_event(
    data: str | bytes | bytearray | Mapping[str, Any], *, registry: _registry.FacetRegistry | None = None
) -> list[Problem]:
    """Every way `data` (event JSON text, bytes or a decoded dict) breaks the spec.

    Each `Problem` has the JSON path (`inputs[0].facets.dataSource.uri`; for a missing
    property the path ends in it: `outputs[0].facets.columnLineage._producer`) and the
    rule in words. Empty exactly when `olsdk.parse_event(data)` accepts `data`. For an
    event read with `parse_event(data, strict=False)`, these are its problems.
    `registry`: the custom facet classes that check their keys, as for `parse_event`.
    """
    if not isinstance(data, str | bytes | bytearray | Mapping):
        raise TypeError(f"validate_event() takes JSON text, bytes or a dict, not {type(data).__name__}")
    try:
        if isinstance(data, Mapping):
            check_data(data)
            document: Any = data
        else:
            document = decode_exact(data)  # numbers as written: `1e-400` is no integer
    except JSONProblem as exc:
        return [exc.problem]
    return validate_document(document, registry)


def validate_document(document: Any, registry: _registry.FacetRegistry | None = None) -> list[Problem]:
    """`validate_event` for decoded JSON already checked to be JSON (no NaN, depth...)."""
    registry = registry or _registry.DEFAULT
    custom = registry.custom()
    return _engine().problems(document, custom)


def unchecked_facet_keys(document: Any, registry: _registry.FacetRegistry | None = None) -> set[tuple[str, str]]:
    """(entity, key) of each facet in `document` that no class checks: neither the spec
    nor `registry` (default: the default registry) has a class for its key, so it is
    checked as its entity's base facet only."""
    registry = registry or _registry.DEFAULT
    if not isinstance(document, dict):
        return set()
    kinds = _candidates(document) or [kind for kind in [event_kind(document)] if kind is not None]
    found: set[tuple[str, str]] = set()
    for kind in kinds:
        for _path, entity, facets in _facet_maps(document, kind):
            for key, value in facets.items():
                if isinstance(value, dict) and value.get("_deleted") is True:
                    continue  # a deletion marker: no class is meant to check it
                if (entity, key) not in FACET_KEYS and registry.lookup(entity, key) is None:
                    found.add((entity, key))
    return found


# ---------------------------------------------------------------- the engine


class _Lazy(dict[EventKind, Any]):
    """Event kind -> its validator, made on first use."""

    def __init__(self, make: Callable[[EventKind], Any]) -> None:
        super().__init__()
        self.make = make

    def __missing__(self, kind: EventKind) -> Any:
        made = self[kind] = self.make(kind)
        return made


class _Engine:
    def __init__(self) -> None:
        import jsonschema_rs

        from olsdk._models._generated._schemas import DOCUMENTS

        documents = _exact_documents(DOCUMENTS)
        core_id = next(iter(cls.__olsdk_core_id__ for cls in EVENT_CLASSES.values()))
        registry = jsonschema_rs.Registry(list(documents.items()))

        def validator(kind: EventKind) -> Any:
            return jsonschema_rs.Draft202012Validator(
                {"$ref": f"{core_id}#/$defs/{EVENT_CLASSES[kind].__name__}"}, registry=registry
            )

        # One validator per event kind (`problems` decides the spec's oneOf itself), built
        # when first needed: each compiles the date-time pattern (tens of milliseconds).
        self.by_kind = _Lazy(validator)

    def problems(self, document: Any, custom: Mapping[tuple[str, str], Any]) -> list[Problem]:
        if not isinstance(document, dict):
            return [Problem("", "not a JSON object: an event is a JSON object")]
        candidates = _candidates(document)
        if len(candidates) == 1:
            # The usual case (a run event has no `dataset`): one branch of the oneOf applies.
            kind = candidates[0]
            if self.by_kind[kind].is_valid(document):
                return self.custom_problems(document, kind, custom) if custom else []
            return self.kind_problems(document, kind, custom)
        if not candidates:
            primary = event_kind(document)
            if primary is None:
                return [
                    Problem("", "not an OpenLineage event: a RunEvent has 'run' and 'job', a DatasetEvent 'dataset'")
                ]
            candidates = [primary]
        found = {kind: self.kind_problems(document, kind, custom) for kind in candidates}
        valid = [kind for kind, problems in found.items() if not problems]
        if len(valid) > 1:
            names = " and ".join(EVENT_CLASSES[kind].__name__ for kind in valid)
            return [Problem("", f"valid as both {names}; an event must be exactly one kind (the spec's oneOf)")]
        if valid:
            return []
        return found[candidates[0]]

    def kind_problems(
        self, document: dict[str, Any], kind: EventKind, custom: Mapping[tuple[str, str], Any]
    ) -> list[Problem]:
        problems = [_problem(error, document) for error in self.by_kind[kind].iter_errors(document)]
        if custom:
            problems += self.custom_problems(document, kind, custom)
        return _unique(problems)

    def custom_problems(
        self, document: dict[str, Any], kind: EventKind | None, custom: Mapping[tuple[str, str], Any]
    ) -> list[Problem]:
        """Facets under keys with a custom class in the registry, checked by that class."""
        problems: list[Problem] = []
        for path, entity, facets in _facet_maps(document, kind):
            for key, value in facets.items():
                facet_class = custom.get((entity, key))
                if facet_class is None or not isinstance(value, dict):
                    continue
                if value.get("_deleted") is True:
                    continue  # a marker: a DeletedFacet, not the class
                try:
                    _check_registered(facet_class, value)
                except PydanticValidationError as exc:
                    where = f"{path}.{key}"
                    for problem in ValidationError.from_pydantic(exc, model=facet_class).problems:
                        rule = f"{problem.rule} (the facet class registered for this key)"
                        problems.append(Problem(_join(where, problem.path), rule, problem.value))
        return problems


def _check_registered(facet_class: Any, value: dict[str, Any]) -> None:
    """`facet_class` checks `value`; a decimal read from JSON text (`3.0` for an integer
    field) is given to it as the models take it, on a second try only (a copy costs)."""
    try:
        facet_class.model_validate(value)
    except PydanticValidationError:
        facet_class.model_validate(exact_numbers(copy.deepcopy(value)))


_lock = threading.Lock()


@functools.cache
def _engine() -> _Engine:
    with _lock:
        return _Engine()


# ---------------------------------------------------------------- the schema rewrite

# From here on a decimal rounds to no double: the largest double plus half a unit in its
# last place. A `number` field (held as a double) must stay below it.
DOUBLE_LIMIT = 2**1024 - 2**970


def _exact_documents(documents: Mapping[str, Any]) -> dict[str, Any]:
    """The spec's documents rewritten into what the strict parser checks (see module doc)."""
    rewrite = _Rewrite()
    return {doc_id: rewrite.walk(doc) for doc_id, doc in copy.deepcopy(dict(documents)).items()}


class _Rewrite:
    """The rewrite of `_exact_documents`: facet maps by key, formats as patterns, numbers
    within a double."""

    def __init__(self) -> None:
        self.bases = {entity.base.__name__: entity for entity in ENTITIES}
        self.urls = {entity.name: entity.base.__olsdk_schema_url__ for entity in ENTITIES}
        self.keys: dict[str, dict[str, str]] = {}
        for (entity_name, key), facet_class in FACET_KEYS.items():
            url = getattr(facet_class, "__olsdk_schema_url__", None)
            if url:
                self.keys.setdefault(entity_name, {})[key] = url
        self.deletable = {entity.name for entity in ENTITIES if "deleted" in entity.base.model_fields}

    def facet_map(self, entity_name: str) -> dict[str, Any]:
        base = {"$ref": self.urls[entity_name]}
        properties: dict[str, Any] = {}
        for key, url in sorted(self.keys.get(entity_name, {}).items()):
            if entity_name in self.deletable:
                marker = {"properties": {"_deleted": {"const": True}}, "required": ["_deleted"]}
                properties[key] = {"if": marker, "then": base, "else": {"$ref": url}}
            else:
                properties[key] = {"$ref": url}
        return {"type": "object", "properties": properties, "additionalProperties": base}

    def entity_of_map(self, node: dict[str, Any]) -> str | None:
        # The spec writes a facet map as {"type": "object", "anyOf": [{"type": "object",
        # "additionalProperties": {"$ref": ".../RunFacet"}}]} (or without the anyOf).
        inner = node
        if isinstance(node.get("anyOf"), list) and len(node["anyOf"]) == 1 and isinstance(node["anyOf"][0], dict):
            inner = node["anyOf"][0]
        extra = inner.get("additionalProperties")
        if isinstance(extra, dict) and isinstance(extra.get("$ref"), str) and "properties" not in inner:
            entity = self.bases.get(extra["$ref"].rsplit("/", 1)[-1])
            return entity.name if entity is not None else None
        return None

    def walk(self, node: Any) -> Any:
        if isinstance(node, list):
            return [self.walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        entity_name = self.entity_of_map(node)
        if entity_name is not None:
            rewritten = self.facet_map(entity_name)
            if "description" in node:
                rewritten["description"] = node["description"]
            return rewritten
        return _exact_scalar({key: self.walk(value) for key, value in node.items()})


def _exact_scalar(result: dict[str, Any]) -> dict[str, Any]:
    """A schema node's number bounds and string formats as the parser checks them."""
    fmt = result.get("format")
    if result.get("type") == "number":
        # olsdk holds a number as a double: beyond one is its documented limit.
        result.setdefault("exclusiveMaximum", DOUBLE_LIMIT)
        result.setdefault("exclusiveMinimum", -DOUBLE_LIMIT)
    if isinstance(fmt, str) and fmt in FORMAT_PATTERNS and result.get("type") == "string":
        del result["format"]
        result["pattern"] = exact_datetime_pattern() if fmt == "date-time" else FORMAT_PATTERNS[fmt]
    return result


# ---------------------------------------------------------------- errors -> problems


def _path(parts: Any) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _join(path: str, inner: str) -> str:
    if not path or not inner:
        return path or inner
    return path + inner if inner.startswith("[") else f"{path}.{inner}"


def _problem(error: Any, document: Any) -> Problem:
    kind = error.kind
    name = type(kind).__name__
    path = _path(_with_empty_keys(document, list(error.instance_path), error.instance))
    value = error.instance
    if name == "Required":
        return Problem(_join(path, str(kind.property)), "required field missing")
    if name == "Pattern":
        pattern = DATETIME_PATTERN if kind.pattern == exact_datetime_pattern() else kind.pattern
        return Problem(path, FORMAT_RULES.get(pattern, f"does not match the pattern {pattern!r}"), value)
    if name in ("ExclusiveMaximum", "ExclusiveMinimum") and abs(getattr(kind, "limit", 0)) == DOUBLE_LIMIT:
        return Problem(path, DOUBLE_RULE, value)
    rules: dict[str, Callable[[], str]] = {
        "Type": lambda: f"must be {_types(kind)}",
        "Enum": lambda: f"must be one of {', '.join(map(repr, kind.options))}",
        "Constant": lambda: f"must be {kind.expected_value!r}",
        "AdditionalProperties": lambda: f"unknown field {', '.join(map(repr, kind.unexpected))} (not allowed here)",
        "OneOfNotValid": lambda: "matches none of the forms the spec allows here (oneOf)",
        "OneOfMultipleValid": lambda: "matches more than one of the forms the spec allows here (oneOf)",
        "AnyOf": lambda: "matches none of the forms the spec allows here (anyOf)",
    }
    rule = rules.get(name)
    try:
        return Problem(path, rule() if rule is not None else str(error.message), value)
    except AttributeError:  # an older jsonschema-rs without that attribute: its own words
        return Problem(path, str(error.message), value)


def _with_empty_keys(document: Any, parts: list[Any], instance: Any) -> list[Any]:
    """`parts` with the empty-string keys jsonschema-rs leaves out of its instance paths.

    A key `""` is legal JSON (and the spec's open maps allow it); without it the path
    would name the parent. Only searched when the path does not lead to the instance.
    """
    node = document
    for part in parts:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            break
    else:
        if node == instance:
            return parts

    def search(node: Any, rest: list[Any], done: list[Any]) -> list[Any] | None:
        if not rest and node == instance:
            return done
        if isinstance(node, dict) and "" in node:
            found = search(node[""], rest, [*done, ""])
            if found is not None:
                return found
        if rest:
            part = rest[0]
            try:
                child = node[part]
            except (KeyError, IndexError, TypeError):
                return None
            return search(child, rest[1:], [*done, part])
        return None

    return search(document, parts, []) or parts


def _types(kind: Any) -> str:
    types = getattr(kind, "types", None)
    if isinstance(types, list | tuple) and types:
        return " or ".join(str(t) for t in types)
    return str(types)


def _unique(problems: list[Problem]) -> list[Problem]:
    seen: set[tuple[str, str]] = set()
    out = []
    for problem in problems:
        if (problem.path, problem.rule) not in seen:
            seen.add((problem.path, problem.rule))
            out.append(problem)
    return out


def _facet_maps(document: dict[str, Any], kind: EventKind | None) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(path, entity, facet map) of every facet map in the document, the parent facet's too."""
    from olsdk._models._spec import facet_places

    if kind is None:
        return
    for place, entity in facet_places(kind):
        owner_path, _, field = place.rpartition(".")
        for path, owner in _resolve(document, owner_path):
            facets = owner.get(field) if isinstance(owner, dict) else None
            if isinstance(facets, dict):
                yield f"{path}.{field}" if path else field, entity.name, facets
                if entity.name == "run":
                    yield from _parent_maps(facets, f"{path}.{field}" if path else field)


def _parent_maps(run_facets: dict[str, Any], path: str) -> Iterator[tuple[str, str, dict[str, Any]]]:
    parent = run_facets.get("parent")
    if not isinstance(parent, dict):
        return
    for owner_path, owner in (("parent", parent), ("parent.root", parent.get("root"))):
        if not isinstance(owner, dict):
            continue
        for part, entity in (("run", "run"), ("job", "job")):
            holder = owner.get(part)
            facets = holder.get("facets") if isinstance(holder, dict) else None
            if isinstance(facets, dict):
                where = f"{path}.{owner_path}.{part}.facets"
                yield where, entity, facets
                if entity == "run":
                    yield from _parent_maps(facets, where)


def _resolve(document: Any, path: str) -> Iterator[tuple[str, Any]]:
    """Nodes at a place path such as `inputs[]` or `run` (`[]`: every item of a list)."""
    nodes: list[tuple[str, Any]] = [("", document)]
    for part in path.split(".") if path else []:
        every = part.endswith("[]")
        key = part.removesuffix("[]")
        following: list[tuple[str, Any]] = []
        for where, node in nodes:
            value = node.get(key) if isinstance(node, dict) else None
            here = f"{where}.{key}" if where else key
            if every:
                if isinstance(value, list):
                    following.extend((f"{here}[{i}]", item) for i, item in enumerate(value))
            elif value is not None:
                following.append((here, value))
        nodes = following
    return iter(nodes)
