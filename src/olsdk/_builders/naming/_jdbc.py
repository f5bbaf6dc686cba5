"""``from_jdbc``: a JDBC URL plus a table name to a dataset identifier.

By default (``form="agent"``) this reproduces the Java agent's
``JdbcDatasetUtils.getDatasetIdentifier`` (A5.2): ``jdbc:`` is dropped, the store's
scheme is normalised (``postgresql`` -> ``postgres``), hosts and the authority are
lower-cased, default ports are added, user info and ``?query`` never reach the
namespace, and the URL's database prefixes the table name.

``form="conventions"`` gives the current naming conventions' identifier where it
differs from the agent's: SQL Server becomes ``mssql://{host}:{port}`` (port 1433 when
absent) and Redshift ``redshift://{cluster_identifier}.{region_name}:{port}``.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable, Mapping
from urllib.parse import parse_qsl

from olsdk._builders.naming import _rules as rules
from olsdk._builders.naming._identifier import DatasetId, Form
from olsdk._builders.naming._jdbc_common import (
    JdbcLocation,
    UnparsableUrl,
    fill_qualifiers,
    parse_servers,
    sanitise,
    split_table,
)
from olsdk._builders.naming._jdbc_oracle import parse_oracle
from olsdk._builders.naming._jdbc_sqlserver import parse_sqlserver
from olsdk._builders.naming._ports import DEFAULT_PORTS, jdbc_default_port

__all__ = ["SUPPORTED_JDBC_SUBPROTOCOLS", "from_jdbc"]

#: JDBC sub-protocol prefix -> namespace scheme, for the URLs read by the agent's
#: server rule (A5.2); the port added when a URL has none is ``jdbc_default_port``'s.
_SERVER_SCHEMES: dict[str, str] = {
    "postgres": "postgres",
    "mysql": "mysql",
    "crate": "crate",
    "db2": "db2",
    "trino": "trino",
    "oceanbase": "oceanbase",
    "clickhouse": "clickhouse",
    "cassandra": "cassandra",
    "redshift": "redshift",
}

#: Sub-protocols ``from_jdbc`` knows (``jdbc:<sub-protocol>:...``).
SUPPORTED_JDBC_SUBPROTOCOLS: tuple[str, ...] = (
    "postgresql",
    "mysql",
    "sqlserver",
    "jtds:sqlserver",
    "oracle",
    "redshift",
    "trino",
    "db2",
    "teradata",
    "snowflake",
    "crate",
    "oceanbase",
    "clickhouse",
    "ch",
    "cassandra",
    "derby",
)

_SERVER_URL = re.compile(r"^(?P<protocol>[\w+:.-]*?)://(?P<servers>[^/?;]*)(?P<path>/[^?;]*)?(?P<tail>[?;].*)?$")
_REDSHIFT_HOST = re.compile(
    r"^(?P<cluster>[^.]+)\.[^.]+\.(?P<region>[a-z0-9-]+)\.redshift(?:-serverless)?\.amazonaws\.com$"
)
_SNOWFLAKE_SUFFIX = re.compile(r"(\.privatelink)?\.snowflakecomputing\.com$")


def from_jdbc(
    url: str,
    table: str,
    *,
    form: Form = "agent",
    properties: Mapping[str, str] | None = None,
    allow_generic: bool = True,
    derby_home: str | None = None,
) -> DatasetId:
    """The identifier of ``table`` (``name``, ``schema.name``, ...) in the database at ``url``.

    ``properties`` are the driver properties (Spark's JDBC options) that some URLs
    leave to them (SQL Server's ``databaseName``). A sub-protocol without a rule of its
    own gets the agent's generic rule (``scheme://host[:port]``, lower-cased,
    credentials and parameters dropped, the path's database as the first name part);
    ``allow_generic=False`` makes it an error instead. ``derby_home`` is where Derby
    databases live (``derby.system.home``, default: the working directory).
    """
    if not isinstance(url, str) or not url.strip():
        raise ValueError(f"from_jdbc: url must be a non-empty string, got {url!r}")
    if form not in ("agent", "conventions"):
        raise ValueError(f"from_jdbc: form must be 'agent' or 'conventions', got {form!r}")
    parts = split_table(table)
    rest = _normalise(re.sub(r"^(?i:jdbc:)", "", url.strip()))
    subprotocol = rest.lower()
    parse = _parser_for(subprotocol, form, properties or {}, derby_home, allow_generic, url)
    try:
        return parse(rest, parts)
    except UnparsableUrl:
        # The agent's fallback: keep the whole URL, minus credentials and query.
        return DatasetId(sanitise(rest), ".".join(parts))


_Parser = Callable[[str, list[str]], DatasetId]


def _normalise(rest: str) -> str:
    """Driver spellings the agent reads as another's: ClickHouse's ``ch:`` and its
    ``http``/``https``/``grpc`` protocols, Cassandra's ``--``-separated host list."""
    if re.match(r"(?i)^ch:", rest):
        rest = "clickhouse:" + rest[3:]
    rest = re.sub(r"(?i)^clickhouse:(?:https?|grpc)://", "clickhouse://", rest)
    if rest.lower().startswith("cassandra:"):
        rest = rest.replace("--", ",")
    return rest


def _parser_for(
    subprotocol: str,
    form: Form,
    properties: Mapping[str, str],
    derby_home: str | None,
    allow_generic: bool,
    url: str,
) -> _Parser:
    if subprotocol.startswith("oracle"):
        return lambda rest, parts: parse_oracle(rest).identifier(parts)
    if subprotocol.startswith(("sqlserver", "jtds:sqlserver")):
        scheme = "mssql" if form == "conventions" else "sqlserver"
        port = jdbc_default_port(scheme, form)
        return lambda rest, parts: parse_sqlserver(rest, properties, scheme, port).identifier(parts)
    if subprotocol.startswith("teradata"):
        return lambda rest, parts: _teradata(rest).identifier(parts)
    if subprotocol.startswith("derby:"):
        return lambda rest, parts: _derby(rest, derby_home).identifier(parts)
    if subprotocol.startswith("snowflake"):
        return _snowflake
    if subprotocol.startswith("redshift") and form == "conventions":
        return _redshift_conventions
    for prefix, scheme in _SERVER_SCHEMES.items():
        if subprotocol.startswith(prefix):
            return _server_parser(scheme, jdbc_default_port(scheme, form))
    if allow_generic:
        return _generic
    raise ValueError(
        f"from_jdbc: unsupported JDBC URL {sanitise(url)!r}; supported sub-protocols: "
        + ", ".join(SUPPORTED_JDBC_SUBPROTOCOLS)
        + " (pass allow_generic=True for the agent's generic scheme://host rule)"
    )


def _split_server_url(rest: str) -> tuple[str, str, str]:
    """``proto://servers/path?...`` -> (protocol, servers, path without the leading '/')."""
    match = _SERVER_URL.match(rest)
    if match is None or not match.group("servers"):
        raise UnparsableUrl(rest)
    return match.group("protocol"), match.group("servers"), (match.group("path") or "")[1:]


def _server_parser(scheme: str, default_port: int | None) -> _Parser:
    def parse(rest: str, parts: list[str]) -> DatasetId:
        _, servers, path = _split_server_url(rest)
        authority = parse_servers(servers, default_port)
        if scheme in ("mysql", "clickhouse"):
            # No schemas (a ClickHouse database is its schema): a qualified `db.table`
            # overrides the URL database.
            return DatasetId(f"{scheme}://{authority.lower()}", ".".join(fill_qualifiers([path or None], parts)))
        if scheme == "trino":
            # /catalog[/schema]: fill in only what the table name leaves out.
            catalog, _, schema = path.partition("/")
            qualified = fill_qualifiers([catalog or None, schema or None], parts)
            return DatasetId(f"trino://{authority.lower()}", ".".join(qualified))
        return JdbcLocation(scheme, authority, None, path or None).identifier(parts)

    return parse


_GENERIC_ONE = re.compile(r"^(?P<scheme>[A-Za-z][\w+.-]*)://(?P<authority>[^/?#]*)(?P<path>/[^?#]*)?(?:[?#].*)?$")
_GENERIC_MANY = re.compile(r"^(?P<scheme>\w+)://(?P<authority>[\w.\[\]:,-]+)/?(?P<database>[\w.]+)?(?:\?.*)?$")
_HOST = re.compile(r"^(?:\[[0-9A-Fa-f:.]+\]|[\w.-]+)$")


def _generic(rest: str, parts: list[str]) -> DatasetId:
    """The agent's ``GenericJdbcExtractor``: one host read as a URI (user info and query
    dropped; a host it cannot read, such as ``host;k=v``, falls back to the sanitised
    URL), several hosts read as ``scheme://h1[:p],h2[:p]/database``."""
    if "," in rest:
        many = _GENERIC_MANY.match(rest)
        if many is None:
            raise UnparsableUrl(rest)
        return JdbcLocation(many["scheme"], many["authority"], None, many["database"]).identifier(parts)
    one = _GENERIC_ONE.match(rest)
    if one is None:
        raise UnparsableUrl(rest)
    server = one["authority"].rsplit("@", 1)[-1]
    host, _, port = server.rpartition(":") if not server.endswith("]") else (server, "", "")
    if not host:
        host, port = server, ""
    if not _HOST.match(host) or (port and not port.isdigit()):
        raise UnparsableUrl(rest)
    database = (one["path"] or "").removeprefix("/") or None
    authority = f"{host}:{int(port)}" if port else host
    return JdbcLocation(one["scheme"], authority, None, database).identifier(parts)


def _teradata(rest: str) -> JdbcLocation:
    """``teradata://host/KEY=value,...`` with ``DBS_PORT`` (default: the table's) and ``DATABASE``."""
    _, servers, path = _split_server_url(rest)
    settings = {}
    for item in path.split(","):
        key, equals, value = item.partition("=")
        if equals and value:
            settings[key.strip().upper()] = value.strip()
    server = parse_servers(servers, None)
    port = settings.get("DBS_PORT")
    if ":" not in server.rsplit("]", 1)[-1]:
        server = f"{server}:{port or DEFAULT_PORTS['teradata']}"
    return JdbcLocation("teradata", server, None, settings.get("DATABASE"))


def _derby(rest: str, derby_home: str | None) -> JdbcLocation:
    """Embedded Derby: the database is a directory, so the namespace is ``file:<path>``."""
    match = re.search(r"databaseName=([^;]+)", rest)
    database = match.group(1) if match else rest.removeprefix("derby:").split(";", 1)[0]
    database = database or "metastore_db"
    home = derby_home if derby_home is not None else os.getcwd()
    location = posixpath.normpath(posixpath.join(home, database))
    return JdbcLocation("file", None, location, None)


def _redshift_conventions(rest: str, parts: list[str]) -> DatasetId:
    """``redshift://{cluster}.{id}.{region}.redshift.amazonaws.com:5439/db`` ->
    ``redshift://{cluster}.{region}:5439`` (the only id both SQL and the Data API see)."""
    _, servers, path = _split_server_url(rest)
    server = parse_servers(servers.split(",")[0], jdbc_default_port("redshift", "conventions")).lower()
    host, _, port = server.rpartition(":")
    match = _REDSHIFT_HOST.match(host)
    if match is not None:
        host = f"{match.group('cluster')}.{match.group('region')}"
    return JdbcLocation("redshift", f"{host}:{port}", None, path or None).identifier(parts)


def _snowflake(rest: str, parts: list[str]) -> DatasetId:
    """``snowflake://{account}.snowflakecomputing.com/?db=D&schema=S`` ->
    ``snowflake://{account}`` / ``D.S.TABLE``, identifiers resolved as Snowflake does.

    The agent has no Snowflake JDBC rule, so this follows the conventions in both forms.
    """
    _, servers, _ = _split_server_url(rest)
    host = parse_servers(servers.split(",")[0], None).lower()
    host = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    account = _SNOWFLAKE_SUFFIX.sub("", host)
    query = rest.split("?", 1)[1] if "?" in rest else ""
    settings = {key.lower(): value for key, value in parse_qsl(query)}
    qualified = fill_qualifiers([settings.get("db"), settings.get("schema")], parts)
    if len(qualified) != 3:
        raise ValueError(
            f"from_jdbc: a Snowflake name needs database.schema.table; got {'.'.join(parts)!r} "
            "(add db= and schema= to the URL or qualify the table)"
        )
    names = [rules.snowflake_identifier("from_jdbc", "table", part) for part in qualified]
    return DatasetId(f"snowflake://{account}", ".".join(names))
