"""The spec's own JSON Schema, read from spec/ for tests: an independent yardstick.

Nothing here uses the generator's staging: the validator resolves `$ref`s by `$id`
through a `referencing` registry, and the Hypothesis schemas are inlined here.
"""

from __future__ import annotations

import copy
import datetime
import decimal
import functools
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import rfc3986_validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from olsdk._foundation._formats import UUID_PATTERN

ROOT = Path(__file__).resolve().parents[2]
SPEC_DIR = ROOT / "spec"


@functools.cache
def schema_files() -> dict[str, dict[str, Any]]:
    """Snapshot path -> schema document, for every schema file the manifest lists."""
    manifest = json.loads((SPEC_DIR / "manifest.json").read_text())
    return {
        f["path"]: json.loads((SPEC_DIR / f["path"]).read_text())
        for f in manifest["files"]
        if f.get("id") and f["path"].endswith(".json")
    }


@functools.cache
def core() -> dict[str, Any]:
    return schema_files()["OpenLineage.json"]


@functools.cache
def registry(olsdk_limits: bool = False) -> Registry:
    """The spec's documents by `$id`; with `olsdk_limits`, as olsdk's documented limits
    narrow them (`with_olsdk_limits`)."""
    documents = schema_files().values()
    if olsdk_limits:
        documents = [with_olsdk_limits(doc) for doc in documents]
    resources = [(doc["$id"], Resource.from_contents(doc, default_specification=DRAFT202012)) for doc in documents]
    return Registry().with_resources(resources)


# A `number` field holds a 64-bit double: a decimal from 2**1024 - 2**970 on (the largest
# double plus half a unit in the last place) rounds to infinity. olsdk refuses it there
# (docs/how-to/reading-events.md, "Numbers"); integers and free-form values keep any size.
DOUBLE_LIMIT = 2**1024 - 2**970


def with_olsdk_limits(node: Any) -> Any:
    """A schema document with every `number` type bounded to what a double holds."""
    if isinstance(node, list):
        return [with_olsdk_limits(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: with_olsdk_limits(value) for key, value in node.items()}
    if out.get("type") == "number":
        out.setdefault("exclusiveMaximum", DOUBLE_LIMIT)
        out.setdefault("exclusiveMinimum", -DOUBLE_LIMIT)
    return out


def loads_exact(text: str | bytes) -> Any:
    """JSON text -> Python data with every number exact: a number written with a fraction
    or an exponent becomes a `decimal.Decimal` of the very value written (`1e-400` is not
    0.0, `1E+308` is 10**308), so the yardstick judges numbers as JSON Schema does, not
    as doubles. `NaN`/`Infinity` are refused (not JSON)."""

    def refuse(constant: str) -> Any:
        raise ValueError(f"{constant} is not JSON")

    return json.loads(text, parse_float=decimal.Decimal, parse_constant=refuse)


def _is_integer(_checker: Any, instance: Any) -> bool:
    # JSON Schema: a number with a zero fractional part, exactly (1.0 and 1e2 are integers).
    if isinstance(instance, bool):
        return False
    if isinstance(instance, int):
        return True
    if isinstance(instance, float):
        return instance.is_integer()
    if isinstance(instance, decimal.Decimal):
        return instance.is_finite() and instance == instance.to_integral_value()
    return False


_Validator: Any = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer),
)


def validator_for(file_id: str, def_name: str | None = None) -> Any:
    ref = file_id if def_name is None else f"{file_id}#/$defs/{def_name}"
    return _Validator({"$ref": ref}, registry=registry(), format_checker=_format_checker())


def assert_valid(document: Any, file_id: str, def_name: str | None = None) -> None:
    errors = sorted(validator_for(file_id, def_name).iter_errors(document), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{'/'.join(map(str, e.path))}: {e.message}" for e in errors[:10])


def event_validator() -> Any:
    return validator_for(core()["$id"])


# ---------------------------------------------------------------- Hypothesis schemas


def _by_id() -> dict[str, dict[str, Any]]:
    return {doc["$id"]: doc for doc in schema_files().values()}


def inline(file_id: str, def_name: str, max_repeats: int = 1) -> dict[str, Any]:
    """A self-contained schema for one def: refs inlined, recursion cut off.

    hypothesis-jsonschema cannot follow recursive references; a def that recurs more
    than `max_repeats` times on one path becomes `false` there (an optional recursive
    property is then simply absent; a oneOf keeps its other branches). `format: uuid`
    gets the pattern that format means, since hypothesis-jsonschema has no uuid format.
    """
    docs = _by_id()

    def resolve(ref: str, current: str) -> tuple[str, str]:
        base, _, fragment = ref.partition("#")
        return (base or current), fragment.removeprefix("/$defs/")

    def walk(node: Any, current: str, path: tuple[tuple[str, str], ...]) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                target = resolve(node["$ref"], current)
                if path.count(target) >= max_repeats:
                    return False
                resolved = walk(copy.deepcopy(docs[target[0]]["$defs"][target[1]]), target[0], (*path, target))
                siblings = {k: walk(v, current, path) for k, v in node.items() if k not in ("$ref", "description")}
                if siblings and isinstance(resolved, dict):
                    return {"allOf": [resolved, siblings]}
                return resolved
            out = {k: walk(v, current, path) for k, v in node.items() if k not in ("example", "examples", "deprecated")}
            if out.get("format") == "uuid" and out.get("type") == "string":
                out["pattern"] = UUID_PATTERN
            return out
        if isinstance(node, list):
            return [walk(v, current, path) for v in node]
        return node

    return walk({"$ref": f"{file_id}#/$defs/{def_name}"}, file_id, ())


# ---------------------------------------------------------------- the exact yardstick
#
# What `olsdk.parse_event` (strict) and `olsdk.validate_event` must agree with, written
# without olsdk: the spec's documents read from spec/, python-jsonschema, and format
# checks of its own (RFC 3986 by the `rfc3986-validator` package, RFC 3339 and UUID by
# the stdlib). The contract, in the spec's terms:
# - the event is valid against the core schema (its top-level oneOf included);
# - each facet under a key that a facet file declares (the file's top-level
#   `properties`) is valid against that file's definition for the facet's entity (the
#   core base facet the definition extends: RunFacet -> run facets, ...), except a
#   deletion marker (`"_deleted": true`) where the entity's base facet declares
#   `_deleted` (job and dataset facets): the core's base facet check is all it gets;
# - formats are checked: uuid, uri (RFC 3986 URI), date-time (RFC 3339, real calendar,
#   offset within +-23:59, second 60 only as the leap second 23:59:60 UTC);
# - numbers are exact: read with `loads_exact`, `integer` is a number whose fractional
#   part is zero (`1e-400` is not, `1E+308` is).
# Errors are reported as (JSON path, keyword) with the path of a missing property ending
# in the property, and one-branch `anyOf`s (the core's facet maps) and the root `oneOf`
# (by the branch of the event's kind) replaced by their branch's errors.

_DATE_TIME = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))", re.ASCII
)
_HEX = frozenset("0123456789abcdefABCDEF")


def is_uuid(value: object) -> bool:
    if not isinstance(value, str):
        return True  # formats apply to strings only
    if len(value) != 36:
        return False
    if any(value[i] != "-" for i in (8, 13, 18, 23)):
        return False
    return all(ch in _HEX for i, ch in enumerate(value) if i not in (8, 13, 18, 23))


def is_uri(value: object) -> bool:
    if not isinstance(value, str):
        return True
    # RFC 3986 matches "v" of an IPvFuture literal case-insensitively; the validator
    # package knows only the lower-case "v"
    return rfc3986_validator.validate_rfc3986(value.replace("[V", "[v"), rule="URI") is not None


def is_date_time(value: object) -> bool:
    if not isinstance(value, str):
        return True
    match = _DATE_TIME.fullmatch(value)
    if match is None:
        return False
    year, month, day, hour, minute, second = (int(match[i]) for i in range(1, 7))
    try:
        # RFC 3339 allows year 0000 (a leap year, like 2000); Python's dates start at 1
        datetime.date(year or 2000, month, day)
    except ValueError:
        return False
    if hour > 23 or minute > 59 or second > 60:
        return False
    offset = 0
    if match[7] is not None:
        offset_hour, offset_minute = int(match[8]), int(match[9])
        if offset_hour > 23 or offset_minute > 59:
            return False
        offset = (offset_hour * 60 + offset_minute) * (1 if match[7] == "+" else -1)
    # A leap second is the last second of a UTC day: 23:59:60 once the offset is taken
    # off (the JSON-Schema-Test-Suite: 23:59:60Z and 15:59:60-08:00 valid, 23:58:60Z not).
    return second < 60 or (hour * 60 + minute - offset) % 1440 == 23 * 60 + 59


def _format_checker() -> jsonschema.FormatChecker:
    checker = jsonschema.FormatChecker(formats=())
    checker.checks("uuid")(is_uuid)
    checker.checks("uri")(is_uri)
    checker.checks("date-time")(is_date_time)
    return checker


_BASES = {"RunFacet": "run", "JobFacet": "job", "DatasetFacet": "dataset"}
_BASES.update({"InputDatasetFacet": "inputDataset", "OutputDatasetFacet": "outputDataset"})
_KINDS = ("RunEvent", "DatasetEvent", "JobEvent")


@functools.cache
def facet_file_defs() -> dict[tuple[str, str], tuple[str, str]]:
    """(entity, key) -> (file $id, def name), from each facet file's top-level properties."""
    core_id = core()["$id"]
    docs = _by_id()

    def base_of(file_id: str, name: str) -> set[str]:
        found: set[str] = set()
        for part in docs[file_id]["$defs"][name].get("allOf", []):
            ref = part.get("$ref", "")
            target, _, fragment = ref.partition("#/$defs/")
            if (target or file_id) == core_id and fragment in _BASES:
                found.add(_BASES[fragment])
        return found

    out: dict[tuple[str, str], tuple[str, str]] = {}
    for file_id, doc in docs.items():
        if file_id == core_id:
            continue
        for key, prop in doc.get("properties", {}).items():
            refs = [prop] if "$ref" in prop else prop.get("anyOf", []) + prop.get("oneOf", [])
            for ref in refs:
                name = ref["$ref"].partition("#/$defs/")[2]
                members = docs[file_id]["$defs"][name].get("oneOf")
                names = [m["$ref"].partition("#/$defs/")[2] for m in members] if members else [name]
                for member in names:
                    for entity in base_of(file_id, member):
                        out[(entity, key)] = (file_id, member)
    return out


@functools.cache
def _exact_validators(olsdk_limits: bool = False) -> tuple[Any, dict[str, Any], dict[tuple[str, str], Any]]:
    checker = _format_checker()
    cls = _Validator
    documents = registry(olsdk_limits)
    root = cls({"$ref": core()["$id"]}, registry=documents, format_checker=checker)
    kinds = {
        k: cls({"$ref": f"{core()['$id']}#/$defs/{k}"}, registry=documents, format_checker=checker) for k in _KINDS
    }
    facets = {
        place: cls({"$ref": f"{file_id}#/$defs/{name}"}, registry=documents, format_checker=checker)
        for place, (file_id, name) in facet_file_defs().items()
    }
    return root, kinds, facets


def _deletable() -> set[str]:
    defs = core()["$defs"]
    return {
        entity
        for base, entity in _BASES.items()
        if any("_deleted" in part.get("properties", {}) for part in defs[base].get("allOf", []))
    }


def _flatten(error: Any) -> list[Any]:
    if error.validator == "anyOf" and len(error.validator_value) == 1:
        return [leaf for sub in error.context for leaf in _flatten(sub)]
    return [error]


def _where(error: Any) -> str:
    parts = list(error.absolute_path)
    if error.validator == "required":
        missing = [p for p in error.validator_value if isinstance(error.instance, dict) and p not in error.instance]
        parts.append(missing[0] if len(missing) == 1 else re.findall(r"'([^']*)' is a required", error.message)[0])
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _kind_of(document: dict[str, Any]) -> str | None:
    # Which branch an invalid event is judged by: the one its required keys name first.
    if "run" in document and "job" in document:
        return "RunEvent"
    if "dataset" in document and not ("job" in document and "run" in document):
        return "DatasetEvent"
    if "job" in document and "run" not in document:
        return "JobEvent"
    first = next((key for key in ("run", "dataset", "job") if key in document), None)
    return {"run": "RunEvent", "dataset": "DatasetEvent", "job": "JobEvent"}[first] if first else None


_FacetMaps = list[tuple[str, str, Any]]  # (path, entity, facets) of every facet map of a document


def _run_maps(maps: _FacetMaps, path: str, run: Any) -> None:
    if isinstance(run, dict) and isinstance(run.get("facets"), dict):
        maps.append((f"{path}.facets", "run", run["facets"]))
        parent = run["facets"].get("parent")
        if isinstance(parent, dict):
            base = f"{path}.facets.parent"
            _run_maps(maps, f"{base}.run", parent.get("run"))
            _job_maps(maps, f"{base}.job", parent.get("job"))
            root = parent.get("root")
            if isinstance(root, dict):
                _run_maps(maps, f"{base}.root.run", root.get("run"))
                _job_maps(maps, f"{base}.root.job", root.get("job"))


def _job_maps(maps: _FacetMaps, path: str, job: Any) -> None:
    if isinstance(job, dict) and isinstance(job.get("facets"), dict):
        maps.append((f"{path}.facets", "job", job["facets"]))


def _dataset_maps(maps: _FacetMaps, path: str, dataset: Any, extra: tuple[str, str] | None) -> None:
    if not isinstance(dataset, dict):
        return
    if isinstance(dataset.get("facets"), dict):
        maps.append((f"{path}.facets", "dataset", dataset["facets"]))
    if extra and isinstance(dataset.get(extra[0]), dict):
        maps.append((f"{path}.{extra[0]}", extra[1], dataset[extra[0]]))


def _facet_maps(document: dict[str, Any], kind: str) -> _FacetMaps:
    maps: _FacetMaps = []
    if kind == "RunEvent":
        _run_maps(maps, "run", document.get("run"))
    if kind in ("RunEvent", "JobEvent"):
        _job_maps(maps, "job", document.get("job"))
        for field, extra in (
            ("inputs", ("inputFacets", "inputDataset")),
            ("outputs", ("outputFacets", "outputDataset")),
        ):
            items = document.get(field)
            if isinstance(items, list):
                for index, item in enumerate(items):
                    _dataset_maps(maps, f"{field}[{index}]", item, extra)
    if kind == "DatasetEvent":
        _dataset_maps(maps, "dataset", document.get("dataset"), None)
    return maps


def exact_errors(document: Any, *, olsdk_limits: bool = False) -> set[tuple[str, str]]:
    """(path, JSON Schema keyword) of every way `document` breaks the contract above
    (with `olsdk_limits`: and olsdk's documented limits, `with_olsdk_limits`)."""
    root, kinds, facet_validators = _exact_validators(olsdk_limits)
    if not isinstance(document, dict):
        return {("", "type")}
    errors: list[Any] = []
    root_errors = list(root.iter_errors(document))
    kind = _kind_of(document)
    if not root_errors:
        kind = next(k for k in _KINDS if kinds[k].is_valid(document))
    for error in root_errors:
        if error.validator == "oneOf" and error.context and kind is not None:
            branch = _KINDS.index(kind)
            errors += [e for e in error.context if e.relative_schema_path and e.relative_schema_path[0] == branch]
        else:
            errors.append(error)
    flat = [leaf for error in errors for leaf in _flatten(error)]
    found = {(_where(e), str(e.validator)) for e in flat}
    if kind is None:
        return found
    deletable = _deletable()
    for path, entity, facets in _facet_maps(document, kind):
        for key, value in facets.items():
            check = facet_validators.get((entity, key))
            if check is None:
                continue
            if entity in deletable and isinstance(value, dict) and value.get("_deleted") is True:
                continue
            for error in check.iter_errors(value):
                for leaf in _flatten(error):
                    inner = _where(leaf)
                    where = f"{path}.{key}" + (("" if inner.startswith("[") else ".") + inner if inner else "")
                    found.add((where, str(leaf.validator)))
    return found


def exact_valid(document: Any) -> bool:
    return not exact_errors(document)
