"""A corpus of real-shaped OpenLineage events, each with what the readers must say.

Shapes follow what real producers emit: the OpenLineage Java Spark agent (the templates
in tests/spark/agent_reference/, filled in as a running agent fills them: run ids,
times, producer, schema URLs, facet `_producer`/`_schemaURL`), Airflow's provider, dbt
(`dbt-ol`) and Flink. Each deviation seen in the wild appears in at least one event:

- Spark: `dataSource.uri` of `"file"` or `"bigquery"` (not an absolute URI);
- Airflow: `columnLineage` without `_producer`/`_schemaURL`; no top-level `schemaURL`;
- the official Python client's serde examples: a naive `eventTime`;
- dbt: a date-only `nominalStartTime`;
- Flink: `eventType: null`;
and a few that no reader can use (an empty run id, no job name).

`CORPUS` lists `Sample(name, document, problems)`: `problems` are the JSON paths
`olsdk.validate_event` reports (empty: valid), or `None` for an event whose identity is
unusable (refused in both modes).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

CORE = "https://openlineage.io/spec/2-0-2/OpenLineage.json"
FACETS = "https://openlineage.io/spec/facets"
SPARK = "https://github.com/OpenLineage/OpenLineage/tree/1.40.0/integration/spark"
AIRFLOW = "https://github.com/apache/airflow/tree/providers-openlineage/2.3.0"
DBT = "https://github.com/OpenLineage/OpenLineage/tree/1.40.0/integration/dbt"
FLINK = "https://github.com/OpenLineage/OpenLineage/tree/1.40.0/integration/flink"
SPARK_RUN = "0190d3a4-7b5c-7a3e-9f00-1234567890ab"
SPARK_APP_RUN = "0190d3a4-7b5c-7a3e-9f00-00000000a0a0"
AIRFLOW_RUN = "01931f1e-9b1c-7c55-8d2e-3f4a5b6c7d8e"
DAG_RUN = "01931f1e-9b1c-7c55-8d2e-000000000001"


@dataclass(frozen=True)
class Sample:
    name: str
    document: dict[str, Any]
    problems: tuple[str, ...] | None  # validate_event paths; None: unusable identity


def facet(producer: str, schema: str, /, **fields: Any) -> dict[str, Any]:
    return {"_producer": producer, "_schemaURL": schema, **fields}


def spec_facet(producer: str, file: str, definition: str, /, **fields: Any) -> dict[str, Any]:
    return facet(producer, f"{FACETS}/{file}#/$defs/{definition}", **fields)


def schema_facet(producer: str, *columns: tuple[str, str]) -> dict[str, Any]:
    fields = [{"name": name, "type": kind} for name, kind in columns]
    return spec_facet(producer, "1-2-0/SchemaDatasetFacet.json", "SchemaDatasetFacet", fields=fields)


def spark_event(event_type: str, uri: str = "file:/tmp/warehouse") -> dict[str, Any]:
    """The Spark agent's InsertIntoHadoopFsRelationCommand event (pysparkHadoopFSStartEvent)."""
    columns = (("key", "integer"), ("value", "string"))

    def source() -> dict[str, Any]:
        return spec_facet(SPARK, "1-0-1/DatasourceDatasetFacet.json", "DatasourceDatasetFacet", name="file", uri=uri)

    return {
        "eventTime": "2026-11-20T08:15:02.482Z",
        "producer": SPARK,
        "schemaURL": f"{CORE}#/$defs/RunEvent",
        "eventType": event_type,
        "run": {
            "runId": SPARK_RUN,
            "facets": {
                "parent": spec_facet(
                    SPARK,
                    "1-2-0/ParentRunFacet.json",
                    "ParentRunFacet",
                    run={"runId": SPARK_APP_RUN},
                    job={"namespace": "testPysparkSQLHadoopFSTest", "name": "open_lineage_integration_hadoop_fs"},
                    root={
                        "run": {"runId": SPARK_APP_RUN},
                        "job": {
                            "namespace": "testPysparkSQLHadoopFSTest",
                            "name": "open_lineage_integration_hadoop_fs",
                        },
                    },
                ),
                "processing_engine": spec_facet(
                    SPARK,
                    "1-1-1/ProcessingEngineRunFacet.json",
                    "ProcessingEngineRunFacet",
                    version="3.5.4",
                    name="spark",
                    openlineageAdapterVersion="1.40.0",
                ),
                "spark_properties": facet(
                    SPARK,
                    f"{SPARK}/facets/spark/v1/spark-properties-facet.json#/$defs/SparkPropertiesFacet",
                    properties={"spark.master": "local[2]", "spark.app.name": "open_lineage_integration_hadoop_fs"},
                ),
                "environment-properties": facet(
                    SPARK,
                    f"{SPARK}/facets/spark/v1/environment-properties-facet.json",
                    **{"environment-properties": {"spark.databricks.clusterUsageTags.clusterName": None}},
                ),
            },
        },
        "job": {
            "namespace": "testPysparkSQLHadoopFSTest",
            "name": "open_lineage_integration_hadoop_fs.execute_insert_into_hadoop_fs_relation_command"
            ".warehouse_target",
            "facets": {
                "jobType": spec_facet(
                    SPARK,
                    "2-0-4/JobTypeJobFacet.json",
                    "JobTypeJobFacet",
                    processingType="BATCH",
                    integration="SPARK",
                    jobType="SQL_JOB",
                )
            },
        },
        "inputs": [
            {
                "namespace": "file",
                "name": "/tmp/warehouse/test",
                "facets": {"dataSource": source(), "schema": schema_facet(SPARK, *columns)},
                "inputFacets": {},
            }
        ],
        "outputs": [
            {
                "namespace": "file",
                "name": "/tmp/warehouse/target",
                "facets": {
                    "dataSource": source(),
                    "schema": schema_facet(SPARK, *columns),
                    "symlinks": spec_facet(
                        SPARK,
                        "1-0-1/SymlinksDatasetFacet.json",
                        "SymlinksDatasetFacet",
                        identifiers=[{"namespace": "file:/tmp/warehouse", "name": "default.target", "type": "TABLE"}],
                    ),
                },
                "outputFacets": {
                    "outputStatistics": spec_facet(
                        SPARK,
                        "1-0-2/OutputStatisticsOutputDatasetFacet.json",
                        "OutputStatisticsOutputDatasetFacet",
                        rowCount=2,
                        size=1024,
                        fileCount=1,
                    )
                },
            }
        ],
    }


def spark_bigquery_event() -> dict[str, Any]:
    event = spark_event("COMPLETE")
    event["inputs"][0]["namespace"] = "bigquery"
    event["inputs"][0]["name"] = "project.dataset.table"
    event["inputs"][0]["facets"]["dataSource"].update(name="bigquery", uri="bigquery")
    return event


def airflow_event(event_type: str = "COMPLETE") -> dict[str, Any]:
    """The Airflow provider's task event: parent DAG run, airflow facets, SQL lineage."""
    job_name = "orders_daily.load_orders"
    return {
        "eventTime": "2026-11-20T02:00:07.118046+00:00",
        "producer": AIRFLOW,
        "schemaURL": f"{CORE}#/$defs/RunEvent",
        "eventType": event_type,
        "run": {
            "runId": AIRFLOW_RUN,
            "facets": {
                "parent": spec_facet(
                    AIRFLOW,
                    "1-2-0/ParentRunFacet.json",
                    "ParentRunFacet",
                    run={"runId": DAG_RUN},
                    job={"namespace": "airflow", "name": "orders_daily"},
                ),
                "nominalTime": spec_facet(
                    AIRFLOW,
                    "1-0-1/NominalTimeRunFacet.json",
                    "NominalTimeRunFacet",
                    nominalStartTime="2026-11-20T02:00:00+00:00",
                    nominalEndTime="2026-11-21T02:00:00+00:00",
                ),
                "airflow": facet(
                    AIRFLOW,
                    "https://raw.githubusercontent.com/apache/airflow/providers-openlineage/2.3.0/airflow/providers/openlineage/facets/AirflowRunFacet.json#/$defs/AirflowRunFacet",
                    dag={"dag_id": "orders_daily", "schedule_interval": "@daily", "tags": "['etl']"},
                    dagRun={"run_id": "scheduled__2026-11-20T02:00:00+00:00", "conf": {}},
                    task={"task_id": "load_orders", "operator_class": "SQLExecuteQueryOperator", "retries": 2},
                ),
                "processing_engine": spec_facet(
                    AIRFLOW,
                    "1-1-1/ProcessingEngineRunFacet.json",
                    "ProcessingEngineRunFacet",
                    version="2.10.5",
                    name="Airflow",
                    openlineageAdapterVersion="2.3.0",
                ),
            },
        },
        "job": {
            "namespace": "airflow",
            "name": job_name,
            "facets": {
                "jobType": spec_facet(
                    AIRFLOW,
                    "2-0-4/JobTypeJobFacet.json",
                    "JobTypeJobFacet",
                    processingType="BATCH",
                    integration="AIRFLOW",
                    jobType="TASK",
                ),
                "sql": spec_facet(
                    AIRFLOW,
                    "1-1-0/SQLJobFacet.json",
                    "SQLJobFacet",
                    query="INSERT INTO public.orders SELECT * FROM staging.orders",
                    dialect="postgres",
                ),
            },
        },
        "inputs": [
            {
                "namespace": "postgres://db.internal:5432",
                "name": "analytics.staging.orders",
                "facets": {"schema": schema_facet(AIRFLOW, ("id", "integer"), ("amount", "numeric"))},
            }
        ],
        "outputs": [
            {
                "namespace": "postgres://db.internal:5432",
                "name": "analytics.public.orders",
                "facets": {
                    "schema": schema_facet(AIRFLOW, ("id", "integer"), ("amount", "numeric")),
                    "columnLineage": spec_facet(
                        AIRFLOW,
                        "1-2-0/ColumnLineageDatasetFacet.json",
                        "ColumnLineageDatasetFacet",
                        fields={
                            column: {
                                "inputFields": [
                                    {
                                        "namespace": "postgres://db.internal:5432",
                                        "name": "analytics.staging.orders",
                                        "field": column,
                                        "transformations": [{"type": "DIRECT", "subtype": "IDENTITY"}],
                                    }
                                ]
                            }
                            for column in ("id", "amount")
                        },
                    ),
                },
            }
        ],
    }


def airflow_column_lineage_without_base() -> dict[str, Any]:
    # Airflow's SQL parser path: the facet is built from a dict, without `_producer`/`_schemaURL`.
    event = airflow_event()
    lineage = event["outputs"][0]["facets"]["columnLineage"]
    del lineage["_producer"], lineage["_schemaURL"]
    return event


def without(event: dict[str, Any], key: str) -> dict[str, Any]:
    out = copy.deepcopy(event)
    del out[key]
    return out


def python_client_naive_time() -> dict[str, Any]:
    # The official Python client's serde examples: eventTime from `datetime.now().isoformat()`.
    event = airflow_event("START")
    event["eventTime"] = "2021-11-03T10:53:52.427343"
    return event


def dbt_event(nominal_start: str = "2026-11-20T03:00:00Z") -> dict[str, Any]:
    model = "model.jaffle_shop.customers"
    return {
        "eventTime": "2026-11-20T03:04:11.920116Z",
        "producer": DBT,
        "schemaURL": f"{CORE}#/$defs/RunEvent",
        "eventType": "COMPLETE",
        "run": {
            "runId": "01931f30-2c1d-7e00-9a00-0000000000d1",
            "facets": {
                "parent": spec_facet(
                    DBT,
                    "1-2-0/ParentRunFacet.json",
                    "ParentRunFacet",
                    run={"runId": "01931f30-2c1d-7e00-9a00-0000000000d0"},
                    job={"namespace": "dbt", "name": "dbt-run-jaffle_shop"},
                ),
                "nominalTime": spec_facet(
                    DBT, "1-0-1/NominalTimeRunFacet.json", "NominalTimeRunFacet", nominalStartTime=nominal_start
                ),
                "dbt_version": facet(
                    DBT, f"{DBT}/facets/DbtVersionRunFacet.json#/$defs/DbtVersionRunFacet", version="1.9.1"
                ),
            },
        },
        "job": {
            "namespace": "dbt",
            "name": f"jaffle_shop.{model}",
            "facets": {
                "sql": spec_facet(DBT, "1-1-0/SQLJobFacet.json", "SQLJobFacet", query="select * from stg_customers"),
                "jobType": spec_facet(
                    DBT,
                    "2-0-4/JobTypeJobFacet.json",
                    "JobTypeJobFacet",
                    processingType="BATCH",
                    integration="DBT",
                    jobType="MODEL",
                ),
            },
        },
        "inputs": [
            {
                "namespace": "snowflake://xy12345.eu-west-1",
                "name": "analytics.jaffle_shop.stg_customers",
                "facets": {
                    "dataSource": spec_facet(
                        DBT,
                        "1-0-1/DatasourceDatasetFacet.json",
                        "DatasourceDatasetFacet",
                        name="snowflake://xy12345.eu-west-1",
                        uri="snowflake://xy12345.eu-west-1",
                    )
                },
                "inputFacets": {
                    "dataQualityAssertions": spec_facet(
                        DBT,
                        "1-1-0/DataQualityAssertionsDatasetFacet.json",
                        "DataQualityAssertionsDatasetFacet",
                        assertions=[
                            {"assertion": "not_null", "success": True, "column": "customer_id"},
                            {"assertion": "unique", "success": True, "column": "customer_id"},
                        ],
                    )
                },
            }
        ],
        "outputs": [{"namespace": "snowflake://xy12345.eu-west-1", "name": "analytics.jaffle_shop.customers"}],
    }


def flink_event(event_type: Any = "RUNNING") -> dict[str, Any]:
    return {
        "eventTime": "2026-11-20T09:00:00.000Z",
        "producer": FLINK,
        "schemaURL": f"{CORE}#/$defs/RunEvent",
        "eventType": event_type,
        "run": {"runId": "01931f40-0000-7000-8000-00000000f11c"},
        "job": {
            "namespace": "flink-jobs",
            "name": "clicks_enrichment",
            "facets": {
                "jobType": spec_facet(
                    FLINK,
                    "2-0-4/JobTypeJobFacet.json",
                    "JobTypeJobFacet",
                    processingType="STREAMING",
                    integration="FLINK",
                    jobType="JOB",
                )
            },
        },
        "inputs": [
            {
                "namespace": "kafka://broker-1:9092",
                "name": "clicks",
                "facets": {
                    "schema": schema_facet(FLINK, ("user_id", "STRING"), ("ts", "BIGINT")),
                    "symlinks": spec_facet(
                        FLINK,
                        "1-0-1/SymlinksDatasetFacet.json",
                        "SymlinksDatasetFacet",
                        identifiers=[{"namespace": "kafka://broker-1:9092", "name": "clicks", "type": "TOPIC"}],
                    ),
                },
            }
        ],
        "outputs": [{"namespace": "kafka://broker-1:9092", "name": "clicks_enriched"}],
    }


def dataset_event() -> dict[str, Any]:
    return {
        "eventTime": "2026-11-20T09:30:00Z",
        "producer": AIRFLOW,
        "schemaURL": f"{CORE}#/$defs/DatasetEvent",
        "dataset": {
            "namespace": "postgres://db.internal:5432",
            "name": "analytics.public.orders",
            "facets": {
                "schema": facet(AIRFLOW, f"{CORE}#/$defs/DatasetFacet", _deleted=True),
                "documentation": spec_facet(
                    AIRFLOW, "1-1-0/DocumentationDatasetFacet.json", "DocumentationDatasetFacet", description="Orders"
                ),
            },
        },
    }


def job_event() -> dict[str, Any]:
    return {
        "eventTime": "2026-11-20T09:31:00Z",
        "producer": DBT,
        "schemaURL": f"{CORE}#/$defs/JobEvent",
        "job": {"namespace": "dbt", "name": "jaffle_shop.model.jaffle_shop.orders"},
        "inputs": [{"namespace": "snowflake://xy12345.eu-west-1", "name": "analytics.jaffle_shop.stg_orders"}],
    }


def _unusable_run_id() -> dict[str, Any]:
    event = spark_event("START")
    event["run"]["runId"] = ""
    return event


def _unusable_job_name() -> dict[str, Any]:
    event = flink_event()
    del event["job"]["name"]
    return event


CORPUS: tuple[Sample, ...] = (
    Sample("spark-start", spark_event("START"), ()),
    Sample("spark-complete", spark_event("COMPLETE"), ()),
    Sample(
        "spark-datasource-uri-file",
        spark_event("COMPLETE", uri="file"),
        ("inputs[0].facets.dataSource.uri", "outputs[0].facets.dataSource.uri"),
    ),
    Sample("spark-datasource-uri-bigquery", spark_bigquery_event(), ("inputs[0].facets.dataSource.uri",)),
    Sample("airflow-complete", airflow_event(), ()),
    Sample(
        "airflow-column-lineage-without-producer",
        airflow_column_lineage_without_base(),
        ("outputs[0].facets.columnLineage._producer", "outputs[0].facets.columnLineage._schemaURL"),
    ),
    Sample("airflow-without-schema-url", without(airflow_event(), "schemaURL"), ("schemaURL",)),
    Sample("python-client-naive-event-time", python_client_naive_time(), ("eventTime",)),
    Sample("dbt-complete", dbt_event(), ()),
    Sample("dbt-date-only-nominal-start", dbt_event("2026-11-20"), ("run.facets.nominalTime.nominalStartTime",)),
    Sample("flink-running", flink_event(), ()),
    Sample("flink-event-type-null", flink_event(None), ("eventType",)),
    Sample("dataset-event-with-deletion", dataset_event(), ()),
    Sample("job-event", job_event(), ()),
    Sample("unusable-empty-run-id", _unusable_run_id(), None),
    Sample("unusable-no-job-name", _unusable_job_name(), None),
)
