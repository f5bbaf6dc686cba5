"""Our builders against the official client's helpers (openlineage.client.naming).

For every store both offer, the same canonical input gives the same identifier. Where
the official helpers only format what they are given, ours also apply the rules the
conventions (and the Java agent) state; the second half documents each such case and
why we follow the conventions.
"""

from collections.abc import Callable

import pytest

pytest.importorskip("openlineage.client.naming.dataset")
from openlineage.client.naming import dataset as official

from olsdk import naming
from olsdk.naming import DatasetId


def _official(helper: official.DatasetNaming) -> DatasetId:
    return DatasetId(helper.get_namespace(), helper.get_name())


SAME: dict[str, tuple[Callable[[], official.DatasetNaming], Callable[[], DatasetId]]] = {
    "athena": (
        lambda: official.Athena("us-east-1", "AwsDataCatalog", "sales", "orders"),
        lambda: naming.athena(region_name="us-east-1", catalog="AwsDataCatalog", database="sales", table="orders"),
    ),
    # Official kwarg `region_name`; ours is `region`, the placeholder of the conventions.
    "aws_glue": (
        lambda: official.AWSGlue("eu-west-1", "123456789012", "sales", "orders"),
        lambda: naming.aws_glue(
            region="eu-west-1",
            account_id="123456789012",
            database_name="sales",
            table_name="orders",
        ),
    ),
    "azure_cosmos_db": (
        lambda: official.AzureCosmosDB("acct.documents.azure.com", "shop", "orders"),
        lambda: naming.azure_cosmos_db(host="acct.documents.azure.com", database="shop", table="orders"),
    ),
    "azure_data_explorer": (
        lambda: official.AzureDataExplorer("mycluster.westeurope", "telemetry", "events"),
        lambda: naming.azure_data_explorer(host="mycluster.westeurope", database="telemetry", table="events"),
    ),
    "azure_synapse": (
        lambda: official.AzureSynapse("ws1.sql.azuresynapse.net", "1433", "dbo", "orders"),
        lambda: naming.azure_synapse(host="ws1.sql.azuresynapse.net", port=1433, schema="dbo", table="orders"),
    ),
    "bigquery": (
        lambda: official.BigQuery("my-project", "sales", "orders"),
        lambda: naming.bigquery(project_id="my-project", dataset_name="sales", table_name="orders"),
    ),
    "cassandra": (
        lambda: official.Cassandra("cass1", "9042", "shop", "orders"),
        lambda: naming.cassandra(host="cass1", port=9042, keyspace="shop", table="orders"),
    ),
    "mysql": (
        lambda: official.MySQL("mysql.local", "3306", "shop", "orders"),
        lambda: naming.mysql(host="mysql.local", port=3306, database="shop", table="orders"),
    ),
    "cratedb": (
        lambda: official.CrateDB("crate", "5432", "crate", "doc", "t"),
        lambda: naming.cratedb(host="crate", port=5432, database="crate", schema="doc", table="t"),
    ),
    "db2": (
        lambda: official.DB2("db2host", "50000", "SAMPLE", "DB2INST1", "EMPLOYEE"),
        lambda: naming.db2(host="db2host", port=50000, database="SAMPLE", schema="DB2INST1", table="EMPLOYEE"),
    ),
    "oceanbase": (
        lambda: official.OceanBase("ob", "2881", "shop", "orders"),
        lambda: naming.oceanbase(host="ob", port=2881, database="shop", table="orders"),
    ),
    "oracle": (
        lambda: official.Oracle("ora", "1521", "ORCLPDB1", "HR", "EMPLOYEES"),
        lambda: naming.oracle(host="ora", port=1521, service_name="ORCLPDB1", schema="HR", table="EMPLOYEES"),
    ),
    "postgres": (
        lambda: official.Postgres("db.example.com", "5432", "shop", "public", "orders"),
        lambda: naming.postgres(host="db.example.com", port=5432, database="shop", schema="public", table="orders"),
    ),
    "teradata": (
        lambda: official.Teradata("td", "1025", "sales", "orders"),
        lambda: naming.teradata(host="td", port=1025, database="sales", table="orders"),
    ),
    "redshift": (
        lambda: official.Redshift("examplecluster", "us-west-2", "5439", "dev", "public", "sales"),
        lambda: naming.redshift(
            cluster_identifier="examplecluster",
            region_name="us-west-2",
            port=5439,
            database="dev",
            schema="public",
            table="sales",
        ),
    ),
    "snowflake": (
        lambda: official.Snowflake("myorg", "myaccount", "ANALYTICS", "PUBLIC", "ORDERS"),
        lambda: naming.snowflake(
            organization_name="myorg",
            account_name="myaccount",
            database="ANALYTICS",
            schema="PUBLIC",
            table="ORDERS",
        ),
    ),
    "trino": (
        lambda: official.Trino("trino", "8080", "hive", "sales", "orders"),
        lambda: naming.trino(host="trino", port=8080, catalog="hive", schema="sales", table="orders"),
    ),
    "abfss": (
        lambda: official.ABFSS("raw", "mylake", "events/2024"),
        lambda: naming.abfss(container_name="raw", service_name="mylake", path="events/2024"),
    ),
    "dbfs": (
        lambda: official.DBFS("adb-1.azuredatabricks.net", "/mnt/raw"),
        lambda: naming.dbfs(workspace_name="adb-1.azuredatabricks.net", path="/mnt/raw"),
    ),
    "gcs": (
        lambda: official.GCS("my-bucket", "data/events.parquet"),
        lambda: naming.gcs(bucket_name="my-bucket", object_key="data/events.parquet"),
    ),
    "hdfs": (
        lambda: official.HDFS("namenode", "8020", "/warehouse/location"),
        lambda: naming.hdfs(namenode_host="namenode", namenode_port=8020, path="/warehouse/location"),
    ),
    "hive": (
        lambda: official.Hive("metastore", "9083", "default", "t2"),
        lambda: naming.hive(host="metastore", port=9083, database="default", table="t2"),
    ),
    "kafka": (
        lambda: official.Kafka("broker", "9092", "orders"),
        lambda: naming.kafka(bootstrap_server_host="broker", port=9092, topic="orders"),
    ),
    "local_file_system": (
        lambda: official.LocalFileSystem("/tmp/warehouse/target"),
        lambda: naming.local_file_system(path="/tmp/warehouse/target"),
    ),
    "remote_file_system": (
        lambda: official.RemoteFileSystem("fileserver", "/share/data.csv"),
        lambda: naming.remote_file_system(host="fileserver", path="/share/data.csv"),
    ),
    "s3": (
        lambda: official.S3("my-bucket", "data/events"),
        lambda: naming.s3(bucket_name="my-bucket", object_key="data/events"),
    ),
    "wasbs": (
        lambda: official.WASBS("raw", "mystorage", "events/1.json"),
        lambda: naming.wasbs(container_name="raw", service_name="mystorage", object_key="events/1.json"),
    ),
    "pubsub": (
        lambda: official.PubSubNaming(official.PubSubResourceType.TOPIC, "my-project", "orders"),
        lambda: naming.pubsub(project_id="my-project", topic_id="orders"),
    ),
}


def test_every_official_helper_is_compared() -> None:
    helpers = {
        name
        for name, value in vars(official).items()
        if isinstance(value, type) and hasattr(value, "get_namespace") and name != "DatasetNaming"
    }
    assert len(helpers) == len(SAME) == 28


@pytest.mark.parametrize("store", sorted(SAME))
def test_same_identifier_as_the_official_helper(store: str) -> None:
    official_helper, ours = SAME[store]
    assert ours() == _official(official_helper())


# Where we differ: the official helpers format their input as given; ours apply the
# conventions' rules so that one dataset always gets one identifier.


def test_snowflake_names_are_upper_cased_as_the_conventions_require() -> None:
    # Seeds: "Database, schema, table and column names are uppercase in Snowflake.
    # Clients should make sure that they are sending them in uppercase."
    theirs = _official(official.Snowflake("MyOrg", "MyAccount", "analytics", "public", "orders"))
    ours = naming.snowflake(
        organization_name="MyOrg",
        account_name="MyAccount",
        database="analytics",
        schema="public",
        table="orders",
    )
    assert theirs == DatasetId("snowflake://MyOrg-MyAccount", "analytics.public.orders")
    # Account identifiers are case-insensitive: one spelling, lower case.
    assert ours == DatasetId("snowflake://myorg-myaccount", "ANALYTICS.PUBLIC.ORDERS")


def test_object_keys_lose_outer_slashes_as_the_agent_names_them() -> None:
    # The Java agent names s3://bucket/data/events/ as `data/events` (A5.1); the official
    # helper would make `/data/events/` a different dataset.
    theirs = _official(official.S3("my-bucket", "/data/events/"))
    ours = naming.s3(bucket_name="my-bucket", object_key="/data/events/")
    assert theirs.name == "/data/events/"
    assert ours.name == "data/events" == naming.from_uri("s3a://my-bucket/data/events/").name


def test_file_system_paths_are_normalised() -> None:
    theirs = _official(official.HDFS("NameNode", "8020", "/warehouse//location/"))
    ours = naming.hdfs(namenode_host="NameNode", namenode_port=8020, path="/warehouse//location/")
    assert theirs == DatasetId("hdfs://NameNode:8020", "/warehouse//location/")
    assert ours == DatasetId("hdfs://namenode:8020", "/warehouse/location")
    assert ours == naming.from_uri("hdfs://namenode:8020/warehouse/location/")


def test_ports_are_checked_not_just_formatted() -> None:
    assert _official(official.Postgres("db", "not-a-port", "d", "s", "t")).namespace == ("postgres://db:not-a-port")
    with pytest.raises(ValueError, match="postgres: port must be an integer"):
        naming.postgres(host="db", port="not-a-port", database="d", schema="s", table="t")


def test_azure_service_given_as_a_full_host_is_not_doubled() -> None:
    theirs = _official(official.WASBS("raw", "acct.blob.core.windows.net", "k"))
    ours = naming.wasbs(container_name="raw", service_name="acct.blob.core.windows.net", object_key="k")
    assert theirs.namespace == "wasbs://raw@acct.blob.core.windows.net.dfs.core.windows.net"
    assert ours.namespace == "wasbs://raw@acct.dfs.core.windows.net"
