"""The OpenLineage models: one class per definition of the spec and its facet files.

Generated from the pinned spec snapshot into the `olsdk._generated` package; this module
is where users import them from, so the generated package's location stays private.
"""

from __future__ import annotations

import warnings

from olsdk import _runtime
from olsdk._runtime import DeletedFacet, FacetContainer

with warnings.catch_warnings():
    # `DatasetFacets.schema` keeps the spec's key as its name on purpose; pydantic
    # warns that it shadows the deprecated `BaseModel.schema()`.
    warnings.filterwarnings("ignore", message='Field name "schema"', category=UserWarning)
    from olsdk._generated import (
        MANIFEST_SHA256,
        SPEC_RELEASE,
        SPEC_UPSTREAM_COMMIT,
        SPEC_VERSION,
        _meta,
    )
    from olsdk._generated import models as _generated_models
    from olsdk._generated.models import *  # noqa: F403 - the generated classes are the API


# Finish every class now: a class pydantic left to complete on first use would do it
# in the middle of the first parse, and keep a forwarding validator around meanwhile.
def _complete_all() -> None:
    for cls in list(vars(_generated_models).values()):
        if isinstance(cls, type) and issubclass(cls, _runtime.OLModel) and not cls.__pydantic_complete__:
            cls.model_rebuild()


_complete_all()

_runtime.bind_metadata(
    core_id=_meta.CORE_ID,
    schema_urls=_meta.SCHEMA_URLS,
    entities=_meta.ENTITIES,
    facet_keys=_meta.FACET_KEYS,
)

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
