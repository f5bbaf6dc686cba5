"""OpenLineage for PySpark: schema facets, plan datasets, a write listener, lineage runs.

Needs the ``spark`` extra (pyspark 4); the core ``olsdk`` package never imports this,
and the names below load pyspark only when first used.

* ``schema_facet(struct_type)``: a ``SchemaDatasetFacet`` named as the Java agent names it.
* ``datasets(df)``: the input datasets of a DataFrame's plan (classic or Spark Connect).
* ``install(spark, client)``: lineage for every write of the application, configured by
  the Java agent's ``spark.openlineage.*`` keys (``olsdk spark run SCRIPT.py`` does it
  without code changes).
* ``lineage_run(spark, job_name, inputs=..., outputs=...)``: an explicit run, as a
  context manager or a decorator (also on Spark Connect).
* ``parent_conf(run)``: Spark settings that make a run the parent of the Java agent's events.
* ``event_log_schema()`` / ``read_events(spark, path)`` / ``validate_events(spark, path)``
  / ``lineage_edges(events)``: OpenLineage event files on Spark.
* ``olsdk.spark.agent_facets``: typed facets of the Java agent (no pyspark needed), and
  ``agent_facets.REGISTRY``, the facet registry that reads them typed.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from olsdk._integrations.spark._eventlog import (
        EventValidation,
        event_log_schema,
        lineage_edges,
        read_events,
        validate_events,
    )
    from olsdk._integrations.spark._graph import lineage_page
    from olsdk._integrations.spark._listener import SparkLineage, install
    from olsdk._integrations.spark._parent import parent_conf
    from olsdk._integrations.spark._plan import datasets
    from olsdk._integrations.spark._run import lineage_run
    from olsdk._integrations.spark._schema import schema_facet, schema_fields

_EXPORTS = {
    "EventValidation": "olsdk._integrations.spark._eventlog",
    "SparkLineage": "olsdk._integrations.spark._listener",
    "install": "olsdk._integrations.spark._listener",
    "datasets": "olsdk._integrations.spark._plan",
    "schema_facet": "olsdk._integrations.spark._schema",
    "schema_fields": "olsdk._integrations.spark._schema",
    "lineage_run": "olsdk._integrations.spark._run",
    "parent_conf": "olsdk._integrations.spark._parent",
    "event_log_schema": "olsdk._integrations.spark._eventlog",
    "lineage_edges": "olsdk._integrations.spark._eventlog",
    "read_events": "olsdk._integrations.spark._eventlog",
    "validate_events": "olsdk._integrations.spark._eventlog",
    "lineage_page": "olsdk._integrations.spark._graph",
}

__all__ = [
    "EventValidation",
    "SparkLineage",
    "datasets",
    "event_log_schema",
    "install",
    "lineage_edges",
    "lineage_page",
    "lineage_run",
    "parent_conf",
    "read_events",
    "schema_facet",
    "schema_fields",
    "validate_events",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'olsdk.spark' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
