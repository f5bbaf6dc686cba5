"""Every definition of the snapshot has its class, and every facet key is typed."""

from __future__ import annotations

import json

import pydantic
import pytest

import olsdk.models as models
from olsdk import _registry
from tests.spec_schema import SPEC_DIR, schema_files

ENTITY_BY_BASE = {
    "RunFacet": "run",
    "JobFacet": "job",
    "DatasetFacet": "dataset",
    "InputDatasetFacet": "inputDataset",
    "OutputDatasetFacet": "outputDataset",
}


def all_defs() -> list[tuple[str, str]]:
    return sorted((path, name) for path, doc in schema_files().items() for name in doc.get("$defs", {}))


def test_manifest_lists_core_and_every_facet_file() -> None:
    manifest = json.loads((SPEC_DIR / "manifest.json").read_text())
    listed = {f["path"] for f in manifest["files"]}
    on_disk = {
        p.relative_to(SPEC_DIR).as_posix()
        for p in SPEC_DIR.rglob("*.json")
        if p.name not in ("manifest.json", "CHANGES.json")
    }
    assert on_disk <= listed
    assert "OpenLineage.json" in listed
    assert any(p.startswith("registry/") and p.endswith("Facet.json") for p in listed)


@pytest.mark.parametrize(("path", "name"), all_defs())
def test_every_def_has_a_model_class(path: str, name: str) -> None:
    cls = getattr(models, name, None)
    assert cls is not None, f"{path}#/$defs/{name} has no class in olsdk.models"
    assert issubclass(cls, pydantic.BaseModel)


def test_class_counts() -> None:
    defs = all_defs()
    classes = {
        name
        for name, obj in vars(models).items()
        if name.isidentifier()  # pydantic also lists parametrised generics such as RootModel[...]
        and isinstance(obj, type)
        and issubclass(obj, pydantic.BaseModel)
        and obj.__module__ == "olsdk_generated.models"
    }
    core_defs = [d for d in defs if d[0] == "OpenLineage.json"]
    facet_files = [p for p in schema_files() if p != "OpenLineage.json"]
    # Every def is a class; the rest are inline objects and the five facet containers.
    assert {name for _, name in defs} <= classes
    extra = classes - {name for _, name in defs}
    assert {"RunFacets", "JobFacets", "DatasetFacets", "InputDatasetFacets", "OutputDatasetFacets"} <= extra
    assert extra - {"RunFacets", "JobFacets", "DatasetFacets", "InputDatasetFacets", "OutputDatasetFacets"} == set(
        models._meta.INLINE_CLASSES
    )
    print(f"{len(defs)} defs ({len(core_defs)} core) in {len(facet_files)} facet files -> {len(classes)} classes")


def facet_keys() -> list[tuple[str, str, str]]:
    out = []
    for path, doc in schema_files().items():
        for key, schema in doc.get("properties", {}).items():
            refs = [schema] if "$ref" in schema else schema.get("anyOf", schema.get("oneOf", []))
            for ref in refs:
                name = ref["$ref"].rsplit("/", 1)[-1]
                out.append((path, key, name))
    return sorted(out)


@pytest.mark.parametrize(("path", "key", "name"), facet_keys())
def test_facet_keys_are_typed_container_fields(path: str, key: str, name: str) -> None:
    target = schema_files()[path]["$defs"][name]
    leaves = [r["$ref"].rsplit("/", 1)[-1] for r in target.get("oneOf", [])] or [name]
    for leaf in leaves:
        cls = getattr(models, leaf)
        base = next(b for b in ENTITY_BY_BASE if issubclass(cls, getattr(models, b)))
        entity = ENTITY_BY_BASE[base]
        assert models.FACET_KEYS[(entity, key)] is cls
        assert _registry.spec_facet(entity, key) is cls
        container = getattr(models, base + "s")
        field = next(f for n, f in container.model_fields.items() if (f.alias or n) == key)
        assert field.annotation == cls | None


def test_facets_subclass_the_spec_base_facets() -> None:
    assert issubclass(models.ParentRunFacet, models.RunFacet)
    assert issubclass(models.SchemaDatasetFacet, models.DatasetFacet)
    assert issubclass(models.InputStatisticsInputDatasetFacet, models.InputDatasetFacet)
    assert issubclass(models.OutputStatisticsOutputDatasetFacet, models.OutputDatasetFacet)
    assert issubclass(models.SQLJobFacet, models.JobFacet)
    assert issubclass(models.GcpDataprocRunFacet, models.RunFacet)
    assert issubclass(models.RunEvent, models.BaseEvent)


def test_schema_url_defaults_are_the_files_ids() -> None:
    for path, doc in schema_files().items():
        if path == "OpenLineage.json":
            continue
        for name, schema in doc["$defs"].items():
            cls = getattr(models, name)
            if issubclass(cls, models.BaseFacet) and "allOf" in schema:
                assert cls.__olsdk_schema_url__ == f"{doc['$id']}#/$defs/{name}"
