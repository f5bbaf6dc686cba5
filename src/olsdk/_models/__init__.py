"""The models layer: the generated classes on their runtime, and the spec's facts.

This module is the one place that names the generated package (`_generated`, written by
`codegen/`); the layers above and the public `olsdk.models` import the classes from here.
"""

from __future__ import annotations

from olsdk._models._generated import (
    MANIFEST_SHA256,
    SPEC_RELEASE,
    SPEC_UPSTREAM_COMMIT,
    SPEC_VERSION,
    _meta,
)
from olsdk._models._generated import models as _generated_models
from olsdk._models._generated.models import *  # noqa: F403 - the generated classes are the API
from olsdk._models._runtime import DeletedFacet, FacetContainer

FACET_KEYS = _meta.FACET_KEYS
"""(entity kind, facet key) -> the spec's facet class for that key."""

__all__ = [
    "FACET_KEYS",
    "MANIFEST_SHA256",
    "SPEC_RELEASE",
    "SPEC_UPSTREAM_COMMIT",
    "SPEC_VERSION",
    "DeletedFacet",
    "FacetContainer",
]
# Every generated class, in the form static tools follow (pyright and mypy read
# `__all__ += <module>.__all__`), so editors see `RunEvent` as exported from here.
__all__ += _generated_models.__all__
