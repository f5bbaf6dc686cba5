"""The committed spec snapshots (spec/releases/1.30.0 and spec/ itself), for upgrade tests.

Both are committed, so `@needs_snapshots` skips nothing in a clone; it stays as the
marker of the tests that read them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
OLD, NEW = ROOT / "spec" / "releases" / "1.30.0", ROOT / "spec"

needs_snapshots = pytest.mark.skipif(
    not (OLD / "OpenLineage.json").exists() or not (NEW / "OpenLineage.json").exists(),
    reason="the committed spec snapshots (spec/, spec/releases/1.30.0) are missing",
)

# A RunEvent of the current spec with facets that 1.30.0 lacks (the parent facet's
# `root`, the catalog facet) or types otherwise (`ordinal_position`).
SAMPLE_EVENT: dict[str, Any] = {
    "eventType": "START",
    "eventTime": "2025-01-01T00:00:00Z",
    "producer": "https://example.com/producer",
    "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    "run": {
        "runId": "01890000-0000-7000-8000-000000000001",
        "facets": {
            "parent": {
                "_producer": "https://example.com/producer",
                "_schemaURL": "https://openlineage.io/spec/facets/1-2-0/ParentRunFacet.json#/$defs/ParentRunFacet",
                "run": {"runId": "01890000-0000-7000-8000-000000000002"},
                "job": {"namespace": "ns", "name": "parent"},
                "root": {
                    "run": {"runId": "01890000-0000-7000-8000-000000000003"},
                    "job": {"namespace": "ns", "name": "root"},
                },
            }
        },
    },
    "job": {"namespace": "ns", "name": "job"},
    "inputs": [
        {
            "namespace": "ns",
            "name": "table",
            "facets": {
                "schema": {
                    "_producer": "https://example.com/producer",
                    "_schemaURL": "https://openlineage.io/spec/facets/1-2-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet",
                    "fields": [{"name": "id", "type": "int", "ordinal_position": 1}],
                },
                "catalog": {
                    "_producer": "https://example.com/producer",
                    "_schemaURL": "https://openlineage.io/spec/facets/1-1-0/CatalogDatasetFacet.json#/$defs/CatalogDatasetFacet",
                    "framework": "iceberg",
                    "type": "rest",
                    "name": "cat",
                },
            },
        }
    ],
}
