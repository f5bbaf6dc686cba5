"""One worked example per data store of the naming conventions, plus the enforced rules."""

import pytest

from olsdk import naming
from olsdk.naming import BUILDERS, DatasetId
from tests.naming.naming_examples import WORKED_EXAMPLES


def test_every_store_of_the_issue_has_a_builder_and_a_worked_example() -> None:
    assert set(BUILDERS) == set(WORKED_EXAMPLES)
    assert len(BUILDERS) == 37


@pytest.mark.parametrize("store", sorted(WORKED_EXAMPLES))
def test_worked_example(store: str) -> None:
    kwargs, namespace, name, uri = WORKED_EXAMPLES[store]
    result = BUILDERS[store](**kwargs)
    assert result == DatasetId(namespace, name)
    assert result.uri == uri
    assert getattr(naming, store) is BUILDERS[store]


def test_builders_are_keyword_only() -> None:
    with pytest.raises(TypeError):
        naming.postgres("db", "shop", "public", "orders")  # type: ignore[misc]


@pytest.mark.parametrize("store", sorted(WORKED_EXAMPLES))
def test_every_required_part_is_checked_for_emptiness(store: str) -> None:
    kwargs, *_ = WORKED_EXAMPLES[store]
    for arg, value in kwargs.items():
        if not isinstance(value, str):
            continue
        with pytest.raises(ValueError, match=rf"{store}: {arg}\b.*must not be empty"):
            BUILDERS[store](**{**kwargs, arg: "  "})


@pytest.mark.parametrize("bad_port", [0, 65536, -1, "http", 5432.0, True, None])
def test_ports_must_be_integers_in_range(bad_port: object) -> None:
    with pytest.raises(ValueError, match=r"postgres: port must be an integer in 1\.\.65535"):
        naming.postgres(host="h", port=bad_port, database="d", schema="s", table="t")  # type: ignore[arg-type]


def test_port_strings_of_digits_are_accepted() -> None:
    assert (
        naming.mysql(host="h", port="3307", database="d", table="t").namespace == "mysql://h:3307"
    )


@pytest.mark.parametrize(
    ("store", "scheme", "port"),
    [
        ("postgres", "postgres", 5432),
        ("mysql", "mysql", 3306),
        ("oracle", "oracle", 1521),
        ("teradata", "teradata", 1025),
        ("mssql", "mssql", 1433),
        ("azure_synapse", "sqlserver", 1433),
        ("redshift", "redshift", 5439),
    ],
)
def test_documented_default_ports(store: str, scheme: str, port: int) -> None:
    kwargs = {k: v for k, v in WORKED_EXAMPLES[store][0].items() if k != "port"}
    assert BUILDERS[store](**kwargs).namespace.endswith(f":{port}")
    assert BUILDERS[store](**kwargs).namespace.startswith(f"{scheme}://")


@pytest.mark.parametrize(
    "store", ["hdfs", "hive", "milvus", "kafka", "box", "filenet", "sharepoint"]
)
def test_stores_without_a_documented_default_port_require_one(store: str) -> None:
    kwargs = {k: v for k, v in WORKED_EXAMPLES[store][0].items() if "port" not in k}
    with pytest.raises(TypeError, match="port"):
        BUILDERS[store](**kwargs)


def test_hosts_are_lower_cased_and_ipv6_is_bracketed() -> None:
    assert naming.postgres(
        host="DB.Example.COM", database="d", schema="s", table="t"
    ).namespace == ("postgres://db.example.com:5432")
    assert naming.postgres(host="::1", database="d", schema="s", table="t").namespace == (
        "postgres://[::1]:5432"
    )


@pytest.mark.parametrize("bad_host", ["db:5432", "user@db", "db/x", "jdbc://db", "a b"])
def test_hosts_must_be_bare(bad_host: str) -> None:
    with pytest.raises(ValueError, match="postgres: host"):
        naming.postgres(host=bad_host, database="d", schema="s", table="t")


def test_snowflake_upper_cases_unquoted_and_keeps_quoted_identifiers() -> None:
    result = naming.snowflake(
        account_locator="XY12345",
        cloud_region_id="us-east-2",
        cloud="aws",
        database="db",
        schema='"MixedCase"',
        table="orders",
    )
    assert result == DatasetId("snowflake://xy12345.us-east-2.aws", "DB.MixedCase.ORDERS")


@pytest.mark.parametrize(
    "accounts",
    [
        {},
        {"organization_name": "org"},
        {"organization_name": "org", "account_name": "acc", "account_locator": "xy1"},
        {"organization_name": "org", "account_name": "acc", "cloud": "aws"},
    ],
)
def test_snowflake_needs_exactly_one_account_form(accounts: dict[str, str]) -> None:
    with pytest.raises(ValueError, match="snowflake"):
        naming.snowflake(database="d", schema="s", table="t", **accounts)


@pytest.mark.parametrize("ids", [{}, {"service_name": "s", "sid": "x"}])
def test_oracle_needs_service_name_or_sid(ids: dict[str, str]) -> None:
    with pytest.raises(ValueError, match="oracle: service_name/sid needs exactly one"):
        naming.oracle(host="h", schema="s", table="t", **ids)


def test_oracle_sid_form() -> None:
    assert naming.oracle(host="h", sid="orcl", schema="s", table="t").name == "orcl.s.t"


def test_pubsub_subscription_form_and_exclusivity() -> None:
    sub = naming.pubsub(project_id="p", subscription_id="s1")
    assert sub == DatasetId("pubsub", "subscription:p:s1")
    with pytest.raises(ValueError, match="exactly one"):
        naming.pubsub(project_id="p", topic_id="t", subscription_id="s")


def test_object_keys_and_paths_are_normalised() -> None:
    assert naming.s3(bucket_name="b", object_key="//a///b//").name == "a/b"
    assert naming.s3(bucket_name="b", object_key="/").name == "/"  # the whole bucket
    assert naming.hdfs(namenode_host="nn", namenode_port=8020, path="/a//./b/").name == "/a/b"
    assert naming.local_file_system(path="data//raw/").name == "data/raw"
    with pytest.raises(ValueError, match="hdfs: path must be an absolute path"):
        naming.hdfs(namenode_host="nn", namenode_port=8020, path="relative")


def test_azure_service_names_accept_full_hosts() -> None:
    by_account = naming.wasbs(container_name="c", service_name="acct", object_key="k")
    by_blob_host = naming.wasbs(
        container_name="c", service_name="acct.blob.core.windows.net", object_key="k"
    )
    assert by_account == by_blob_host
    with pytest.raises(ValueError, match="abfss: service_name must be a storage account"):
        naming.abfss(container_name="c", service_name="not.an.account", path="p")


def test_kusto_host_with_suffix_is_the_same_cluster() -> None:
    short = naming.azure_data_explorer(host="c.westeurope", database="d", table="t")
    full = naming.azure_data_explorer(
        host="c.westeurope.kusto.windows.net", database="d", table="t"
    )
    assert short == full


def test_glue_account_must_be_twelve_digits() -> None:
    with pytest.raises(ValueError, match="aws_glue: account_id must be a 12-digit"):
        naming.aws_glue(region="us-east-1", account_id="42", database_name="d", table_name="t")


def test_kafka_topic_follows_kafka_rules() -> None:
    with pytest.raises(ValueError, match="kafka: topic must be a Kafka topic name"):
        naming.kafka(bootstrap_server_host="k", port=9092, topic="bad/topic")


def test_optional_ports_are_appended_when_given() -> None:
    assert naming.unity_catalog(
        host="uc", port=8080, catalog="c", schema="s", table="t"
    ).namespace == ("unitycatalog://uc:8080")


def test_dataset_id_rejects_empty_parts_and_is_frozen() -> None:
    with pytest.raises(ValueError, match="namespace"):
        DatasetId("", "x")
    identifier = DatasetId("file", "/x")
    with pytest.raises(AttributeError):
        identifier.name = "/y"  # type: ignore[misc]
    assert str(identifier) == "file:/x"
