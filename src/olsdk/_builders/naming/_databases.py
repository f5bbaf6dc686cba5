"""Builders for databases addressed as ``scheme://{host}:{port}``.

Default ports come from the one table, :data:`olsdk.naming.DEFAULT_PORTS`, which
``from_jdbc`` reads too, so ``postgres(host="db", ...)`` and
``from_jdbc("jdbc:postgresql://db/...")`` give the same identifier. Stores without an
agreed default (Hive, Milvus) need an explicit port.
"""

from __future__ import annotations

from olsdk._builders.naming import _rules as rules
from olsdk._builders.naming._identifier import DatasetId
from olsdk._builders.naming._ports import DEFAULT_PORTS

__all__ = [
    "cassandra",
    "cratedb",
    "db2",
    "hive",
    "milvus",
    "mssql",
    "mysql",
    "oceanbase",
    "oracle",
    "postgres",
    "teradata",
    "trino",
]


def server_namespace(
    store: str, scheme: str, host: object, port: object, *, host_arg: str = "host", port_optional: bool = False
) -> str:
    """``scheme://{host}:{port}`` with the host normalised and the port checked; with
    ``port_optional``, ``scheme://{host}`` when ``port`` is None."""
    checked_host = rules.host(store, host_arg, host)
    checked_port = rules.optional_port(store, "port", port) if port_optional else rules.port(store, "port", port)
    return f"{scheme}://{checked_host}" if checked_port is None else f"{scheme}://{checked_host}:{checked_port}"


def postgres(
    *, host: str, database: str, schema: str, table: str, port: int | str = DEFAULT_PORTS["postgres"]
) -> DatasetId:
    """Postgres: ``postgres://{host}:{port}`` / ``{database}.{schema}.{table}``."""
    return DatasetId(
        server_namespace("postgres", "postgres", host, port),
        rules.dotted_names("postgres", database=database, schema=schema, table=table),
    )


def mysql(*, host: str, database: str, table: str, port: int | str = DEFAULT_PORTS["mysql"]) -> DatasetId:
    """MySQL: ``mysql://{host}:{port}`` / ``{database}.{table}``."""
    return DatasetId(
        server_namespace("mysql", "mysql", host, port),
        rules.dotted_names("mysql", database=database, table=table),
    )


def trino(*, host: str, catalog: str, schema: str, table: str, port: int | str = DEFAULT_PORTS["trino"]) -> DatasetId:
    """Trino: ``trino://{host}:{port}`` / ``{catalog}.{schema}.{table}``."""
    return DatasetId(
        server_namespace("trino", "trino", host, port),
        rules.dotted_names("trino", catalog=catalog, schema=schema, table=table),
    )


def cassandra(*, host: str, keyspace: str, table: str, port: int | str = DEFAULT_PORTS["cassandra"]) -> DatasetId:
    """Cassandra: ``cassandra://{host}:{port}`` / ``{keyspace}.{table}``."""
    return DatasetId(
        server_namespace("cassandra", "cassandra", host, port),
        rules.dotted_names("cassandra", keyspace=keyspace, table=table),
    )


def milvus(*, host: str, port: int | str, database: str, collection: str) -> DatasetId:
    """Milvus: ``milvus://{host}:{port}`` / ``{database}.{collection}``."""
    return DatasetId(
        server_namespace("milvus", "milvus", host, port),
        rules.dotted_names("milvus", database=database, collection=collection),
    )


def cratedb(
    *, host: str, database: str, schema: str, table: str, port: int | str = DEFAULT_PORTS["crate"]
) -> DatasetId:
    """CrateDB: ``crate://{host}:{port}`` / ``{database}.{schema}.{table}``."""
    return DatasetId(
        server_namespace("cratedb", "crate", host, port),
        rules.dotted_names("cratedb", database=database, schema=schema, table=table),
    )


def db2(*, host: str, database: str, schema: str, table: str, port: int | str = DEFAULT_PORTS["db2"]) -> DatasetId:
    """DB2: ``db2://{host}:{port}`` / ``{database}.{schema}.{table}``."""
    return DatasetId(
        server_namespace("db2", "db2", host, port),
        rules.dotted_names("db2", database=database, schema=schema, table=table),
    )


def hive(*, host: str, port: int | str, database: str, table: str) -> DatasetId:
    """Hive (metastore host and port): ``hive://{host}:{port}`` / ``{database}.{table}``."""
    return DatasetId(
        server_namespace("hive", "hive", host, port),
        rules.dotted_names("hive", database=database, table=table),
    )


def mssql(*, host: str, database: str, schema: str, table: str, port: int | str = DEFAULT_PORTS["mssql"]) -> DatasetId:
    """Microsoft SQL Server: ``mssql://{host}:{port}`` / ``{database}.{schema}.{table}``.

    The Java agent names the same table ``sqlserver://{host}[:{port}]``; ``from_jdbc``
    gives that form by default and this one with ``form="conventions"``.
    """
    return DatasetId(
        server_namespace("mssql", "mssql", host, port),
        rules.dotted_names("mssql", database=database, schema=schema, table=table),
    )


def oceanbase(*, host: str, database: str, table: str, port: int | str = DEFAULT_PORTS["oceanbase"]) -> DatasetId:
    """OceanBase: ``oceanbase://{host}:{port}`` / ``{database}.{table}``."""
    return DatasetId(
        server_namespace("oceanbase", "oceanbase", host, port),
        rules.dotted_names("oceanbase", database=database, table=table),
    )


def oracle(
    *,
    host: str,
    schema: str,
    table: str,
    service_name: str | None = None,
    sid: str | None = None,
    port: int | str = DEFAULT_PORTS["oracle"],
) -> DatasetId:
    """Oracle: ``oracle://{host}:{port}`` / ``{serviceName}.{schema}.{table}`` or
    ``{sid}.{schema}.{table}``: give exactly one of ``service_name`` and ``sid``."""
    if (service_name is None) == (sid is None):
        raise rules.fail("oracle", "service_name/sid", "needs exactly one of the two", (service_name, sid))
    database = (
        rules.text("oracle", "service_name", service_name)
        if service_name is not None
        else rules.text("oracle", "sid", sid)
    )
    return DatasetId(
        server_namespace("oracle", "oracle", host, port),
        rules.join_dotted(database, rules.dotted_names("oracle", schema=schema, table=table)),
    )


def teradata(*, host: str, database: str, table: str, port: int | str = DEFAULT_PORTS["teradata"]) -> DatasetId:
    """Teradata: ``teradata://{host}:{port}`` / ``{database}.{table}``."""
    return DatasetId(
        server_namespace("teradata", "teradata", host, port),
        rules.dotted_names("teradata", database=database, table=table),
    )
