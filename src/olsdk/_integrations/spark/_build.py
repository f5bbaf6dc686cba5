"""Spark facets shared by the listener and ``lineage_run``; events come from ``olsdk._builders._build``."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from olsdk._integrations.spark._jvm import log
from olsdk._models import ProcessingEngineRunFacet
from olsdk._models._release import spec_class

if TYPE_CHECKING:
    from olsdk._models import JobTypeJobFacet

__all__ = ["job_type", "processing_engine"]


def processing_engine(spark_version: str) -> ProcessingEngineRunFacet:
    from olsdk import __version__

    return ProcessingEngineRunFacet(version=spark_version, name="spark", openlineageAdapterVersion=__version__)


def job_type(kind: str = "SQL_JOB", processing: str = "BATCH") -> JobTypeJobFacet | None:
    """The ``jobType`` facet; None (after one warning) on models of a release without it (before 1.6.0)."""
    cls = spec_class("JobTypeJobFacet", feature="Spark: the jobType job facet", logger=log)
    if cls is None:
        return None
    return cast("JobTypeJobFacet", cls(processingType=processing, integration="SPARK", jobType=kind))
