"""Builders for object stores and file systems.

Path rules follow the Java agent (A5.1) so that ``from_uri`` on the same location
gives the same identifier: object-store keys have no outer slashes (a whole bucket is
``/``); file-system paths keep one leading slash; trailing and doubled slashes go.
"""

from __future__ import annotations

import re

from olsdk._builders.naming import _rules as rules
from olsdk._builders.naming._identifier import DatasetId

__all__ = [
    "abfss",
    "dbfs",
    "gcs",
    "hdfs",
    "local_file_system",
    "remote_file_system",
    "s3",
    "wasbs",
]

_AZURE_SUFFIX = re.compile(r"\.(dfs|blob)\.core\.windows\.net$", re.IGNORECASE)
_AZURE_ACCOUNT = re.compile(r"^[a-z0-9]{3,24}$")


def _bucket(store: str, value: object) -> str:
    return rules.segment(store, "bucket_name", value)


def gcs(*, bucket_name: str, object_key: str) -> DatasetId:
    """GCS: ``gs://{bucket name}`` / ``{object key}``."""
    return DatasetId(f"gs://{_bucket('gcs', bucket_name)}", rules.object_key("gcs", "object_key", object_key))


def s3(*, bucket_name: str, object_key: str) -> DatasetId:
    """S3: ``s3://{bucket name}`` / ``{object key}``."""
    return DatasetId(f"s3://{_bucket('s3', bucket_name)}", rules.object_key("s3", "object_key", object_key))


def hdfs(*, namenode_host: str, namenode_port: int | str, path: str) -> DatasetId:
    """HDFS: ``hdfs://{namenode host}:{namenode port}`` / ``{path}`` (absolute)."""
    host = rules.host("hdfs", "namenode_host", namenode_host)
    port = rules.port("hdfs", "namenode_port", namenode_port)
    return DatasetId(f"hdfs://{host}:{port}", rules.filesystem_path("hdfs", "path", path))


def dbfs(*, workspace_name: str, path: str) -> DatasetId:
    """DBFS: ``dbfs://{workspace name}`` / ``{path}`` (absolute).

    The Java agent drops the workspace (namespace ``dbfs``); the conventions name it,
    so this builder does. ``from_uri`` accepts both spellings.
    """
    workspace = rules.host("dbfs", "workspace_name", workspace_name)
    return DatasetId(f"dbfs://{workspace}", rules.filesystem_path("dbfs", "path", path))


def _azure_account(store: str, value: object) -> str:
    """The storage account: ``myaccount``, or a full ``myaccount.dfs|blob.core.windows.net``."""
    account = _AZURE_SUFFIX.sub("", rules.segment(store, "service_name", value)).lower()
    if not _AZURE_ACCOUNT.match(account):
        raise rules.fail(
            store,
            "service_name",
            "must be a storage account name (3-24 lower-case letters and digits)",
            value,
        )
    return account


def abfss(*, container_name: str, service_name: str, path: str) -> DatasetId:
    """ABFSS: ``abfss://{container name}@{service name}.dfs.core.windows.net`` / ``{path}``."""
    container = rules.segment("abfss", "container_name", container_name)
    account = _azure_account("abfss", service_name)
    return DatasetId(
        f"abfss://{container}@{account}.dfs.core.windows.net",
        rules.object_key("abfss", "path", path),
    )


def wasbs(*, container_name: str, service_name: str, object_key: str) -> DatasetId:
    """WASBS: ``wasbs://{container name}@{service name}.dfs.core.windows.net`` / ``{object key}``.

    The conventions spell the host ``.dfs.core.windows.net`` even for Blob storage; a
    ``.blob.core.windows.net`` service name is accepted and rewritten to that form.
    """
    container = rules.segment("wasbs", "container_name", container_name)
    account = _azure_account("wasbs", service_name)
    return DatasetId(
        f"wasbs://{container}@{account}.dfs.core.windows.net",
        rules.object_key("wasbs", "object_key", object_key),
    )


def local_file_system(*, path: str) -> DatasetId:
    """Local file system: ``file`` / ``{path}``.

    Relative paths are kept relative, as the Java agent keeps them.
    """
    return DatasetId("file", rules.filesystem_path("local_file_system", "path", path, allow_relative=True))


def remote_file_system(*, host: str, path: str) -> DatasetId:
    """Remote file system: ``file://{host}`` / ``{path}`` (absolute).

    The Java agent drops the host (``file``); ``from_uri(..., form="conventions")``
    keeps it and matches this builder.
    """
    return DatasetId(
        f"file://{rules.host('remote_file_system', 'host', host)}",
        rules.filesystem_path("remote_file_system", "path", path),
    )
