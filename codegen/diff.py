"""Structural diff between two spec snapshots, as seen by users of the generated models.

Both snapshots are staged (`codegen.stage`) first, so the diff compares exactly the
classes the generator emits (including classes hoisted from inline objects) and the
facet keys the runtime routes. Text-only edits (descriptions, examples) are ignored.

What is compared:
- the core spec's `$id` version (`.../2-0-2/OpenLineage.json`);
- schema files, matched by their `$id` without the version segment (so a file that
  moved, e.g. `IcebergCommitReportOutputDatasetFacet1.json` ->
  `IcebergCommitReportOutputDatasetFacet.json`, is one facet with a version change):
  facet files added or removed, facet versions changed;
- facet keys, per entity kind (`run.parent`, `inputDataset.icebergScanReport`): keys
  added, removed, renamed or bound to another class;
- per class: classes added or removed, base classes, fields added, removed or retyped,
  required-ness, enum values, union members (`oneOf`/`anyOf` classes), and whether
  the class forbids extra fields.

How a change is classified, for users of the generated models. **breaking** means code
or data that worked with the old models can fail with the new ones: a construction or
parse that now raises, an attribute or class that no longer exists, a facet key that
is no longer typed. **additive** means everything that worked still works.

| change | classification |
|---|---|
| facet file / class / facet key added | additive |
| facet file / class / facet key removed, key renamed or bound to another class | breaking |
| optional field added | additive |
| required field added, optional field made required | breaking |
| field removed | breaking (the attribute is gone; the JSON key is kept as extra data) |
| required field made optional | additive |
| type widened (`integer` -> `number`, format dropped, union grown, enum lifted) | additive |
| type narrowed or changed otherwise (incl. a new enum restriction) | breaking |
| enum value / union member added | additive |
| enum value / union member removed | breaking |
| base classes changed | breaking |
| extra fields now forbidden / now allowed | breaking / additive |
| core or facet `$id` version changed | see below |

A core or facet `$id` version change takes the worst classification among the changes
to the classes and facet keys of that file (additive when there are none, e.g. a
description-only bump); a MODEL (first part, SchemaVer) change is always breaking.

The report is deterministic: same two snapshots, same bytes (`to_markdown`, `to_json`).
Run it directly with `python -m codegen.diff OLD_DIR NEW_DIR [--json]`.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

from codegen.manifest import Manifest, scan_snapshot
from codegen.stage import ResolvedRef, StagedSpec, stage

BREAKING = "breaking"
ADDITIVE = "additive"

_ID_RE = re.compile(r"^(?P<base>.*)/(?P<version>\d+-\d+-\d+)/(?P<stem>[^/]+)\.json$")

# Section order in reports.
SECTIONS = ("core", "facets", "facet keys", "classes")


# --------------------------------------------------------------------------- snapshots


@dataclass(frozen=True)
class SchemaFile:
    """One schema file of a snapshot, identified by its `$id` without the version."""

    key: str  # `$id` with the version segment removed
    stem: str  # file name in the `$id`, without `.json` (e.g. "LineageFacet")
    version: str  # e.g. "1-0-0"; "" when the `$id` carries no version
    id: str
    path: str
    classes: tuple[str, ...]  # staged classes defined by this file (incl. hoisted ones)


def split_id(schema_id: str) -> tuple[str, str, str]:
    """(`$id` without version, stem, version) of a schema `$id`."""
    match = _ID_RE.match(schema_id)
    if match is None:
        stem = schema_id.rsplit("/", 1)[-1].removesuffix(".json")
        return schema_id, stem, ""
    return f"{match['base']}/{match['stem']}.json", match["stem"], match["version"]


@dataclass
class Snapshot:
    """A staged snapshot plus what the diff needs to know about its files."""

    manifest: Manifest
    staged: StagedSpec
    files: dict[str, SchemaFile] = field(default_factory=dict)  # key -> file
    class_file: dict[str, str] = field(default_factory=dict)  # class -> file key

    @property
    def core(self) -> SchemaFile:
        return self.files[split_id(self.staged.core_id)[0]]

    @property
    def facet_files(self) -> dict[str, SchemaFile]:
        core_key = split_id(self.staged.core_id)[0]
        return {k: f for k, f in self.files.items() if k != core_key}


def snapshot_from_staged(staged: StagedSpec, manifest: Manifest) -> Snapshot:
    snap = Snapshot(manifest=manifest, staged=staged)
    path_key: dict[str, str] = {}
    for f in manifest.schema_files:
        assert f.id is not None
        key, _, _ = split_id(f.id)
        path_key[f.path] = key
    # Each class belongs to the file that defines it; hoisted classes to the file of
    # the definition whose name is their longest prefix (`ParentRunFacetRun` -> ParentRunFacet).
    defs = staged.document["$defs"]
    origin = staged.def_origin
    by_length = sorted(origin, key=len, reverse=True)
    for name in defs:
        if name in staged.containers:
            continue
        if name in origin:
            path = origin[name]
        else:
            owner = next((d for d in by_length if name.startswith(d)), None)
            if owner is None:
                continue
            path = origin[owner]
        if path in path_key:
            snap.class_file[name] = path_key[path]
    for f in manifest.schema_files:
        assert f.id is not None
        key, stem, version = split_id(f.id)
        classes = tuple(sorted(c for c, k in snap.class_file.items() if k == key))
        snap.files[key] = SchemaFile(key=key, stem=stem, version=version, id=f.id, path=f.path, classes=classes)
    return snap


def load_snapshot(folder: Path, manifest: Manifest | None = None) -> Snapshot:
    """Stage a snapshot folder (with its manifest, or a manifest scanned from the folder)."""
    if manifest is None:
        manifest = scan_snapshot(folder, release=folder.name, upstream_commit=folder.name)
    return snapshot_from_staged(stage(folder, manifest), manifest)


# --------------------------------------------------------------------------- shapes

# A type is a set of alternatives; an alternative is a name (`string`, `string<uuid>`,
# `integer`, `object`, `any`, a class name) or a (`list`|`dict`, element type) pair.
Alt = Union[str, tuple[str, "TypeSet"]]  # noqa: UP007 - recursive alias needs the string form
TypeSet = frozenset[Alt]

PRIMITIVES = frozenset({"string", "integer", "number", "boolean", "null", "object", "any"})


def type_of(schema: Any) -> TypeSet:
    if not isinstance(schema, dict):
        return frozenset({"any"})
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return frozenset({ref.rsplit("/", 1)[-1]})
    alts: set[Alt] = set()
    for key in ("anyOf", "oneOf"):
        for sub in schema.get(key, []):
            alts |= type_of(sub)
    if alts and not schema.get("properties"):
        return frozenset(alts)
    declared = schema.get("type")
    types = declared if isinstance(declared, list) else [declared] if declared else []
    if not types and ("enum" in schema or "const" in schema):
        values = schema.get("enum", [schema.get("const")])
        types = sorted({_json_type(v) for v in values})
    for t in types:
        if t == "array":
            alts.add(("list", type_of(schema.get("items", {}))))
        elif t == "object":
            extra = schema.get("additionalProperties")
            alts.add(("dict", type_of(extra)) if isinstance(extra, dict) else "object")
        elif t == "string" and isinstance(schema.get("format"), str):
            alts.add(f"string<{schema['format']}>")
        else:
            alts.add(str(t))
    return frozenset(alts or {"any"})


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if value is None:
        return "null"
    return "string"


def render_type(t: TypeSet) -> str:
    parts = []
    for alt in t:
        if isinstance(alt, tuple):
            kind, inner = alt
            parts.append(f"list[{render_type(inner)}]" if kind == "list" else f"dict[str, {render_type(inner)}]")
        else:
            parts.append(alt)
    return " | ".join(sorted(parts))


def _alt_covered(old: Alt, new: Alt) -> bool:
    if old == new or new == "any":
        return True
    if isinstance(old, tuple) and isinstance(new, tuple):
        return old[0] == new[0] and type_covered(old[1], new[1])
    if isinstance(old, str) and isinstance(new, str):
        if old == "integer" and new == "number":
            return True
        if old.startswith("string<") and new == "string":
            return True
    return False


def type_covered(old: TypeSet, new: TypeSet) -> bool:
    """True when every value of type `old` is also a value of type `new` (widening)."""
    return all(any(_alt_covered(o, n) for n in new) for o in old)


def enum_of(schema: Any) -> tuple[str, ...] | None:
    """The allowed values of a field (or of its array items), JSON-encoded and sorted."""
    if not isinstance(schema, dict):
        return None
    if "enum" in schema:
        return tuple(sorted(json.dumps(v) for v in schema["enum"]))
    if "const" in schema:
        return (json.dumps(schema["const"]),)
    if schema.get("type") == "array":
        return enum_of(schema.get("items"))
    return None


@dataclass(frozen=True)
class FieldShape:
    type: TypeSet
    required: bool
    enum: tuple[str, ...] | None


@dataclass(frozen=True)
class ClassShape:
    bases: tuple[str, ...]
    fields: dict[str, FieldShape]
    union: TypeSet | None  # members of a oneOf/anyOf class
    closed: bool  # additionalProperties: false


def class_shape(schema: dict[str, Any]) -> ClassShape:
    parts = [
        schema,
        *(p for p in schema.get("allOf", []) if isinstance(p, dict) and "$ref" not in p),
    ]
    bases = tuple(sorted(p["$ref"].rsplit("/", 1)[-1] for p in schema.get("allOf", []) if "$ref" in p))
    props: dict[str, Any] = {}
    required: set[str] = set()
    for part in parts:
        props.update(part.get("properties", {}))
        required |= set(part.get("required", []))
    fields = {
        name: FieldShape(type=type_of(sub), required=name in required, enum=enum_of(sub)) for name, sub in props.items()
    }
    union: TypeSet | None = None
    if not props and ("oneOf" in schema or "anyOf" in schema):
        union = type_of({k: schema[k] for k in ("oneOf", "anyOf") if k in schema})
    closed = any(part.get("additionalProperties") is False for part in parts)
    return ClassShape(bases=bases, fields=fields, union=union, closed=closed)


# --------------------------------------------------------------------------- changes


@dataclass(frozen=True)
class Change:
    section: str  # core | facets | facet keys | classes
    kind: str  # e.g. field-added, facet-removed, version-changed
    impact: str  # breaking | additive
    subject: str  # a class, facet stem, or entity.key
    detail: str  # one line for humans
    field: str | None = None
    old: str | None = None
    new: str | None = None

    @property
    def where(self) -> str:
        return f"{self.subject}.{self.field}" if self.field else self.subject

    def sort_key(self) -> tuple[int, str, str, str, str]:
        return (
            SECTIONS.index(self.section),
            self.subject,
            self.field or "",
            self.kind,
            self.detail,
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "section": self.section,
            "kind": self.kind,
            "impact": self.impact,
            "subject": self.subject,
        }
        for name in ("field", "old", "new"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        out["detail"] = self.detail
        return out


def _diff_class(name: str, old: ClassShape, new: ClassShape) -> list[Change]:
    """Every change of one class: bases, extra fields, union members, then field by field."""
    out = _bases_and_extras(name, old, new) + _union_members(name, old, new)
    out += _fields_removed_or_added(name, old, new)
    for fname in sorted(old.fields.keys() & new.fields.keys()):
        of, nf = old.fields[fname], new.fields[fname]
        out += (
            _field_type(name, fname, of, nf) + _field_required(name, fname, of, nf) + _field_enum(name, fname, of, nf)
        )
    return out


def _class_change(
    name: str, kind: str, impact: str, detail: str, fld: str | None = None, o: str | None = None, n: str | None = None
) -> Change:
    return Change("classes", kind, impact, name, detail, fld, o, n)


def _bases_and_extras(name: str, old: ClassShape, new: ClassShape) -> list[Change]:
    out: list[Change] = []
    if old.bases != new.bases:
        o, n = ", ".join(old.bases), ", ".join(new.bases)
        out.append(_class_change(name, "bases-changed", BREAKING, f"base classes {o or '-'} -> {n or '-'}", o=o, n=n))
    if old.closed != new.closed:
        if new.closed:
            out.append(_class_change(name, "extra-forbidden", BREAKING, "now forbids fields the spec does not define"))
        else:
            out.append(_class_change(name, "extra-allowed", ADDITIVE, "now allows fields the spec does not define"))
    return out


def _union_members(name: str, old: ClassShape, new: ClassShape) -> list[Change]:
    if old.union is None and new.union is None:
        return []
    o_members, n_members = old.union or frozenset(), new.union or frozenset()
    out: list[Change] = []
    for alt in sorted(o_members - n_members, key=repr):
        rendered = render_type(frozenset({alt}))
        out.append(_class_change(name, "union-member-removed", BREAKING, f"no longer accepts {rendered}", o=rendered))
    for alt in sorted(n_members - o_members, key=repr):
        rendered = render_type(frozenset({alt}))
        out.append(_class_change(name, "union-member-added", ADDITIVE, f"now also accepts {rendered}", n=rendered))
    return out


def _fields_removed_or_added(name: str, old: ClassShape, new: ClassShape) -> list[Change]:
    out: list[Change] = []
    for fname in sorted(old.fields.keys() - new.fields.keys()):
        f = old.fields[fname]
        rendered = render_type(f.type)
        detail = f"field removed (was {rendered}{', required' if f.required else ''})"
        out.append(_class_change(name, "field-removed", BREAKING, detail, fname, o=rendered))
    for fname in sorted(new.fields.keys() - old.fields.keys()):
        f = new.fields[fname]
        rendered = render_type(f.type)
        impact, which = (BREAKING, "required") if f.required else (ADDITIVE, "optional")
        out.append(_class_change(name, "field-added", impact, f"new {which} field ({rendered})", fname, n=rendered))
    return out


def _field_type(name: str, fname: str, of: FieldShape, nf: FieldShape) -> list[Change]:
    if of.type == nf.type:
        return []
    o_t, n_t = render_type(of.type), render_type(nf.type)
    if type_covered(of.type, nf.type):
        impact, how = ADDITIVE, "widened"
    elif type_covered(nf.type, of.type):
        impact, how = BREAKING, "narrowed"
    else:
        impact, how = BREAKING, "changed"
    return [_class_change(name, "field-retyped", impact, f"type {how}: {o_t} -> {n_t}", fname, o_t, n_t)]


def _field_required(name: str, fname: str, of: FieldShape, nf: FieldShape) -> list[Change]:
    if of.required == nf.required:
        return []
    if nf.required:
        return [_class_change(name, "field-required", BREAKING, "now required", fname, "optional", "required")]
    return [_class_change(name, "field-optional", ADDITIVE, "no longer required", fname, "required", "optional")]


def _field_enum(name: str, fname: str, of: FieldShape, nf: FieldShape) -> list[Change]:
    if of.enum == nf.enum:
        return []
    if of.enum is None:
        values = ", ".join(nf.enum or ())
        return [_class_change(name, "enum-restricted", BREAKING, f"now restricted to {values}", fname, n=values)]
    if nf.enum is None:
        values = ", ".join(of.enum)
        return [_class_change(name, "enum-lifted", ADDITIVE, f"no longer restricted to {values}", fname, o=values)]
    out = [
        _class_change(name, "enum-value-removed", BREAKING, f"enum value {value} removed", fname, o=value)
        for value in sorted(set(of.enum) - set(nf.enum))
    ]
    out += [
        _class_change(name, "enum-value-added", ADDITIVE, f"enum value {value} added", fname, n=value)
        for value in sorted(set(nf.enum) - set(of.enum))
    ]
    return out


def _facet_keys(snap: Snapshot) -> dict[tuple[str, str], str]:
    return {(f.entity, f.key): f.class_name for f in snap.staged.facets}


def _entity_key(subject: str) -> tuple[str, str]:
    entity, _, key = subject.partition(".")
    return entity, key


def _part_changed(old: str, new: str) -> str:
    names = ("MODEL", "REVISION", "ADDITION")
    o, n = old.split("-"), new.split("-")
    if len(o) != 3 or len(n) != 3:
        return ""
    for i in range(3):
        if o[i] != n[i]:
            return names[i]
    return ""


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split("-") if p.isdigit())


@dataclass
class SpecDiff:
    old: Snapshot | None
    new: Snapshot
    changes: list[Change]
    facets_added: list[str]
    facets_removed: list[str]
    facets_versioned: list[tuple[str, str, str]]  # stem, old version, new version
    files_changed: list[str]  # every manifest path added, removed or with another sha256

    @property
    def breaking(self) -> list[Change]:
        return [c for c in self.changes if c.impact == BREAKING]

    @property
    def additive(self) -> list[Change]:
        return [c for c in self.changes if c.impact == ADDITIVE]

    @property
    def identical(self) -> bool:
        return self.old is not None and self.old.manifest.checksum == self.new.manifest.checksum

    # ------------------------------------------------------------------ reports

    def _side(self, snap: Snapshot | None) -> dict[str, Any] | None:
        if snap is None:
            return None
        return {
            "release": snap.manifest.release,
            "upstream_commit": snap.manifest.upstream_commit,
            "core_id": snap.staged.core_id,
            "manifest_sha256": snap.manifest.checksum,
        }

    def summary_dict(self) -> dict[str, Any]:
        return {
            "changes": len(self.changes),
            "breaking": len(self.breaking),
            "additive": len(self.additive),
            "facets_added": self.facets_added,
            "facets_removed": self.facets_removed,
            "facet_versions_changed": [{"facet": stem, "old": o, "new": n} for stem, o, n in self.facets_versioned],
            "files_changed": self.files_changed,
        }

    def to_json(self) -> str:
        doc = {
            "old": self._side(self.old),
            "new": self._side(self.new),
            "no_changes": not self.changes and not self.files_changed,
            "summary": self.summary_dict(),
            "changes": [c.to_dict() for c in self.changes],
            "resolved_refs": [
                {"file": r.file, "ref": r.ref, "resolved": r.resolved, "defs": list(r.defs)} for r in self.resolved_refs
            ],
        }
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"

    @property
    def resolved_refs(self) -> list[ResolvedRef]:
        """References of the new snapshot to another version of one of its files, resolved to it."""
        return self.new.staged.resolved_refs

    def resolved_summary(self) -> str | None:
        refs = self.resolved_refs
        if not refs:
            return None
        names = sorted({r.ref for r in refs})
        files = len({r.file for r in refs})
        return (
            f"resolved to this snapshot's files: references to {', '.join(names)} in {files} "
            f"file{'s' if files != 1 else ''} (listed in CHANGES.md)"
        )

    def _resolved_markdown(self) -> list[str]:
        if not self.resolved_refs:
            return []
        out = [
            "## References resolved to this snapshot",
            "",
            "These files reference another version of a file the snapshot holds (facet files written "
            "against an older core); each is read as the snapshot's version:",
            "",
        ]
        for r in self.resolved_refs:
            out.append(f"- `{r.file}`: `{r.ref}` -> `{r.resolved}` ({', '.join(r.defs)})")
        out.append("")
        return out

    def headline(self) -> str:
        old = self.old.manifest.release if self.old else "(nothing)"
        return f"{old} -> {self.new.manifest.release}"

    def summary_lines(self) -> list[str]:
        """A short plain-text summary (what `python -m codegen upgrade` prints)."""
        resolved = [line] if (line := self.resolved_summary()) else []
        if self.old is None:
            return [f"first snapshot: {self.new.manifest.release} ({self.new.staged.core_id})", *resolved]
        if not self.changes and not self.files_changed:
            return [f"no changes: {self.headline()} (same files)", *resolved]
        o_core, n_core = self.old.staged.core_id, self.new.staged.core_id
        lines = [
            f"spec {self.headline()}",
            f"core: {n_core}" + (" (unchanged)" if o_core == n_core else f" (was {o_core})"),
            f"facets: {len(self.facets_added)} added"
            + (f" ({', '.join(self.facets_added)})" if self.facets_added else "")
            + f", {len(self.facets_removed)} removed"
            + (f" ({', '.join(self.facets_removed)})" if self.facets_removed else "")
            + f", {len(self.facets_versioned)} with a new version",
        ]
        if not self.changes:
            lines.append(f"no changes to the models ({len(self.files_changed)} other files changed)")
            return lines + resolved
        return lines + terminal_changes(self.changes) + resolved

    def to_markdown(self) -> str:
        out = ["# OpenLineage spec changes", ""]
        if self.old is None:
            out += [
                f"First snapshot: {self.new.manifest.release} (`{self.new.staged.core_id}`).",
                "",
            ]
            return "\n".join(out + self._resolved_markdown())
        out += [
            f"From **{self.old.manifest.release}** (`{self.old.staged.core_id}`, manifest "
            f"`{self.old.manifest.checksum[:12]}`) to **{self.new.manifest.release}** "
            f"(`{self.new.staged.core_id}`, manifest `{self.new.manifest.checksum[:12]}`).",
            "",
        ]
        if not self.changes and not self.files_changed:
            out += ["No changes: the two snapshots have the same files.", ""]
            return "\n".join(out + self._resolved_markdown())
        out += [
            f"{len(self.changes)} changes to the generated models: "
            f"**{len(self.breaking)} breaking**, {len(self.additive)} additive. "
            f"Facets: {len(self.facets_added)} added, "
            f"{len(self.facets_removed)} removed, {len(self.facets_versioned)} with a new version.",
            "",
            "**breaking**: code or data that worked with the old models can fail with the new "
            "ones; additive: everything that worked still works (rules in `codegen/diff.py`).",
            "",
        ]
        if not self.changes:
            out += ["No changes to the generated models.", ""]
        titles = {
            "core": "Core spec",
            "facets": "Facet files (by `$id`)",
            "facet keys": "Facet keys (entity kind . key)",
            "classes": "Classes and fields",
        }
        for section in SECTIONS:
            rows = [c for c in self.changes if c.section == section]
            if not rows:
                continue
            out += [f"## {titles[section]}", ""]
            for c in rows:
                mark = "**breaking**" if c.impact == BREAKING else "additive"
                out.append(f"- {mark} `{c.where}`: {c.detail}")
            out.append("")
        if self.files_changed:
            out += [
                "## Files",
                "",
                "Snapshot files added, removed or changed (including prose):",
                "",
            ]
            out += [f"- `{p}`" for p in self.files_changed]
            out.append("")
        return "\n".join(out + self._resolved_markdown())


# Each kind of change in plain words, in the order the terminal summary counts them.
KIND_WORDS: dict[str, str] = {
    "version-changed": "schema versions changed (the core or a facet file)",
    "facet-added": "facet files added",
    "facet-removed": "facet files removed",
    "key-added": "facet keys added",
    "key-removed": "facet keys removed (their facets now parse as untyped data)",
    "key-renamed": "facet keys renamed",
    "key-rebound": "facet keys now parsed into another class",
    "class-added": "classes added",
    "class-removed": "classes removed",
    "bases-changed": "base classes changed",
    "extra-forbidden": "classes that now refuse fields the spec does not define",
    "extra-allowed": "classes that now accept fields the spec does not define",
    "union-member-added": "union members added (a class that is one of several shapes accepts more)",
    "union-member-removed": "union members removed (a class that is one of several shapes accepts less)",
    "field-added": "fields added",
    "field-removed": "fields removed (the attribute is gone; the JSON key is kept as extra data)",
    "field-retyped": "field types changed",
    "field-required": "fields now required",
    "field-optional": "fields no longer required",
    "enum-restricted": "fields now restricted to a list of values",
    "enum-lifted": "fields no longer restricted to a list of values",
    "enum-value-added": "allowed values added",
    "enum-value-removed": "allowed values removed",
}

IMPACT_WORDS = {
    BREAKING: "code or data that worked with the old models can fail with the new ones",
    ADDITIVE: "everything that worked with the old models still works",
}

VERSION_WORDS = (
    "terms:",
    "  a schema version reads MODEL-REVISION-ADDITION (SchemaVer, e.g. 1-2-0): MODEL changes when no",
    "  data written for the old schema fits the new one, REVISION when some of it may not fit,",
    "  ADDITION when all of it still fits;",
    "  up / down: the new snapshot has the newer / the older version of that schema (down: as when",
    "  going back to an older release), so 'REVISION down' means the middle number went down.",
)


def terminal_changes(changes: list[Change]) -> list[str]:
    """The changes for a terminal: counts by kind, every change by impact, the terms explained."""
    breaking = [c for c in changes if c.impact == BREAKING]
    additive = [c for c in changes if c.impact == ADDITIVE]
    lines = [f"changes: {len(changes)} ({len(breaking)} breaking, {len(additive)} additive), by kind:"]
    order = {kind: i for i, kind in enumerate(KIND_WORDS)}
    for kind in sorted({c.kind for c in changes}, key=lambda k: (order.get(k, len(order)), k)):
        of_kind = [c for c in changes if c.kind == kind]
        n_breaking = sum(c.impact == BREAKING for c in of_kind)
        split = [f"{n_breaking} breaking"] if n_breaking else []
        split += [f"{len(of_kind) - n_breaking} additive"] if n_breaking < len(of_kind) else []
        lines.append(f"  {KIND_WORDS.get(kind, kind)}: {len(of_kind)} ({', '.join(split)})")
    for impact, rows in ((BREAKING, breaking), (ADDITIVE, additive)):
        if rows:
            lines.append(f"{impact} ({IMPACT_WORDS[impact]}):")
            lines += [f"  {c.where}: {c.detail}" for c in rows]
    if any(c.kind == "version-changed" for c in changes):
        lines += VERSION_WORDS
    return lines


def diff_snapshots(old: Snapshot | None, new: Snapshot) -> SpecDiff:
    """The changes from `old` to `new`, in the order of the module docstring's list.

    Classes and facet keys first (those of added or removed files are listed with the
    file), then the core's and the facet files' versions, whose impact is the worst of
    the changes to their classes and keys.
    """
    if old is None:
        return SpecDiff(old, new, [], [], [], [], [])
    added_files = new.files.keys() - old.files.keys()
    removed_files = old.files.keys() - new.files.keys()
    class_changes = _class_changes(old, new, added_files, removed_files)
    key_changes = _key_changes(old, new, added_files, removed_files)
    judge = _FileJudge(class_changes, _key_changes_by_class(key_changes, old, new))
    changes = [c for found in class_changes.values() for c in found] + key_changes
    changes += _core_changes(old, new, judge)
    file_changes, versioned = _facet_file_changes(old, new, judge)
    changes += file_changes
    changes.sort(key=Change.sort_key)
    o_facets, n_facets = old.facet_files, new.facet_files
    return SpecDiff(
        old,
        new,
        changes,
        facets_added=sorted(n_facets[k].stem for k in n_facets.keys() - o_facets.keys()),
        facets_removed=sorted(o_facets[k].stem for k in o_facets.keys() - n_facets.keys()),
        facets_versioned=sorted(versioned),
        files_changed=_files_changed(old, new),
    )


def _class_changes(
    old: Snapshot, new: Snapshot, added_files: set[str], removed_files: set[str]
) -> dict[str, list[Change]]:
    """Class -> its changes; classes of added or removed files are left to the file's entry."""
    o_defs, n_defs = old.staged.document["$defs"], new.staged.document["$defs"]
    containers = old.staged.containers.keys() | new.staged.containers.keys()
    found: dict[str, list[Change]] = {}
    for name in sorted((o_defs.keys() | n_defs.keys()) - containers):
        if name not in n_defs:
            if old.class_file.get(name) not in removed_files:
                found[name] = [Change("classes", "class-removed", BREAKING, name, "class removed")]
        elif name not in o_defs:
            if new.class_file.get(name) not in added_files:
                found[name] = [Change("classes", "class-added", ADDITIVE, name, "new class")]
        else:
            found[name] = _diff_class(name, class_shape(o_defs[name]), class_shape(n_defs[name]))
    return found


def _key_changes(old: Snapshot, new: Snapshot, added_files: set[str], removed_files: set[str]) -> list[Change]:
    """Facet keys removed, renamed (same class, one new key), added or bound to another class."""
    o_keys, n_keys = _facet_keys(old), _facet_keys(new)
    gone = {k: c for k, c in o_keys.items() if k not in n_keys and old.class_file.get(c) not in removed_files}
    came = {k: c for k, c in n_keys.items() if k not in o_keys and new.class_file.get(c) not in added_files}
    changes: list[Change] = []
    for (entity, key), cls in sorted(gone.items()):
        renamed_to = [k for (e, k), c in came.items() if e == entity and c == cls]
        if len(renamed_to) == 1:
            new_key = renamed_to[0]
            del came[(entity, new_key)]
            detail = f"{cls} is now under key {new_key!r} (was {key!r}); the old key is kept as plain data"
            changes.append(
                Change("facet keys", "key-renamed", BREAKING, f"{entity}.{key}", detail, old=key, new=new_key)
            )
        else:
            detail = f"no longer a spec facet key (was {cls})"
            changes.append(Change("facet keys", "key-removed", BREAKING, f"{entity}.{key}", detail, old=cls))
    for (entity, key), cls in sorted(came.items()):
        changes.append(
            Change("facet keys", "key-added", ADDITIVE, f"{entity}.{key}", f"new facet key ({cls})", new=cls)
        )
    for entity, key in sorted(o_keys.keys() & n_keys.keys()):
        o_cls, n_cls = o_keys[(entity, key)], n_keys[(entity, key)]
        if o_cls != n_cls:
            detail = f"class {o_cls} -> {n_cls}"
            changes.append(
                Change("facet keys", "key-rebound", BREAKING, f"{entity}.{key}", detail, old=o_cls, new=n_cls)
            )
    return changes


def _key_changes_by_class(changes: list[Change], old: Snapshot, new: Snapshot) -> dict[str, list[Change]]:
    """Class -> the changes of the keys it was or is bound to."""
    o_keys, n_keys = _facet_keys(old), _facet_keys(new)
    by_class: dict[str, list[Change]] = {}
    for change in changes:
        entity_key = _entity_key(change.subject)
        for cls in {change.old, change.new, o_keys.get(entity_key), n_keys.get(entity_key)}:
            if cls:
                by_class.setdefault(cls, []).append(change)
    return by_class


@dataclass(frozen=True)
class _FileJudge:
    """How a schema file's version change reads, from the changes to its classes and keys."""

    class_changes: dict[str, list[Change]]
    key_changes: dict[str, list[Change]]

    def changes_of(self, o_file: SchemaFile, n_file: SchemaFile) -> list[Change]:
        found: list[Change] = []
        for name in sorted(set(o_file.classes) | set(n_file.classes)):
            for c in self.class_changes.get(name, []) + self.key_changes.get(name, []):
                if c not in found:
                    found.append(c)
        return found

    def impact(self, o_file: SchemaFile, n_file: SchemaFile) -> str:
        if _part_changed(o_file.version, n_file.version) == "MODEL":
            return BREAKING
        return BREAKING if any(c.impact == BREAKING for c in self.changes_of(o_file, n_file)) else ADDITIVE

    def version_change(self, section: str, o_file: SchemaFile, n_file: SchemaFile, subject: str) -> Change:
        direction = "up" if _version_key(n_file.version) > _version_key(o_file.version) else "down"
        part = _part_changed(o_file.version, n_file.version)
        text = f"version {o_file.version} -> {n_file.version}" + (f" ({part} {direction})" if part else "")
        if o_file.path != n_file.path:
            text += f"; file {o_file.path} -> {n_file.path}"
        found = self.changes_of(o_file, n_file)
        if found:
            n_breaking = sum(c.impact == BREAKING for c in found)
            plural = "s" if len(found) != 1 else ""
            text += f"; {len(found)} change{plural} to its classes and keys ({n_breaking} breaking)"
        else:
            text += "; no changes to its classes or keys"
        impact = self.impact(o_file, n_file)
        return Change(section, "version-changed", impact, subject, text, old=o_file.version, new=n_file.version)


def _core_changes(old: Snapshot, new: Snapshot, judge: _FileJudge) -> list[Change]:
    o_core, n_core = old.core, new.core
    if o_core.version == n_core.version:
        return []
    return [judge.version_change("core", o_core, n_core, o_core.stem)]


def _facet_file_changes(
    old: Snapshot, new: Snapshot, judge: _FileJudge
) -> tuple[list[Change], list[tuple[str, str, str]]]:
    """Facet files added, removed, or with a new version or path; and (stem, old, new) versions."""
    o_facets, n_facets = old.facet_files, new.facet_files
    o_keys, n_keys = _facet_keys(old), _facet_keys(new)
    changes: list[Change] = []
    for key in sorted(n_facets.keys() - o_facets.keys()):
        f = n_facets[key]
        detail = "new facet file " + _describe(f, n_keys)
        changes.append(Change("facets", "facet-added", ADDITIVE, f.stem, detail, new=f.version))
    for key in sorted(o_facets.keys() - n_facets.keys()):
        f = o_facets[key]
        detail = "facet file removed, was " + _describe(f, o_keys)
        changes.append(Change("facets", "facet-removed", BREAKING, f.stem, detail, old=f.version))
    versioned: list[tuple[str, str, str]] = []
    for key in sorted(o_facets.keys() & n_facets.keys()):
        o_file, n_file = o_facets[key], n_facets[key]
        if o_file.version != n_file.version:
            versioned.append((n_file.stem, o_file.version, n_file.version))
        if o_file.version != n_file.version or o_file.path != n_file.path:
            changes.append(judge.version_change("facets", o_file, n_file, n_file.stem))
    return changes, versioned


def _describe(f: SchemaFile, keys: dict[tuple[str, str], str]) -> str:
    facet_keys = sorted(f"{e}.{k}" for (e, k), cls in keys.items() if cls in f.classes)
    names = ", ".join(c for c in f.classes)
    return f"{f.version} ({f.path}): classes {names or '-'}" + (f"; keys {', '.join(facet_keys)}" if facet_keys else "")


def _files_changed(old: Snapshot, new: Snapshot) -> list[str]:
    o_files = {f.path: f.sha256 for f in old.manifest.files}
    n_files = {f.path: f.sha256 for f in new.manifest.files}
    return sorted(p for p in o_files.keys() | n_files.keys() if o_files.get(p) != n_files.get(p))


def diff_folders(old_dir: Path, new_dir: Path) -> SpecDiff:
    return diff_snapshots(load_snapshot(old_dir), load_snapshot(new_dir))


def write_reports(result: SpecDiff, report_dir: Path) -> list[Path]:
    """Write CHANGES.md and CHANGES.json into `report_dir`; returns the paths."""
    report_dir.mkdir(parents=True, exist_ok=True)
    md, js = report_dir / "CHANGES.md", report_dir / "CHANGES.json"
    md.write_text(result.to_markdown(), encoding="utf-8")
    js.write_text(result.to_json(), encoding="utf-8")
    return [md, js]


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m codegen.diff", description="Diff two spec snapshot folders.")
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--json", action="store_true", help="print the JSON report instead of Markdown")
    args = parser.parse_args(list(argv) if argv is not None else None)
    result = diff_folders(args.old, args.new)
    sys.stdout.write(result.to_json() if args.json else result.to_markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main())
