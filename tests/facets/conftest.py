"""Fixtures for the custom facet tests: a clean registry, the sample facets, a validator."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from olsdk._foundation import _registry
from olsdk.facets import register_facet

ROOT = Path(__file__).resolve().parents[2]
CORE_SCHEMA = ROOT / "spec" / "OpenLineage.json"


def _custom_keys() -> set[tuple[str, str]]:
    return {pair for pair in _registry.DEFAULT.registered() if _registry.DEFAULT.lookup(*pair) is not None}


@pytest.fixture(autouse=True)
def clean_registry() -> Iterator[None]:
    """Every custom registration a test makes is undone after it."""
    before = _custom_keys()
    yield
    for entity, key in _custom_keys() - before:
        _registry.DEFAULT.unregister(entity, key)


@pytest.fixture
def sample() -> Any:
    """tests/facets/sample_facets.py, its facets registered (re-registered after cleanup)."""
    from tests.facets import sample_facets

    for cls in sample_facets.FACETS:
        register_facet(cls)
    return sample_facets


@functools.cache
def core_schema() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(CORE_SCHEMA.read_text(encoding="utf-8"))
    return document


@functools.cache
def _validator(ref: str, documents: str) -> jsonschema.Draft202012Validator:
    resources = [
        (doc["$id"], Resource.from_contents(doc, default_specification=DRAFT202012))
        for doc in (core_schema(), *json.loads(documents))
    ]
    return jsonschema.Draft202012Validator(
        {"$ref": ref},
        registry=Registry().with_resources(resources),
        format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER,
    )


def validator(ref: str, *documents: dict[str, Any]) -> jsonschema.Draft202012Validator:
    """A validator for `{"$ref": ref}` with the core spec and `documents` known by `$id`.

    Independent of olsdk: `jsonschema` resolves every `$ref` through a `referencing`
    registry, offline. Cached by (ref, documents).
    """
    return _validator(ref, json.dumps(documents, sort_keys=True))


def assert_valid(instance: Any, ref: str, *documents: dict[str, Any]) -> None:
    errors = list(validator(ref, *documents).iter_errors(instance))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])
