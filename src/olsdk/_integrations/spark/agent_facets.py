"""Typed facets of the OpenLineage Java Spark agent, registered by their exact keys.

The agent's own run facets use keys outside the ``<prefix>_<name>`` convention
(``spark.exception``, ``environment-properties``), so they are registered explicitly, in
a facet registry of their own, ``REGISTRY`` (the default registry's facets plus the
agent's), which the Spark integration reads events with:
``olsdk.parse_event(data, registry=REGISTRY)`` returns these classes for agent events.
Importing this module changes nothing else: ``olsdk.parse_event(data)`` reads the
agent's facets as plain data, as before any import. Unknown extra fields are kept, as
for every model. Needs no pyspark.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from olsdk._foundation._registry import DEFAULT, FacetRegistry
from olsdk._models import RunFacet

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

# The agent's custom facets point _schemaURL at the spec's generic RunFacet.
_AGENT_SCHEMA_URL = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunFacet"


class _AgentRunFacet(RunFacet):
    __olsdk_schema_url__: ClassVar[str | None] = _AGENT_SCHEMA_URL


class SparkPropertiesRunFacet(_AgentRunFacet):
    """``spark_properties``: selected Spark settings (``spark.master``, ``spark.app.name``, ...)."""

    properties: dict[str, Any] = Field(default_factory=dict)


class SparkApplicationDetailsRunFacet(_AgentRunFacet):
    """``spark_applicationDetails``: where and as whom the application runs."""

    master: str | None = None
    appName: str | None = None
    applicationId: str | None = None
    deployMode: str | None = None
    driverHost: str | None = None
    userName: str | None = None
    uiWebUrl: str | None = None
    proxyUrl: str | None = None
    historyUrl: str | None = None


class SparkJobDetailsRunFacet(_AgentRunFacet):
    """``spark_jobDetails``: the Spark job behind a job event."""

    jobId: int | None = None
    jobDescription: str | None = None
    jobGroup: str | None = None
    jobCallSite: str | None = None


class SparkExceptionRunFacet(_AgentRunFacet):
    """``spark.exception``: the failure of a job (the agent never sets ``errorMessage``)."""

    message: str | None = None
    stackTrace: str | None = None


class SparkLogicalPlanRunFacet(_AgentRunFacet):
    """``spark.logicalPlan``: the serialized logical plan (off by default in the agent)."""

    plan: Any = None


class SparkUnknownRunFacet(_AgentRunFacet):
    """``spark_unknown``: plan nodes the agent had no visitor for (off by default)."""

    output: Any = None
    inputs: Any = None


class EnvironmentPropertiesRunFacet(_AgentRunFacet):
    """``environment-properties``: Databricks environment or selected variables."""

    environment_properties: dict[str, Any] | None = Field(default=None, alias="environment-properties")


AGENT_FACETS: dict[str, type[RunFacet]] = {
    "spark_properties": SparkPropertiesRunFacet,
    "spark_applicationDetails": SparkApplicationDetailsRunFacet,
    "spark_jobDetails": SparkJobDetailsRunFacet,
    "spark.exception": SparkExceptionRunFacet,
    "spark.logicalPlan": SparkLogicalPlanRunFacet,
    "spark_unknown": SparkUnknownRunFacet,
    "environment-properties": EnvironmentPropertiesRunFacet,
}
"""Run facet key -> class, as the Java agent names them."""

REGISTRY = FacetRegistry(parent=DEFAULT)
"""The default registry's facets plus the agent's: what the Spark integration reads with."""
for _key, _cls in AGENT_FACETS.items():
    REGISTRY.register_facet(_cls, key=_key, entity="run")


def spark_properties_facet(properties: dict[str, str]) -> SparkPropertiesRunFacet:
    """A ``spark_properties`` facet as the agent attaches it to every run."""
    return SparkPropertiesRunFacet(properties=dict(properties))
