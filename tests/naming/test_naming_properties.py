"""Hypothesis properties: builders and parsers agree; builders reject empty parts."""

import inspect
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from olsdk import naming
from olsdk.naming import BUILDERS
from tests.naming.naming_examples import WORKED_EXAMPLES

FEW = settings(max_examples=25, deadline=None)

names = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,11}", fullmatch=True)
lower_names = st.from_regex(r"[a-z][a-z0-9_]{0,11}", fullmatch=True)
labels = st.from_regex(r"[a-z][a-z0-9-]{0,8}[a-z0-9]", fullmatch=True)
hosts = st.lists(labels, min_size=1, max_size=3).map(".".join)
ports = st.integers(min_value=1, max_value=65535)
segments = st.from_regex(r"[A-Za-z0-9_=-][A-Za-z0-9_.=-]{0,9}", fullmatch=True).filter(
    lambda s: s not in (".", "..")
)
keys = st.lists(segments, min_size=1, max_size=5).map("/".join)
accounts = st.from_regex(r"[a-z0-9]{3,24}", fullmatch=True)
regions = st.from_regex(r"(us|eu|ap)-(east|west|central)-[1-3]", fullmatch=True)


# --- builder.uri parses back through from_uri -------------------------------------------


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


# --- builders agree with from_jdbc on the same database ----------------------------------


@FEW
@given(host=hosts, port=ports, database=names, schema=names, table=names)
def test_jdbc_urls_agree_with_builders(
    host: str, port: int, database: str, schema: str, table: str
) -> None:
    qualified = f"{schema}.{table}"
    pairs = [
        (
            naming.postgres(host=host, port=port, database=database, schema=schema, table=table),
            naming.from_jdbc(f"jdbc:postgresql://{host}:{port}/{database}", qualified),
        ),
        (
            naming.postgres(host=host, database=database, schema=schema, table=table),
            naming.from_jdbc(f"jdbc:postgresql://user:pw@{host}/{database}?ssl=true", qualified),
        ),
        (
            naming.mysql(host=host, port=port, database=database, table=table),
            naming.from_jdbc(f"jdbc:mysql://{host}:{port}/{database}", table),
        ),
        (
            naming.trino(host=host, port=port, catalog=database, schema=schema, table=table),
            naming.from_jdbc(f"jdbc:trino://{host}:{port}/{database}", qualified),
        ),
        (
            naming.db2(host=host, database=database, schema=schema, table=table),
            naming.from_jdbc(f"jdbc:db2://{host}/{database}", qualified),
        ),
        (
            naming.cratedb(host=host, port=port, database=database, schema=schema, table=table),
            naming.from_jdbc(f"jdbc:crate://{host}:{port}/{database}", qualified),
        ),
        (
            naming.oceanbase(host=host, database=database, table=table),
            naming.from_jdbc(f"jdbc:oceanbase://{host}/{database}", table),
        ),
        (
            naming.teradata(host=host, port=port, database=database, table=table),
            naming.from_jdbc(f"jdbc:teradata://{host}/DATABASE={database},DBS_PORT={port}", table),
        ),
        (
            naming.oracle(host=host, port=port, service_name=database, schema=schema, table=table),
            naming.from_jdbc(f"jdbc:oracle:thin:u/p@//{host}:{port}/{database}", qualified),
        ),
        (
            naming.oracle(host=host, sid=database, schema=schema, table=table),
            naming.from_jdbc(f"jdbc:oracle:thin:@{host}:{database}", qualified),
        ),
        (
            naming.mssql(host=host, port=port, database=database, schema=schema, table=table),
            naming.from_jdbc(
                f"jdbc:sqlserver://{host}:{port};databaseName={database};user=u",
                qualified,
                form="conventions",
            ),
        ),
        (
            naming.azure_synapse(host=host, port=port, schema=schema, table=table),
            naming.from_jdbc(f"jdbc:sqlserver://{host}:{port}", qualified),
        ),
    ]
    for built, parsed in pairs:
        assert built == parsed


@FEW
@given(cluster=lower_names, region=regions, port=ports, database=names, schema=names, table=names)
def test_redshift_jdbc_url_agrees_with_the_builder_in_conventions_form(
    cluster: str, region: str, port: int, database: str, schema: str, table: str
) -> None:
    built = naming.redshift(
        cluster_identifier=cluster,
        region_name=region,
        port=port,
        database=database,
        schema=schema,
        table=table,
    )
    url = (
        f"jdbc:redshift://{cluster}.abc123xyz789.{region}.redshift.amazonaws.com:{port}/{database}"
    )
    assert naming.from_jdbc(url, f"{schema}.{table}", form="conventions") == built


@FEW
@given(org=lower_names, account=lower_names, database=names, schema=names, table=names)
def test_snowflake_jdbc_url_agrees_with_the_builder(
    org: str, account: str, database: str, schema: str, table: str
) -> None:
    built = naming.snowflake(
        organization_name=org, account_name=account, database=database, schema=schema, table=table
    )
    url = f"jdbc:snowflake://{org}-{account}.snowflakecomputing.com/?db={database}&schema={schema}"
    assert naming.from_jdbc(url, table) == built


# --- builders reject empty parts --------------------------------------------------------


def _valid_kwargs(store: str) -> dict[str, Any]:
    return dict(WORKED_EXAMPLES[store][0])


def _required_text_arguments(store: str) -> list[str]:
    parameters = inspect.signature(BUILDERS[store]).parameters.values()
    return [
        p.name for p in parameters if p.default is inspect.Parameter.empty and "port" not in p.name
    ]


@pytest.mark.parametrize("store", sorted(BUILDERS))
@settings(max_examples=10, deadline=None)
@given(blank=st.text(alphabet=" \t\n\r", max_size=4), data=st.data())
def test_builders_reject_empty_parts(store: str, blank: str, data: st.DataObject) -> None:
    kwargs = _valid_kwargs(store)
    arg = data.draw(st.sampled_from(_required_text_arguments(store)))
    kwargs[arg] = blank
    with pytest.raises(ValueError, match=f"{store}: {arg}"):
        BUILDERS[store](**kwargs)
