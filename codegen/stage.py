"""Turn a spec snapshot into one self-contained JSON Schema for the model generator.

Why one document: the spec's core and facet files reference each other in a cycle
once facet containers are typed (`Run.facets.parent` -> `ParentRunFacet` -> core
`RunFacet`). Generating one module from one document avoids circular imports and lets
pydantic resolve every forward reference in one namespace.

What staging does, in order (one function each, called by `stage`):
1. load every schema file the manifest lists and give each `$defs` entry its class name
   (the def name; a clash between files is an error naming both files): `_index`;
2. rewrite every `$ref` (local or absolute `https://openlineage.io/spec/...`) to the
   merged document's `#/$defs/<Name>`, offline: `_RefRewriter`;
3. find the facet entities: every facet map of the core (`{"additionalProperties":
   {"$ref": <a BaseFacet subclass>}}`) names one base facet, hence one entity
   (`RunFacet` -> `run`), its container class (`RunFacets`), the class and field that
   hold it and where it sits in each event (`inputs[].inputFacets`): `_find_entities`;
4. read each facet file's keys (its top-level `properties`) and bind them to the facet
   classes, per entity: `_facet_keys`;
5. hoist inline object schemas into named defs (`ParentRunFacet.run` ->
   `ParentRunFacetRun`), so no two classes share a name, and type the facet maps: each
   becomes a container class with one optional field per facet key the snapshot
   defines (`_Hoister`, `_container_defs`); the objects that repeat inside facets (list
   items and map values of a facet file's classes: schema fields, column lineage) become
   records, dicts with typed attributes (`_records`);
6. mark string formats (uuid, uri, date-time) with olsdk's checked string types and
   set the hand-written base classes through `customBasePath` (`_format_type`,
   `_set_bases`).
The result also carries, per facet class, its file's `$id`, its schema URL and its key.
"""

from __future__ import annotations

import copy
import hashlib
import json
import keyword
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from codegen.manifest import Manifest, SpecError

RUNTIME = "olsdk._models._runtime"
FORMAT_TYPES = {
    "uuid": f"{RUNTIME}.UUIDStr",
    "uri": f"{RUNTIME}.URIStr",
    "date-time": f"{RUNTIME}.DateTimeStr",
}
# The roots of the spec's two hierarchies; the runtime's behaviour enters through them.
BASE_FACET = "BaseFacet"
BASE_EVENT = "BaseEvent"
ROOT_BASES = {BASE_FACET: f"{RUNTIME}.FacetModel", BASE_EVENT: f"{RUNTIME}.EventModel"}
CORE_PATH = "OpenLineage.json"
CONTAINER_BASE = f"{RUNTIME}.FacetContainer"
RECORD_BASE = "olsdk._models._runtime.OLRecord"
# What a record's field cannot be named: dict's attributes, the model-like methods a
# record offers (`olsdk._models._runtime.OLRecord`; a test keeps the two in step) and BaseModel's
# (the generator renames a field named like one of those).
RECORD_NAMES = (
    frozenset(dir(dict))
    | frozenset(dir(BaseModel))
    | {"model_copy", "model_dump", "model_dump_json", "model_fields", "model_json_schema"}
    | {"model_rebuild", "model_validate", "model_validate_json", "to_dict", "to_json"}
)


@dataclass(frozen=True)
class FacetInfo:
    """What the generator knows about one facet class."""

    class_name: str
    entity: str  # run | job | dataset | inputDataset | outputDataset
    key: str
    file_id: str
    schema_url: str
    file_path: str


@dataclass(frozen=True)
class EntityInfo:
    """One kind of facet: what it extends, what holds it, where it sits in events."""

    name: str  # run | job | dataset | inputDataset | outputDataset
    base: str  # the spec's base facet class, e.g. "InputDatasetFacet"
    container: str  # the typed facet map class, e.g. "InputDatasetFacets"
    owner: str  # the class with the facet map field, e.g. "InputDataset"
    field: str  # that field, e.g. "inputFacets"


@dataclass(frozen=True)
class FacetPlace:
    """A facet map in an event: `RunEvent` holds `inputDataset` facets at `inputs[].inputFacets`."""

    event: str  # event kind: run | dataset | job (`RunEvent` -> `run`)
    path: str
    entity: str


@dataclass
class StagedSpec:
    document: dict[str, Any]
    core_id: str
    facets: list[FacetInfo]
    def_origin: dict[str, str]  # class name -> file path it came from (spec defs only)
    hoisted: dict[str, str] = field(default_factory=dict)  # hoisted class -> where it was inline
    records: list[str] = field(default_factory=list)  # classes generated as records (OLRecord)
    containers: dict[str, dict[str, str]] = field(default_factory=dict)  # container -> key -> class
    entities: list[EntityInfo] = field(default_factory=list)
    events: dict[str, str] = field(default_factory=dict)  # event kind -> event class
    places: list[FacetPlace] = field(default_factory=list)
    # (path, schema document) as read, except that references to another version of a
    # snapshot file name the snapshot's file (`resolved_refs`), as the models do.
    sources: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    resolved_refs: list[ResolvedRef] = field(default_factory=list)
    # sha256 over the extra facet schemas (`--extra-facets`), by `$id` and content; "" without.
    extra_digest: str = ""

    def to_json(self) -> str:
        return json.dumps(self.document, indent=1, sort_keys=True)

    @property
    def containers_of_base(self) -> dict[str, str]:
        return {e.base: e.container for e in self.entities}


def _pascal(name: str) -> str:
    parts = re.split(r"[^0-9A-Za-z]+", name)
    return "".join(p[:1].upper() + p[1:] for p in parts if p)


def _camel_stem(class_name: str, suffix: str) -> str:
    """`InputDatasetFacet`, `Facet` -> `inputDataset`: how the spec names an entity or event kind."""
    stem = class_name.removesuffix(suffix)
    return stem[:1].lower() + stem[1:]


def _singular(name: str) -> str:
    if name.endswith("ies"):
        return name[:-3] + "y"
    if name.endswith("s") and not name.endswith("ss"):
        return name[:-1]
    return name + "Item"


Docs = list[tuple[str, dict[str, Any]]]


def _load(spec_dir: Path, manifest: Manifest) -> Docs:
    docs = []
    for f in manifest.schema_files:
        path = spec_dir / f.path
        if not path.exists():
            raise SpecError(f"{path} is missing: run 'make spec' first")
        docs.append((f.path, json.loads(path.read_text(encoding="utf-8"))))
    # The core first, then facet files in path order: deterministic output.
    docs.sort(key=lambda item: (item[0] != CORE_PATH, item[0]))
    return docs


def extra_digest(extra: Docs) -> str:
    """A digest of the extra facet schemas: their `$id`s and contents, not where they were read."""
    if not extra:
        return ""
    ordered = sorted((doc["$id"], doc) for _path, doc in extra)
    return hashlib.sha256(json.dumps(ordered, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _load_extra(extra_facet_dirs: list[Path]) -> Docs:
    docs: Docs = []
    for extra_dir in extra_facet_dirs:
        for p in sorted(extra_dir.rglob("*.json")):
            doc = json.loads(p.read_text(encoding="utf-8"))
            if isinstance(doc, dict) and "$id" in doc and "$defs" in doc:
                docs.append((f"{extra_dir.name}/{p.relative_to(extra_dir).as_posix()}", doc))
    return docs


# A versioned schema `$id`: `https://openlineage.io/spec/facets/1-0-1/ParentRunFacet.json`.
_VERSIONED_ID = re.compile(r"^(?P<base>.*)/(?P<version>\d+-\d+-\d+)/(?P<stem>[^/]+\.json)$")


def unversioned_id(schema_id: str) -> str:
    """A schema `$id` without its version segment (`.../spec/OpenLineage.json`)."""
    match = _VERSIONED_ID.match(schema_id)
    return f"{match['base']}/{match['stem']}" if match else schema_id


@dataclass(frozen=True)
class ResolvedRef:
    """A `$ref` to another version of a file of the snapshot, resolved to the snapshot's file.

    Releases up to 1.12.0 have facet files that extend the core as it was when they were
    written (`https://openlineage.io/spec/1-0-2/OpenLineage.json#/$defs/RunFacet`) while
    the core of the same release is `2-0-2`; the spec's own docs read that reference as
    "the base facet", and the snapshot has one version of each file.
    """

    file: str  # the snapshot file holding the reference
    ref: str  # the `$id` it names, e.g. `https://openlineage.io/spec/1-0-2/OpenLineage.json`
    resolved: str  # the `$id` of the snapshot's file it now names
    defs: tuple[str, ...]  # the definitions referenced that way, e.g. ("DatasetFacet",)


class _RefRewriter:
    def __init__(self, ids: dict[str, str], names: dict[tuple[str, str], str]) -> None:
        self.ids = ids  # $id -> file path
        self.names = names  # (file path, def name) -> class name
        # $id without version -> the one snapshot $id with it (ambiguous ones left out)
        by_key: dict[str, list[str]] = {}
        for schema_id in ids:
            by_key.setdefault(unversioned_id(schema_id), []).append(schema_id)
        self.unversioned = {key: found[0] for key, found in by_key.items() if len(found) == 1}
        self.resolved: dict[tuple[str, str], str] = {}  # (file, foreign $id) -> snapshot $id
        self.resolved_defs: dict[tuple[str, str], set[str]] = {}

    def other_version(self, base: str, fragment: str, current: str) -> str | None:
        """The snapshot file path for `base`, an `$id` of another version of one of its files."""
        schema_id = self.unversioned.get(unversioned_id(base)) if _VERSIONED_ID.match(base) else None
        if schema_id is None:
            return None
        self.resolved[(current, base)] = schema_id
        self.resolved_defs.setdefault((current, base), set()).add(fragment.rsplit("/", 1)[-1])
        return self.ids[schema_id]

    def resolved_refs(self) -> list[ResolvedRef]:
        return [
            ResolvedRef(file, ref, target, tuple(sorted(self.resolved_defs[(file, ref)])))
            for (file, ref), target in sorted(self.resolved.items())
        ]

    def target(self, ref: str, current: str) -> str:
        base, _, fragment = ref.partition("#")
        path = current if base == "" else self.ids.get(base) or self.other_version(base, fragment, current)
        if path is None:
            raise SpecError(
                f"{current}: $ref {ref!r} points outside the snapshot (no file has $id {base!r}, nor another "
                "version of it): add the file it names to the snapshot folder, or correct the reference"
            )
        if not fragment.startswith("/$defs/"):
            raise SpecError(f"{current}: $ref {ref!r} is not of the form <file>#/$defs/<Name>")
        def_name = fragment[len("/$defs/") :]
        try:
            return self.names[(path, def_name)]
        except KeyError:
            via = f" (the snapshot's version of {base})" if base and base not in self.ids else ""
            raise SpecError(f"{current}: $ref {ref!r}: {path}{via} has no $defs entry {def_name!r}") from None

    def rewrite(self, node: Any, current: str) -> Any:
        if isinstance(node, dict):
            out = {}
            for k, v in node.items():
                if k == "$ref" and isinstance(v, str):
                    out[k] = "#/$defs/" + self.target(v, current)
                else:
                    out[k] = self.rewrite(v, current)
            return out
        if isinstance(node, list):
            return [self.rewrite(v, current) for v in node]
        return node


def _check_layout(path: str, doc: Any) -> None:
    """A schema file the generator can read: an object with an `$id`, definitions under `$defs`."""
    if not isinstance(doc, dict) or not isinstance(doc.get("$id"), str):
        raise SpecError(f"{path}: not a JSON Schema document with an $id; remove it from the snapshot folder")
    if "definitions" in doc and "$defs" not in doc:
        raise SpecError(
            f"{path} keeps its definitions under 'definitions' (the draft-07 layout of OpenLineage "
            "releases before 0.2); olsdk generates from releases that use '$defs' (every 1.x release): "
            "pick a newer release"
        )


def _point_at_snapshot(docs: Docs, resolved: list[ResolvedRef]) -> Docs:
    """The documents with each resolved reference naming the snapshot's file (for validation)."""
    targets: dict[str, dict[str, str]] = {}
    for r in resolved:
        targets.setdefault(r.file, {})[r.ref] = r.resolved

    def point(node: Any, mapping: dict[str, str]) -> Any:
        if isinstance(node, dict):
            out = {}
            for k, v in node.items():
                base, hash_, fragment = v.partition("#") if k == "$ref" and isinstance(v, str) else ("", "", "")
                out[k] = mapping[base] + hash_ + fragment if base in mapping else point(v, mapping)
            return out
        if isinstance(node, list):
            return [point(v, mapping) for v in node]
        return node

    return [(path, point(doc, targets[path]) if path in targets else doc) for path, doc in docs]


def _index(docs: Docs) -> tuple[_RefRewriter, dict[str, str]]:
    """Step 1: a rewriter that knows every file's `$id` and def, and each def's file."""
    ids: dict[str, str] = {}
    names: dict[tuple[str, str], str] = {}
    origin: dict[str, str] = {}
    for path, doc in docs:
        _check_layout(path, doc)
        if doc["$id"] in ids:
            raise SpecError(f"$id {doc['$id']!r} is the $id of both {ids[doc['$id']]} and {path}")
        ids[doc["$id"]] = path
        for def_name in doc.get("$defs", {}):
            if def_name in origin:
                raise SpecError(f"$defs name {def_name!r} is defined by both {origin[def_name]} and {path}")
            names[(path, def_name)] = def_name
            origin[def_name] = path
    return _RefRewriter(ids, names), origin


def _rewrite_defs(docs: Docs, rewriter: _RefRewriter) -> dict[str, Any]:
    """Step 2: every def of every file, with its `$ref`s pointing into the merged document."""
    defs: dict[str, Any] = {}
    for path, doc in docs:
        for def_name, schema in doc.get("$defs", {}).items():
            defs[def_name] = rewriter.rewrite(copy.deepcopy(schema), path)
    return defs


def _ref_name(schema: dict[str, Any]) -> str | None:
    ref = schema.get("$ref")
    return ref.rsplit("/", 1)[-1] if isinstance(ref, str) else None


def _bases(defs: dict[str, Any], name: str) -> list[str]:
    """The defs a def extends through `allOf` `$ref`s, directly."""
    schema = defs.get(name, {})
    return [ref for part in schema.get("allOf", []) if (ref := _ref_name(part)) is not None]


def _extends(defs: dict[str, Any], name: str, root: str, seen: frozenset[str] = frozenset()) -> bool:
    if name == root:
        return True
    return any(_extends(defs, base, root, seen | {name}) for base in _bases(defs, name) if base not in seen)


def _facet_map_base(defs: dict[str, Any], schema: dict[str, Any]) -> str | None:
    """The base facet a facet map (`{"additionalProperties": {"$ref": <facet>}}`) holds.

    The spec writes its maps as `{"type": "object", "anyOf": [{"additionalProperties": ...}]}`.
    """
    for candidate in [schema, *schema.get("anyOf", [])]:
        extra = candidate.get("additionalProperties") if isinstance(candidate, dict) else None
        base = _ref_name(extra) if isinstance(extra, dict) else None
        if base is not None and base != BASE_FACET and _extends(defs, base, BASE_FACET):
            return base
    return None


def _own_properties(schema: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """The properties a def declares itself: its own and those of its inline `allOf` parts."""
    yield from schema.get("properties", {}).items()
    for part in schema.get("allOf", []):
        if isinstance(part, dict) and "$ref" not in part:
            yield from part.get("properties", {}).items()


def _all_properties(defs: dict[str, Any], name: str) -> Iterator[tuple[str, Any]]:
    """Every property of a def, inherited ones (through `allOf` `$ref`s) first."""
    for base in _bases(defs, name):
        yield from _all_properties(defs, base)
    yield from _own_properties(defs.get(name, {}))


def _find_entities(defs: dict[str, Any], core_defs: list[str]) -> list[EntityInfo]:
    """Step 3a: one entity per base facet that a facet map of the core holds."""
    entities: dict[str, EntityInfo] = {}
    for owner in core_defs:
        for prop, schema in _own_properties(defs[owner]):
            base = _facet_map_base(defs, schema) if isinstance(schema, dict) else None
            if base is None:
                continue
            if base in entities:
                other = entities[base]
                raise SpecError(f"{base} facets are held by both {other.owner}.{other.field} and {owner}.{prop}")
            entities[base] = EntityInfo(_camel_stem(base, "Facet"), base, base + "s", owner, prop)
    return list(entities.values())


def _find_places(defs: dict[str, Any], core_defs: list[str], entities: list[EntityInfo]) -> list[FacetPlace]:
    """Step 3b: where each event holds facet maps, as JSON paths (`inputs[].inputFacets`)."""
    entity_of_base = {e.base: e.name for e in entities}
    places: list[FacetPlace] = []

    def walk(event: str, class_name: str, prefix: str, seen: frozenset[str]) -> None:
        for prop, schema in _all_properties(defs, class_name):
            if not isinstance(schema, dict):
                continue
            path = prefix + prop
            base = _facet_map_base(defs, schema)
            if base is not None:
                places.append(FacetPlace(_camel_stem(event, "Event"), path, entity_of_base[base]))
                continue
            if schema.get("type") == "array" and isinstance(schema.get("items"), dict):
                schema, path = schema["items"], path + "[]"
            target = _ref_name(schema)
            if target is not None and target not in seen:
                walk(event, target, path + ".", seen | {target})

    for event in _event_classes(defs, core_defs):
        walk(event, event, "", frozenset({event}))
    return places


def _event_classes(defs: dict[str, Any], core_defs: list[str]) -> list[str]:
    return [name for name in core_defs if name != BASE_EVENT and _extends(defs, name, BASE_EVENT)]


def _facet_keys(
    docs: Docs, rewriter: _RefRewriter, defs: dict[str, Any], entities: list[EntityInfo]
) -> tuple[list[FacetInfo], dict[str, dict[str, str]]]:
    """Step 4: the facet class of each key of each facet file (its top-level `properties`)."""
    entity_of_base = {e.base: e for e in entities}
    facets: list[FacetInfo] = []
    containers: dict[str, dict[str, str]] = {e.container: {} for e in entities}

    def leaves(schema: dict[str, Any]) -> list[str]:
        """Facet defs a key's schema can hold, looking through oneOf/anyOf unions."""
        ref = _ref_name(schema)
        if ref is not None:
            target = defs[ref]
            if "allOf" not in target and ("oneOf" in target or "anyOf" in target):
                return [leaf for alt in target.get("oneOf", target.get("anyOf", [])) for leaf in leaves(alt)]
            return [ref]
        return [leaf for alt in schema.get("oneOf", schema.get("anyOf", [])) for leaf in leaves(alt)]

    for path, doc in docs:
        if path == CORE_PATH:
            continue
        for key, key_schema in doc.get("properties", {}).items():
            for cls in leaves(rewriter.rewrite(key_schema, path)):
                bases = {base for base in entity_of_base if _extends(defs, cls, base)}
                if len(bases) != 1:
                    raise SpecError(f"{path}: facet {cls} for key {key!r} extends {sorted(bases) or 'no base facet'}")
                entity = entity_of_base[bases.pop()]
                container = containers[entity.container]
                if key in container and container[key] != cls:
                    raise SpecError(
                        f"{path}: key {key!r} of {entity.name} facets claimed by {container[key]} and {cls}"
                    )
                container[key] = cls
                url = f"{doc['$id']}#/$defs/{cls}"
                facets.append(FacetInfo(cls, entity.name, key, doc["$id"], url, path))
    facets.sort(key=lambda f: (f.entity, f.key, f.class_name))
    return facets, {c: dict(sorted(keys.items())) for c, keys in containers.items()}


def _format_type(schema: dict[str, Any]) -> dict[str, Any]:
    """Step 6a: a string with a format olsdk checks becomes its checked string type."""
    fmt = schema.get("format")
    if schema.get("type") == "string" and fmt in FORMAT_TYPES:
        schema = dict(schema)
        schema["customTypePath"] = FORMAT_TYPES[fmt]
    return schema


class _Hoister:
    """Step 5: inline objects become named defs; facet maps become container references."""

    def __init__(self, defs: dict[str, Any], entities: list[EntityInfo]) -> None:
        self.defs = defs
        self.container_of_base = {e.base: e.container for e in entities}
        self.hoisted: dict[str, Any] = {}
        self.hoisted_from: dict[str, str] = {}  # hoisted class -> the class it was inline in

    def run(self) -> dict[str, Any]:
        staged = {name: self.visit(schema, name) for name, schema in self.defs.items()}
        staged.update(self.hoisted)
        return staged

    def visit(self, schema: Any, owner: str) -> Any:
        if not isinstance(schema, dict):
            return schema
        base = _facet_map_base(self.defs, schema)
        if base is not None:
            out = {"$ref": "#/$defs/" + self.container_of_base[base]}
            if "description" in schema:
                out["description"] = schema["description"]
            return out
        schema = dict(schema)
        if "properties" in schema:
            schema["properties"] = {
                name: self.visit_property(sub, owner, name) for name, sub in schema["properties"].items()
            }
        for key in ("allOf", "oneOf", "anyOf"):
            if key in schema:
                schema[key] = [self.visit(sub, owner) for sub in schema[key]]
        return schema

    def visit_property(self, sub: Any, owner: str, name: str) -> Any:
        if not isinstance(sub, dict):
            return sub
        sub = self.visit(sub, owner)
        if sub.get("type") == "array" and isinstance(sub.get("items"), dict):
            sub = dict(sub)
            sub["items"] = self.hoist(sub["items"], owner + _pascal(_singular(name)), owner)
        elif isinstance(sub.get("additionalProperties"), dict) and "properties" not in sub:
            sub = dict(sub)
            sub["additionalProperties"] = self.hoist(sub["additionalProperties"], owner + _pascal(name), owner)
        elif sub.get("type") == "object" and sub.get("properties"):
            sub = self.hoist(sub, owner + _pascal(name), owner)
        return _format_type(sub)

    def hoist(self, schema: dict[str, Any], name: str, owner: str) -> dict[str, Any]:
        if schema.get("type") != "object" or not schema.get("properties"):
            return _format_type(self.visit(schema, name))
        if name in self.defs or name in self.hoisted:
            raise SpecError(f"inline object would become class {name!r}, which already exists")
        # (The description moves to the end of the def: the generator's output depends on key order.)
        body = {k: v for k, v in schema.items() if k != "description"}
        if "description" in schema:
            body["description"] = schema["description"]
        self.hoisted_from[name] = owner
        self.hoisted[name] = self.visit(body, name)
        out: dict[str, Any] = {"$ref": "#/$defs/" + name}
        if "description" in schema:
            out["description"] = schema["description"]
        return out


def _container_defs(staged: StagedSpec) -> dict[str, Any]:
    """Step 5b: one container class per entity, one optional field per known key."""
    return {
        entity.container: {
            "type": "object",
            "description": f"The {entity.name} facets of an event, by key. Keys the spec does not "
            "define are kept: as a registered custom facet class when one is registered, otherwise as plain data.",
            "properties": {key: {"$ref": "#/$defs/" + cls} for key, cls in staged.containers[entity.container].items()},
            "additionalProperties": True,
            "customBasePath": CONTAINER_BASE,
        }
        for entity in staged.entities
    }


def _repeated(schema: dict[str, Any]) -> Iterator[str]:
    """The classes a def holds as list items or map values."""
    for _name, prop in _own_properties(schema):
        if not isinstance(prop, dict):
            continue
        for held in (prop.get("items"), prop.get("additionalProperties")):
            ref = _ref_name(held) if isinstance(held, dict) else None
            if ref is not None:
                yield ref


def _records(staged_defs: dict[str, Any], origin: dict[str, str], hoisted_from: dict[str, str]) -> list[str]:
    """Step 5c: the objects that repeat inside facets (list items and map values of a facet
    file's classes) become records (`olsdk._models._runtime.OLRecord`): dicts with typed
    attributes, which pydantic-core dumps far faster than models. A class stays a model
    when a record cannot hold it as it is: it extends another class or is not a plain
    object, or a property name is not a plain Python name or is one a dict, a record or a
    model has itself."""

    def file_of(name: str) -> str:
        while name in hoisted_from:
            name = hoisted_from[name]
        return origin.get(name, CORE_PATH)

    def plain(name: str) -> bool:
        schema = staged_defs.get(name, {})
        names = list(schema.get("properties", {}))
        return (
            schema.get("type") == "object"
            and bool(names)
            and not any(k in schema for k in ("allOf", "oneOf", "anyOf", "customBasePath"))
            and all(
                n.isidentifier() and not keyword.iskeyword(n) and not n.startswith("_") and n not in RECORD_NAMES
                for n in names
            )
        )

    held = {ref for name, schema in staged_defs.items() if file_of(name) != CORE_PATH for ref in _repeated(schema)}
    return sorted(name for name in held if file_of(name) != CORE_PATH and plain(name))


def _set_bases(staged_defs: dict[str, Any]) -> None:
    """Step 6b: hand-written runtime behaviour enters through the roots of the hierarchy."""
    for root, base_path in ROOT_BASES.items():
        if root in staged_defs:
            staged_defs[root]["customBasePath"] = base_path


def stage(spec_dir: Path, manifest: Manifest, extra_facet_dirs: list[Path] | None = None) -> StagedSpec:
    extra = _load_extra(extra_facet_dirs or [])
    docs = _load(spec_dir, manifest) + extra
    rewriter, origin = _index(docs)
    defs = _rewrite_defs(docs, rewriter)
    core_defs = [name for name, path in origin.items() if path == CORE_PATH]
    entities = _find_entities(defs, core_defs)
    places = _find_places(defs, core_defs, entities)
    # Entities in the order events first hold them: run, job, dataset, inputDataset, ...
    first_place = {p.entity: i for i, p in reversed(list(enumerate(places)))}
    entities.sort(key=lambda e: first_place.get(e.name, len(places)))
    facets, containers = _facet_keys(docs, rewriter, defs, entities)
    staged = StagedSpec(
        document={},
        core_id=docs[0][1]["$id"],
        facets=facets,
        def_origin=origin,
        containers=containers,
        entities=entities,
        events={_camel_stem(name, "Event"): name for name in _event_classes(defs, core_defs)},
        places=places,
    )
    staged.extra_digest = extra_digest(extra)
    staged.resolved_refs = rewriter.resolved_refs()
    staged.sources = _point_at_snapshot(docs, staged.resolved_refs)
    hoister = _Hoister(defs, entities)
    staged_defs = hoister.run()
    staged_defs.update(_container_defs(staged))
    _set_bases(staged_defs)
    staged.records = _records(staged_defs, origin, hoister.hoisted_from)
    for name in staged.records:
        staged_defs[name]["customBasePath"] = RECORD_BASE
    staged.document = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "urn:olsdk:staged",
        "$defs": dict(sorted(staged_defs.items())),
    }
    staged.hoisted = {name: name for name in sorted(hoister.hoisted)}
    return staged
