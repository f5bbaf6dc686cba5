"""Pieces shared by the JDBC parsers: server lists, default ports, credential removal."""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

from olsdk._builders.naming._identifier import DatasetId

_HOST_NAME = re.compile(r"^[\w.-]+$")


class UnparsableUrl(ValueError):
    """The URL's server part could not be read; callers fall back to a sanitised URL."""


@dataclass(frozen=True, slots=True)
class JdbcLocation:
    """What a JDBC URL says about where a table lives (the agent's ``JdbcLocation``)."""

    scheme: str
    authority: str | None
    instance: str | None = None
    database: str | None = None

    def namespace(self) -> str:
        # Scheme and authority are lower-cased (host names are case-insensitive); the
        # instance keeps its case, as the agent does.
        result = f"{self.scheme.lower()}:"
        if self.authority is not None:
            result += f"//{self.authority.lower()}"
        if self.instance:
            result += "/" + self.instance.lstrip("/")
        return result

    def identifier(self, table_parts: list[str]) -> DatasetId:
        parts = [self.database, *table_parts] if self.database else table_parts
        return DatasetId(self.namespace(), ".".join(parts))


def parse_server(server: str, default_port: int | None) -> str:
    """``host[:port]`` (or ``[v6]:port``, or a bare IPv6 literal) without user info,
    with ``default_port`` added when the port is missing."""
    server = server.rsplit("@", 1)[-1].strip()
    if not server:
        raise UnparsableUrl("empty host")
    port: str | None = None
    if server.startswith("["):
        end = server.find("]")
        if end < 0:
            raise UnparsableUrl(server)
        host, rest = server[: end + 1], server[end + 1 :]
        if rest:
            if not rest.startswith(":") or not rest[1:].isdigit():
                raise UnparsableUrl(server)
            port = rest[1:]
    elif server.count(":") > 1:
        try:
            ipaddress.IPv6Address(server)
        except ValueError:
            raise UnparsableUrl(server) from None
        host = f"[{server}]"
    else:
        host, _, port_text = server.partition(":")
        if port_text:
            if not port_text.isdigit():
                raise UnparsableUrl(server)
            port = port_text
        if not _HOST_NAME.match(host):
            raise UnparsableUrl(server)
    if port is None and default_port is not None:
        port = str(default_port)
    return host if port is None else f"{host}:{port}"


def parse_servers(servers: str, default_port: int | None) -> str:
    """A comma-separated server list, each normalised by :func:`parse_server`."""
    return ",".join(parse_server(server, default_port) for server in servers.split(","))


_USERINFO = re.compile(r"(?<=//)[^/@?;]*@|(?<=,)[^/@?;,]*@")
_PAREN_CREDENTIAL = re.compile(r"\((?:user|username|password)=[^()]*\)", re.IGNORECASE)
_PARAM_CREDENTIAL = re.compile(r"[,;&:]?(?:user|username|password)=[^,;&:()]*[,;&:]?", re.IGNORECASE)


def sanitise(url: str) -> str:
    """The URL with credentials and query parameters removed (the agent's fallback
    namespace when a URL cannot be parsed)."""
    result = url.split("?", 1)[0]
    result = _USERINFO.sub("", result)
    result = _PAREN_CREDENTIAL.sub("", result)
    result = _PARAM_CREDENTIAL.sub("", result)
    return result


def split_table(table: object) -> list[str]:
    if not isinstance(table, str) or not table.strip():
        raise ValueError(f"from_jdbc: table must be a non-empty string, got {table!r}")
    parts = table.strip().split(".")
    if any(not part.strip() for part in parts):
        raise ValueError(f"from_jdbc: table must be dot-separated names without empty parts, got {table!r}")
    return [part.strip() for part in parts]


def fill_qualifiers(defaults: list[str | None], table_parts: list[str]) -> list[str]:
    """Prefix the table with the URL's qualifiers it lacks, up to ``len(defaults) + 1``
    parts: a qualified table name overrides what the URL says."""
    missing = max(0, len(defaults) + 1 - len(table_parts))
    # `schema.table` lacks the outermost qualifier (the database), `table` lacks both.
    prefix = [qualifier for qualifier in defaults[:missing] if qualifier]
    return [*prefix, *table_parts]
