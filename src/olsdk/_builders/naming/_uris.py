"""``from_uri``: file, object-store and Kafka URIs to dataset identifiers.

Reproduces the Java agent's ``FilesystemDatasetUtils.fromLocation`` (A5.1) so that a
location seen in PySpark gets the identifier the agent puts in its events:

* no scheme or ``file``: namespace ``file``, name the path (host dropped);
* object stores, matched by scheme prefix (``s3*`` -> ``s3``, ``gs``, ``abfs*`` ->
  ``abfss``, ``wasb*`` -> ``wasbs``): namespace ``scheme://authority``, name the path
  without its outer slashes, ``/`` for a whole bucket;
* everything else (``hdfs``, ``dbfs``): namespace ``scheme://authority`` (or the bare
  scheme without an authority), name the path with its leading slash.

``form="conventions"`` instead gives the current naming conventions' spelling where
the two differ: remote file hosts are kept (``file://{host}``), WASBS hosts become
``.dfs.core.windows.net`` and DBFS needs a workspace.
"""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit

from olsdk._builders.naming._identifier import DatasetId, Form
from olsdk._builders.naming._partitions import trim_partitions as _trim
from olsdk._builders.naming._streaming import kafka_topic

__all__ = ["SUPPORTED_URI_SCHEMES", "from_kafka", "from_uri"]

#: Schemes ``from_uri`` understands (plus plain paths without a scheme).
SUPPORTED_URI_SCHEMES: tuple[str, ...] = (
    "file",
    "s3",
    "s3a",
    "s3n",
    "gs",
    "abfs",
    "abfss",
    "wasb",
    "wasbs",
    "hdfs",
    "dbfs",
    "kafka",
)

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_WASBS_HOST = re.compile(r"\.blob\.core\.windows\.net$", re.IGNORECASE)


def _collapse(path: str) -> str:
    return re.sub(r"/{2,}", "/", path)


def _without_credentials(netloc: str) -> str:
    """Drop ``user:secret@`` (old Hadoop S3 URIs could carry keys there)."""
    return netloc.rsplit("@", 1)[-1]


def _object_store_scheme(scheme: str) -> str | None:
    # The agent matches these by prefix: s3a/s3n -> s3, abfs -> abfss, wasb -> wasbs.
    for prefix, canonical in (("s3", "s3"), ("gs", "gs"), ("abfs", "abfss"), ("wasb", "wasbs")):
        if scheme.startswith(prefix):
            return canonical
    return None


def _local(path: str, host: str, form: Form) -> DatasetId:
    name = _collapse(path).rstrip("/") or "/"
    if form == "conventions" and host:
        if not name.startswith("/"):
            name = "/" + name
        return DatasetId(f"file://{host.lower()}", name)
    return DatasetId("file", name)


def _unsupported(uri: str, scheme: str) -> ValueError:
    return ValueError(
        f"from_uri: scheme {scheme!r} of {uri!r} is not supported; supported schemes: "
        + ", ".join(SUPPORTED_URI_SCHEMES)
        + " (and plain paths). For JDBC URLs use naming.from_jdbc."
    )


def from_uri(uri: str, *, form: Form = "agent", trim_partitions: bool = False) -> DatasetId:
    """The dataset identifier of a file, object-store or Kafka URI, or a local path.

    ``trim_partitions=True`` also cuts trailing partition directories
    (``/events/year=2023`` -> ``/events``) as the agent's dataset reducer does.
    """
    if not isinstance(uri, str) or not uri.strip():
        raise ValueError(f"from_uri: uri must be a non-empty string, got {uri!r}")
    if form not in ("agent", "conventions"):
        raise ValueError(f"from_uri: form must be 'agent' or 'conventions', got {form!r}")
    uri = uri.strip()
    identifier = _parse(uri, form)
    if trim_partitions and "/" in identifier.name:
        return DatasetId(identifier.namespace, _trim(identifier.name))
    return identifier


def _parse(uri: str, form: Form) -> DatasetId:
    match = _SCHEME.match(uri)
    # "C:\data" or "C:/data" is a Windows drive, not a scheme.
    if match is None or len(match.group(1)) == 1:
        return _local(uri, "", form)

    scheme = match.group(1).lower()
    parts = urlsplit(uri)
    netloc = parts.netloc
    # Java's URI.getPath() decodes %xx escapes; so does the agent's name.
    path = unquote(parts.path)

    if scheme == "file":
        return _local(path, _without_credentials(netloc), form)

    if scheme == "kafka":
        return _kafka_uri(uri, netloc, path)

    canonical = _object_store_scheme(scheme)
    if canonical is not None:
        if canonical in ("s3", "gs"):
            netloc = _without_credentials(netloc)
        if not netloc:
            raise ValueError(f"from_uri: {uri!r} has no bucket or container (scheme://bucket/key)")
        if canonical == "wasbs" and form == "conventions":
            netloc = _WASBS_HOST.sub(".dfs.core.windows.net", netloc)
        name = _collapse(path).strip("/") or "/"
        return DatasetId(f"{canonical}://{netloc}", name)

    if scheme in ("hdfs", "dbfs"):
        netloc = _without_credentials(netloc)
        name = _collapse(path).rstrip("/") or "/"
        if not name.startswith("/"):
            name = "/" + name
        if not netloc:
            if form == "conventions" and scheme == "dbfs":
                raise ValueError(
                    f"from_uri: {uri!r} names no workspace; the conventions' DBFS namespace is "
                    "dbfs://{workspace name} (build it with naming.dbfs(workspace_name=..., "
                    "path=...)) or use form='agent' for the agent's bare 'dbfs'"
                )
            return DatasetId(scheme, name)
        return DatasetId(f"{scheme}://{netloc.lower()}", name)

    raise _unsupported(uri, scheme)


def _kafka_uri(uri: str, netloc: str, path: str) -> DatasetId:
    topic = path.strip("/")
    if not netloc or not topic:
        raise ValueError(f"from_uri: {uri!r} must look like kafka://host:port/topic")
    return from_kafka(netloc, topic)


def from_kafka(bootstrap_servers: str, topic: str) -> DatasetId:
    """The identifier of a Kafka topic from a ``bootstrap.servers`` string.

    As in the agent (A5.5), the first server names the cluster and a listener prefix
    such as ``PLAINTEXT://`` or ``SASL_SSL://`` is ignored.
    """
    if not isinstance(bootstrap_servers, str) or not bootstrap_servers.strip():
        raise ValueError(f"from_kafka: bootstrap_servers must be a non-empty string, got {bootstrap_servers!r}")
    first = bootstrap_servers.split(",")[0].strip()
    first = re.sub(r"^[A-Za-z_]+://", "", first)
    first = _without_credentials(first).lower()
    if not first:
        raise ValueError(f"from_kafka: no server in bootstrap_servers {bootstrap_servers!r}")
    return DatasetId(f"kafka://{first}", kafka_topic("from_kafka", "topic", topic))
