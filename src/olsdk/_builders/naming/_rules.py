"""Validation and normalisation rules shared by the dataset builders.

Every check raises ``ValueError`` whose message names the builder, the argument and
the rule, e.g. ``postgres: port must be an integer in 1..65535, got 70000``.
"""

from __future__ import annotations

import ipaddress
import re

__all__ = [
    "fail",
    "filesystem_path",
    "host",
    "join_dotted",
    "object_key",
    "optional_port",
    "port",
    "segment",
    "snowflake_identifier",
    "text",
]

_FORBIDDEN_IN_HOST = re.compile(r"[\s/?#@\\]")
_FORBIDDEN_IN_SEGMENT = re.compile(r"[/?#@\s]")


def fail(store: str, arg: str, rule: str, value: object) -> ValueError:
    """Build the error every rule raises, so messages read the same everywhere."""
    return ValueError(f"{store}: {arg} {rule}, got {value!r}")


def text(store: str, arg: str, value: object) -> str:
    """A required part: a string that is not empty once surrounding blanks are removed."""
    if not isinstance(value, str):
        raise fail(store, arg, "must be a string", value)
    stripped = value.strip()
    if not stripped:
        raise fail(store, arg, "must not be empty", value)
    return stripped


def segment(store: str, arg: str, value: object) -> str:
    """A part that sits inside a URI authority or path, so it may not hold separators."""
    result = text(store, arg, value)
    if _FORBIDDEN_IN_SEGMENT.search(result):
        raise fail(store, arg, "must not contain '/', '?', '#', '@' or blanks", value)
    return result


def host(store: str, arg: str, value: object) -> str:
    """A host name or IP address, lower-cased (host names are case-insensitive and the
    Java agent lower-cases them), IPv6 literals wrapped in brackets."""
    result = text(store, arg, value)
    if _FORBIDDEN_IN_HOST.search(result):
        raise fail(store, arg, "must be a bare host name (no scheme, path, user or blanks)", value)
    if result.startswith("[") and result.endswith("]"):
        _ipv6(store, arg, result[1:-1], value)
        return result.lower()
    if ":" in result:
        # A colon is only legal in an IPv6 literal; "host:port" belongs in `port`.
        _ipv6(store, arg, result, value)
        return f"[{result.lower()}]"
    return result.lower()


def _ipv6(store: str, arg: str, candidate: str, original: object) -> None:
    try:
        ipaddress.IPv6Address(candidate)
    except ValueError:
        raise fail(
            store,
            arg,
            "must not contain ':' unless it is an IPv6 address (pass the port as port=)",
            original,
        ) from None


def port(store: str, arg: str, value: object) -> int:
    """A TCP port: an integer (or a string of digits) in 1..65535."""
    if isinstance(value, bool):
        raise fail(store, arg, "must be an integer in 1..65535", value)
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        number = int(value.strip())
    elif isinstance(value, int):
        number = value
    else:
        raise fail(store, arg, "must be an integer in 1..65535", value)
    if not 1 <= number <= 65535:
        raise fail(store, arg, "must be an integer in 1..65535", value)
    return number


def optional_port(store: str, arg: str, value: object) -> int | None:
    return None if value is None else port(store, arg, value)


def _collapse_slashes(value: str) -> str:
    return re.sub(r"/{2,}", "/", value)


def object_key(store: str, arg: str, value: object) -> str:
    """An object-store key: no leading, trailing or doubled slashes.

    The Java agent strips both outer slashes of object-store paths (A5.1) and names a
    whole bucket ``/``; doubled slashes are collapsed so one object has one name.
    """
    raw = text(store, arg, value)
    key = _collapse_slashes(raw).strip("/")
    return key or "/"


def filesystem_path(store: str, arg: str, value: object, *, allow_relative: bool = False) -> str:
    """A file-system path: one leading slash, no trailing or doubled slashes, no ``.``.

    ``..`` is kept: resolving it lexically is wrong when a segment is a symlink.
    """
    raw = text(store, arg, value)
    absolute = raw.startswith("/")
    if not absolute and not allow_relative:
        raise fail(store, arg, "must be an absolute path (start with '/')", value)
    parts = [part for part in raw.split("/") if part not in ("", ".")]
    joined = "/".join(parts)
    if absolute:
        return "/" + joined
    if not joined:
        raise fail(store, arg, "must name a path, not only '.'", value)
    return joined


def join_dotted(*parts: str) -> str:
    return ".".join(parts)


def dotted_names(store: str, **parts: object) -> str:
    """`{a}.{b}.{c}` from required parts, each checked by `text` under its argument name."""
    return join_dotted(*(text(store, arg, value) for arg, value in parts.items()))


def snowflake_identifier(store: str, arg: str, value: object) -> str:
    """Resolve a Snowflake identifier the way Snowflake does.

    Unquoted identifiers are stored upper-case, so they are upper-cased (the seed
    naming documents require upper-case names). A double-quoted identifier is
    case-sensitive: the quotes are removed and its case is kept.
    """
    raw = text(store, arg, value)
    if len(raw) >= 2 and raw[0] == raw[-1] == '"':
        inner = raw[1:-1].replace('""', '"')
        if not inner:
            raise fail(store, arg, "must not be an empty quoted identifier", value)
        return inner
    if '"' in raw:
        raise fail(store, arg, "may only use '\"' to quote the whole identifier", value)
    return raw.upper()
