"""naming._job: job names (the conventions' job table, the Spark agent's A3 rules)."""

import doctest

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from olsdk.naming import DatasetId, job


def test_conventions_job_table_examples() -> None:
    assert job.airflow("orders_etl", "count_orders") == "orders_etl.count_orders"
    assert (
        job.spark("my_awesome_app", "execute_insert_into_hive_table", "mydb.mytable")
        == "my_awesome_app.execute_insert_into_hive_table.mydb_mytable"
    )
    assert job.sql("gx", "validate_datasets") == "gx.validate_datasets"
    assert job.debezium("inventory", 0) == "inventory.0"


@pytest.mark.parametrize(
    ("raw", "normalized"),
    [
        ("CLI test application", "cli_test_application"),
        ("InsertIntoHadoopFsRelationCommand", "insert_into_hadoop_fs_relation_command"),
        (
            "Execute InsertIntoHadoopFsRelationCommand",
            "execute_insert_into_hadoop_fs_relation_command",
        ),
        ("Execute CreateHiveTableAsSelectCommand", "execute_create_hive_table_as_select_command"),
        ("AdaptiveSparkPlan", "adaptive_spark_plan"),
        ("CollectLimit", "collect_limit"),
        ("ACRONYMWord", "acronym_word"),
        ("9Word", "9_word"),
        ("camelCase", "camel_case"),
        ("  --Crème brûlée app!! ", "creme_brulee_app"),
        ("open-lineage.integration", "open_lineage_integration"),
    ],
)
def test_name_normalizer(raw: str, normalized: str) -> None:
    assert job.normalize_name(raw) == normalized


@settings(max_examples=50, deadline=None)
@given(st.text(min_size=1, max_size=30))
def test_normalized_names_are_lower_snake_ascii_and_stable(raw: str) -> None:
    result = job.normalize_name(raw)
    assert all(c.isascii() and (c.islower() or c.isdigit() or c == "_") for c in result)
    assert job.normalize_name(result) == result


def test_spark_names_from_the_agents_fixtures() -> None:
    # integration/spark/cli/tests/test_pyspark and the reference events (A3).
    assert (
        job.spark("CLI test application", "Execute CreateHiveTableAsSelectCommand", "default.t2")
        == "cli_test_application.execute_create_hive_table_as_select_command.default_t2"
    )
    assert (
        job.spark(
            "Open Lineage Integration Hadoop FS Relation",
            "Execute InsertIntoHadoopFsRelationCommand",
            DatasetId("file", "/tmp/warehouse/target"),
        )
        == "open_lineage_integration_hadoop_fs_relation."
        "execute_insert_into_hadoop_fs_relation_command.warehouse_target"
    )


def test_spark_path_suffix_is_trimmed_then_last_two_segments() -> None:
    assert job.spark("app", "cmd", "/data/out/events/year=2024/month=01") == "app.cmd.out_events"
    assert job.spark("app", "cmd", "s3://b/x.y/z") == "app.cmd.x_y_z"


def test_spark_application_and_action_names() -> None:
    assert job.spark("CLI test application") == "cli_test_application"
    assert job.spark_action("My App", "CollectLimit") == "my_app.collect_limit"
    with pytest.raises(ValueError, match=r"job\.spark: command is required"):
        job.spark("app", table="db.t")


@pytest.mark.parametrize(
    "call",
    [
        lambda: job.airflow("", "t"),
        lambda: job.airflow("d", " "),
        lambda: job.sql("s", ""),
        lambda: job.debezium("", 0),
        lambda: job.debezium("inventory", -1),
        lambda: job.debezium("inventory", True),
        lambda: job.spark("!!!"),
    ],
)
def test_job_names_reject_empty_parts(call: object) -> None:
    with pytest.raises(ValueError, match="job"):
        call()  # type: ignore[operator]


def test_docstring_examples() -> None:
    result = doctest.testmod(job, verbose=False)  # type: ignore[arg-type]
    assert result.attempted > 0
    assert result.failed == 0
