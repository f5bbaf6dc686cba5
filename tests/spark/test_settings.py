"""The agent's ``spark.openlineage.*`` keys, read the agent's way (no Spark needed)."""

from __future__ import annotations

import pytest

from olsdk import ConfigError
from olsdk._integrations.spark._settings import SparkSettings, Tag, conf_tree, transport_config
from olsdk.client import OpenLineageClient

P = "spark.openlineage."


def test_tree_keeps_whole_keys_below_headers_and_properties() -> None:
    tree = conf_tree(
        {
            P + "transport.type": "http",
            P + "transport.headers.X-Team.Name": "data",
            P + "transport.properties.bootstrap.servers": "k:9092",
            P + "facets.disabled": "[spark_unknown;spark_properties]",
            "spark.app.name": "not ours",
            P + "namespace": "  ",  # blank: ignored, as the agent does
        }
    )
    assert tree == {
        "transport": {
            "type": "http",
            "headers": {"X-Team.Name": "data"},
            "properties": {"bootstrap.servers": "k:9092"},
        },
        "facets": {"disabled": ["spark_unknown", "spark_properties"]},
    }


def test_http_transport_translated_and_accepted_by_the_client() -> None:
    section = transport_config(
        {
            "type": "http",
            "url": "https://lineage.example.com/api/v1/lineage",
            "timeoutInMillis": "2500",
            "auth": {"type": "api_key", "apiKey": "s3cr3t"},
            "headers": {"X-Team": "data"},
            "urlParams": {"tenant": "t1"},
            "compression": "gzip",
        }
    )
    assert section == {
        "type": "http",
        "url": "https://lineage.example.com?tenant=t1",
        "endpoint": "/api/v1/lineage",
        "timeout": 2.5,
        "auth": {"type": "api_key", "apiKey": "s3cr3t"},
        "custom_headers": {"X-Team": "data"},
        "compression": "gzip",
    }
    client = OpenLineageClient(config={"transport": section}, environ={}, spool=False)
    assert "s3cr3t" not in repr(client)
    client.close()


@pytest.mark.parametrize(
    ("tree", "want"),
    [
        (
            {"type": "file", "location": "/tmp/ol.ndjson"},
            {"type": "file", "log_file_path": "/tmp/ol.ndjson", "append": True},
        ),
        (
            {"type": "kafka", "topicName": "lineage", "properties": {"bootstrap.servers": "k:9092"}},
            {"type": "kafka", "topic": "lineage", "config": {"bootstrap.servers": "k:9092"}},
        ),
        (
            {"type": "composite", "transports": {"a": {"type": "console"}, "b": {"type": "file", "location": "/x"}}},
            {
                "type": "composite",
                "transports": {"a": {"type": "console"}, "b": {"type": "file", "log_file_path": "/x", "append": True}},
            },
        ),
    ],
)
def test_other_transports(tree: dict[str, object], want: dict[str, object]) -> None:
    assert transport_config(tree) == want


def test_bad_values_name_the_key() -> None:
    with pytest.raises(ConfigError, match=r"spark\.openlineage\.transport\.type: required"):
        transport_config({"url": "http://x"})
    with pytest.raises(ConfigError, match=r"spark\.openlineage\.transport\.timeoutInMillis: must be a number"):
        transport_config({"type": "http", "url": "http://x", "timeoutInMillis": "soon"})


def test_settings() -> None:
    settings = SparkSettings.from_conf(
        {
            P + "namespace": "etl",
            P + "appName": "Nightly Orders",
            P + "parentJobNamespace": "airflow",
            P + "parentJobName": "dag.task",
            P + "parentRunId": "0190e5c6-5d4a-7b1e-8c3f-1a2b3c4d5e6f",
            P + "facets.disabled": "[spark_properties]",
            P + "facets.columnLineage.disabled": "true",
            P + "facets.debug.disabled": "false",
            P + "capturedProperties": "spark.executor.memory,spark.sql.shuffle.partitions",
            P + "job.tags": "pii;team:data;env:prod:DEPLOY",
            P + "run.tags": "[retry:2]",
            P + "job.owners.team": "data-eng",
            P + "columnLineage.datasetLineageEnabled": "false",
            P + "jobName.appendDatasetName": "false",
        }
    )
    assert (settings.namespace, settings.app_name) == ("etl", "Nightly Orders")
    assert settings.parent is not None and settings.parent.name == "dag.task" and settings.root is None
    assert not settings.facet_enabled("spark_properties") and not settings.facet_enabled("spark_unknown")
    assert settings.facet_enabled("debug")  # switched back on
    assert settings.column_lineage is False and settings.dataset_lineage is False
    assert settings.captured_properties == ("spark.executor.memory", "spark.sql.shuffle.partitions")
    assert settings.job_tags == (Tag("pii", "true"), Tag("team", "data"), Tag("env", "prod", "DEPLOY"))
    assert settings.run_tags == (Tag("retry", "2"),)
    assert settings.job_owners == (("team", "data-eng"),)
    assert settings.append_dataset_name is False
    assert settings.transport is None and not settings.disabled


def test_defaults_are_the_agents() -> None:
    settings = SparkSettings.from_conf({})
    assert settings.column_lineage and settings.dataset_lineage and settings.append_dataset_name
    assert {"spark_unknown", "spark.logicalPlan", "debug"} <= settings.disabled_facets
    assert SparkSettings.from_conf({P + "disabled": "TRUE"}).disabled


def test_a_value_a_setting_does_not_take_names_the_key() -> None:
    with pytest.raises(ConfigError, match=r"^spark\.openlineage\.disabled: expected true or false, got 'maybe'$"):
        SparkSettings.from_conf({P + "disabled": "maybe"})
    key = r"spark\.openlineage\.columnLineage\.datasetLineageEnabled"
    with pytest.raises(ConfigError, match=rf"^{key}: expected true or false, got 'sometimes'$"):
        SparkSettings.from_conf({P + "columnLineage.datasetLineageEnabled": "sometimes"})
    listed = SparkSettings.from_conf({P + "capturedProperties": "[a;b]"})
    assert listed.captured_properties == ("a", "b")
