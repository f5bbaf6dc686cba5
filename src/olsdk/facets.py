"""Custom facets: define, register, attach and publish them.

    from olsdk.facets import CustomRunFacet

    class MyCompanyStatisticsRunFacet(
        CustomRunFacet,
        prefix="myCompany",
        schema_base_url="https://schemas.example.com/olfacets",
        version="1-0-0",
    ):
        rows: int

The class name must read `<Prefix><Name><Entity>Facet`; its key is `<prefix>_<name>`
(`myCompany_statistics`) and its `_schemaURL` is
`<schema_base_url>/<version>/<ClassName>.json#/$defs/<ClassName>`. Defining it registers
it: parsed events carry it typed under its key. `attach(run, facet)` adds it to a run
(a type-checked copy), and `export_schemas(module, out_dir)` (or
`olsdk facets export MODULE --out DIR`) publishes its JSON Schema.

Defined classes register in `default_registry`, which `olsdk.parse_event` and
`olsdk.validate_event` use unless given another: a `FacetRegistry` of your own
(`FacetRegistry(parent=default_registry)` keeps the default's facets too) holds facets
for the readers you give it to, and changes nothing for the others:

    registry = FacetRegistry(parent=default_registry)
    registry.register_facet(SparkExceptionRunFacet, key="spark.exception")
    olsdk.parse_event(data, registry=registry)
"""

from olsdk._builders.facets._attach import attach
from olsdk._builders.facets._base import (
    CustomDatasetFacet,
    CustomInputDatasetFacet,
    CustomJobFacet,
    CustomOutputDatasetFacet,
    CustomRunFacet,
    entity_of,
    is_custom,
    key_of,
    register_facet,
    unregister_facet,
)
from olsdk._builders.facets._export import export_schemas, registry_document
from olsdk._builders.facets._schema import facet_schema
from olsdk._foundation._exceptions import FacetKeyConflict
from olsdk._foundation._registry import DEFAULT as default_registry
from olsdk._foundation._registry import FacetRegistry
from olsdk._models._runtime import DateTimeStr, URIStr, UUIDStr

__all__ = [
    "CustomDatasetFacet",
    "CustomInputDatasetFacet",
    "CustomJobFacet",
    "CustomOutputDatasetFacet",
    "CustomRunFacet",
    "DateTimeStr",
    "FacetKeyConflict",
    "FacetRegistry",
    "URIStr",
    "UUIDStr",
    "attach",
    "default_registry",
    "entity_of",
    "export_schemas",
    "facet_schema",
    "is_custom",
    "key_of",
    "register_facet",
    "registry_document",
    "unregister_facet",
]
