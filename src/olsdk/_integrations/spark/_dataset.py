"""``PlanDataset``: one dataset as a plan reader found it, as plain data.

Both plan readers produce these (``_plan`` on the JVM plan of a classic session,
``_connect`` on the client-side plan of Spark Connect); the listener, ``lineage_run``
and ``datasets()`` turn them into models. Kept apart from both readers so neither
imports the other for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from olsdk._builders.naming._identifier import DatasetId
from olsdk._integrations.spark._schema import schema_facet

if TYPE_CHECKING:
    from pyspark.sql.types import StructType

    from olsdk._models import InputDataset, OutputDataset

__all__ = ["PlanDataset"]


@dataclass
class PlanDataset:
    """One dataset seen in a plan: its identifier and what the plan says about it."""

    ident: DatasetId
    schema: StructType | None = None
    symlinks: list[DatasetId] = field(default_factory=list)  # catalog names, type TABLE
    table: str | None = None  # "db.table" when it is a catalog table
    # column names (and types when known) where no StructType is: the tables a JDBC query reads
    columns: list[tuple[str, str | None]] | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # more dataset facets by key (storage, catalog)

    def facets(self) -> dict[str, Any]:
        from olsdk._models import (
            DatasourceDatasetFacet,
            SymlinksDatasetFacet,
            SymlinksDatasetFacetIdentifier,
        )

        namespace = self.ident.namespace
        # The agent sets uri = namespace; the spec requires a URI there, which a bare
        # namespace such as "file" is not, so uri is only set when it is one.
        source = (
            DatasourceDatasetFacet(name=namespace, uri=namespace)
            if ":" in namespace
            else DatasourceDatasetFacet(name=namespace)
        )
        out: dict[str, Any] = {"dataSource": source}
        if self.schema is not None:
            out["schema"] = schema_facet(self.schema)
        elif self.columns:
            out["schema"] = _columns_facet(self.columns)
        if self.symlinks:
            out["symlinks"] = SymlinksDatasetFacet(
                identifiers=[
                    SymlinksDatasetFacetIdentifier(namespace=link.namespace, name=link.name, type="TABLE")
                    for link in self.symlinks
                ]
            )
        out.update({key: facet for key, facet in self.extra.items() if facet is not None})
        return out

    def as_input(self) -> InputDataset:
        from olsdk._models import DatasetFacets, InputDataset

        facets = DatasetFacets.model_validate(self.facets())
        return InputDataset(namespace=self.ident.namespace, name=self.ident.name, facets=facets)

    def as_output(self, output_facets: dict[str, Any] | None = None, **extra_facets: Any) -> OutputDataset:
        from olsdk._models import DatasetFacets, OutputDataset, OutputDatasetFacets

        facets = DatasetFacets.model_validate({**self.facets(), **extra_facets})
        if output_facets:
            return OutputDataset(
                namespace=self.ident.namespace,
                name=self.ident.name,
                facets=facets,
                outputFacets=OutputDatasetFacets.model_validate(output_facets),
            )
        return OutputDataset(namespace=self.ident.namespace, name=self.ident.name, facets=facets)


def _columns_facet(columns: list[tuple[str, str | None]]) -> Any:
    from olsdk._models import SchemaDatasetFacet

    # Fields as JSON data, typed by the facet (their class's name differs between releases).
    fields: dict[str, Any] = {
        "fields": [{"name": name} if kind is None else {"name": name, "type": kind} for name, kind in columns]
    }
    return SchemaDatasetFacet(**fields)
