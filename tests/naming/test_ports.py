"""naming._ports: the one default-port table, read by the builders and by from_jdbc."""

import inspect
import re
from pathlib import Path

import pytest

from olsdk import naming
from olsdk.naming import BUILDERS, DEFAULT_PORTS, Form
from tests.naming.naming_examples import WORKED_EXAMPLES

DOC = Path(__file__).resolve().parents[2] / "docs" / "how-to" / "naming.md"


@pytest.mark.parametrize(
    ("store", "scheme", "port"),
    [
        ("postgres", "postgres", 5432),
        ("mysql", "mysql", 3306),
        ("oracle", "oracle", 1521),
        ("teradata", "teradata", 1025),
        ("mssql", "mssql", 1433),
        ("azure_synapse", "sqlserver", 1433),
        ("redshift", "redshift", 5439),
    ],
)
def test_documented_default_ports(store: str, scheme: str, port: int) -> None:
    kwargs = {k: v for k, v in WORKED_EXAMPLES[store][0].items() if k != "port"}
    assert BUILDERS[store](**kwargs).namespace.endswith(f":{port}")
    assert BUILDERS[store](**kwargs).namespace.startswith(f"{scheme}://")


@pytest.mark.parametrize("store", ["hdfs", "hive", "milvus", "kafka", "box", "filenet", "sharepoint"])
def test_stores_without_a_documented_default_port_require_one(store: str) -> None:
    kwargs = {k: v for k, v in WORKED_EXAMPLES[store][0].items() if "port" not in k}
    with pytest.raises(TypeError, match="port"):
        BUILDERS[store](**kwargs)


# Builders whose port has a default, and the namespace scheme each writes.
DEFAULTED = {
    "azure_synapse": "sqlserver",
    "cassandra": "cassandra",
    "cratedb": "crate",
    "db2": "db2",
    "mssql": "mssql",
    "mysql": "mysql",
    "oceanbase": "oceanbase",
    "oracle": "oracle",
    "postgres": "postgres",
    "redshift": "redshift",
    "teradata": "teradata",
    "trino": "trino",
}


def test_every_builder_default_port_is_the_tables() -> None:
    with_default = {
        store
        for store, builder in BUILDERS.items()
        if (port := inspect.signature(builder).parameters.get("port")) is not None
        and port.default not in (inspect.Parameter.empty, None)
    }
    assert with_default == set(DEFAULTED)
    for store, scheme in DEFAULTED.items():
        kwargs = {k: v for k, v in WORKED_EXAMPLES[store][0].items() if k != "port"}
        namespace = BUILDERS[store](**kwargs).namespace
        assert namespace.startswith(f"{scheme}://")
        assert namespace.endswith(f":{DEFAULT_PORTS[scheme]}"), store


# (builder, its arguments, a JDBC URL without a port for the same table, table, form)
SAME_TABLE_WITHOUT_PORT: list[tuple[str, dict[str, str], str, str, Form]] = [
    ("postgres", {"database": "d", "schema": "s", "table": "t"}, "jdbc:postgresql://db/d", "s.t", "agent"),
    ("mysql", {"database": "d", "table": "t"}, "jdbc:mysql://db/d", "t", "agent"),
    ("cratedb", {"database": "d", "schema": "s", "table": "t"}, "jdbc:crate://db/d", "s.t", "agent"),
    ("db2", {"database": "d", "schema": "s", "table": "t"}, "jdbc:db2://db/d", "s.t", "agent"),
    ("trino", {"catalog": "c", "schema": "s", "table": "t"}, "jdbc:trino://db/c", "s.t", "agent"),
    ("oceanbase", {"database": "d", "table": "t"}, "jdbc:oceanbase://db/d", "t", "agent"),
    ("cassandra", {"keyspace": "k", "table": "t"}, "jdbc:cassandra://db/k", "t", "agent"),
    ("teradata", {"database": "d", "table": "t"}, "jdbc:teradata://db/DATABASE=d", "t", "agent"),
    ("oracle", {"service_name": "svc", "schema": "s", "table": "t"}, "jdbc:oracle:thin:@//db/svc", "s.t", "agent"),
    (
        "mssql",
        {"database": "d", "schema": "s", "table": "t"},
        "jdbc:sqlserver://db;databaseName=d",
        "s.t",
        "conventions",
    ),
]


@pytest.mark.parametrize(("store", "kwargs", "url", "table", "form"), SAME_TABLE_WITHOUT_PORT)
def test_builders_and_from_jdbc_add_the_same_default_port(
    store: str, kwargs: dict[str, str], url: str, table: str, form: Form
) -> None:
    built = BUILDERS[store](host="db", **kwargs)
    assert naming.from_jdbc(url, table, form=form) == built
    assert built.namespace.endswith(f":{DEFAULT_PORTS[DEFAULTED[store]]}")


def test_redshift_conventions_form_adds_the_tables_port() -> None:
    url = "jdbc:redshift://c1.abc123.us-east-1.redshift.amazonaws.com/d"
    built = naming.redshift(cluster_identifier="c1", region_name="us-east-1", database="d", schema="s", table="t")
    assert naming.from_jdbc(url, "s.t", form="conventions") == built
    assert built.namespace == f"redshift://c1.us-east-1:{DEFAULT_PORTS['redshift']}"


def test_the_agent_form_keeps_sql_server_and_redshift_without_a_port() -> None:
    # The agent adds none to these (A5.2), though the table has a port for both schemes.
    assert naming.from_jdbc("jdbc:sqlserver://db;databaseName=d", "s.t").namespace == "sqlserver://db"
    redshift = "jdbc:redshift://c1.abc123.us-east-1.redshift.amazonaws.com/d"
    assert naming.from_jdbc(redshift, "s.t").namespace == "redshift://c1.abc123.us-east-1.redshift.amazonaws.com"
    assert {"sqlserver", "redshift"} <= DEFAULT_PORTS.keys()


def test_clickhouse_has_a_default_port_but_no_builder() -> None:
    assert naming.from_jdbc("jdbc:clickhouse://h/db", "t").namespace == f"clickhouse://h:{DEFAULT_PORTS['clickhouse']}"


def test_the_table_is_read_only_and_public() -> None:
    assert naming.DEFAULT_PORTS is DEFAULT_PORTS
    with pytest.raises(TypeError):
        DEFAULT_PORTS["postgres"] = 1  # type: ignore[index]


def test_the_docs_list_exactly_the_table() -> None:
    text = DOC.read_text()
    section = text[text.index("## Default ports") :]
    rows = dict(re.findall(r"^\| `([a-z0-9]+)` \| (\d+) \|", section, flags=re.MULTILINE))
    assert {scheme: int(port) for scheme, port in rows.items()} == dict(DEFAULT_PORTS)
