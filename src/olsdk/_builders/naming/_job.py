"""Job names, as the naming conventions' job table and the Java Spark agent build them.

| job type     | name                            |
|--------------|---------------------------------|
| Airflow task | ``{dag_id}.{task_id}``          |
| Spark job    | ``{appName}.{command}.{table}`` |
| SQL          | ``{schema}.{table}``            |
| Debezium     | ``{topic.prefix}.{taskId}``     |

A Spark application is named ``{appName}`` and a Spark action ``{appName}.{node}``.

The job namespace is not part of the name: it comes from configuration, or from the
parent job (see :func:`olsdk._builders.naming._parent`).
"""

from __future__ import annotations

import re
import unicodedata

from olsdk._builders.naming import _rules as rules
from olsdk._builders.naming._identifier import DatasetId
from olsdk._builders.naming._partitions import trim_partitions

__all__ = ["airflow", "debezium", "normalize_name", "spark", "spark_action", "sql"]

_EDGE_NON_WORD = re.compile(r"^\W+|\W+$")
_LOWER_OR_DIGIT_THEN_UPPER = re.compile(r"([a-z0-9])([A-Z])")
_ACRONYM_THEN_WORD = re.compile(r"([A-Z]+)([A-Z][a-z])")
_NOT_ALNUM = re.compile(r"[^a-zA-Z0-9]+")


def normalize_name(value: str) -> str:
    """The Spark agent's ``NameNormalizer``: ``snake_case`` ASCII words.

    Strip non-word characters at both ends, drop accents, split camelCase words
    (``ACRONYMWord`` -> ``ACRONYM Word``, ``9Word`` -> ``9 Word``), lower-case, and
    turn every run of other characters into ``_``.

    >>> normalize_name("InsertIntoHadoopFsRelationCommand")
    'insert_into_hadoop_fs_relation_command'
    >>> normalize_name("CLI test application")
    'cli_test_application'
    """
    result = _EDGE_NON_WORD.sub("", value)
    decomposed = unicodedata.normalize("NFKD", result)
    result = "".join(char for char in decomposed if not unicodedata.combining(char))
    result = _ACRONYM_THEN_WORD.sub(r"\1 \2", result)
    result = _LOWER_OR_DIGIT_THEN_UPPER.sub(r"\1 \2", result)
    return _NOT_ALNUM.sub("_", result.lower())


def _normalized(store: str, arg: str, value: object) -> str:
    result = normalize_name(rules.text(store, arg, value))
    if not result.strip("_"):
        raise rules.fail(store, arg, "must contain letters or digits", value)
    return result


def airflow(dag_id: str, task_id: str) -> str:
    """Airflow task: ``{dag_id}.{task_id}`` (``orders_etl.count_orders``)."""
    dag = rules.text("job.airflow", "dag_id", dag_id)
    return f"{dag}.{rules.text('job.airflow', 'task_id', task_id)}"


def _table_suffix(table: str | DatasetId) -> str:
    """The agent's ``JobNameSuffixProvider``: a table id ``db.table`` gives ``db_table``; a
    path is partition-trimmed, then its last two segments are joined with ``_``."""
    value = table.name if isinstance(table, DatasetId) else rules.text("job.spark", "table", table)
    if "/" in value:
        segments = [s for s in trim_partitions(value.rstrip("/")).split("/") if s]
        value = "_".join(segments[-2:])
    return value.replace(".", "_")


def spark(app_name: str, command: str | None = None, table: str | DatasetId | None = None) -> str:
    """Spark job name: ``{appName}``, ``{appName}.{command}`` or ``{appName}.{command}.{table}``.

    ``app_name`` and ``command`` (the root plan node, e.g. ``Execute
    InsertIntoHadoopFsRelationCommand``) go through :func:`normalize_name`. ``table`` is
    the output: a table name (``mydb.mytable`` -> ``mydb_mytable``), a path
    (``/data/out/events`` -> ``out_events``) or a :class:`DatasetId` (its name).

    >>> spark("my awesome app", "execute_insert_into_hive_table", "mydb.mytable")
    'my_awesome_app.execute_insert_into_hive_table.mydb_mytable'
    """
    name = _normalized("job.spark", "app_name", app_name)
    if command is None:
        if table is not None:
            raise rules.fail("job.spark", "command", "is required when table is given", command)
        return name
    name = f"{name}.{_normalized('job.spark', 'command', command)}"
    if table is None:
        return name
    return f"{name}.{_table_suffix(table)}"


def spark_action(app_name: str, node: str) -> str:
    """Spark action job name: ``{spark.app.name}.{node.name}``, both normalised."""
    return f"{_normalized('job.spark_action', 'app_name', app_name)}." + _normalized("job.spark_action", "node", node)


def sql(schema: str, table: str) -> str:
    """SQL job: ``{schema}.{table}`` (``gx.validate_datasets``)."""
    return f"{rules.text('job.sql', 'schema', schema)}.{rules.text('job.sql', 'table', table)}"


def debezium(topic_prefix: str, task_id: int | str) -> str:
    """Debezium connector task: ``{topic.prefix}.{taskId}`` (``inventory.0``)."""
    if isinstance(task_id, bool) or not isinstance(task_id, int | str):
        raise rules.fail("job.debezium", "task_id", "must be an int or a string", task_id)
    if isinstance(task_id, int) and task_id < 0:
        raise rules.fail("job.debezium", "task_id", "must not be negative", task_id)
    task = str(task_id) if isinstance(task_id, int) else rules.text("job.debezium", "task_id", task_id)
    return f"{rules.text('job.debezium', 'topic_prefix', topic_prefix)}.{task}"
