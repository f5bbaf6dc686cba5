"""naming._rules through the builders: ports and hosts are checked and normalised."""

import pytest

from olsdk import naming


@pytest.mark.parametrize("bad_port", [0, 65536, -1, "http", 5432.0, True, None])
def test_ports_must_be_integers_in_range(bad_port: object) -> None:
    with pytest.raises(ValueError, match=r"postgres: port must be an integer in 1\.\.65535"):
        naming.postgres(host="h", port=bad_port, database="d", schema="s", table="t")  # type: ignore[arg-type]


def test_port_strings_of_digits_are_accepted() -> None:
    assert naming.mysql(host="h", port="3307", database="d", table="t").namespace == "mysql://h:3307"


def test_hosts_are_lower_cased_and_ipv6_is_bracketed() -> None:
    assert naming.postgres(host="DB.Example.COM", database="d", schema="s", table="t").namespace == (
        "postgres://db.example.com:5432"
    )
    assert naming.postgres(host="::1", database="d", schema="s", table="t").namespace == ("postgres://[::1]:5432")


@pytest.mark.parametrize("bad_host", ["db:5432", "user@db", "db/x", "jdbc://db", "a b"])
def test_hosts_must_be_bare(bad_host: str) -> None:
    with pytest.raises(ValueError, match="postgres: host"):
        naming.postgres(host=bad_host, database="d", schema="s", table="t")
