"""The one place where olsdk.spark asks ``olsdk.naming`` for identifiers and job names.

Every rule lives in ``olsdk.naming``; this module only adapts its calls to what the
plan walker and the listener have at hand.
"""

from __future__ import annotations

from olsdk.naming import from_jdbc as _from_jdbc
from olsdk.naming import from_uri as _from_uri
from olsdk.naming import job as _job

__all__ = ["from_jdbc", "from_location", "job_name", "normalize"]


def from_location(uri: str) -> tuple[str, str]:
    """(namespace, name) of a file or object-store location, partitions trimmed (A5.1, A5.6)."""
    ident = _from_uri(uri, trim_partitions=True)
    return ident.namespace, ident.name


def from_jdbc(url: str, table: str, derby_home: str | None = None) -> tuple[str, str]:
    """(namespace, name) of a JDBC table; credentials never reach the namespace (A5.2)."""
    ident = _from_jdbc(url, table, allow_generic=True, derby_home=derby_home)
    return ident.namespace, ident.name


def normalize(value: str) -> str:
    """The agent's ``NameNormalizer`` (``CLI test application`` -> ``cli_test_application``)."""
    return _job.normalize_name(value) or "unknown"


def job_name(app_name: str, command: str, table: str | None) -> str:
    """``{appName}.{command}.{table}``; ``table`` is a table id or a path (A3)."""
    try:
        return _job.spark(app_name, command, table or None)
    except ValueError:  # an app name without letters or digits
        return _job.spark("unknown", command, table or None)
