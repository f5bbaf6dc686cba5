"""The OpenLineage models: one class per definition of the spec and its facet files.

Generated from the pinned spec snapshot; this module is where users import them from.
The classes are made when the first of them is asked for (``from olsdk.models import
RunEvent``), so ``import olsdk.models`` alone costs little. The ``TYPE_CHECKING`` block
repeats the models layer's names (``olsdk._models``) in the form static tools follow:
mypy does not carry a star import through a second star import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from olsdk import _models
from olsdk._models import MANIFEST_SHA256, SPEC_RELEASE, SPEC_UPSTREAM_COMMIT, SPEC_VERSION

if TYPE_CHECKING:
    from olsdk._models import FACET_KEYS, DeletedFacet, FacetContainer
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


def __getattr__(name: str) -> Any:
    if name.startswith("__") and name != "__all__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    # The first name asked for binds them all: later reads are plain module attributes.
    exported, bound = _models.__all__, vars(_models)
    names = {key: bound[key] for key in exported}
    globals().update(names, __all__=list(exported))
    if name == "__all__":
        return globals()["__all__"]
    if name not in names:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return names[name]


def __dir__() -> list[str]:
    return sorted({*globals(), *_models.__all__})
