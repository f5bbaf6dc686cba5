"""The events behind the Marquez web UI session (tests/serve/marquez_ui_calls.json).

Real-shaped lineage of a small shop, as its producers send it, its times counted back
from `now` (so that the dashboard's statistics and the events page's day hold them):

- an Airflow DAG (``orders_daily``) and its task (the corpus's Airflow event: parent run,
  SQL, schema, column lineage), run yesterday and today;
- a dbt project run (``dbt-run-jaffle_shop``) whose models write Snowflake tables with
  their schema, column lineage, tags (on the job, the dataset and one field) and
  documentation; the model ran three times, its table's schema gaining a column on the
  last run (two dataset versions), and its test failed with an error message;
- the Spark agent's application and its SQL job under it (the corpus's Spark events);
- a Flink streaming job still running; a dataset event and a job event.
"""

from __future__ import annotations

import copy
from datetime import datetime, timedelta
from typing import Any

from tests.corpus.events import (
    AIRFLOW,
    DBT,
    SPARK,
    SPARK_APP_RUN,
    airflow_event,
    dbt_event,
    facet,
    flink_event,
    schema_facet,
    spark_event,
    spec_facet,
)

__all__ = ["SNOWFLAKE", "ui_events"]

SNOWFLAKE = "snowflake://xy12345.eu-west-1"
CORE_RUN = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
DBT_PARENT = "dbt-run-jaffle_shop"
CUSTOMERS_MODEL = "jaffle_shop.model.jaffle_shop.customers"


def _at(now: datetime, **back: float) -> str:
    return (now - timedelta(**back)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _run_event(
    producer: str, event_type: str, time: str, run_id: str, namespace: str, name: str, **parts: Any
) -> dict[str, Any]:
    return {
        "eventType": event_type,
        "eventTime": time,
        "run": {"runId": run_id, "facets": parts.pop("run_facets", {})},
        "job": {"namespace": namespace, "name": name, "facets": parts.pop("job_facets", {})},
        "inputs": parts.pop("inputs", []),
        "outputs": parts.pop("outputs", []),
        "producer": producer,
        "schemaURL": CORE_RUN,
    }


def _parent(producer: str, run_id: str, namespace: str, name: str) -> dict[str, Any]:
    return {
        "parent": spec_facet(
            producer,
            "1-2-0/ParentRunFacet.json",
            "ParentRunFacet",
            run={"runId": run_id},
            job={"namespace": namespace, "name": name},
        )
    }


def _tags(kind: str, *tags: tuple[str, str, str | None]) -> dict[str, Any]:
    entries = [
        {"key": key, "value": value, "source": "DBT", **({"field": field} if field else {})}
        for key, value, field in tags
    ]
    return {"tags": spec_facet(DBT, f"1-0-0/Tags{kind}Facet.json", f"Tags{kind}Facet", tags=entries)}


def _airflow(now: datetime, days_back: int, suffix: str) -> list[dict[str, Any]]:
    """The DAG's run and its task's run, `days_back` days ago."""
    dag_run = f"01931f1e-9b1c-7c55-8d2e-0000000000{suffix}"
    task_run = f"01931f1e-9b1c-7c55-8d2e-3f4a5b6c7d{suffix}"
    start = {"days": days_back, "hours": 6}
    task: list[dict[str, Any]] = []
    for event_type, minutes in (("START", 1), ("COMPLETE", 7)):
        event = airflow_event(event_type)
        event["eventTime"] = _at(now, days=days_back, hours=6, minutes=-minutes)
        event["run"]["runId"] = task_run
        event["run"]["facets"]["parent"]["run"]["runId"] = dag_run
        task.append(event)
    dag = [
        _run_event(AIRFLOW, "START", _at(now, **start), dag_run, "airflow", "orders_daily"),
        _run_event(
            AIRFLOW, "COMPLETE", _at(now, days=days_back, hours=6, minutes=-8), dag_run, "airflow", "orders_daily"
        ),
    ]
    return [dag[0], *task, dag[1]]


def _customers_output(columns: list[tuple[str, str]]) -> dict[str, Any]:
    """The customers table as the dbt model writes it: schema, column lineage, tags, docs."""
    upstream = "analytics.jaffle_shop.stg_customers"
    lineage = {
        name: {
            "inputFields": [
                {
                    "namespace": SNOWFLAKE,
                    "name": upstream,
                    "field": name if name != "full_name" else "first_name",
                    "transformations": [
                        {"type": "DIRECT", "subtype": "IDENTITY" if name != "full_name" else "TRANSFORMATION"}
                    ],
                }
            ]
        }
        for name, _kind in columns
    }
    return {
        "namespace": SNOWFLAKE,
        "name": "analytics.jaffle_shop.customers",
        "facets": {
            "schema": schema_facet(DBT, *columns),
            "columnLineage": spec_facet(
                DBT, "1-2-0/ColumnLineageDatasetFacet.json", "ColumnLineageDatasetFacet", fields=lineage
            ),
            "documentation": spec_facet(
                DBT,
                "1-1-0/DocumentationDatasetFacet.json",
                "DocumentationDatasetFacet",
                description="One row per customer",
            ),
            **_tags("Dataset", ("tier", "gold", None), ("pii", "true", "first_name")),
        },
    }


def _dbt_model_run(now: datetime, days_back: int, suffix: str, columns: list[tuple[str, str]]) -> list[dict[str, Any]]:
    parent_run = f"01931f30-2c1d-7e00-9a00-00000000d0{suffix}"
    model_run = f"01931f30-2c1d-7e00-9a00-00000000d1{suffix}"
    parent = _run_event(DBT, "START", _at(now, days=days_back, hours=4), parent_run, "dbt", DBT_PARENT)
    start = dbt_event(nominal_start=_at(now, days=days_back, hours=4))
    start["eventType"], start["eventTime"] = "START", _at(now, days=days_back, hours=4, minutes=-1)
    start["run"]["runId"] = model_run
    start["run"]["facets"]["parent"]["run"]["runId"] = parent_run
    start["job"]["name"] = CUSTOMERS_MODEL
    start["job"]["facets"].update(_tags("Job", ("team", "growth", None)))
    start["job"]["facets"]["documentation"] = spec_facet(
        DBT, "1-1-0/DocumentationJobFacet.json", "DocumentationJobFacet", description="Builds the customers table"
    )
    start["job"]["facets"]["sourceCodeLocation"] = spec_facet(
        DBT,
        "1-1-0/SourceCodeLocationJobFacet.json",
        "SourceCodeLocationJobFacet",
        type="git",
        url="https://github.com/dbt-labs/jaffle_shop/blob/main/models/customers.sql",
    )
    start["inputs"][0]["facets"]["schema"] = schema_facet(
        DBT, ("customer_id", "NUMBER"), ("first_name", "VARCHAR"), ("last_name", "VARCHAR")
    )
    start["outputs"] = [_customers_output(columns)]
    complete = copy.deepcopy(start)
    complete["eventType"], complete["eventTime"] = "COMPLETE", _at(now, days=days_back, hours=4, minutes=-3)
    done = _run_event(DBT, "COMPLETE", _at(now, days=days_back, hours=4, minutes=-5), parent_run, "dbt", DBT_PARENT)
    return [parent, start, complete, done]


def _dbt_test_failure(now: datetime) -> list[dict[str, Any]]:
    run_id = "01931f30-2c1d-7e00-9a00-00000000d2ff"
    parents = _parent(DBT, "01931f30-2c1d-7e00-9a00-00000000d003", "dbt", DBT_PARENT)
    customers = [{"namespace": SNOWFLAKE, "name": "analytics.jaffle_shop.customers"}]
    name = "jaffle_shop.test.jaffle_shop.unique_customers_customer_id"
    start = _run_event(
        DBT, "START", _at(now, hours=3, minutes=50), run_id, "dbt", name, run_facets=parents, inputs=customers
    )
    error = spec_facet(
        DBT,
        "1-0-1/ErrorMessageRunFacet.json",
        "ErrorMessageRunFacet",
        message="Got 2 results, configured to fail if != 0",
        programmingLanguage="SQL",
    )
    fail = _run_event(
        DBT, "FAIL", _at(now, hours=3, minutes=49), run_id, "dbt", name,
        run_facets={**parents, "errorMessage": error}, inputs=customers,
    )  # fmt: skip
    return [start, fail]


def _spark(now: datetime) -> list[dict[str, Any]]:
    app_name = "open_lineage_integration_hadoop_fs"
    app = [
        _run_event(
            SPARK, kind, _at(now, hours=2, minutes=minutes), SPARK_APP_RUN, "testPysparkSQLHadoopFSTest", app_name
        )
        for kind, minutes in (("START", 0), ("COMPLETE", -5))
    ]
    for event in app:
        event["job"]["facets"]["jobType"] = spec_facet(
            SPARK, "2-0-4/JobTypeJobFacet.json", "JobTypeJobFacet",
            processingType="BATCH", integration="SPARK", jobType="APPLICATION",
        )  # fmt: skip
    sql = []
    for kind, minutes in (("START", -1), ("COMPLETE", -4)):
        event = spark_event(kind)
        event["eventTime"] = _at(now, hours=2, minutes=minutes)
        sql.append(event)
    return [app[0], *sql, app[1]]


def _others(now: datetime) -> list[dict[str, Any]]:
    """A Flink job still running, and a dataset and a job event (no run)."""
    flink = flink_event("RUNNING")
    flink["eventTime"] = _at(now, hours=1)
    dataset = {
        "eventTime": _at(now, minutes=30),
        "producer": AIRFLOW,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent",
        "dataset": {
            "namespace": "postgres://db.internal:5432",
            "name": "analytics.public.orders",
            "facets": {
                "documentation": spec_facet(
                    AIRFLOW, "1-1-0/DocumentationDatasetFacet.json", "DocumentationDatasetFacet", description="Orders"
                )
            },
        },
    }
    job = {
        "eventTime": _at(now, minutes=20),
        "producer": DBT,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/JobEvent",
        "job": {
            "namespace": "dbt",
            "name": "jaffle_shop.model.jaffle_shop.orders",
            "facets": {"sql": facet(DBT, f"{DBT}/facets/SQLJobFacet.json", query="select * from stg_orders")},
        },
        "inputs": [{"namespace": SNOWFLAKE, "name": "analytics.jaffle_shop.stg_orders"}],
        "outputs": [{"namespace": SNOWFLAKE, "name": "analytics.jaffle_shop.orders"}],
    }
    return [flink, dataset, job]


def ui_events(now: datetime) -> list[dict[str, Any]]:
    """Every event of the session, oldest first (`now`: an aware UTC datetime)."""
    first = [("customer_id", "NUMBER"), ("first_name", "VARCHAR")]
    second = [*first, ("full_name", "VARCHAR")]
    events = [
        *_airflow(now, 1, "a1"),
        *_dbt_model_run(now, 2, "01", first),
        *_dbt_model_run(now, 1, "02", first),
        *_airflow(now, 0, "a2"),
        *_dbt_model_run(now, 0, "03", second),
        *_dbt_test_failure(now),
        *_spark(now),
        *_others(now),
    ]
    return sorted(events, key=lambda event: event["eventTime"])
