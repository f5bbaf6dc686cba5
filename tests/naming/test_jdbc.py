"""naming._jdbc: from_jdbc against the Java agent's JdbcDatasetUtils rules (spark-facts A5.2).

Every row of the A5.2 table, then further vectors from the agent's JDBC tests
(credentials, properties, upper-case URLs, multi-host forms), then the conventions form,
then properties: the builders and from_jdbc agree on the same database.
"""

import os

import pytest
from hypothesis import given

from olsdk import naming
from olsdk.naming import DatasetId
from tests.naming.naming_strategies import FEW, hosts, lower_names, names, ports, regions

IPV6 = "[3ffe:8311:eeee:f70f:0:5eae:10.203.31.9]"
TNS = (
    "jdbc:oracle:thin:@(DESCRIPTION=(ADDRESS_LIST=(ADDRESS=(PROTOCOL=tcp)(HOST=host1)(PORT=1521))"
    "(ADDRESS=(PROTOCOL=tcp)(HOST=host2)(PORT=1522)))(CONNECT_DATA=(SID=orcl)))"
)

# (url, table, namespace, name): the A5.2 table, row by row.
A52_ROWS = [
    (
        "jdbc:postgresql://test-host.com",
        "schema.table1",
        "postgres://test-host.com:5432",
        "schema.table1",
    ),
    (
        "jdbc:postgresql://hostname/mydb",
        "schema.table1",
        "postgres://hostname:5432",
        "mydb.schema.table1",
    ),
    (
        "jdbc:postgresql://hostname1:5432,hostname2:5432",
        "schema.table1",
        "postgres://hostname1:5432,hostname2:5432",
        "schema.table1",
    ),
    (f"jdbc:postgresql://{IPV6}", "schema.table1", f"postgres://{IPV6}:5432", "schema.table1"),
    ("jdbc:mysql://hostname/mydb", "table1", "mysql://hostname:3306", "mydb.table1"),
    (
        "jdbc:sqlserver://hostname;databaseName=MYTESTDB",
        "schema.table1",
        "sqlserver://hostname",
        "MYTESTDB.schema.table1",
    ),
    (
        "jdbc:sqlserver://hostname\\someinstance",
        "schema.table1",
        "sqlserver://hostname/someinstance",
        "schema.table1",
    ),
    (
        "jdbc:sqlserver://hostname;instanceName=someinstance",
        "schema.table1",
        "sqlserver://hostname/someinstance",
        "schema.table1",
    ),
    (
        "jdbc:jtds:sqlserver://hostname/MYTESTDB",
        "schema.table1",
        "sqlserver://hostname",
        "MYTESTDB.schema.table1",
    ),
    (
        "jdbc:oracle:thin:@//hostname:1522/serviceName",
        "schema.table1",
        "oracle://hostname:1522",
        "serviceName.schema.table1",
    ),
    (
        "jdbc:oracle:thin:@hostname:sid",
        "schema.table1",
        "oracle://hostname:1521",
        "sid.schema.table1",
    ),
    (TNS, "schema.table1", "oracle://host1:1521,host2:1522", "orcl.schema.table1"),
    (
        "jdbc:oracle:thin:@ldap://oid:5000/mydb1,cn=OracleContext,dc=myco,dc=com",
        "schema.table1",
        "oracle://oid:5000",
        "mydb1.schema.table1",
    ),
    (
        "jdbc:teradata://hostname/USER=fred,PASSWORD=sec%40ret",
        "schema.table1",
        "teradata://hostname:1025",
        "schema.table1",
    ),
    ("jdbc:db2://h", "schema.table1", "db2://h:6789", "schema.table1"),
    ("jdbc:trino://h", "schema.table1", "trino://h:443", "schema.table1"),
    ("jdbc:crate://h", "schema.table1", "crate://h:5432", "schema.table1"),
    ("jdbc:oceanbase://h", "schema.table1", "oceanbase://h:2881", "schema.table1"),
    ("jdbc:clickhouse://h", "schema.table1", "clickhouse://h:8123", "schema.table1"),
    ("jdbc:cassandra://h", "schema.table1", "cassandra://h:9042", "schema.table1"),
]


@pytest.mark.parametrize(("url", "table", "namespace", "name"), A52_ROWS)
def test_a52_table(url: str, table: str, namespace: str, name: str) -> None:
    assert naming.from_jdbc(url, table) == DatasetId(namespace, name)


def test_a52_derby_database_is_a_directory_under_the_working_directory() -> None:
    expected = DatasetId(f"file:{os.getcwd()}/nested/path", "schema.table1")
    assert naming.from_jdbc("jdbc:derby:;databaseName=nested/path", "schema.table1") == expected
    assert naming.from_jdbc("jdbc:derby:;databaseName=db", "t", derby_home="/tmp/derby") == DatasetId(
        "file:/tmp/derby/db", "t"
    )


def test_a52_unknown_subprotocol_uses_the_generic_rule_when_allowed() -> None:
    assert naming.from_jdbc("jdbc:unknown://test-host.com", "schema.table1", allow_generic=True) == DatasetId(
        "unknown://test-host.com", "schema.table1"
    )


def test_unknown_subprotocol_raises_listing_the_supported_ones_when_generic_is_off() -> None:
    with pytest.raises(ValueError, match="unsupported JDBC URL") as error:
        naming.from_jdbc("jdbc:unknown://user:secret@test-host.com", "t", allow_generic=False)
    message = str(error.value)
    for subprotocol in ("postgresql", "mysql", "sqlserver", "oracle", "redshift", "snowflake"):
        assert subprotocol in message
    assert "secret" not in message


# Further vectors from the agent's JDBC tests (client/java/.../utils/jdbc).
AGENT_TEST_VECTORS = [
    (
        "jdbc:postgresql://hostname?user=fred&password=sec%40ret",
        "postgres://hostname:5432",
        "schema.table1",
    ),
    (
        "jdbc:postgresql://hostname?ssl=true&applicationName=MyApp",
        "postgres://hostname:5432",
        "schema.table1",
    ),
    ("jdbc:mysql://fred:sec%40ret@hostname", "mysql://hostname:3306", "schema.table1"),
    ("JDBC:MYSQL://TEST.HOST.COM/MYDB", "mysql://test.host.com:3306", "SCHEMA.TABLE1"),
    ("jdbc:mysql+srv:loadbalance://domain.com", "mysql://domain.com:3306", "schema.table1"),
    ("jdbc:mysql+srv://username:pwd@domain.com:3307", "mysql://domain.com:3307", "schema.table1"),
    ("jdbc:mysql://myhost1,myhost2", "mysql://myhost1:3306,myhost2:3306", "schema.table1"),
    (
        "jdbc:mysql://username:pwd@myhost1:1111,username:pwd@myhost2:2222",
        "mysql://myhost1:1111,myhost2:2222",
        "schema.table1",
    ),
    (
        "jdbc:mysql://(host=myhost1,port=1111,user=sandy,password=sec%40ret),(host=myhost2,port=2222)",
        "mysql://(host=myhost1,port=1111),(host=myhost2,port=2222)",
        "schema.table1",
    ),
    (
        "jdbc:sqlserver://hostname;user=fred;password=sec%40ret",
        "sqlserver://hostname",
        "schema.table1",
    ),
    ("jdbc:sqlserver://hostname;portNumber=1433", "sqlserver://hostname:1433", "schema.table1"),
    ("jdbc:sqlserver://;serverName=someserver", "sqlserver://someserver", "schema.table1"),
    (
        "jdbc:sqlserver://;serverName=3ffe:8311:eeee:f70f:0:5eae:10.203.31.9",
        f"sqlserver://{IPV6}",
        "schema.table1",
    ),
    (
        "jDBC:SQLSERVER://TEST.HOST.COM\\MYINSTANCE;DATABASENAME=MYDB",
        "sqlserver://test.host.com/MYINSTANCE",
        "MYDB.SCHEMA.TABLE1",
    ),
    (
        "jdbc:jtds:sqlserver://hostname;instance=someinstance",
        "sqlserver://hostname/someinstance",
        "schema.table1",
    ),
    ("jdbc:oracle:thin:fred/sec%40ret@//hostname", "oracle://hostname:1521", "schema.table1"),
    ("jdbc:oracle:thin:user/password@hostname", "oracle://hostname:1521", "schema.table1"),
    ("jdbc:oracle:thin:@tcp://hostname", "oracle://hostname:1521", "schema.table1"),
    ("jdbc:oracle:thin:@hostname:1522:sid", "oracle://hostname:1522", "sid.schema.table1"),
    (f"jdbc:oracle:thin:@{IPV6}", f"oracle://{IPV6}:1521", "schema.table1"),
    ("jdbc:oracle:thin:@//myhost1,myhost2", "oracle://myhost1:1521,myhost2:1521", "schema.table1"),
    ("jdbc:oracle:thin:@//hostname?connect_timeout=30", "oracle://hostname:1521", "schema.table1"),
    ("JDBC:ORACLE:THIN:@TEST.HOST.COM:SID", "oracle://test.host.com:1521", "SID.SCHEMA.TABLE1"),
    (
        "jdbc:oracle:thin:@ldap:ldap1.example.com:5000/cn=salesdept,cn=OracleContext,dc=com/mydb1 "
        "ldap:ldap2.example.com:3500/cn=salesdept,cn=OracleContext,dc=com/mydb1",
        "oracle://ldap1.example.com:5000",
        "mydb1.schema.table1",
    ),
    ("jdbc:teradata://hostname/DBS_PORT=1111", "teradata://hostname:1111", "schema.table1"),
    (
        "JDBC:TERADATA://TEST.HOST.COM/DATABASE=MYDB",
        "teradata://test.host.com:1025",
        "MYDB.SCHEMA.TABLE1",
    ),
    (f"jdbc:teradata://{IPV6}", f"teradata://{IPV6}:1025", "schema.table1"),
]


@pytest.mark.parametrize(("url", "namespace", "name"), AGENT_TEST_VECTORS)
def test_agent_test_vectors(url: str, namespace: str, name: str) -> None:
    # The agent's tests pass SCHEMA.TABLE1 with upper-case URLs, schema.table1 otherwise.
    table = "SCHEMA.TABLE1" if name.endswith("SCHEMA.TABLE1") else "schema.table1"
    assert naming.from_jdbc(url, table) == DatasetId(namespace, name)


def test_sqlserver_parts_may_come_from_driver_properties() -> None:
    result = naming.from_jdbc(
        "jdbc:sqlserver://hostname",
        "schema.table1",
        properties={"databaseName": "MYTESTDB", "portNumber": "1433", "instanceName": "i1"},
    )
    assert result == DatasetId("sqlserver://hostname:1433/i1", "MYTESTDB.schema.table1")


def test_url_parameters_win_over_properties() -> None:
    result = naming.from_jdbc("jdbc:sqlserver://hostname;databaseName=URLDB", "dbo.t", properties={"databaseName": "P"})
    assert result.name == "URLDB.dbo.t"


def test_mysql_qualified_table_overrides_the_url_database() -> None:
    # MySQL has no schemas: `other.t` is database `other` (A5.2 note).
    assert naming.from_jdbc("jdbc:mysql://h/mydb", "other.t").name == "other.t"


@pytest.mark.parametrize(
    "url",
    [
        "jdbc:postgresql://alice:s3cr3t@db:5432/app?password=s3cr3t&user=alice",
        "jdbc:sqlserver://db;user=alice;password=s3cr3t;databaseName=app",
        "jdbc:oracle:thin:alice/s3cr3t@//db:1521/app",
        "jdbc:teradata://db/USER=alice,PASSWORD=s3cr3t,DATABASE=app",
        "jdbc:mysql://address=(host=db)(port=1)(user=alice)(password=s3cr3t)",
        "jdbc:snowflake://acct.snowflakecomputing.com/?user=alice&password=s3cr3t&db=D&schema=S",
        "jdbc:redshift://alice:s3cr3t@c.abc.us-east-1.redshift.amazonaws.com:5439/dev",
    ],
)
@pytest.mark.parametrize("form", ["agent", "conventions"])
def test_credentials_never_reach_the_identifier(url: str, form: str) -> None:
    result = naming.from_jdbc(url, "s.t", form=form)  # type: ignore[arg-type]
    assert "s3cr3t" not in result.uri
    assert "alice" not in result.uri


def test_conventions_form_names_sql_server_mssql_with_port_1433() -> None:
    url = "jdbc:sqlserver://Db.Example.com;databaseName=Sales"
    assert naming.from_jdbc(url, "dbo.orders", form="conventions") == DatasetId(
        "mssql://db.example.com:1433", "Sales.dbo.orders"
    )
    assert naming.from_jdbc(url, "dbo.orders") == DatasetId("sqlserver://db.example.com", "Sales.dbo.orders")


def test_redshift_agent_form_is_the_generic_host_and_conventions_form_is_cluster_region() -> None:
    url = "jdbc:redshift://examplecluster.abc123xyz789.us-west-2.redshift.amazonaws.com:5439/dev"
    assert naming.from_jdbc(url, "public.sales") == DatasetId(
        "redshift://examplecluster.abc123xyz789.us-west-2.redshift.amazonaws.com:5439",
        "dev.public.sales",
    )
    assert naming.from_jdbc(url, "public.sales", form="conventions") == DatasetId(
        "redshift://examplecluster.us-west-2:5439", "dev.public.sales"
    )


def test_snowflake_url_gives_the_conventions_identifier() -> None:
    url = "jdbc:snowflake://MyOrg-MyAccount.snowflakecomputing.com/?db=analytics&schema=public"
    assert naming.from_jdbc(url, "orders") == DatasetId("snowflake://myorg-myaccount", "ANALYTICS.PUBLIC.ORDERS")
    assert naming.from_jdbc(url, '"Mixed".t').name == "ANALYTICS.Mixed.T"
    with pytest.raises(ValueError, match=r"database\.schema\.table"):
        naming.from_jdbc("jdbc:snowflake://acct.snowflakecomputing.com/", "orders")


def test_trino_catalog_and_schema_fill_in_what_the_table_leaves_out() -> None:
    assert naming.from_jdbc("jdbc:trino://h:8080/hive/sales", "orders") == DatasetId(
        "trino://h:8080", "hive.sales.orders"
    )
    assert naming.from_jdbc("jdbc:trino://h:8080/hive", "sales.orders").name == "hive.sales.orders"


@pytest.mark.parametrize("table", ["", " ", "a..b", ".t", "t."])
def test_bad_table_names_are_rejected(table: str) -> None:
    with pytest.raises(ValueError, match="table"):
        naming.from_jdbc("jdbc:postgresql://h/db", table)


# --- builders agree with from_jdbc on the same database -----------------------------


@FEW
@given(host=hosts, port=ports, database=names, schema=names, table=names)
def test_jdbc_urls_agree_with_builders(host: str, port: int, database: str, schema: str, table: str) -> None:
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
    url = f"jdbc:redshift://{cluster}.abc123xyz789.{region}.redshift.amazonaws.com:{port}/{database}"
    assert naming.from_jdbc(url, f"{schema}.{table}", form="conventions") == built


@FEW
@given(org=lower_names, account=lower_names, database=names, schema=names, table=names)
def test_snowflake_jdbc_url_agrees_with_the_builder(
    org: str, account: str, database: str, schema: str, table: str
) -> None:
    built = naming.snowflake(organization_name=org, account_name=account, database=database, schema=schema, table=table)
    url = f"jdbc:snowflake://{org}-{account}.snowflakecomputing.com/?db={database}&schema={schema}"
    assert naming.from_jdbc(url, table) == built


# Conformance vectors for what the agent reads and olsdk refused before (issue 16, item 9),
# from the agent's rules (JdbcDatasetUtilsTestFor{ClickHouse,Cassandra,Unknown}.java):
# ClickHouse's `ch:` spellings and protocols (default port 8123, a qualified table
# overrides the URL database), Cassandra's `--` host lists, and the generic rule for
# any other sub-protocol (credentials and parameters dropped, host lower-cased, the
# path's database first; what it cannot read falls back to the sanitised URL).
CLICKHOUSE_CASSANDRA_GENERIC = [
    ("jdbc:clickhouse://test-host.com", "schema.table1", "clickhouse://test-host.com:8123", "schema.table1"),
    ("jdbc:clickhouse://test-host.com:9000", "schema.table1", "clickhouse://test-host.com:9000", "schema.table1"),
    ("jdbc:clickhouse://test-host.com:8123/mydb", "schema.table1", "clickhouse://test-host.com:8123", "schema.table1"),
    ("jdbc:clickhouse://test-host.com:8123/mydb", "table1", "clickhouse://test-host.com:8123", "mydb.table1"),
    (
        "jdbc:clickhouse://test-host.com,test-host2.com",
        "schema.table1",
        "clickhouse://test-host.com:8123,test-host2.com:8123",
        "schema.table1",
    ),
    ("jdbc:clickhouse://198.51.100.1", "schema.table1", "clickhouse://198.51.100.1:8123", "schema.table1"),
    (
        "jdbc:clickhouse://198.51.100.1,198.51.100.2",
        "schema.table1",
        "clickhouse://198.51.100.1:8123,198.51.100.2:8123",
        "schema.table1",
    ),
    ("jdbc:clickhouse://[2001:db8::1]", "schema.table1", "clickhouse://[2001:db8::1]:8123", "schema.table1"),
    ("jdbc:ch://test-host.com", "schema.table1", "clickhouse://test-host.com:8123", "schema.table1"),
    ("jdbc:ch://test-host.com:9000", "schema.table1", "clickhouse://test-host.com:9000", "schema.table1"),
    ("jdbc:ch://test-host.com:8123/mydb", "schema.table1", "clickhouse://test-host.com:8123", "schema.table1"),
    ("jdbc:ch:http://test-host.com:8123", "schema.table1", "clickhouse://test-host.com:8123", "schema.table1"),
    ("jdbc:ch:https://test-host.com:8443", "schema.table1", "clickhouse://test-host.com:8443", "schema.table1"),
    ("jdbc:ch:grpc://test-host.com:9100", "schema.table1", "clickhouse://test-host.com:9100", "schema.table1"),
    ("jdbc:cassandra://test-host.com", "keyspace.table1", "cassandra://test-host.com:9042", "keyspace.table1"),
    ("jdbc:cassandra://test-host.com:9043", "keyspace.table1", "cassandra://test-host.com:9043", "keyspace.table1"),
    ("jdbc:cassandra://test-host.com:9042/keyspace", "table1", "cassandra://test-host.com:9042", "keyspace.table1"),
    ("jdbc:cassandra://192.168.1.1", "keyspace.table1", "cassandra://192.168.1.1:9042", "keyspace.table1"),
    ("jdbc:cassandra://[2001:db8::1]", "keyspace.table1", "cassandra://[2001:db8::1]:9042", "keyspace.table1"),
    (
        "jdbc:cassandra://[::1]--127.0.0.1:9042--host1/keyspace",
        "table1",
        "cassandra://[::1]:9042,127.0.0.1:9042,host1:9042",
        "keyspace.table1",
    ),
    ("jdbc:unknown://test-host.com", "schema.table1", "unknown://test-host.com", "schema.table1"),
    ("jdbc:unknown://192.168.1.1", "schema.table1", "unknown://192.168.1.1", "schema.table1"),
    (
        "jdbc:unknown://[3ffe:8311:eeee:f70f:0:5eae:10.203.31.9]",
        "schema.table1",
        "unknown://[3ffe:8311:eeee:f70f:0:5eae:10.203.31.9]",
        "schema.table1",
    ),
    (
        "jdbc:unknown://3ffe:8311:eeee:f70f:0:5eae:10.203.31.9",
        "schema.table1",
        "unknown://3ffe:8311:eeee:f70f:0:5eae:10.203.31.9",
        "schema.table1",
    ),
    ("jdbc:unknown://fred:sec%40ret@hostname", "schema.table1", "unknown://hostname", "schema.table1"),
    ("jdbc:unknown://hostname?user=fred&password=sec%40ret", "schema.table1", "unknown://hostname", "schema.table1"),
    (
        "jdbc:unknown://hostname?username=fred&password=sec%40ret",
        "schema.table1",
        "unknown://hostname",
        "schema.table1",
    ),
    ("jdbc:unknown://hostname:user=fred;password=sec%40ret", "schema.table1", "unknown://hostname", "schema.table1"),
    (
        "jdbc:unknown://hostname:username=fred;password=sec%40ret",
        "schema.table1",
        "unknown://hostname",
        "schema.table1",
    ),
    ("jdbc:unknown://hostname;user=fred;password=sec%40ret;", "schema.table1", "unknown://hostname", "schema.table1"),
    (
        "jdbc:unknown://hostname;username=fred;password=sec%40ret;",
        "schema.table1",
        "unknown://hostname",
        "schema.table1",
    ),
    ("jdbc:unknown://hostname:5432", "schema.table1", "unknown://hostname:5432", "schema.table1"),
    ("jdbc:unknown://hostname/mydb", "schema.table1", "unknown://hostname", "mydb.schema.table1"),
    ("jdbc:unknown://hostname?ssl=true&applicationName=MyApp", "schema.table1", "unknown://hostname", "schema.table1"),
    (
        "jdbc:unknown://hostname:ssl=true;applicationName=MyApp",
        "schema.table1",
        "unknown://hostname:ssl=true;applicationName=MyApp",
        "schema.table1",
    ),
    (
        "jdbc:unknown://hostname;ssl=true;applicationName=MyApp;",
        "schema.table1",
        "unknown://hostname;ssl=true;applicationName=MyApp;",
        "schema.table1",
    ),
    ("JDBC:UNKNOWN://TEST.HOST.COM/MYDB", "SCHEMA.TABLE1", "unknown://test.host.com", "MYDB.SCHEMA.TABLE1"),
    ("jdbc:unknown://hostname1,hostname2", "schema.table1", "unknown://hostname1,hostname2", "schema.table1"),
    (
        "jdbc:unknown://hostname1:5432,hostname2:5432",
        "schema.table1",
        "unknown://hostname1:5432,hostname2:5432",
        "schema.table1",
    ),
    (
        "jdbc:unknown://fred:sec%40ret@hostname1:5432,fred:sec%40ret@hostname2:5432",
        "schema.table1",
        "unknown://hostname1:5432,hostname2:5432",
        "schema.table1",
    ),
]


@pytest.mark.parametrize(("url", "table", "namespace", "name"), CLICKHOUSE_CASSANDRA_GENERIC)
def test_clickhouse_cassandra_and_generic(url: str, table: str, namespace: str, name: str) -> None:
    found = naming.from_jdbc(url, table)
    assert (found.namespace, found.name) == (namespace, name)
    assert "sec%40ret" not in found.namespace and "fred" not in found.namespace
