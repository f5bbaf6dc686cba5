"""naming._partitions: trimming partition directories off dataset names."""

import doctest

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from olsdk._builders.naming import _partitions as partitions
from olsdk.naming import trim_partitions


@pytest.mark.parametrize(
    ("name", "trimmed"),
    [
        ("/data/events/year=2023", "/data/events"),
        ("/data/events/year=2023/month=01", "/data/events"),
        ("/data/events/2023-01-31", "/data/events"),
        ("/data/events/31.01.2023", "/data/events"),
        ("/data/events/20230131", "/data/events"),
        ("/data/events/2023-01-31T12:00:00.000Z", "/data/events"),
        ("/data/events/202301", "/data/events"),
        ("/data/events/2023-01", "/data/events"),
        ("/data/events/2023/01", "/data/events"),
        ("/data/events/2023/01/31", "/data/events"),
        ("bucket-key/events/dt=2023-01-01/hour=5", "bucket-key/events"),
        # Not partitions: left alone.
        ("/data/events", "/data/events"),
        ("/year=2023", "/year=2023"),  # a single segment is never trimmed
        ("/data/2023-13-45", "/data/2023-13-45"),  # not a date
        ("/data/a=b=c", "/data/a=b=c"),  # two '='
        ("/data/v2023", "/data/v2023"),
        ("/data/events/2023/13", "/data/events/2023/13"),
    ],
)
def test_partition_trimmers(name: str, trimmed: str) -> None:
    assert trim_partitions(name) == trimmed


@settings(max_examples=50, deadline=None)
@given(st.lists(st.from_regex(r"[a-z0-9=.-]{1,8}", fullmatch=True), min_size=1, max_size=6))
def test_trimming_is_idempotent_and_only_cuts_the_end(segments: list[str]) -> None:
    name = "/" + "/".join(segments)
    trimmed = trim_partitions(name)
    assert name.startswith(trimmed)
    assert trim_partitions(trimmed) == trimmed


def test_docstring_examples() -> None:
    result = doctest.testmod(partitions, verbose=False)
    assert result.attempted > 0
    assert result.failed == 0
