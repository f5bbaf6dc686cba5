"""Dataset and job naming, following the OpenLineage naming conventions.

* one builder per data store (``naming.postgres(host=..., database=..., schema=...,
  table=...)``), all listed in :data:`BUILDERS`, each returning a :class:`DatasetId`;
* parsers from what users hold: :func:`from_uri` (files, object stores, Kafka),
  :func:`from_jdbc` (JDBC URLs) and :func:`from_kafka`, giving the identifiers the
  OpenLineage Java Spark agent gives, so events from both link up;
* :func:`trim_partitions` for partitioned paths (the Java agent's trimmers), and
  :data:`DATASET_NAME_TRIMMERS` (the official Python client's, one step each);
* job names in `olsdk.naming.job` and the ``parent`` run facet in :func:`parent`.

See ``docs/how-to/naming.md`` for the table of stores and where sources disagree.
"""

from __future__ import annotations

from olsdk._builders.naming import _job as job
from olsdk._builders.naming._cloud import (
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
from olsdk._builders.naming._databases import (
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
from olsdk._builders.naming._documents import box, filenet, sharepoint
from olsdk._builders.naming._filesystems import (
    abfss,
    dbfs,
    gcs,
    hdfs,
    local_file_system,
    remote_file_system,
    s3,
    wasbs,
)
from olsdk._builders.naming._identifier import DatasetId, Form
from olsdk._builders.naming._jdbc import SUPPORTED_JDBC_SUBPROTOCOLS, from_jdbc
from olsdk._builders.naming._memory import in_memory
from olsdk._builders.naming._parent import parent
from olsdk._builders.naming._partitions import DATASET_NAME_TRIMMERS, trim_partitions
from olsdk._builders.naming._ports import DEFAULT_PORTS
from olsdk._builders.naming._registry import BUILDERS, Builder
from olsdk._builders.naming._streaming import kafka, pubsub
from olsdk._builders.naming._uris import SUPPORTED_URI_SCHEMES, from_kafka, from_uri

__all__ = [
    "BUILDERS",
    "DATASET_NAME_TRIMMERS",
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
