"""The one place where olsdk.spark asks ``olsdk.naming`` for identifiers and job names.

Every rule lives in ``olsdk.naming``; this module only adapts its calls to what the
plan walker and the listener have at hand.
"""

from __future__ import annotations

import re

from olsdk._builders.naming import _job
from olsdk._builders.naming._identifier import DatasetId
from olsdk._builders.naming._jdbc import from_jdbc as _from_jdbc
from olsdk._builders.naming._uris import from_uri as _from_uri

__all__ = ["from_jdbc", "from_location", "jdbc_table", "job_name", "normalize"]


def from_location(uri: str) -> DatasetId:
    """The identifier of a file or object-store location, partitions trimmed (A5.1, A5.6)."""
    return _from_uri(uri, trim_partitions=True)


def from_jdbc(url: str, table: str, derby_home: str | None = None) -> DatasetId:
    """The identifier of a JDBC table; credentials never reach the namespace (A5.2)."""
    return _from_jdbc(url, table, allow_generic=True, derby_home=derby_home)


def jdbc_table(dbtable: str | None) -> str | None:
    """The table a JDBC ``dbtable`` option names; None for a subquery (``(SELECT ...) t``)."""
    table = (dbtable or "").strip()
    return table if table and not re.search(r"\s|^\(", table) else None


def normalize(value: str) -> str:
    """The agent's ``NameNormalizer`` (``CLI test application`` -> ``cli_test_application``)."""
    return _job.normalize_name(value) or "unknown"


def job_name(app_name: str, command: str, table: str | None) -> str:
    """``{appName}.{command}.{table}``; ``table`` is a table id or a path (A3)."""
    try:
        return _job.spark(app_name, command, table or None)
    except ValueError:  # an app name without letters or digits
        return _job.spark("unknown", command, table or None)
