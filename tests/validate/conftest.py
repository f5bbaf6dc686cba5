"""The validation tests compare olsdk with an independent validator of the spec's own
schemas, which knows no custom facets: other test packages register some (the Spark
agent's facets are registered whenever `olsdk.spark` is imported), so each test here
runs with only the spec's facets registered and gets the others back afterwards."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from olsdk._foundation import _registry

# Hypothesis draws facets from the spec's recursive schemas (schema fields, subset
# conditions): drawing and mutating them needs a deeper stack than Python's default.
sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))


@pytest.fixture(autouse=True)
def spec_facets_only() -> Iterator[None]:
    saved = _registry.registered()
    custom = {key: cls for key, cls in saved.items() if _registry.lookup(*key) is cls}
    for entity, key in custom:
        _registry.unregister(entity, key)
    try:
        yield
    finally:
        for (entity, key), cls in custom.items():
            _registry.register(entity, key, cls)
