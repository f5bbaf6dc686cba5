"""Full JSON-Schema validation of an event: the core schema, then every facet's schema.

The core `OpenLineage.json` only requires a facet to be a `BaseFacet`; a facet's own
schema is the one its `_schemaURL` points to. "Full" validation is therefore the core
document plus one validation per facet against the `$ref` its `_schemaURL` names, the
way a consumer that checks facets does it. Every `$ref` resolves from the local copy of
the spec in `spec/` (core + facet files): nothing is fetched. Formats are annotations
only (the draft 2020-12 default) for both libraries.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "spec"

Validate = Callable[[Any], bool]


def load_spec(spec_dir: Path = SPEC) -> tuple[str, dict[str, Any]]:
    """(the core schema's $id, every schema document by its $id)."""
    core = json.loads((spec_dir / "OpenLineage.json").read_text())
    docs = {core["$id"]: core}
    for path in sorted((spec_dir / "facets").glob("*.json")):
        doc = json.loads(path.read_text())
        docs[doc["$id"]] = doc
    return core["$id"], docs


def iter_facets(event: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every facet object in an event (run, job, datasets, input/output facets)."""
    containers: list[Any] = [
        (event.get("run") or {}).get("facets"),
        (event.get("job") or {}).get("facets"),
    ]
    for dataset in [*(event.get("inputs") or []), *(event.get("outputs") or [])]:
        containers += [
            dataset.get("facets"),
            dataset.get("inputFacets"),
            dataset.get("outputFacets"),
        ]
    for facets in containers:
        if isinstance(facets, dict):
            yield from (f for f in facets.values() if isinstance(f, dict))


class _FullValidator:
    """Core schema + per-facet schemas, compiled lazily and cached by `_schemaURL`."""

    def __init__(self, compile_ref: Callable[[str], Validate], core: Validate) -> None:
        self._compile_ref = compile_ref
        self._core = core
        self._facets: dict[str, Validate | None] = {}

    def _facet_validator(self, url: str) -> Validate | None:
        if url not in self._facets:
            try:
                self._facets[url] = self._compile_ref(url)
            except Exception:  # a facet schema the spec snapshot does not hold
                self._facets[url] = None
        return self._facets[url]

    def unresolved(self, event: dict[str, Any]) -> list[str]:
        """The `_schemaURL`s of the event's facets that no local schema resolves."""
        return [
            str(facet.get("_schemaURL"))
            for facet in iter_facets(event)
            if not isinstance(facet.get("_schemaURL"), str) or self._facet_validator(facet["_schemaURL"]) is None
        ]

    def __call__(self, event: dict[str, Any]) -> bool:
        if not self._core(event):
            return False
        for facet in iter_facets(event):
            url = facet.get("_schemaURL")
            check = self._facet_validator(url) if isinstance(url, str) else None
            if check is not None and not check(facet):
                return False
        return True


def jsonschema_validator(spec_dir: Path = SPEC) -> _FullValidator:
    import jsonschema  # type: ignore[import-untyped]  # no stubs in the dev extras
    from referencing import Registry, Resource

    core_id, docs = load_spec(spec_dir)
    registry: Registry[Any] = Registry().with_resources((uri, Resource.from_contents(doc)) for uri, doc in docs.items())
    cls = jsonschema.Draft202012Validator
    core = cls(docs[core_id], registry=registry)

    def compile_ref(url: str) -> Validate:
        is_valid: Validate = cls({"$ref": url}, registry=registry).is_valid
        return is_valid

    return _FullValidator(compile_ref, core.is_valid)


def jsonschema_rs_validator(spec_dir: Path = SPEC) -> _FullValidator:
    import jsonschema_rs

    core_id, docs = load_spec(spec_dir)
    registry = jsonschema_rs.Registry(list(docs.items()))

    def compile_schema(schema: dict[str, Any]) -> Validate:
        return jsonschema_rs.Draft202012Validator(schema, registry=registry).is_valid

    return _FullValidator(lambda url: compile_schema({"$ref": url}), compile_schema(docs[core_id]))
