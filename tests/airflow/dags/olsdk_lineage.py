"""The DAG of tests/airflow: what a small Airflow pipeline looks like to the OpenLineage provider.

SQL through the provider's SQL support (SQLExecuteQueryOperator on SQLite, the connection
``olsdk_sqlite`` given by the test), a Python task, a Bash task, a task that fails on purpose
and an ``all_done`` task after it. Parsed by Airflow in .venv-airflow only.
"""

from __future__ import annotations

import datetime

from airflow.providers.common.sql.operators.sql import SQLExecuteQueryOperator
from airflow.providers.standard.operators.bash import BashOperator
from airflow.providers.standard.operators.python import PythonOperator
from airflow.sdk import DAG


def count_orders() -> int:
    return 3


def fail_on_purpose() -> None:
    raise RuntimeError("olsdk test: this task fails on purpose")


with DAG(
    "olsdk_lineage",
    schedule=None,
    start_date=datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC),
    catchup=False,
    tags=["olsdk-test"],
):
    create_tables = SQLExecuteQueryOperator(
        task_id="create_tables",
        conn_id="olsdk_sqlite",
        sql=[
            "CREATE TABLE IF NOT EXISTS orders (id INTEGER, customer TEXT, amount REAL)",
            "CREATE TABLE IF NOT EXISTS customer_totals (customer TEXT, total REAL)",
            "INSERT INTO orders VALUES (1, 'ada', 10.0), (2, 'ada', 5.5), (3, 'bob', 7.25)",
        ],
    )
    insert_select = SQLExecuteQueryOperator(
        task_id="insert_select",
        conn_id="olsdk_sqlite",
        sql="INSERT INTO customer_totals (customer, total) SELECT customer, SUM(amount) FROM orders GROUP BY customer",
    )
    python_step = PythonOperator(task_id="python_step", python_callable=count_orders)
    bash_step = BashOperator(task_id="bash_step", bash_command="echo olsdk")
    fails = PythonOperator(task_id="fails_on_purpose", python_callable=fail_on_purpose)
    after_failure = BashOperator(task_id="after_failure", bash_command="echo done", trigger_rule="all_done")

    create_tables >> insert_select >> python_step >> bash_step >> fails >> after_failure
