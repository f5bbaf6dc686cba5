"""naming._uris: from_uri against the Java agent's FilesystemDatasetUtils rules (spark-facts A5.1).

Every row of the A5.1 table, the rows where the agent and the conventions disagree
(both forms), the error for unsupported schemes, and the property that every
builder's URI parses back to the same identifier.
"""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from olsdk import naming
from olsdk.naming import DatasetId
from tests.naming.naming_strategies import FEW, accounts, hosts, keys, lower_names, ports

# (input, namespace, name): rows of A5.1, one tuple per input spelling.
AGENT_VECTORS = [
    ("/warehouse/location/", "file", "/warehouse/location"),
    ("file:/warehouse/location", "file", "/warehouse/location"),
    ("file:///warehouse/location", "file", "/warehouse/location"),
    ("warehouse/location", "file", "warehouse/location"),
    ("s3://bucket/warehouse/location/", "s3://bucket", "warehouse/location"),
    ("s3a://bucket/warehouse/location/", "s3://bucket", "warehouse/location"),
    ("s3n://bucket/warehouse/location/", "s3://bucket", "warehouse/location"),
    ("gs://bucket", "gs://bucket", "/"),
    (
        "abfs://container@account.dfs.core.windows.net/warehouse",
        "abfss://container@account.dfs.core.windows.net",
        "warehouse",
    ),
    ("wasb://container@bucket/warehouse", "wasbs://container@bucket", "warehouse"),
    ("hdfs://namenode:8020/warehouse/location/", "hdfs://namenode:8020", "/warehouse/location"),
    ("dbfs:/warehouse/location", "dbfs", "/warehouse/location"),
    ("dbfs:///warehouse/location", "dbfs", "/warehouse/location"),
]


@pytest.mark.parametrize(("uri", "namespace", "name"), AGENT_VECTORS)
def test_from_uri_reproduces_the_agent(uri: str, namespace: str, name: str) -> None:
    assert naming.from_uri(uri) == DatasetId(namespace, name)


def test_root_of_the_file_system_is_slash() -> None:
    assert naming.from_uri("file:///") == DatasetId("file", "/")


def test_the_agent_drops_the_host_of_a_file_uri() -> None:
    assert naming.from_uri("file://fileserver/share/data") == DatasetId("file", "/share/data")


def test_conventions_form_keeps_the_remote_file_host() -> None:
    assert naming.from_uri("file://FileServer/share/data", form="conventions") == DatasetId(
        "file://fileserver", "/share/data"
    )
    # Without a host both forms agree.
    assert naming.from_uri("file:///data", form="conventions") == DatasetId("file", "/data")


def test_wasbs_blob_host_is_kept_by_the_agent_and_rewritten_by_the_conventions() -> None:
    uri = "wasbs://container@account.blob.core.windows.net/dir/file.csv"
    assert naming.from_uri(uri) == DatasetId("wasbs://container@account.blob.core.windows.net", "dir/file.csv")
    assert naming.from_uri(uri, form="conventions") == DatasetId(
        "wasbs://container@account.dfs.core.windows.net", "dir/file.csv"
    )


def test_dbfs_accepts_both_spellings() -> None:
    assert naming.from_uri("dbfs://my-workspace/mnt/x") == DatasetId("dbfs://my-workspace", "/mnt/x")
    with pytest.raises(ValueError, match="no workspace"):
        naming.from_uri("dbfs:/mnt/x", form="conventions")


def test_credentials_in_object_store_uris_are_dropped() -> None:
    assert naming.from_uri("s3a://AKIAKEY:secret@bucket/data/") == DatasetId("s3://bucket", "data")
    assert naming.from_uri("hdfs://alice@nn:8020/x") == DatasetId("hdfs://nn:8020", "/x")


def test_percent_escapes_are_decoded_like_java_uri_get_path() -> None:
    assert naming.from_uri("s3://bucket/my%20dir/file") == DatasetId("s3://bucket", "my dir/file")


def test_kafka_uri_uses_the_first_bootstrap_server() -> None:
    assert naming.from_uri("kafka://broker1:9092,broker2:9092/orders") == DatasetId("kafka://broker1:9092", "orders")


def test_from_kafka_ignores_the_listener_prefix() -> None:
    # A5.5: namespace kafka://{first bootstrap host}:{port}, PLAINTEXT:// assumed.
    assert naming.from_kafka("PLAINTEXT://kafka-cluster-prod:9092,other:9092", "topic1") == (
        DatasetId("kafka://kafka-cluster-prod:9092", "topic1")
    )


def test_partition_trimming_is_opt_in() -> None:
    uri = "s3://bucket/events/year=2023/month=01/"
    assert naming.from_uri(uri).name == "events/year=2023/month=01"
    assert naming.from_uri(uri, trim_partitions=True) == DatasetId("s3://bucket", "events")


@pytest.mark.parametrize("uri", ["ftp://host/file", "http://example.com/x", "postgres://h/db"])
def test_unsupported_scheme_lists_the_supported_ones(uri: str) -> None:
    with pytest.raises(ValueError, match="not supported") as error:
        naming.from_uri(uri)
    for scheme in ("s3a", "gs", "abfss", "wasbs", "hdfs", "dbfs", "file", "kafka"):
        assert scheme in str(error.value)


@pytest.mark.parametrize("uri", ["", "   ", "s3:///key", "kafka://broker:9092"])
def test_malformed_uris_are_rejected(uri: str) -> None:
    with pytest.raises(ValueError):
        naming.from_uri(uri)


# --- builder.uri parses back through from_uri ---------------------------------------


@FEW
@given(bucket=lower_names, key=keys, slashes=st.sampled_from(["", "/", "//"]))
def test_object_store_uri_round_trips(bucket: str, key: str, slashes: str) -> None:
    for builder in (naming.s3, naming.gcs):
        built = builder(bucket_name=bucket, object_key=f"{slashes}{key}{slashes}")
        assert naming.from_uri(built.uri) == built


@FEW
@given(container=lower_names, account=accounts, key=keys)
def test_azure_uri_round_trips(container: str, account: str, key: str) -> None:
    built = naming.abfss(container_name=container, service_name=account, path=key)
    assert naming.from_uri(built.uri) == built
    built = naming.wasbs(container_name=container, service_name=account, object_key=key)
    assert naming.from_uri(built.uri) == built
    assert naming.from_uri(built.uri, form="conventions") == built


@FEW
@given(host=hosts, port=ports, path=keys)
def test_hdfs_and_dbfs_uris_round_trip(host: str, port: int, path: str) -> None:
    built = naming.hdfs(namenode_host=host, namenode_port=port, path=f"/{path}/")
    assert naming.from_uri(built.uri) == built
    built = naming.dbfs(workspace_name=host, path=f"/{path}")
    assert naming.from_uri(built.uri) == built


@FEW
@given(path=keys, absolute=st.booleans(), host=hosts)
def test_file_uris_round_trip(path: str, absolute: bool, host: str) -> None:
    local = naming.local_file_system(path=f"/{path}" if absolute else path)
    assert naming.from_uri(local.uri) == local
    remote = naming.remote_file_system(host=host, path=f"/{path}")
    assert naming.from_uri(remote.uri, form="conventions") == remote
    # The agent's spelling of the same remote file drops the host.
    assert naming.from_uri(remote.uri) == naming.local_file_system(path=f"/{path}")


@FEW
@given(host=hosts, port=ports, topic=st.from_regex(r"[A-Za-z0-9._-]{1,30}", fullmatch=True))
def test_kafka_uri_round_trips(host: str, port: int, topic: str) -> None:
    if topic in (".", ".."):
        return
    built = naming.kafka(bootstrap_server_host=host, port=port, topic=topic)
    assert naming.from_uri(built.uri) == built
