"""Dataset and job naming, following the OpenLineage naming conventions.

* one builder per data store (``naming.postgres(host=..., database=..., schema=...,
  table=...)``), all listed in :data:`BUILDERS`, each returning a :class:`DatasetId`;
* parsers from what users hold: :func:`from_uri` (files, object stores, Kafka),
  :func:`from_jdbc` (JDBC URLs) and :func:`from_kafka`, giving the identifiers the
  OpenLineage Java Spark agent gives, so events from both link up;
* :func:`trim_partitions` for partitioned paths;
* job names in :mod:`olsdk.naming.job` and the ``parent`` run facet in :func:`parent`.

See ``docs/naming.md`` for the table of stores and where sources disagree.
"""

from __future__ import annotations

from olsdk.naming import job
from olsdk.naming.cloud import (
    athena,
    aws_glue,
    azure_cosmos_db,
    azure_data_explorer,
    azure_synapse,
    bigquery,
    microsoft_fabric_warehouse,
    redshift,
    snowflake,
    spanner,
    unity_catalog,
)
from olsdk.naming.databases import (
    DEFAULT_PORTS,
    cassandra,
    cratedb,
    db2,
    hive,
    milvus,
    mssql,
    mysql,
    oceanbase,
    oracle,
    postgres,
    teradata,
    trino,
)
from olsdk.naming.documents import box, filenet, sharepoint
from olsdk.naming.filesystems import (
    abfss,
    dbfs,
    gcs,
    hdfs,
    local_file_system,
    remote_file_system,
    s3,
    wasbs,
)
from olsdk.naming.identifier import DatasetId
from olsdk.naming.jdbc import SUPPORTED_JDBC_SUBPROTOCOLS, from_jdbc
from olsdk.naming.memory import in_memory
from olsdk.naming.parent import parent
from olsdk.naming.partitions import trim_partitions
from olsdk.naming.registry import BUILDERS, Builder
from olsdk.naming.streaming import kafka, pubsub
from olsdk.naming.uris import SUPPORTED_URI_SCHEMES, Form, from_kafka, from_uri

__all__ = [
    "BUILDERS",
    "DEFAULT_PORTS",
    "SUPPORTED_JDBC_SUBPROTOCOLS",
    "SUPPORTED_URI_SCHEMES",
    "Builder",
    "DatasetId",
    "Form",
    "abfss",
    "athena",
    "aws_glue",
    "azure_cosmos_db",
    "azure_data_explorer",
    "azure_synapse",
    "bigquery",
    "box",
    "cassandra",
    "cratedb",
    "db2",
    "dbfs",
    "filenet",
    "from_jdbc",
    "from_kafka",
    "from_uri",
    "gcs",
    "hdfs",
    "hive",
    "in_memory",
    "job",
    "kafka",
    "local_file_system",
    "microsoft_fabric_warehouse",
    "milvus",
    "mssql",
    "mysql",
    "oceanbase",
    "oracle",
    "parent",
    "postgres",
    "pubsub",
    "redshift",
    "remote_file_system",
    "s3",
    "sharepoint",
    "snowflake",
    "spanner",
    "teradata",
    "trim_partitions",
    "trino",
    "unity_catalog",
    "wasbs",
]
