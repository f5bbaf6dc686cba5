"""The spec's own JSON Schema, read from spec/ for tests: an independent yardstick.

Nothing here uses the generator's staging: the validator resolves `$ref`s by `$id`
through a `referencing` registry, and the Hypothesis schemas are inlined here.
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any

import jsonschema
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from olsdk._runtime import UUID_PATTERN

ROOT = Path(__file__).resolve().parent.parent
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
def registry() -> Registry:
    resources = [
        (doc["$id"], Resource.from_contents(doc, default_specification=DRAFT202012)) for doc in schema_files().values()
    ]
    return Registry().with_resources(resources)


def validator_for(file_id: str, def_name: str | None = None) -> jsonschema.Draft202012Validator:
    ref = file_id if def_name is None else f"{file_id}#/$defs/{def_name}"
    return jsonschema.Draft202012Validator(
        {"$ref": ref}, registry=registry(), format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )


def assert_valid(document: Any, file_id: str, def_name: str | None = None) -> None:
    errors = sorted(validator_for(file_id, def_name).iter_errors(document), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{'/'.join(map(str, e.path))}: {e.message}" for e in errors[:10])


def event_validator() -> jsonschema.Draft202012Validator:
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
