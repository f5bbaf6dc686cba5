"""The validation tests compare olsdk with an independent validator of the spec's own
schemas, which knows no custom facets: other test packages register some in the default
registry, so each test here runs with only the spec's facets registered and gets the
others back afterwards."""

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
    saved = _registry.DEFAULT.registered()
    custom = {key: cls for key, cls in saved.items() if _registry.DEFAULT.lookup(*key) is cls}
    for entity, key in custom:
        _registry.DEFAULT.unregister(entity, key)
    try:
        yield
    finally:
        for (entity, key), cls in custom.items():
            _registry.DEFAULT.register(entity, key, cls)
