"""Facets the agent's settings add to events (tags, owners, captured properties, disabled
facets, job-name switches), compared with the agent's application-level reference events."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.spark.agent_shapes import mismatches, template
from tests.spark.conftest import APP_JOB, Collector
from tests.spark.test_listener import _write_with_own_listener, roundtrip

pytestmark = pytest.mark.spark

P = "spark.openlineage."


def test_tags_owners_and_properties(spark: Any, spark_dirs: Path, lineage: Collector) -> None:
    source = spark_dirs / "settings" / "people_parquet"
    spark.range(3).write.mode("overwrite").parquet(str(source))
    lineage.take()
    settings = {
        P + "job.tags": "spark;key:value",
        P + "run.tags": "run;set:up:SERVICE",
        P + "job.owners.team": "data-eng",
        P + "capturedProperties": "spark.sql.shuffle.partitions",
        P + "parentJobNamespace": "parent-namespace",
        P + "parentJobName": "parent-job",
        P + "parentRunId": "bd9c2467-3ed7-4fdc-85c2-41ebf5c73b40",
        P + "facets.processing_engine.disabled": "true",
    }
    events: list[Any] = []
    _write_with_own_listener(spark, lineage, events.append, spark_dirs / "settings" / "out" / "w", settings)
    app_start, write_start, write_complete, app_complete = [e.to_dict() for e in roundtrip(events)]
    replace = {"generic-namespace": "olsdk-failures", "generic_integration_test": APP_JOB}
    assert mismatches(app_start, template("applicationLevelStartApplication.json", replace)) == []
    assert mismatches(app_complete, {**template("applicationLevelCompleteJob.json", replace), "run": {}}) == []
    for event in (write_start, write_complete):
        assert event["job"]["facets"]["ownership"]["owners"] == [{"name": "data-eng", "type": "team"}]
        assert event["run"]["facets"]["tags"]["tags"][1] == {"key": "set", "value": "up", "source": "SERVICE"}
        assert event["run"]["facets"]["spark_properties"]["properties"]["spark.sql.shuffle.partitions"] == "2"
        assert "processing_engine" not in event["run"]["facets"]


def test_job_name_switches(spark: Any, spark_dirs: Path, lineage: Collector) -> None:
    spark.range(3).write.mode("overwrite").parquet(str(spark_dirs / "names" / "people_parquet"))
    lineage.take()
    events: list[Any] = []
    _write_with_own_listener(
        spark,
        lineage,
        events.append,
        spark_dirs / "names" / "out" / "w",
        {P + "jobName.appendDatasetName": "false", P + "appName": "Orders.Daily"},
    )
    assert [e.job.name for e in events] == [
        "orders_daily",
        "orders_daily.execute_insert_into_hadoop_fs_relation_command",
        "orders_daily.execute_insert_into_hadoop_fs_relation_command",
        "orders_daily",
    ]
