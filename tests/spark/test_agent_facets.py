"""The Java agent's facets parse into their typed classes (no Spark needed)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import olsdk
from olsdk._integrations.spark.agent_facets import _AGENT_SCHEMA_URL as AGENT_SCHEMA_URL
from tests.spark.agent_shapes import REFERENCE as AGENT_REFERENCE


@pytest.mark.parametrize(
    "name", ["cli_pyspark_example_expected_event_complete.json", "pysparkKafkaWriteCompleteEvent.json"]
)
def test_agent_facets_parse_typed(name: str) -> None:
    from olsdk.spark import agent_facets

    reference = AGENT_REFERENCE / name
    doc = json.loads(reference.read_text())
    # Reference templates are partial: complete them into valid events.
    doc.update(
        eventTime="2024-01-01T00:00:00Z",
        producer="https://example.com/agent",
        schemaURL="https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    )
    doc["job"].setdefault("name", "kafka")
    doc["run"]["runId"] = "0190b1a2-0000-7000-8000-000000000001"
    for key, facet in doc["run"]["facets"].items():
        facet.update({"_producer": "https://example.com/agent", "_schemaURL": AGENT_SCHEMA_URL})
        if key == "parent":
            facet["run"] = {"runId": "0190b1a2-0000-7000-8000-000000000002"}
        if key == "processing_engine":
            facet["version"] = "3.5.1"
    doc["job"].pop("facets", None)
    for ds in doc.get("inputs", []) + doc.get("outputs", []):
        ds["facets"] = {}
    # Read with the Spark integration's registry (importing olsdk.spark registers nothing
    # in the default one: `olsdk.parse_event(doc)` keeps the agent's facets as plain data).
    event = olsdk.parse_event(doc, registry=agent_facets.REGISTRY)
    assert isinstance(event, olsdk.models.RunEvent)
    facets: Any = event.run.facets
    if "spark_properties" in doc["run"]["facets"]:
        props = facets.spark_properties
        assert isinstance(props, agent_facets.SparkPropertiesRunFacet)
        assert props.properties["spark.app.name"] == "CLI test application"
        env = getattr(facets, "environment-properties")
        assert isinstance(env, agent_facets.EnvironmentPropertiesRunFacet)
        assert env.environment_properties == {}
    else:
        assert isinstance(getattr(facets, "spark.logicalPlan"), agent_facets.SparkLogicalPlanRunFacet)
    assert json.loads(olsdk.to_json(event))["run"]["facets"].keys() == doc["run"]["facets"].keys()


def test_agent_exception_facet_roundtrip() -> None:
    from olsdk.spark.agent_facets import SparkExceptionRunFacet, SparkJobDetailsRunFacet

    facet = SparkExceptionRunFacet(message="boom", stackTrace="at x")
    assert json.loads(facet.to_json())["message"] == "boom"
    assert SparkJobDetailsRunFacet(jobId=3).jobId == 3


def test_importing_the_spark_integration_leaves_the_default_verdicts_alone() -> None:
    from olsdk.spark import agent_facets

    facet = {"_producer": "https://example.com/agent", "_schemaURL": AGENT_SCHEMA_URL, "jobId": "x"}
    doc = {
        "eventType": "START",
        "eventTime": "2024-01-01T00:00:00Z",
        "producer": "https://example.com/agent",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": "0190b1a2-0000-7000-8000-000000000001", "facets": {"spark_jobDetails": facet}},
        "job": {"namespace": "ns", "name": "job"},
    }
    # The default registry does not know the agent's facets: a RunFacet like any other.
    assert olsdk.validate_event(doc) == []
    assert type(olsdk.parse_event(doc).run.facets["spark_jobDetails"]) is dict  # type: ignore[union-attr]
    # The Spark integration's registry types them (and its class wants jobId as an integer).
    problems = olsdk.validate_event(doc, registry=agent_facets.REGISTRY)
    assert [p.path for p in problems] == ["run.facets.spark_jobDetails.jobId"]
    with pytest.raises(olsdk.ValidationError):
        olsdk.parse_event(doc, registry=agent_facets.REGISTRY)
