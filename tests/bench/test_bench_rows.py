"""The building blocks of issue 15's bench rows, without timing anything."""

from __future__ import annotations

import pytest

pytest.importorskip("openlineage.client")
pytest.importorskip("orjson")

from bench import cases


def test_targets_are_the_issues() -> None:
    assert cases.TARGETS == {
        ("parse", "full"): 0.28,
        ("parse", "minimal"): 0.20,
        ("validate", "full"): 0.45,
        ("serialise", "full"): 16.0,
        ("emit", "full"): 5.0,
        ("emit", "minimal"): 6.5,
        ("http", "minimal"): 10.0,
    }
