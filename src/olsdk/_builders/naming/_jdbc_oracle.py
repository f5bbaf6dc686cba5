"""Oracle JDBC URLs: EZConnect (``@//host:port/service``), SID (``@host:port:sid``), LDAP
and TNS descriptors (``@(DESCRIPTION=...)``), as the Java agent reads them (A5.2)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from olsdk._builders.naming._jdbc_common import JdbcLocation, UnparsableUrl, parse_servers
from olsdk._builders.naming._ports import DEFAULT_PORTS

_DEFAULT_PORT = DEFAULT_PORTS["oracle"]


def parse_oracle(rest: str) -> JdbcLocation:
    """``rest`` is the URL after ``jdbc:``, e.g. ``oracle:thin:scott/tiger@//h:1521/svc``."""
    if "@" not in rest:
        raise UnparsableUrl(rest)
    # Before the '@': driver type and credentials. A TNS descriptor follows the first
    # '@'; otherwise split at the last one, as a password may contain '@'.
    target = rest.split("@", 1)[1] if "(" in rest else rest.rsplit("@", 1)[1]
    target = target.removeprefix("//").split("?", 1)[0].strip()
    if target.startswith("("):
        return _from_tns(target)
    if "ldap" in target.lower():
        target = _from_ldap(target)
    target = re.sub(r"^\w+://", "", target)  # tcp://host -> host
    target = _sid_to_path(target)
    servers, _, service = target.partition("/")
    return JdbcLocation("oracle", parse_servers(servers, _DEFAULT_PORT), None, service or None)


def _from_ldap(target: str) -> str:
    """``ldap://oid:5000/mydb1,cn=OracleContext,...`` -> ``oid:5000/mydb1``; with several
    space-separated LDAP URLs the first one counts; the service is the last path part."""
    first = next(token for token in target.split() if "ldap" in token.lower())
    first = re.sub(r"(?i)^.*?ldaps?:(//)?/*", "", first)
    segments = first.split("/")
    service = segments[-1].split(",")[0] if len(segments) > 1 else ""
    return f"{segments[0]}/{service}"


def _sid_to_path(target: str) -> str:
    """``host:1521:sid`` or ``host:sid`` -> ``host:1521/sid``, ``host/sid``."""
    if ":" not in target:
        return target
    head, _, last = target.rpartition(":")
    if "]" in last or last.isdigit() or "/" in last:
        return target
    return f"{head}/{last}"


@dataclass
class _Node:
    key: str
    value: str | None = None
    children: list[_Node] = field(default_factory=list)

    def find_all(self, key: str) -> list[_Node]:
        found = [self] if self.key == key else []
        for child in self.children:
            found.extend(child.find_all(key))
        return found

    def child_value(self, key: str) -> str | None:
        return next((c.value for c in self.children if c.key == key and c.value), None)


def _parse_tns(text: str) -> _Node:
    position = 0

    def skip_blanks() -> None:
        nonlocal position
        while position < len(text) and text[position].isspace():
            position += 1

    def expect(char: str) -> None:
        nonlocal position
        if position >= len(text) or text[position] != char:
            raise UnparsableUrl(f"expected {char!r} at {position} in {text!r}")
        position += 1

    def node() -> _Node:
        nonlocal position
        expect("(")
        skip_blanks()
        start = position
        while position < len(text) and text[position] not in "=)":
            position += 1
        result = _Node(text[start:position].strip().upper())
        if position < len(text) and text[position] == "=":
            position += 1
            skip_blanks()
            if position < len(text) and text[position] == "(":
                while position < len(text) and text[position] == "(":
                    result.children.append(node())
                    skip_blanks()
            else:
                start = position
                while position < len(text) and text[position] != ")":
                    position += 1
                result.value = text[start:position].strip()
        skip_blanks()
        expect(")")
        return result

    skip_blanks()
    root = node()
    skip_blanks()
    if position != len(text):
        raise UnparsableUrl(f"trailing text after the TNS descriptor in {text!r}")
    return root


def _from_tns(descriptor: str) -> JdbcLocation:
    root = _parse_tns(descriptor)
    servers = []
    for address in root.find_all("ADDRESS"):
        host = address.child_value("HOST")
        if host:
            port = address.child_value("PORT")
            servers.append(f"{host}:{port}" if port else host)
    if not servers:
        raise UnparsableUrl(f"no HOST in {descriptor!r}")
    service = None
    for connect_data in root.find_all("CONNECT_DATA"):
        service = (
            connect_data.child_value("SERVICE_NAME")
            or connect_data.child_value("SID")
            or connect_data.child_value("INSTANCE_NAME")
        )
        if service:
            break
    return JdbcLocation("oracle", parse_servers(",".join(servers), _DEFAULT_PORT), None, service)
