"""Typed facets of the OpenLineage Java Spark agent (no pyspark needed)."""

from olsdk._integrations.spark.agent_facets import (
    AGENT_FACETS,
    REGISTRY,
    EnvironmentPropertiesRunFacet,
    SparkApplicationDetailsRunFacet,
    SparkExceptionRunFacet,
    SparkJobDetailsRunFacet,
    SparkLogicalPlanRunFacet,
    SparkPropertiesRunFacet,
    SparkUnknownRunFacet,
    spark_properties_facet,
)

__all__ = [
    "AGENT_FACETS",
    "REGISTRY",
    "EnvironmentPropertiesRunFacet",
    "SparkApplicationDetailsRunFacet",
    "SparkExceptionRunFacet",
    "SparkJobDetailsRunFacet",
    "SparkLogicalPlanRunFacet",
    "SparkPropertiesRunFacet",
    "SparkUnknownRunFacet",
    "spark_properties_facet",
]
