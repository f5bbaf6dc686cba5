"""The OpenLineage models: one class per definition of the spec and its facet files.

Generated from the pinned spec snapshot; this module is where users import them from.
It repeats the models layer's names (`olsdk._models`) in the form static tools follow:
mypy does not carry a star import through a second star import.
"""

from olsdk._models import (
    FACET_KEYS,
    MANIFEST_SHA256,
    SPEC_RELEASE,
    SPEC_UPSTREAM_COMMIT,
    SPEC_VERSION,
    DeletedFacet,
    FacetContainer,
)
from olsdk._models._generated import models as _generated_models
from olsdk._models._generated.models import *  # noqa: F403 - the generated classes are the API

__all__ = [
    "FACET_KEYS",
    "MANIFEST_SHA256",
    "SPEC_RELEASE",
    "SPEC_UPSTREAM_COMMIT",
    "SPEC_VERSION",
    "DeletedFacet",
    "FacetContainer",
]
__all__ += _generated_models.__all__
