"""``DEFAULT_PORTS``: the one table of default ports, for the builders and ``from_jdbc``.

A builder called without ``port=`` and ``from_jdbc`` reading a URL without a port
put the same number in the namespace, so ``postgres(host="db", ...)`` and
``from_jdbc("jdbc:postgresql://db/...")`` give the same identifier. The ports are the
ones the Java agent appends to JDBC URLs without one (A5.2); SQL Server's registered
1433 for ``mssql`` and ``sqlserver`` (the seeds' Azure Synapse example) and Redshift's
5439 come from the naming conventions. Stores without an agreed default (Hive,
Milvus, HDFS, Kafka, the document stores) need an explicit port.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from olsdk._builders.naming._identifier import Form

__all__ = ["DEFAULT_PORTS", "jdbc_default_port"]

#: Namespace scheme -> port used when the caller or the URL gives none (read-only).
DEFAULT_PORTS: Mapping[str, int] = MappingProxyType(
    {
        "cassandra": 9042,
        "clickhouse": 8123,
        "crate": 5432,
        "db2": 6789,
        "mssql": 1433,
        "mysql": 3306,
        "oceanbase": 2881,
        "oracle": 1521,
        "postgres": 5432,
        "redshift": 5439,
        "sqlserver": 1433,
        "teradata": 1025,
        "trino": 443,
    }
)

# The agent adds no port to these JDBC URLs (A5.2: SQL Server has no default in its
# extractor, Redshift has no extractor at all), so its form keeps them port-less.
_AGENT_KEEPS_PORTLESS = frozenset({"sqlserver", "redshift"})


def jdbc_default_port(scheme: str, form: Form) -> int | None:
    """The port ``from_jdbc`` adds to a ``scheme`` URL without one, in ``form``; None: none."""
    if form == "agent" and scheme in _AGENT_KEEPS_PORTLESS:
        return None
    return DEFAULT_PORTS.get(scheme)
