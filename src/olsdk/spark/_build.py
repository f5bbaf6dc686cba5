"""Spark facets shared by the listener and ``lineage_run``; events come from ``olsdk._build``."""

from __future__ import annotations

from olsdk.models import JobTypeJobFacet, ProcessingEngineRunFacet

__all__ = ["job_type", "processing_engine"]


def processing_engine(spark_version: str) -> ProcessingEngineRunFacet:
    from olsdk import __version__

    return ProcessingEngineRunFacet(version=spark_version, name="spark", openlineageAdapterVersion=__version__)


def job_type(kind: str = "SQL_JOB", processing: str = "BATCH") -> JobTypeJobFacet:
    return JobTypeJobFacet(processingType=processing, integration="SPARK", jobType=kind)
