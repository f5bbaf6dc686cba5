"""The models layer: the generated classes on their runtime, and the spec's facts.

This module is the one place that names the generated package (`_generated`, written by
`codegen/`); the layers above and the public `olsdk.models` import the classes from here.

The classes are made when one of them (or `FACET_KEYS`, `DeletedFacet`, `FacetContainer`)
is first asked for, not when this package is imported: a process that never touches a
model pays nothing for them. Static tools read the `TYPE_CHECKING` block, which names
every class as a plain import would.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from olsdk._models._generated import (
    MANIFEST_SHA256,
    SPEC_RELEASE,
    SPEC_UPSTREAM_COMMIT,
    SPEC_VERSION,
)

if TYPE_CHECKING:
    from olsdk._models._generated import _meta
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

_OWN = ("FACET_KEYS", "MANIFEST_SHA256", "SPEC_RELEASE", "SPEC_UPSTREAM_COMMIT", "SPEC_VERSION")
_RUNTIME = ("DeletedFacet", "FacetContainer")


def _load() -> dict[str, Any]:
    """Make the generated classes (once) and bind every name of this package to them."""
    # `_meta` imports the classes and binds the facet keys and schema URLs to them.
    meta = importlib.import_module("olsdk._models._generated._meta")
    generated = importlib.import_module("olsdk._models._generated.models")
    runtime = importlib.import_module("olsdk._models._runtime")
    names: dict[str, Any] = {name: getattr(generated, name) for name in generated.__all__}
    names.update({name: getattr(runtime, name) for name in _RUNTIME})
    names["FACET_KEYS"] = meta.FACET_KEYS
    names["__all__"] = [*_OWN, *_RUNTIME, *generated.__all__]
    globals().update(names)
    return names


def __getattr__(name: str) -> Any:
    if name.startswith("__") and name != "__all__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    names = _load()
    if name not in names:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return names[name]


def __dir__() -> list[str]:
    return sorted({*globals(), *_load()})
