"""Spark Connect sessions: datasets from the client-side plan (no JVM access there)."""

from __future__ import annotations

from typing import Any

from olsdk.spark.plan import PlanDataset

__all__ = ["is_connect", "plan_datasets"]


def is_connect(df: Any) -> bool:
    """True for a Spark Connect DataFrame (it has a client-side plan, not a ``_jdf``)."""
    return type(df).__module__.startswith("pyspark.sql.connect")


def plan_datasets(df: Any) -> list[PlanDataset]:
    return []
