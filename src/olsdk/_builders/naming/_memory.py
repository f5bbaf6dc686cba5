"""Builder for in-memory (temporary) datasets."""

from __future__ import annotations

from olsdk._builders.naming import _rules as rules
from olsdk._builders.naming._identifier import DatasetId

__all__ = ["in_memory"]


def in_memory(*, name: str) -> DatasetId:
    """In memory: ``inmemory://`` / ``{temporary dataset name or ID}``."""
    return DatasetId("inmemory://", rules.text("in_memory", "name", name))
