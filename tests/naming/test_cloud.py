"""naming._cloud: builders for managed cloud warehouses and catalogs."""

import pytest

from olsdk import naming
from olsdk.naming import DatasetId


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


def test_kusto_host_with_suffix_is_the_same_cluster() -> None:
    short = naming.azure_data_explorer(host="c.westeurope", database="d", table="t")
    full = naming.azure_data_explorer(host="c.westeurope.kusto.windows.net", database="d", table="t")
    assert short == full


def test_glue_account_must_be_twelve_digits() -> None:
    with pytest.raises(ValueError, match="aws_glue: account_id must be a 12-digit"):
        naming.aws_glue(region="us-east-1", account_id="42", database_name="d", table_name="t")


def test_optional_ports_are_appended_when_given() -> None:
    assert naming.unity_catalog(host="uc", port=8080, catalog="c", schema="s", table="t").namespace == (
        "unitycatalog://uc:8080"
    )
