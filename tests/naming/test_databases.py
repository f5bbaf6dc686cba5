"""naming._databases: builders for databases addressed as scheme://host:port."""

import pytest

from olsdk import naming


@pytest.mark.parametrize("ids", [{}, {"service_name": "s", "sid": "x"}])
def test_oracle_needs_service_name_or_sid(ids: dict[str, str]) -> None:
    with pytest.raises(ValueError, match="oracle: service_name/sid needs exactly one"):
        naming.oracle(host="h", schema="s", table="t", **ids)


def test_oracle_sid_form() -> None:
    assert naming.oracle(host="h", sid="orcl", schema="s", table="t").name == "orcl.s.t"
