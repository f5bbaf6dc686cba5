"""The one place where olsdk.spark asks for dataset identifiers and job names.

Every rule here belongs to ``olsdk.naming``; this module only adapts its calls to what
the plan walker and the listener need, so that naming changes stay a one-line edit.
"""

from __future__ import annotations

import re
import unicodedata

from olsdk.naming.uris import from_uri as _from_uri

__all__ = ["from_jdbc", "from_location", "job_name", "normalize", "path_suffix", "table_suffix"]


def from_location(uri: str) -> tuple[str, str]:
    """(namespace, name) of a file or object-store location, partitions trimmed."""
    ident = _from_uri(uri, trim_partitions=True)
    return ident.namespace, ident.name


_CRED = re.compile(r"(?i)(;|\?|&)(user|username|password|pwd|passwd)=[^;&]*")


def from_jdbc(url: str, table: str) -> tuple[str, str]:
    """(namespace, name) of a JDBC table, credentials never included."""
    bare = re.sub(r"(?i)^jdbc:", "", url)
    if bare.lower().startswith("derby:"):
        # Embedded Derby: the database is a directory; the agent names it by its path.
        path = bare[len("derby:"):].split(";", 1)[0]
        path = re.sub(r"^(directory|memory|classpath|jar):", "", path)
        return "file:" + path, table
    bare = _CRED.sub("", bare).split("?", 1)[0]
    scheme, _, rest = bare.partition("://")
    authority = rest.split("/", 1)[0].rsplit("@", 1)[-1]
    database = rest.split("/", 1)[1] if "/" in rest else ""
    name = table if "." in table or not database else f"{database}.{table}"
    return f"{scheme.lower()}://{authority.lower()}", name


_SPLIT = (
    (re.compile(r"([a-z])([A-Z])"), r"\1 \2"),
    (re.compile(r"([A-Z]+)([A-Z][a-z])"), r"\1 \2"),
    (re.compile(r"([0-9])([A-Za-z])"), r"\1 \2"),
)


def normalize(value: str) -> str:
    """The Java agent's ``NameNormalizer``: ``CLI test application`` -> ``cli_test_application``."""
    text = re.sub(r"^\W+|\W+$", "", value)
    text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    for pattern, repl in _SPLIT:
        text = pattern.sub(repl, text)
    return re.sub(r"[^a-zA-Z0-9]+", "_", text.lower())


def path_suffix(name: str) -> str:
    """Job-name suffix of a path dataset: its last two segments (``/a/out/t`` -> ``out_t``)."""
    segments = [s for s in name.split("/") if s]
    return "_".join(segments[-2:]).replace(".", "_")


def table_suffix(table: str) -> str:
    """Job-name suffix of a table identifier (``default.t2`` -> ``default_t2``)."""
    return table.replace(".", "_")


def job_name(app_name: str, command: str, suffix: str | None) -> str:
    """``{appName}.{command}.{table}`` with the parts normalised as the agent does."""
    parts = [normalize(app_name) or "unknown", normalize(command)]
    if suffix:
        parts.append(suffix)
    return ".".join(parts)
