"""SQL Server JDBC URLs (Microsoft driver and jTDS), as the Java agent reads them (A5.2).

``sqlserver://host[\\instance][:port][;key=value...]`` and
``jtds:sqlserver://host[:port][/database][;key=value...]``. Server, port, instance and
database may also come from ``;serverName=``, ``;portNumber=``, ``;instanceName=``
(``;instance=`` in jTDS), ``;databaseName=``/``;database=`` or from driver properties;
URL parts win over URL parameters, which win over properties. Keys are
case-insensitive. The agent adds no default port; the conventions' ``mssql`` form does.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from olsdk._builders.naming._jdbc_common import JdbcLocation, UnparsableUrl, parse_server

_SERVER = re.compile(
    r"^(?P<host>\[[^\]]*\]|[\w.-]+)?(?:\\(?P<instance>\w+))?(?::(?P<port>\d+))?(?:/(?P<database>[^;]*))?$"
)
_KEYS = {
    "servername": "host",
    "portnumber": "port",
    "port": "port",
    "instancename": "instance",
    "instance": "instance",
    "databasename": "database",
    "database": "database",
}


def parse_sqlserver(rest: str, properties: Mapping[str, str], scheme: str, default_port: int | None) -> JdbcLocation:
    """``scheme`` is ``sqlserver`` (the agent's spelling) or ``mssql`` (the conventions');
    ``default_port`` is added when the URL names no port (the agent adds none)."""
    _, separator, body = rest.partition("//")
    if not separator:
        raise UnparsableUrl(rest)
    server, *parameters = body.split(";")
    match = _SERVER.match(server.rsplit("@", 1)[-1])
    if match is None:
        raise UnparsableUrl(rest)

    found: dict[str, str] = {k: v for k, v in match.groupdict().items() if v}
    for parameter in parameters:
        key, equals, value = parameter.partition("=")
        canonical = _KEYS.get(key.strip().lower())
        if equals and canonical and value and canonical not in found:
            found[canonical] = value.strip()
    for key, value in properties.items():
        canonical = _KEYS.get(key.lower())
        if canonical and value and canonical not in found:
            found[canonical] = str(value)

    host = found.get("host")
    if not host:
        raise UnparsableUrl(f"no server name in {rest!r}")
    if host.count(":") > 1 and not host.startswith("["):
        host = f"[{host}]"  # a bare IPv6 serverName
    port = found.get("port")
    authority = parse_server(f"{host}:{port}" if port else host, default_port)
    return JdbcLocation(scheme, authority, found.get("instance"), found.get("database"))
