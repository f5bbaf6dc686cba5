"""Sample custom facets for the tests (and the export -> generate -> export loop)."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field

from olsdk.facets import (
    CustomDatasetFacet,
    CustomInputDatasetFacet,
    CustomJobFacet,
    CustomRunFacet,
    DateTimeStr,
    URIStr,
)
from olsdk.models import JobFacets

BASE = "https://schemas.example.com/olfacets"


class ColumnStats(BaseModel):
    """Statistics of one column."""

    name: str
    nullCount: int | None = None


class Tier(StrEnum):
    GOLD = "gold"
    SILVER = "silver"


class MyCompanyRunFacetBase(CustomRunFacet, prefix="myCompany", schema_base_url=BASE, abstract=True):
    """A company-wide abstract base: fixes prefix and schema base URL."""


class MyCompanyStatisticsRunFacet(MyCompanyRunFacetBase, version="1-0-0"):
    """Row statistics of a run."""

    rows: int = Field(description="Rows processed.", examples=[42])
    ratio: float | None = None
    columns: list[ColumnStats] = Field(default_factory=list)
    finishedAt: DateTimeStr | None = None
    dashboard: URIStr | None = None
    tier: Tier | None = None
    mode: Literal["batch", "stream"] = "batch"
    labels: dict[str, str] | None = None
    flagged: bool | None = None


class MyCompanyOwnerJobFacet(CustomJobFacet, prefix="myCompany", schema_base_url=BASE, version="2-1-0"):
    team: str


class MyCompanyS3ScanInputDatasetFacet(
    CustomInputDatasetFacet, prefix="myCompany", schema_base_url=BASE, version="1-0-3"
):
    """What a scan of an S3 prefix read."""

    objects: int
    prefix: str | None = None


class Node(BaseModel):
    """A field of a nested schema: a tree, so it cannot be inlined."""

    name: str
    children: list[Node] | None = None


class MyCompanyLayoutDatasetFacet(CustomDatasetFacet, prefix="myCompany", schema_base_url=BASE, version="1-0-0"):
    """A nested layout, and the facets of the job that wrote it."""

    root: Node
    writerFacets: JobFacets | None = None


FACETS = (
    MyCompanyStatisticsRunFacet,
    MyCompanyOwnerJobFacet,
    MyCompanyS3ScanInputDatasetFacet,
    MyCompanyLayoutDatasetFacet,
)
