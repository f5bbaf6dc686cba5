"""The spec-diff report (`codegen.diff`): classification rules and determinism."""

from __future__ import annotations

from typing import Any

import pytest

from codegen.diff import ADDITIVE, BREAKING, class_shape, diff_folders
from codegen.diff import _diff_class as diff_class
from tests.support.spec_snapshots import NEW, OLD, needs_snapshots


@needs_snapshots
def test_diff_is_deterministic_and_symmetric() -> None:
    forward, again = diff_folders(OLD, NEW), diff_folders(OLD, NEW)
    assert forward.to_json() == again.to_json() and forward.to_markdown() == again.to_markdown()
    backward = diff_folders(NEW, OLD)
    assert backward.facets_removed == forward.facets_added
    assert {c.where for c in backward.breaking} >= {
        "SQLJobFacet.dialect",
        "IcebergScanReportInputDatasetFacet.filterDescription",
    }
    same = diff_folders(NEW, NEW)
    assert same.changes == [] and same.summary_lines()[0].startswith("no changes")


def _obj(props: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(required)}


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (_obj({}), _obj({"a": {"type": "string"}}), [("field-added", ADDITIVE)]),
        (_obj({}), _obj({"a": {"type": "string"}}, ("a",)), [("field-added", BREAKING)]),
        (_obj({"a": {"type": "string"}}), _obj({}), [("field-removed", BREAKING)]),
        (_obj({"a": {"type": "integer"}}), _obj({"a": {"type": "number"}}), [("field-retyped", ADDITIVE)]),
        (_obj({"a": {"type": "number"}}), _obj({"a": {"type": "integer"}}), [("field-retyped", BREAKING)]),
        (
            _obj({"a": {"type": "string", "format": "uri"}}),
            _obj({"a": {"type": "string"}}),
            [("field-retyped", ADDITIVE)],
        ),
        (_obj({"a": {"type": "string"}}), _obj({"a": {"type": "integer"}}), [("field-retyped", BREAKING)]),
        (_obj({"a": {"type": "string"}}, ("a",)), _obj({"a": {"type": "string"}}), [("field-optional", ADDITIVE)]),
        (_obj({"a": {"type": "string"}}), _obj({"a": {"type": "string"}}, ("a",)), [("field-required", BREAKING)]),
        (
            _obj({"a": {"type": "string", "enum": ["X", "Y"]}}),
            _obj({"a": {"type": "string", "enum": ["X", "Z"]}}),
            [("enum-value-removed", BREAKING), ("enum-value-added", ADDITIVE)],
        ),
        (
            _obj({"a": {"type": "array", "items": {"$ref": "#/$defs/A"}}}),
            _obj({"a": {"type": "array", "items": {"anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}]}}}),
            [("field-retyped", ADDITIVE)],
        ),
        (
            {"oneOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}]},
            {"oneOf": [{"$ref": "#/$defs/A"}]},
            [("union-member-removed", BREAKING)],
        ),
    ],
)
def test_classification_rules(old: dict[str, Any], new: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    found = [(c.kind, c.impact) for c in diff_class("C", class_shape(old), class_shape(new))]
    assert found == expected
