"""Builders for managed cloud warehouses and catalogs."""

from __future__ import annotations

from olsdk._builders.naming import _rules as rules
from olsdk._builders.naming._databases import server_namespace
from olsdk._builders.naming._identifier import DatasetId
from olsdk._builders.naming._ports import DEFAULT_PORTS

__all__ = [
    "athena",
    "aws_glue",
    "azure_cosmos_db",
    "azure_data_explorer",
    "azure_synapse",
    "bigquery",
    "microsoft_fabric_warehouse",
    "redshift",
    "snowflake",
    "spanner",
    "unity_catalog",
]

_KUSTO_SUFFIX = ".kusto.windows.net"
_SNOWFLAKE = "snowflake"


def athena(*, region_name: str, catalog: str, database: str, table: str) -> DatasetId:
    """Athena: ``awsathena://athena.{region_name}.amazonaws.com`` /
    ``{catalog}.{database}.{table}``."""
    region = rules.segment("athena", "region_name", region_name).lower()
    return DatasetId(
        f"awsathena://athena.{region}.amazonaws.com",
        rules.dotted_names("athena", catalog=catalog, database=database, table=table),
    )


def aws_glue(*, region: str, account_id: str, database_name: str, table_name: str) -> DatasetId:
    """AWS Glue: ``arn:aws:glue:{region}:{account id}`` / ``table/{database name}/{table name}``."""
    account = rules.segment("aws_glue", "account_id", account_id)
    if not (account.isascii() and account.isdigit() and len(account) == 12):
        raise rules.fail("aws_glue", "account_id", "must be a 12-digit AWS account id", account_id)
    return DatasetId(
        f"arn:aws:glue:{rules.segment('aws_glue', 'region', region).lower()}:{account}",
        "table/"
        + rules.segment("aws_glue", "database_name", database_name)
        + "/"
        + rules.segment("aws_glue", "table_name", table_name),
    )


def azure_cosmos_db(*, host: str, database: str, table: str) -> DatasetId:
    """Azure Cosmos DB: ``azurecosmos://{host}/dbs/{database}`` / ``colls/{table}``."""
    return DatasetId(
        f"azurecosmos://{rules.host('azure_cosmos_db', 'host', host)}/dbs/"
        + rules.segment("azure_cosmos_db", "database", database),
        "colls/" + rules.segment("azure_cosmos_db", "table", table),
    )


def azure_data_explorer(*, host: str, database: str, table: str) -> DatasetId:
    """Azure Data Explorer: ``azurekusto://{host}.kusto.windows.net`` / ``{database}/{table}``.

    ``host`` is the cluster part (``mycluster.westeurope``); a full host name ending in
    ``.kusto.windows.net`` is accepted and trimmed so both spellings give one namespace.
    """
    cluster = rules.host("azure_data_explorer", "host", host)
    cluster = cluster.removesuffix(_KUSTO_SUFFIX)
    return DatasetId(
        f"azurekusto://{cluster}{_KUSTO_SUFFIX}",
        rules.segment("azure_data_explorer", "database", database)
        + "/"
        + rules.segment("azure_data_explorer", "table", table),
    )


def azure_synapse(*, host: str, schema: str, table: str, port: int | str = DEFAULT_PORTS["sqlserver"]) -> DatasetId:
    """Azure Synapse: ``sqlserver://{host}:{port}`` / ``{schema}.{table}`` (port 1433 as in the
    seeds)."""
    return DatasetId(
        server_namespace("azure_synapse", "sqlserver", host, port),
        rules.dotted_names("azure_synapse", schema=schema, table=table),
    )


def bigquery(*, project_id: str, dataset_name: str, table_name: str) -> DatasetId:
    """BigQuery: ``bigquery`` / ``{project id}.{dataset name}.{table name}``."""
    return DatasetId(
        "bigquery",
        rules.join_dotted(
            rules.segment("bigquery", "project_id", project_id),
            rules.segment("bigquery", "dataset_name", dataset_name),
            rules.segment("bigquery", "table_name", table_name),
        ),
    )


def microsoft_fabric_warehouse(
    *,
    sql_analytics_endpoint: str,
    database: str,
    schema: str,
    table: str,
    port: int | str | None = None,
) -> DatasetId:
    """Microsoft Fabric Warehouse: ``fabric-warehouse://{sql analytics endpoint}[:{port}]`` /
    ``{database}.{schema}.{table}``. The port is optional and has no default."""
    store = "microsoft_fabric_warehouse"
    return DatasetId(
        server_namespace(
            store,
            "fabric-warehouse",
            sql_analytics_endpoint,
            port,
            host_arg="sql_analytics_endpoint",
            port_optional=True,
        ),
        rules.dotted_names(store, database=database, schema=schema, table=table),
    )


def redshift(
    *,
    cluster_identifier: str,
    region_name: str,
    database: str,
    schema: str,
    table: str,
    port: int | str = DEFAULT_PORTS["redshift"],
) -> DatasetId:
    """Redshift: ``redshift://{cluster_identifier}.{region_name}:{port}`` (port 5439 by default) /
    ``{database}.{schema}.{table}``."""
    cluster = rules.segment("redshift", "cluster_identifier", cluster_identifier).lower()
    region = rules.segment("redshift", "region_name", region_name).lower()
    if "." in cluster:
        raise rules.fail(
            "redshift",
            "cluster_identifier",
            "must be the cluster id, not a host name",
            cluster_identifier,
        )
    return DatasetId(
        f"redshift://{cluster}.{region}:{rules.port('redshift', 'port', port)}",
        rules.dotted_names("redshift", database=database, schema=schema, table=table),
    )


def snowflake(
    *,
    database: str,
    schema: str,
    table: str,
    organization_name: str | None = None,
    account_name: str | None = None,
    account_locator: str | None = None,
    compliance: str | None = None,
    cloud_region_id: str | None = None,
    cloud: str | None = None,
) -> DatasetId:
    """Snowflake: ``snowflake://{organization name}-{account name}`` or the legacy
    ``snowflake://{account-locator}(.{compliance})(.{cloud_region_id})(.{cloud})`` /
    ``{database}.{schema}.{table}``.

    Give either ``organization_name`` + ``account_name`` (preferred by the conventions)
    or ``account_locator`` with its optional qualifiers. The account part is
    lower-cased (Snowflake account identifiers are case-insensitive); database, schema
    and table are upper-cased unless double-quoted, as Snowflake resolves them.
    """
    if account_locator is None:
        account = _snowflake_account(organization_name, account_name, (compliance, cloud_region_id, cloud))
    else:
        account = _snowflake_locator(
            account_locator,
            organization_name,
            account_name,
            {"compliance": compliance, "cloud_region_id": cloud_region_id, "cloud": cloud},
        )
    return DatasetId(
        f"snowflake://{account.lower()}",
        rules.join_dotted(
            rules.snowflake_identifier(_SNOWFLAKE, "database", database),
            rules.snowflake_identifier(_SNOWFLAKE, "schema", schema),
            rules.snowflake_identifier(_SNOWFLAKE, "table", table),
        ),
    )


def _snowflake_account(
    organization_name: str | None, account_name: str | None, qualifiers: tuple[str | None, ...]
) -> str:
    """``{organization name}-{account name}``; the locator's qualifiers do not apply."""
    if organization_name is None or account_name is None:
        raise rules.fail(
            _SNOWFLAKE,
            "organization_name/account_name",
            "are both required unless account_locator is given",
            (organization_name, account_name),
        )
    if any(qualifiers):
        raise rules.fail(_SNOWFLAKE, "compliance/cloud_region_id/cloud", "only qualify an account_locator", qualifiers)
    return (
        rules.segment(_SNOWFLAKE, "organization_name", organization_name)
        + "-"
        + rules.segment(_SNOWFLAKE, "account_name", account_name)
    )


def _snowflake_locator(
    account_locator: str,
    organization_name: str | None,
    account_name: str | None,
    qualifiers: dict[str, str | None],
) -> str:
    """``{account-locator}(.{compliance})(.{cloud_region_id})(.{cloud})``."""
    if organization_name is not None or account_name is not None:
        raise rules.fail(
            _SNOWFLAKE,
            "account_locator",
            "cannot be combined with organization_name/account_name",
            account_locator,
        )
    return ".".join(
        [rules.segment(_SNOWFLAKE, "account_locator", account_locator)]
        + [rules.segment(_SNOWFLAKE, arg, v) for arg, v in qualifiers.items() if v is not None]
    )


def spanner(*, project_id: str, instance_id: str, database: str, schema: str, table: str) -> DatasetId:
    """Spanner: ``spanner://{projectId}:{instanceId}`` / ``{database}.{schema}.{table}``."""
    return DatasetId(
        f"spanner://{rules.segment('spanner', 'project_id', project_id)}:"
        + rules.segment("spanner", "instance_id", instance_id),
        rules.dotted_names("spanner", database=database, schema=schema, table=table),
    )


def unity_catalog(*, host: str, catalog: str, schema: str, table: str, port: int | str | None = None) -> DatasetId:
    """Unity Catalog: ``unitycatalog://{host}[:{port}]`` / ``{catalog}.{schema}.{table}``."""
    return DatasetId(
        server_namespace("unity_catalog", "unitycatalog", host, port, port_optional=True),
        rules.dotted_names("unity_catalog", catalog=catalog, schema=schema, table=table),
    )
