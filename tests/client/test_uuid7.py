"""UUIDv7 run ids."""

from __future__ import annotations

import time
import uuid

from olsdk._delivery.client._uuid7 import uuid7_time_ms
from olsdk.client import uuid7


def test_uuid7_layout_and_order() -> None:
    before = time.time_ns() // 1_000_000
    ids = [uuid7() for _ in range(5000)]
    after = time.time_ns() // 1_000_000
    assert all(u.version == 7 and u.variant == uuid.RFC_4122 for u in ids)
    assert ids == sorted(ids, key=lambda u: u.int)
    assert len(set(ids)) == len(ids)
    assert before <= uuid7_time_ms(ids[0]) and uuid7_time_ms(ids[-1]) <= after + 2


# -- uuid7(instant=...) and static_uuid7, against the official client's functions ---------

INSTANTS = [
    "2024-07-01T12:00:00+00:00",
    "2024-07-01T12:00:00.123456+02:00",
    "1999-12-31T23:59:59.999+00:00",
    "2038-01-19T03:14:08-05:30",
]
DATA = [b"", b"dag.task.1", "dag_id.task_id.ünïcödé".encode(), b"\x00" * 64]


def test_static_uuid7_equals_the_official_generate_static_uuid() -> None:
    from datetime import datetime

    from openlineage.client.uuid import generate_static_uuid

    from olsdk.client import static_uuid7

    for text in INSTANTS:
        instant = datetime.fromisoformat(text)
        for data in DATA:
            ours = static_uuid7(instant, data)
            assert ours == generate_static_uuid(instant, data), (text, data)
            assert ours.version == 7 and ours.variant == uuid.RFC_4122
            assert ours == static_uuid7(instant, data)  # deterministic
    instant = datetime.fromisoformat(INSTANTS[1])
    assert static_uuid7(instant, "dag.task") == generate_static_uuid(instant, b"dag.task")


def test_static_uuid7_refuses_a_naive_instant() -> None:
    from datetime import datetime

    import pytest

    from olsdk.client import static_uuid7

    with pytest.raises(ValueError, match="instant: needs a time zone"):
        static_uuid7(datetime(2024, 7, 1, 12), b"x")


def test_uuid7_for_an_instant_carries_it_like_the_official_generate_new_uuid() -> None:
    from datetime import datetime, timedelta

    from openlineage.client.uuid import generate_new_uuid

    for text in INSTANTS:
        instant = datetime.fromisoformat(text)
        ours, theirs = uuid7(instant=instant), generate_new_uuid(instant)
        assert uuid7_time_ms(ours) == uuid7_time_ms(theirs) == int(instant.timestamp() * 1000)
        assert ours.version == theirs.version == 7
        assert ours != uuid7(instant=instant)  # random bits: a new id every call
        later = uuid7(instant=instant + timedelta(milliseconds=1))
        assert later.int > ours.int
