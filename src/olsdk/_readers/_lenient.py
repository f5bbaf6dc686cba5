"""The tolerant reader: `olsdk.parse_event(data, strict=False)`.

Producers break the spec in small ways (a Spark `dataSource.uri` of `"file"`, a naive
`eventTime`, a facet without `_producer`); a service reading a lineage topic must still
read those events. This reader accepts every valid event, and every invalid one whose
*identity* is usable, keeping everything else as it was sent, so the event dumps back to
the same JSON:

- identity: run events need `run.runId`, `job.namespace` and `job.name`; dataset events
  `dataset.namespace` and `dataset.name`; job events `job.namespace` and `job.name`;
  each a non-empty string. Otherwise `olsdk.ValidationError` (the only exception this
  reader raises) names the field.
- a value that breaks its format (uuid, uri, date-time) stays the wire string, in its
  typed place (`facets.dataSource.uri == "file"` on a `DatasourceDatasetFacet`);
- a missing required field (the top-level `schemaURL`, a facet's `_producer` or
  `_schemaURL`, ...) is tolerated: the field reads `None` and is not dumped;
- a facet that fails its schema otherwise stays verbatim (the decoded JSON object)
  under its key, in the facet map's extra keys: `facets["columnLineage"]` and
  `facets.columnLineage` both give that dict;
- any other value of the wrong type outside facets stays as sent, held in its model's
  extra keys under its JSON name, where attribute access finds it too.

What is valid is typed exactly as strict parsing types it: strict parsing is tried
first, and the repairs below start from its errors. JSON itself is not negotiable:
text that is not JSON, NaN/Infinity, lone surrogates and documents nested too deeply
are refused in both modes (`olsdk._readers._wire`).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any, get_args, get_origin

from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from olsdk._foundation._exceptions import Problem, ValidationError, union_tag, without_other_forms
from olsdk._foundation._formats import DATETIME_PATTERN, URI_PATTERN, UUID_PATTERN
from olsdk._models._runtime import FacetContainer, _Format, _models_in
from olsdk._models._runtime._pydantic import hold_extra, unset_field
from olsdk._models._spec import EVENT_CLASSES, EventKind, event_kind
from olsdk._readers._strict import _candidates, parse_strict
from olsdk._readers._wire import JSONProblem, WholeNumber, check_data, decode_exact, exact_numbers

__all__ = ["identity_problem", "parse_lenient"]

# Facet maps sit under these fields (core: Run, Job, Dataset, InputDataset, OutputDataset,
# and the parent facet's run and job); the first one on an error's path is where the
# facet the error belongs to starts.
_FACET_MAP_FIELDS = frozenset({"facets", "inputFacets", "outputFacets"})
_FACET_BASE_FIELDS = frozenset({"_producer", "_schemaURL"})
_FORMAT_ERRORS = frozenset({"string_pattern_mismatch", "string_format"})
_PLACEHOLDERS = {
    UUID_PATTERN: "00000000-0000-0000-0000-000000000000",
    URI_PATTERN: "urn:olsdk:placeholder",
    DATETIME_PATTERN: "1970-01-01T00:00:00Z",
}
_KEYED = re.compile(r"^(?:Value error, )?facet '(?P<key>[^']+)': ")
_MAX_ROUNDS = 20

Loc = tuple[str | int, ...]


def _text(value: Any) -> bool:
    return isinstance(value, str) and value != ""


def _json_type(value: Any) -> str:
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "null" if value is None else type(value).__name__


def identity_problem(document: Any) -> Problem | None:
    """Why `document` (decoded JSON) has no usable identity, or None when it has one."""
    return _identity(document)[1]


_IDENTITY: dict[EventKind, tuple[tuple[str, str], ...]] = {
    "run": (("run", "runId"), ("job", "namespace"), ("job", "name")),
    "dataset": (("dataset", "namespace"), ("dataset", "name")),
    "job": (("job", "namespace"), ("job", "name")),
}


def _identity(document: Any) -> tuple[EventKind | None, Problem | None]:
    """The event kind to read `document` as, and why it has no usable identity (or None).

    The kinds tried are the spec's oneOf branches whose required keys the document has
    (`olsdk._readers._strict._candidates`), in that order: `{"run": {...}, "dataset": {...}}`
    (no `job`) is a DatasetEvent, whose identity is its dataset.
    """
    if not isinstance(document, Mapping):
        return None, Problem("", f"not a JSON object (a JSON {_json_type(document)})", document)
    kinds = _candidates(dict(document))
    primary = event_kind(document)
    if primary is not None and primary not in kinds:
        kinds.append(primary)
    if not kinds:
        return None, Problem(
            "",
            "not an OpenLineage event: no run, job or dataset "
            "(a RunEvent has 'run' and 'job', a DatasetEvent 'dataset', a JobEvent 'job')",
        )
    first: Problem | None = None
    for kind in kinds:
        problem = _kind_identity_problem(document, kind)
        if problem is None:
            return kind, None
        first = first or problem
    return kinds[0], first


def _kind_identity_problem(document: Mapping[str, Any], kind: EventKind) -> Problem | None:
    for owner, key in _IDENTITY[kind]:
        holder = document.get(owner)
        if not isinstance(holder, Mapping):
            return Problem(owner, "missing or not an object (needed to identify the event)", holder)
        if not _text(holder.get(key)):
            return Problem(
                f"{owner}.{key}", "missing or not a non-empty string (needed to identify the event)", holder.get(key)
            )
    return None


def parse_lenient(data: str | bytes | bytearray | Mapping[str, Any], *, context: Any = None) -> Any:
    # A valid event is read as strict parsing reads it (from the same bytes, so the same
    # numbers), whatever its identity looks like.
    if isinstance(data, str | bytes | bytearray):
        try:
            return parse_strict(data, context=context)
        except ValidationError:
            pass
    try:
        if isinstance(data, Mapping):
            check_data(data)
            document: Any = dict(data)
        else:
            # Numbers as strict parsing reads them: an integer exactly; a decimal no double
            # says right stays one (an integer field refuses it; what is kept is `_plain`).
            document = exact_numbers(decode_exact(data), keep_inexact=True)
    except JSONProblem as exc:
        raise ValidationError([exc.problem]) from None
    if isinstance(data, Mapping) and isinstance(document, dict):
        try:
            return parse_strict(document, context=context)
        except ValidationError:
            pass
    kind, problem = _identity(document)
    if problem is not None or kind is None:
        raise ValidationError([problem or Problem("", "not an OpenLineage event")], title="unusable OpenLineage event")
    return _Repair(EVENT_CLASSES[kind], document, context).run()


class _Repair:
    """Validate a working copy, repairing it where strict validation fails, then put
    back into the typed event what was sent at each repaired place."""

    def __init__(self, cls: type[BaseModel], document: dict[str, Any], context: Any = None) -> None:
        self.cls = cls
        self.context = context
        self.original = document
        self.work = copy.deepcopy(document)
        self.wire_strings: dict[Loc, str] = {}  # value kept as sent, in its typed place
        self.unset: set[Loc] = set()  # required field the sender left out
        self.held: dict[Loc, Any] = {}  # value kept verbatim in its parent's extra keys
        self.list_items: dict[Loc, Any] = {}  # list item kept verbatim

    def run(self) -> Any:
        for _ in range(_MAX_ROUNDS):
            try:
                event = self.cls.model_validate(self.work, context=self.context)
            except PydanticValidationError as exc:
                # "Not a deletion marker" errors: the facet's own errors say what to repair.
                errors = without_other_forms(exc.errors(include_url=False))
                if not self.repair(errors):
                    raise ValidationError.from_pydantic(exc) from None
                continue
            self.restore(event)
            return event
        raise ValidationError([Problem("", "too many problems to read the event leniently")])  # pragma: no cover

    # -- deciding ----------------------------------------------------------------------

    def repair(self, errors: list[Any]) -> bool:
        """Change the working copy so that these errors go away; False when one cannot."""
        changed = False
        # Locations first: the repairs below change the working copy they are read from.
        located = [(self.json_loc(tuple(error["loc"])), error) for error in errors]
        done: list[Loc] = []
        for loc, error in located:
            if loc is None:
                return False
            # A value one union member after another refused gives an error each (`x` is
            # not an object, not a string, ...): the first repair of a place is the one.
            if any(loc[: len(place)] == place for place in done):
                continue
            done.append(loc)
            facet = self.facet_of(loc, error)
            if facet is not None:
                changed |= self.repair_in_facet(facet, loc, error)
            else:
                changed |= self.repair_outside(loc, error)
        return changed

    def json_loc(self, loc: Loc) -> Loc | None:
        """The error's location as JSON keys and indexes (union member tags left out)."""
        out: list[str | int] = []
        node: Any = self.work
        for step in loc:
            if _has_step(node, step):
                node = node[step]
            elif union_tag(step) or (isinstance(step, str) and not isinstance(node, dict | list)):
                continue  # pydantic names the union member it tried (`x.int`: `x` is no int)
            elif isinstance(node, dict) and isinstance(step, str):
                out.append(step)  # a missing key: the last step
                node = None
                continue
            else:
                return None
            out.append(step)
        return tuple(out)

    def facet_of(self, loc: Loc, error: Any) -> Loc | None:
        """The location of the facet the error is in (map location + key), if any."""
        for index, step in enumerate(loc):
            if step in _FACET_MAP_FIELDS and index > 0:
                if index + 1 < len(loc):
                    return loc[: index + 2]
                # An error on the map itself: a container names the key at fault.
                keyed = _KEYED.match(str(error.get("msg", "")))
                if keyed and error["type"] == "value_error":
                    return (*loc, keyed["key"])
                return None
        return None

    def repair_in_facet(self, facet: Loc, loc: Loc, error: Any) -> bool:
        if any(facet == held[: len(facet)] for held in self.held):
            return False  # already verbatim
        kind = error["type"]
        if (
            kind in _FORMAT_ERRORS
            and isinstance(self.get(self.original, loc), str)
            and self.keep_wire_string(loc, error)
        ):
            return True  # (in a facet no class types, such as an unknown key's, the facet is kept whole)
        if kind == "missing" and len(loc) == len(facet) + 1 and loc[-1] in _FACET_BASE_FIELDS:
            self.set(self.work, loc, _PLACEHOLDERS[URI_PATTERN])
            self.unset.add(loc)
            return True
        # Anything else: the facet stays as it was sent, under its key.
        for kept in [k for k in (*self.wire_strings, *self.unset) if k[: len(facet)] == facet]:
            self.wire_strings.pop(kept, None)
            self.unset.discard(kept)
        self.held[facet] = _plain(self.get(self.original, facet))
        self.delete(self.work, facet)
        return True

    def repair_outside(self, loc: Loc, error: Any) -> bool:
        if not loc:
            return False
        kind = error["type"]
        if kind in _FORMAT_ERRORS and isinstance(self.get(self.original, loc), str):
            return self.keep_wire_string(loc, error)
        field = self.field_at(loc)
        if kind == "missing":
            placeholder = _placeholder(field)
            if placeholder is _NONE:
                return False
            self.set(self.work, loc, placeholder)
            self.unset.add(loc)
            return True
        sent = _plain(self.get(self.original, loc))
        if isinstance(loc[-1], int):
            self.list_items[loc] = sent
            self.delete(self.work, loc)
            return True
        if field is None or not field.is_required():
            self.held[loc] = sent
            self.delete(self.work, loc)
            return True
        placeholder = _placeholder(field)
        if placeholder is _NONE:
            return False
        self.held[loc] = sent
        self.set(self.work, loc, placeholder)
        return True

    def keep_wire_string(self, loc: Loc, error: Any) -> bool:
        pattern = _pattern_of(self.field_at(loc))
        if pattern is None:
            return False
        self.wire_strings[loc] = self.get(self.original, loc)
        self.set(self.work, loc, _PLACEHOLDERS[pattern])
        return True

    def field_at(self, loc: Loc) -> Any:
        """The pydantic field at `loc` (JSON keys), or None where no model types it."""
        classes: list[type[BaseModel]] = [self.cls]
        field = None
        for step in loc:
            if isinstance(step, int):
                continue
            field = None
            for cls in classes:
                for name, info in cls.model_fields.items():
                    if (info.alias or name) == step:
                        field = info
                        break
                if field is not None:
                    break
            if field is None:
                return None
            classes = _models_in(field.annotation)
        return field

    # -- putting back ------------------------------------------------------------------

    def restore(self, event: BaseModel) -> None:
        for loc, value in self.wire_strings.items():
            parent = self.resolve(event, loc[:-1])
            if isinstance(parent, dict):  # pragma: no cover - no record of the pinned spec has a format field
                parent[str(loc[-1])] = value  # a record (or one parsed, still its dict) is its JSON keys
                continue
            owner, name = self.owner(event, loc)
            owner.__dict__[name] = value
        for loc in self.unset:
            # Left out of the model, so that no dump writes it (the attribute reads None).
            owner, name = self.owner(event, loc)
            unset_field(owner, name)
        # Items first, highest index first, so indexes stay right.
        for loc in sorted(self.list_items, key=lambda k: k[-1], reverse=True):
            target = self.resolve(event, loc[:-1])
            if isinstance(target, list):
                target.insert(int(loc[-1]), self.list_items[loc])
        for loc in sorted(self.held, key=len, reverse=True):
            parent = self.resolve(event, loc[:-1])
            key = str(loc[-1])
            if isinstance(parent, FacetContainer):
                parent.hold(key, self.held[loc])
            elif isinstance(parent, BaseModel):
                _hold_on_model(parent, key, self.held[loc])

    def owner(self, event: BaseModel, loc: Loc) -> tuple[BaseModel, str]:
        parent = self.resolve(event, loc[:-1])
        if not isinstance(parent, BaseModel):  # pragma: no cover - repairs are made on model fields only
            raise ValidationError([Problem(_loc_path(loc), "cannot be kept leniently")])
        return parent, _field_name(type(parent), str(loc[-1]))

    @staticmethod
    def resolve(event: BaseModel, loc: Loc) -> Any:
        node: Any = event
        for step in loc:
            if isinstance(step, int) or isinstance(node, FacetContainer):
                node = node[step]
            elif isinstance(node, BaseModel):
                name = _field_name(type(node), step)
                node = node.__dict__[name] if name in node.__dict__ else (node.model_extra or {})[step]
            else:
                node = node[step]
        return node

    # -- JSON documents ------------------------------------------------------------------

    @staticmethod
    def get(document: Any, loc: Loc) -> Any:
        node = document
        for step in loc:
            node = node[step]
        return node

    def set(self, document: Any, loc: Loc, value: Any) -> None:
        self.get(document, loc[:-1])[loc[-1]] = value

    def delete(self, document: Any, loc: Loc) -> None:
        del self.get(document, loc[:-1])[loc[-1]]


_NONE = object()


def _plain(value: Any) -> Any:
    """A value kept as sent, with each decimal the reader left (`1e-400`) as its nearest
    double: the number JSON's readers see in it (a `Decimal` would be written as a string)."""
    if isinstance(value, dict | list | Decimal | WholeNumber):
        return exact_numbers(copy.deepcopy(value), plain=True)
    return value


def _has_step(node: Any, step: str | int) -> bool:
    if isinstance(node, dict):
        return step in node
    return isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node)


def _field_name(cls: type[BaseModel], key: str) -> str:
    for name, info in cls.model_fields.items():
        if (info.alias or name) == key:
            return name
    return key


def _hold_on_model(model: BaseModel, key: str, value: Any) -> None:
    """Keep `value` under JSON `key` in the model's extra keys, out of its typed field."""
    unset_field(model, _field_name(type(model), key))
    if not hold_extra(model, key, value):  # pragma: no cover - every generated model keeps extra keys
        raise ValidationError([Problem(key, "cannot be kept leniently")])


def _pattern_of(field: Any) -> str | None:
    if field is None:
        return None
    for item in [*field.metadata, *_annotated_metadata(field.annotation)]:
        if isinstance(item, _Format):
            return item.pattern
    return None


def _annotated_metadata(annotation: Any) -> list[Any]:
    out: list[Any] = []
    for arg in get_args(annotation):
        out.extend(_annotated_metadata(arg))
    out.extend(getattr(annotation, "__metadata__", ()))
    return out


def _placeholder(field: Any) -> Any:
    """A value that passes the field's type, for a field the sender left out or broke."""
    if field is None:
        return _NONE
    pattern = _pattern_of(field)
    if pattern is not None:
        return _PLACEHOLDERS[pattern]
    annotation = field.annotation
    if get_origin(annotation) is list:
        return []
    if get_origin(annotation) is dict:
        return {}
    simple = {str: "", int: 0, float: 0.0, bool: False}
    return simple.get(annotation, _NONE)


def _loc_path(loc: Loc) -> str:
    out = ""
    for step in loc:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else step)
    return out
