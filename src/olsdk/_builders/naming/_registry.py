"""``BUILDERS``: every dataset builder by name, so tools can enumerate the data stores."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from olsdk._builders.naming import _cloud as cloud
from olsdk._builders.naming import _databases as databases
from olsdk._builders.naming import _documents as documents
from olsdk._builders.naming import _filesystems as filesystems
from olsdk._builders.naming import _memory as memory
from olsdk._builders.naming import _streaming as streaming
from olsdk._builders.naming._identifier import DatasetId

__all__ = ["BUILDERS", "Builder"]

Builder = Callable[..., DatasetId]

_BUILDERS: dict[str, Builder] = {
    # warehouses and databases
    "athena": cloud.athena,
    "aws_glue": cloud.aws_glue,
    "azure_cosmos_db": cloud.azure_cosmos_db,
    "azure_data_explorer": cloud.azure_data_explorer,
    "azure_synapse": cloud.azure_synapse,
    "bigquery": cloud.bigquery,
    "cassandra": databases.cassandra,
    "cratedb": databases.cratedb,
    "db2": databases.db2,
    "hive": databases.hive,
    "microsoft_fabric_warehouse": cloud.microsoft_fabric_warehouse,
    "milvus": databases.milvus,
    "mssql": databases.mssql,
    "mysql": databases.mysql,
    "oceanbase": databases.oceanbase,
    "oracle": databases.oracle,
    "postgres": databases.postgres,
    "redshift": cloud.redshift,
    "snowflake": cloud.snowflake,
    "spanner": cloud.spanner,
    "teradata": databases.teradata,
    "trino": databases.trino,
    "unity_catalog": cloud.unity_catalog,
    # object stores and file systems
    "abfss": filesystems.abfss,
    "dbfs": filesystems.dbfs,
    "gcs": filesystems.gcs,
    "hdfs": filesystems.hdfs,
    "local_file_system": filesystems.local_file_system,
    "remote_file_system": filesystems.remote_file_system,
    "s3": filesystems.s3,
    "wasbs": filesystems.wasbs,
    # streams
    "kafka": streaming.kafka,
    "pubsub": streaming.pubsub,
    # document management systems
    "box": documents.box,
    "filenet": documents.filenet,
    "sharepoint": documents.sharepoint,
    # temporary
    "in_memory": memory.in_memory,
}

#: Read-only ``{builder name: builder}``; the name is the data store in snake_case.
BUILDERS: Mapping[str, Builder] = MappingProxyType(_BUILDERS)
