"""`olsdk.models`: a class for every definition of the snapshot, every one exported.

Every `$defs` entry has its class, every facet key is a typed container field, and
`olsdk.models.__all__` names every generated class. Against the spec's JSON Schema:
instances built from the models (Hypothesis) dump to JSON the spec validates and parse
back equal.
"""

from __future__ import annotations

import ast
import inspect
import json
from typing import Any

import pydantic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

import olsdk
import olsdk.models as models
from olsdk._foundation import _registry
from olsdk._models._generated import _meta
from olsdk._models._generated import models as generated
from olsdk._models._runtime import OLRecord
from tests.support.facet_places import container_of, facet_keys_by_file, run_event_with
from tests.support.model_strategies import events, for_model
from tests.support.selection import examples
from tests.support.spec_schema import SPEC_DIR, assert_valid, core, schema_files

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
        if p.name not in ("manifest.json", "CHANGES.json") and p.relative_to(SPEC_DIR).parts[0] != "releases"
    }
    assert on_disk <= listed
    assert "OpenLineage.json" in listed
    assert any(p.startswith("registry/") and p.endswith("Facet.json") for p in listed)


@pytest.mark.parametrize(("path", "name"), all_defs())
def test_every_def_has_a_model_class(path: str, name: str) -> None:
    cls = getattr(models, name, None)
    assert cls is not None, f"{path}#/$defs/{name} has no class in olsdk.models"
    assert issubclass(cls, pydantic.BaseModel | OLRecord)


def test_class_counts() -> None:
    defs = all_defs()
    classes = {
        name
        for name, obj in ((name, getattr(models, name)) for name in dir(models))
        if name.isidentifier()  # pydantic also lists parametrised generics such as RootModel[...]
        and isinstance(obj, type)
        and issubclass(obj, pydantic.BaseModel | OLRecord)
        and obj.__module__ == "olsdk._models._generated.models"
    }
    core_defs = [d for d in defs if d[0] == "OpenLineage.json"]
    facet_files = [p for p in schema_files() if p != "OpenLineage.json"]
    # Every def is a class; the rest are inline objects and the five facet containers.
    assert {name for _, name in defs} <= classes
    extra = classes - {name for _, name in defs}
    assert {"RunFacets", "JobFacets", "DatasetFacets", "InputDatasetFacets", "OutputDatasetFacets"} <= extra
    assert extra - {"RunFacets", "JobFacets", "DatasetFacets", "InputDatasetFacets", "OutputDatasetFacets"} == set(
        _meta.INLINE_CLASSES
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


def test_enumerations_and_single_value_enums_are_typed() -> None:
    assert models.EventType("FAIL") is models.EventType.FAIL
    assert models.LifecycleStateChange("OVERWRITE").value == "OVERWRITE"
    entry = models.LineageDatasetEntry(namespace="n", name="d", type="DATASET")
    assert entry.type == "DATASET"


def test_all_exports_every_generated_class() -> None:
    classes = {
        name
        for name, obj in vars(generated).items()
        # pydantic also lists parametrised generics such as RootModel[...]
        if name.isidentifier() and isinstance(obj, type) and obj.__module__ == generated.__name__
    }
    assert set(generated.__all__) == classes
    assert classes <= set(models.__all__)
    assert len(models.__all__) == len(set(models.__all__))
    for name in models.__all__:
        assert hasattr(models, name), name
    assert {"RunEvent", "ParentRunFacet", "RunFacets", "EventType", "DeletedFacet", "FacetContainer"} <= set(
        models.__all__
    )


def test_star_import_gives_the_whole_api() -> None:
    namespace: dict[str, Any] = {}
    exec("from olsdk.models import *", namespace)
    assert set(models.__all__) <= namespace.keys()


# -- model -> schema ---------------------------------------------------------------------

SETTINGS = settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(events())
def test_events_dump_valid_json_and_parse_back_equal(event: Any) -> None:
    document = olsdk.to_dict(event)
    assert_valid(document, core()["$id"])
    parsed = olsdk.parse_event(olsdk.to_json(event))
    assert type(parsed) is type(event)
    assert olsdk.to_dict(parsed) == document
    assert parsed == event


@pytest.mark.parametrize(("file_id", "def_name", "entity", "key"), facet_keys_by_file())
def test_every_facet_class_round_trips(file_id: str, def_name: str, entity: str, key: str) -> None:
    cls = models.FACET_KEYS[(entity, key)]

    @settings(max_examples=examples(8), deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(for_model(cls))
    def check(facet: BaseModel) -> None:
        facet_doc = olsdk.to_dict(facet)
        assert_valid(facet_doc, file_id, cls.__name__)
        event = models.RunEvent(**run_event_with(entity, key, facet))
        document = olsdk.to_dict(event)
        assert_valid(document, core()["$id"])
        parsed = olsdk.parse_event(olsdk.to_json(event))
        assert olsdk.to_dict(parsed) == document
        container = container_of(parsed, entity)
        assert type(container[key]) is cls

    check()


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_constructed_facets_carry_producer_and_versioned_schema_url(data: st.DataObject) -> None:
    cls = models.FACET_KEYS[data.draw(st.sampled_from(sorted(models.FACET_KEYS)))]
    drawn = data.draw(for_model(cls))
    # The same facet, built again without the two fields the runtime fills in.
    kwargs = drawn.model_dump(exclude={"producer", "schemaURL"}, exclude_unset=True, by_alias=False)
    olsdk.set_default_producer("https://example.com/my-producer")
    try:
        facet = cls(**kwargs)
    finally:
        olsdk.set_default_producer("https://github.com/olsdk/olsdk")
    doc = olsdk.to_dict(facet)
    assert doc["_producer"] == "https://example.com/my-producer"
    assert doc["_schemaURL"] == cls.__olsdk_schema_url__
    assert doc["_schemaURL"].startswith("https://openlineage.io/spec/")
    assert doc["_schemaURL"].endswith(f"#/$defs/{cls.__name__}")


# -- the models explain themselves: what editors show on hover ---------------------------


def _documented_fields(cls_node: ast.ClassDef) -> dict[str, str]:
    """Field -> the string right after a declaration of it, over the class body and the
    branches of its `if TYPE_CHECKING:` blocks."""
    documented: dict[str, str] = {}
    suites = [cls_node.body] + [s for n in cls_node.body if isinstance(n, ast.If) for s in (n.body, n.orelse)]
    for suite in suites:
        for index, node in enumerate(suite):
            if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
                continue
            after = suite[index + 1] if index + 1 < len(suite) else None
            if (
                isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)
            ):
                documented[node.target.id] = after.value.value
    return documented


def test_every_described_field_has_its_description_as_docstring() -> None:
    """The string after a field is what pyright/Pylance show on hover: the spec's words,
    the same as the description its JSON Schema gets (`FIELD_DOCS`)."""
    tree = ast.parse(inspect.getsource(generated))
    checked = 0
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            described = {
                name: description
                for name, (description, _examples) in generated.FIELD_DOCS.get(node.name, {}).items()
                if description is not None
            }
            assert _documented_fields(node) == described, node.name
            checked += len(described)
    assert checked > 250  # the spec describes most fields


def test_fields_carry_their_descriptions_and_examples() -> None:
    """The generated classes declare bare fields; their descriptions and examples reach the
    fields (and so the JSON Schema) at import, on the class that declares each field and
    on every generated class that inherits it."""
    checked = 0
    for name in generated.__all__:
        cls = getattr(generated, name)
        if not (isinstance(cls, type) and issubclass(cls, BaseModel)):
            continue
        for field_name, info in cls.model_fields.items():
            owner = next(k for k in cls.__mro__ if field_name in inspect.get_annotations(k))
            description, examples = generated.FIELD_DOCS.get(owner.__name__, {}).get(field_name, (None, None))
            assert (info.description, info.examples) == (description, examples), (name, field_name)
            checked += description is not None
    assert checked > 150
    schema = generated.RunEvent.model_json_schema()
    assert schema["properties"]["eventTime"]["description"] == "the time the event occurred at"
    assert schema["$defs"]["Run"]["properties"]["runId"]["description"].startswith("The globally unique ID")


@pytest.mark.parametrize(("path", "name"), all_defs(), ids=lambda x: str(x))
def test_every_described_definition_has_its_description_as_class_docstring(path: str, name: str) -> None:
    schema = schema_files()[path]["$defs"][name]
    described = schema.get("description") if isinstance(schema, dict) else None
    doc = inspect.getdoc(getattr(generated, name)) or ""
    if described is None:
        return
    assert " ".join(doc.split("\n\n")[0].split()) == " ".join(described.replace('"""', "'''").split())


def test_facet_classes_name_their_key_and_schema_in_a_comment_above_them() -> None:
    # Above the class, not in its docstring: the docstring is the spec's description
    # alone, which pydantic publishes as the JSON Schema `description` of an exported facet.
    lines = inspect.getsource(generated).splitlines()
    for (entity, key), cls in models.FACET_KEYS.items():
        start = next(i for i, line in enumerate(lines) if line.startswith(f"class {cls.__name__}("))
        comment = []
        for line in reversed(lines[:start]):
            if not line.startswith("#"):
                break
            comment.insert(0, line.removeprefix("#").strip())
        text = " ".join(comment)
        assert text.count(f"{ENTITY_WORDS[entity]} facet `{key}`") == 1, cls.__name__
        assert cls.__olsdk_schema_url__ in text, cls.__name__


def test_docstrings_are_the_specs_descriptions() -> None:
    described = {
        name: " ".join(definition["description"].split())
        for doc in schema_files().values()
        for name, definition in doc.get("$defs", {}).items()
        if isinstance(definition, dict) and isinstance(definition.get("description"), str)
    }
    checked = 0
    for name, description in described.items():
        cls = getattr(generated, name, None)
        if not isinstance(cls, type):
            continue
        own = cls.__dict__.get("__doc__")
        assert own is not None, f"{name} has no docstring; the spec describes it"
        assert " ".join(own.split()) == description.replace('"""', "'''"), name
        checked += 1
    assert checked >= 25  # the current snapshot describes 29 of its definitions


ENTITY_WORDS = {
    "run": "run",
    "job": "job",
    "dataset": "dataset",
    "inputDataset": "input dataset",
    "outputDataset": "output dataset",
}
