"""OpenLineage for PySpark: schema facets, plan datasets, a write listener, lineage runs.

Needs the ``spark`` extra (pyspark 4); the core ``olsdk`` package never imports this.

* ``schema_facet(struct_type)``: a ``SchemaDatasetFacet`` named as the Java agent names it.
* ``datasets(df)``: the input datasets of a DataFrame's plan.
* ``install(spark, client)``: START/COMPLETE/FAIL events for every write of a session.
* ``lineage_run(spark, job_name, inputs=..., outputs=...)``: an explicit run (also on
  Spark Connect).
* ``parent_conf(run)``: Spark settings that make a run the parent of the Java agent's events.
* ``event_log_schema()`` / ``validate_events(spark, path)``: event files on Spark.
"""

from __future__ import annotations

from olsdk.spark.listener import SparkLineage, install
from olsdk.spark.plan import datasets
from olsdk.spark.schema import schema_facet, schema_fields

__all__ = [
    "SparkLineage",
    "datasets",
    "install",
    "schema_facet",
    "schema_fields",
]
