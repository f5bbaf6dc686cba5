"""Turn a spec snapshot into one self-contained JSON Schema for the model generator.

Why one document: the spec's core and facet files reference each other in a cycle
once facet containers are typed (`Run.facets.parent` -> `ParentRunFacet` -> core
`RunFacet`). Generating one module from one document avoids circular imports and lets
pydantic resolve every forward reference in one namespace.

What staging does, in order:
1. load every schema file the manifest lists and give each `$defs` entry its class name
   (the def name; a clash between files is an error naming both files);
2. rewrite every `$ref` (local or absolute `https://openlineage.io/spec/...`) to the
   merged document's `#/$defs/<Name>`, offline;
3. hoist inline object schemas into named defs (`ParentRunFacet.run` ->
   `ParentRunFacetRun`), so no two classes share a name;
4. type the facet maps: every `{"additionalProperties": {"$ref": <base facet>}}` becomes
   a container class with one optional field per facet key the snapshot defines;
5. mark string formats (uuid, uri, date-time) with olsdk's checked string types and
   set the hand-written base classes through `customBasePath`.
The result also carries, per facet class, its file's `$id`, its schema URL and its key.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codegen.manifest import Manifest, SpecError

RUNTIME = "olsdk._runtime"
FORMAT_TYPES = {
    "uuid": f"{RUNTIME}.UUIDStr",
    "uri": f"{RUNTIME}.URIStr",
    "date-time": f"{RUNTIME}.DateTimeStr",
}
# The spec's base facet defs and the container class that holds each kind.
BASE_FACETS = ("RunFacet", "JobFacet", "DatasetFacet", "InputDatasetFacet", "OutputDatasetFacet")
ENTITY_OF_BASE = {
    "RunFacet": "run",
    "JobFacet": "job",
    "DatasetFacet": "dataset",
    "InputDatasetFacet": "inputDataset",
    "OutputDatasetFacet": "outputDataset",
}
CONTAINER_OF_BASE = {base: base + "s" for base in BASE_FACETS}  # RunFacet -> RunFacets
EVENT_DEFS = ("RunEvent", "DatasetEvent", "JobEvent")


@dataclass(frozen=True)
class FacetInfo:
    """What the generator knows about one facet class."""

    class_name: str
    entity: str  # run | job | dataset | inputDataset | outputDataset
    key: str
    file_id: str
    schema_url: str
    file_path: str


@dataclass
class StagedSpec:
    document: dict[str, Any]
    core_id: str
    facets: list[FacetInfo]
    def_origin: dict[str, str]  # class name -> file path it came from (spec defs only)
    hoisted: dict[str, str] = field(default_factory=dict)  # hoisted class -> where it was inline
    containers: dict[str, dict[str, str]] = field(default_factory=dict)  # container -> key -> class

    def to_json(self) -> str:
        return json.dumps(self.document, indent=1, sort_keys=True)


def _pascal(name: str) -> str:
    parts = re.split(r"[^0-9A-Za-z]+", name)
    return "".join(p[:1].upper() + p[1:] for p in parts if p)


def _singular(name: str) -> str:
    if name.endswith("ies"):
        return name[:-3] + "y"
    if name.endswith("s") and not name.endswith("ss"):
        return name[:-1]
    return name + "Item"


def _load(spec_dir: Path, manifest: Manifest) -> list[tuple[str, dict[str, Any]]]:
    docs = []
    for f in manifest.schema_files:
        path = spec_dir / f.path
        if not path.exists():
            raise SpecError(f"{path} is missing: run 'make spec' first")
        docs.append((f.path, json.loads(path.read_text(encoding="utf-8"))))
    # The core first, then facet files in path order: deterministic output.
    docs.sort(key=lambda item: (item[0] != "OpenLineage.json", item[0]))
    return docs


class _RefRewriter:
    def __init__(self, ids: dict[str, str], names: dict[tuple[str, str], str]) -> None:
        self.ids = ids  # $id -> file path
        self.names = names  # (file path, def name) -> class name

    def target(self, ref: str, current: str) -> str:
        base, _, fragment = ref.partition("#")
        path = current if base == "" else self.ids.get(base)
        if path is None:
            raise SpecError(f"{current}: $ref {ref!r} points outside the snapshot (no file has $id {base!r})")
        if not fragment.startswith("/$defs/"):
            raise SpecError(f"{current}: $ref {ref!r} is not of the form <file>#/$defs/<Name>")
        def_name = fragment[len("/$defs/") :]
        try:
            return self.names[(path, def_name)]
        except KeyError:
            raise SpecError(f"{current}: $ref {ref!r}: {path} has no $defs entry {def_name!r}") from None

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


def _ref_name(schema: dict[str, Any]) -> str | None:
    ref = schema.get("$ref")
    return ref.rsplit("/", 1)[-1] if isinstance(ref, str) else None


def _facet_map_base(schema: dict[str, Any]) -> str | None:
    """The base facet a `{"type": "object", "anyOf": [{"additionalProperties": ...}]}` maps to."""
    candidates = [schema, *schema.get("anyOf", [])]
    for cand in candidates:
        extra = cand.get("additionalProperties")
        if isinstance(extra, dict) and _ref_name(extra) in BASE_FACETS:
            return _ref_name(extra)
    return None


def stage(spec_dir: Path, manifest: Manifest, extra_facet_dirs: list[Path] | None = None) -> StagedSpec:
    docs = _load(spec_dir, manifest)
    for extra_dir in extra_facet_dirs or []:
        for p in sorted(extra_dir.rglob("*.json")):
            doc = json.loads(p.read_text(encoding="utf-8"))
            if isinstance(doc, dict) and "$id" in doc and "$defs" in doc:
                docs.append((f"{extra_dir.name}/{p.relative_to(extra_dir).as_posix()}", doc))

    ids: dict[str, str] = {}
    names: dict[tuple[str, str], str] = {}
    origin: dict[str, str] = {}
    for path, doc in docs:
        ids[doc["$id"]] = path
        for def_name in doc.get("$defs", {}):
            if def_name in origin:
                raise SpecError(f"$defs name {def_name!r} is defined by both {origin[def_name]} and {path}")
            names[(path, def_name)] = def_name
            origin[def_name] = path
    core_path = "OpenLineage.json"
    core_id = docs[0][1]["$id"]

    rewriter = _RefRewriter(ids, names)
    defs: dict[str, Any] = {}
    for path, doc in docs:
        for def_name, schema in doc.get("$defs", {}).items():
            defs[def_name] = rewriter.rewrite(copy.deepcopy(schema), path)

    staged = StagedSpec(document={}, core_id=core_id, facets=[], def_origin=origin)

    # Facet keys live in each file's top-level `properties` block.
    def bases_of(name: str, seen: frozenset[str] = frozenset()) -> set[str]:
        if name in BASE_FACETS:
            return {name}
        schema = defs.get(name, {})
        found: set[str] = set()
        for part in schema.get("allOf", []):
            ref = _ref_name(part)
            if ref and ref not in seen:
                found |= bases_of(ref, seen | {name})
        return found

    def leaves(schema: dict[str, Any]) -> list[str]:
        """Facet defs a key's schema can hold, looking through oneOf/anyOf unions."""
        ref = _ref_name(schema)
        if ref is not None:
            target = defs[ref]
            if "allOf" not in target and ("oneOf" in target or "anyOf" in target):
                return [leaf for alt in target.get("oneOf", target.get("anyOf", [])) for leaf in leaves(alt)]
            return [ref]
        return [leaf for alt in schema.get("oneOf", schema.get("anyOf", [])) for leaf in leaves(alt)]

    containers: dict[str, dict[str, str]] = {c: {} for c in CONTAINER_OF_BASE.values()}
    for path, doc in docs:
        if path == core_path:
            continue
        for key, key_schema in doc.get("properties", {}).items():
            resolved = rewriter.rewrite(key_schema, path)
            for cls in leaves(resolved):
                bases = bases_of(cls)
                if len(bases) != 1:
                    raise SpecError(f"{path}: facet {cls} for key {key!r} extends {sorted(bases) or 'no base facet'}")
                base = bases.pop()
                container = containers[CONTAINER_OF_BASE[base]]
                if key in container and container[key] != cls:
                    raise SpecError(
                        f"{path}: key {key!r} of {ENTITY_OF_BASE[base]} facets claimed by {container[key]} and {cls}"
                    )
                container[key] = cls
                staged.facets.append(
                    FacetInfo(
                        class_name=cls,
                        entity=ENTITY_OF_BASE[base],
                        key=key,
                        file_id=doc["$id"],
                        schema_url=f"{doc['$id']}#/$defs/{cls}",
                        file_path=path,
                    )
                )
    staged.containers = {c: dict(sorted(keys.items())) for c, keys in containers.items()}

    # Hoist inline objects and type facet maps, def by def.
    hoisted: dict[str, Any] = {}

    def visit(schema: Any, owner: str, prop: str | None) -> Any:
        if not isinstance(schema, dict):
            return schema
        base = _facet_map_base(schema)
        if base is not None:
            out = {"$ref": "#/$defs/" + CONTAINER_OF_BASE[base]}
            if "description" in schema:
                out["description"] = schema["description"]
            return out
        schema = dict(schema)
        if "properties" in schema:
            schema["properties"] = {
                name: visit_property(sub, owner, name) for name, sub in schema["properties"].items()
            }
        for key in ("allOf", "oneOf", "anyOf"):
            if key in schema:
                schema[key] = [visit(sub, owner, prop) for sub in schema[key]]
        return schema

    def visit_property(sub: Any, owner: str, name: str) -> Any:
        if not isinstance(sub, dict):
            return sub
        sub = visit(sub, owner, name)
        if sub.get("type") == "array" and isinstance(sub.get("items"), dict):
            sub = dict(sub)
            sub["items"] = hoist(sub["items"], owner + _pascal(_singular(name)))
        elif isinstance(sub.get("additionalProperties"), dict) and "properties" not in sub:
            sub = dict(sub)
            sub["additionalProperties"] = hoist(sub["additionalProperties"], owner + _pascal(name))
        elif sub.get("type") == "object" and sub.get("properties"):
            sub = hoist(sub, owner + _pascal(name))
        return format_type(sub)

    def hoist(schema: dict[str, Any], name: str) -> dict[str, Any]:
        if schema.get("type") != "object" or not schema.get("properties"):
            return format_type(visit(schema, name, None))
        if name in defs or name in hoisted:
            raise SpecError(f"inline object would become class {name!r}, which already exists")
        body = {k: v for k, v in schema.items() if k != "description"}
        if "description" in schema:
            body["description"] = schema["description"]
        hoisted[name] = visit(body, name, None)
        staged.hoisted[name] = name
        out: dict[str, Any] = {"$ref": "#/$defs/" + name}
        if "description" in schema:
            out["description"] = schema["description"]
        return out

    def format_type(schema: dict[str, Any]) -> dict[str, Any]:
        fmt = schema.get("format")
        if schema.get("type") == "string" and fmt in FORMAT_TYPES:
            schema = dict(schema)
            schema["customTypePath"] = FORMAT_TYPES[fmt]
        return schema

    staged_defs: dict[str, Any] = {}
    for name, schema in defs.items():
        staged_defs[name] = visit(schema, name, None)
    staged_defs.update(hoisted)

    # Containers: one optional field per known key, unknown keys kept by the runtime base.
    for container, keys in staged.containers.items():
        base = container[:-1]
        staged_defs[container] = {
            "type": "object",
            "description": f"The {ENTITY_OF_BASE[base]} facets of an event, by key. Keys the spec does not "
            "define are kept: as a registered custom facet class when one is registered, otherwise as plain data.",
            "properties": {key: {"$ref": "#/$defs/" + cls} for key, cls in keys.items()},
            "additionalProperties": True,
            "customBasePath": f"{RUNTIME}.FacetContainer",
        }

    # Hand-written runtime behaviour enters through the roots of the hierarchy.
    staged_defs["BaseFacet"]["customBasePath"] = f"{RUNTIME}.FacetModel"
    staged_defs["BaseEvent"]["customBasePath"] = f"{RUNTIME}.EventModel"

    staged.document = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "urn:olsdk:staged",
        "$defs": dict(sorted(staged_defs.items())),
    }
    staged.hoisted = dict(sorted(staged.hoisted.items()))
    staged.facets.sort(key=lambda f: (f.entity, f.key, f.class_name))
    return staged
