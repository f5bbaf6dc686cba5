"""What the imported models' spec release has: the one place the hand-written layer asks.

The models can be generated from any OpenLineage release from 1.0.0 on
(`make spec-upgrade SRC=...`), and releases differ: `TagsJobFacet` came with 1.27.0,
`ParentRunFacet.root` with 1.31.0. Every place in the hand-written layer that names a
generated class not every release has asks here first (`spec_class`, `spec_field`);
where the release lacks it, the feature is left out and the caller's logger warns once
per process, naming the release and what is missing, and the event is still sent.
Nothing here restates a version number: the answer is read from the generated metadata
(`olsdk._models._generated._meta`). `tests/models/test_release_guards.py` walks the
hand-written modules and fails on a generated name used without asking.
"""

from __future__ import annotations

import logging
import threading

from pydantic import BaseModel

from olsdk import _models as models

# isort: split
# After `olsdk.models`: it imports the generated package quietly and binds the metadata.
from olsdk._models._generated import _meta

__all__ = ["RELEASE", "has_class", "has_field", "spec_class", "spec_field"]

RELEASE: str = _meta.RELEASE
"""The spec release the imported models were generated from (`olsdk.models.SPEC_RELEASE`)."""

# (what is missing, feature) pairs already warned about: one warning each per process,
# since a scheduler building thousands of events needs to hear it once.
_warned: set[tuple[str, str]] = set()
_warned_lock = threading.Lock()


def has_class(name: str, *, feature: str = "") -> bool:
    """Whether the imported models have the generated class `name`, without a warning.

    For a caller that adapts rather than leaves something out; `feature` says how, for
    the table of `docs/explanation/spec-versions.md` (it is not logged).
    """
    return name in _meta.CLASS_NAMES


def has_field(class_name: str, field: str, *, feature: str = "") -> bool:
    """Whether the imported models have class `class_name` with the field `field`, without a warning.

    `feature`: as for `has_class`.
    """
    return has_class(class_name) and field in getattr(models, class_name).model_fields


def spec_class(name: str, *, feature: str, logger: logging.Logger) -> type[BaseModel] | None:
    """The generated model class `name`, or None (after one warning on `logger`) when this release lacks it.

    `feature` says what is left out without it, for the warning ("tags.job: the job's tags
    facet"); it is also the row `docs/explanation/spec-versions.md` lists for the release.
    """
    if has_class(name):
        cls = getattr(models, name)
        if not (isinstance(cls, type) and issubclass(cls, BaseModel)):
            raise TypeError(f"spec_class: {name} is a generated {type(cls).__name__}, not a model class")
        return cls
    _warn_once(logger, feature, f"these models (spec {RELEASE}) have no {name}", name)
    return None


def spec_field(class_name: str, field: str, *, feature: str, logger: logging.Logger) -> bool:
    """Whether `class_name` has `field`; when not, one warning on `logger` says `feature` is left out."""
    if has_field(class_name, field):
        return True
    _warn_once(
        logger,
        feature,
        f"{class_name} of these models (spec {RELEASE}) has no {field!r} field",
        f"{class_name}.{field}",
    )
    return False


def _warn_once(logger: logging.Logger, feature: str, why: str, missing: str) -> None:
    with _warned_lock:
        if (missing, feature) in _warned:
            return
        _warned.add((missing, feature))
    logger.warning("%s: left out: %s; regenerate the models from a newer spec release to get it", feature, why)
