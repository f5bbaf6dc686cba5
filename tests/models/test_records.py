"""Records (`olsdk._models._runtime`): the objects that repeat inside facets, as typed dicts."""

from __future__ import annotations

import copy
import json
import pickle
import warnings

import pydantic
import pytest

import olsdk
import olsdk.models as models
from olsdk._models._runtime import OLRecord

FACET = {"_producer": "https://example.com/p", "_schemaURL": "https://example.com/s#/$defs/SchemaDatasetFacet"}


def _schema_facet(fields: list[object]) -> bytes:
    return json.dumps({**FACET, "fields": fields}, separators=(",", ":")).encode()


def test_repeated_objects_of_facets_are_records_and_others_models() -> None:
    assert issubclass(models.SchemaDatasetFacetFields, OLRecord)
    assert issubclass(models.InputField, OLRecord)
    assert issubclass(models.ColumnLineageDatasetFacetFields, OLRecord)
    # Core classes and facets stay models, even when repeated (`inputs`).
    assert not issubclass(models.InputDataset, OLRecord)
    assert not issubclass(models.SchemaDatasetFacet, OLRecord)


def test_a_record_is_checked_where_a_model_holds_it() -> None:
    field = models.SchemaDatasetFacetFields(name="id", type="BIGINT", ordinal_position=1)
    assert field == {"name": "id", "type": "BIGINT", "ordinal_position": 1}
    assert (field.name, field.type, field.description) == ("id", "BIGINT", None)
    # Built by dict's constructor, a record is checked where it is used, as parsing checks it.
    bad = models.SchemaDatasetFacetFields(name=3)  # type: ignore[arg-type]
    with pytest.raises(olsdk.ValidationError) as caught:
        models.SchemaDatasetFacet(fields=[field, bad])
    assert [(p.path, p.rule) for p in caught.value.problems] == [("fields[1].name", "must be string")]
    assert caught.value.title == "invalid SchemaDatasetFacet"
    with pytest.raises(olsdk.ValidationError) as caught:
        models.SchemaDatasetFacetFields.model_validate(bad)
    assert [(p.path, p.rule.split(";")[0]) for p in caught.value.problems] == [("name", "must be string")]
    assert caught.value.title == "invalid SchemaDatasetFacetFields"
    with pytest.raises(olsdk.ValidationError, match="name: must be string"):
        bad.to_json()
    missing = models.SchemaDatasetFacetFields(type="INT")  # type: ignore[call-arg]
    with pytest.raises(olsdk.ValidationError, match=r"fields\[0\]\.name: required field missing"):
        models.SchemaDatasetFacet(fields=[missing])
    # Nested records are checked with their holder, at their own path.
    nested = models.SchemaDatasetFacetFields(
        name="id", fields=[models.SchemaDatasetFacetFields(name="x", ordinal_position="1")]
    )  # type: ignore[arg-type]
    with pytest.raises(olsdk.ValidationError, match=r"fields\[0\]\.fields\[0\]\.ordinal_position: must be integer"):
        models.SchemaDatasetFacet(fields=[nested])
    with pytest.raises(olsdk.ValidationError, match=r"fields\[0\]: must be object, got 5"):
        models.SchemaDatasetFacet(fields=[5])  # type: ignore[list-item]


def test_none_means_not_sent() -> None:
    field = models.SchemaDatasetFacetFields(name="id", type=None, description=None)
    assert field.to_json() == '{"name":"id"}'
    assert field.model_dump() == {"name": "id"}
    facet = models.SchemaDatasetFacet(fields=[field])
    assert facet.fields == [{"name": "id"}]
    assert facet.to_json().endswith('"fields":[{"name":"id"}]}')
    # Only the record's own optional fields: an extra key keeps its JSON null.
    extra = models.SchemaDatasetFacetFields(name="id", type=None, note=None)  # type: ignore[call-arg]
    assert extra.to_json() == '{"name":"id","note":null}'
    assert models.SchemaDatasetFacet(fields=[extra]).fields == [{"name": "id", "note": None}]
    # A None beside a real problem: only the problem is reported.
    with pytest.raises(olsdk.ValidationError) as caught:
        models.SchemaDatasetFacet(fields=[models.SchemaDatasetFacetFields(name=3, type=None)])  # type: ignore[arg-type]
    assert [p.path for p in caught.value.problems] == ["fields[0].name"]
    # A plain dict is a document: null is refused there, as in JSON.
    with pytest.raises(olsdk.ValidationError, match=r"fields\[0\]\.type: must be string"):
        models.SchemaDatasetFacet(fields=[{"name": "id", "type": None}])  # type: ignore[list-item]
    field.type = "INT"
    field.type = None
    assert "type" not in field
    # A required field keeps what it is given, as a model's does.
    field.name = "other"
    assert field["name"] == "other"


def test_extra_keys_are_kept_and_read_as_attributes() -> None:
    field = models.SchemaDatasetFacetFields(name="id", tags=["pii"])  # type: ignore[call-arg]
    assert field["tags"] == ["pii"]
    assert field.tags == ["pii"]  # type: ignore[attr-defined]
    assert models.SchemaDatasetFacet(fields=[field]).to_json().endswith('"fields":[{"name":"id","tags":["pii"]}]}')
    with pytest.raises(AttributeError, match="no attribute 'missing'"):
        _ = field.missing  # type: ignore[attr-defined]
    # Extra keys hold JSON values only, and a record that says so refuses them.
    with pytest.raises(olsdk.ValidationError, match=r"fields\[0\]\.tags"):
        models.SchemaDatasetFacet(fields=[models.SchemaDatasetFacetFields(name="id", tags=object())])  # type: ignore[call-arg]
    with pytest.raises(olsdk.ValidationError, match="foo: unknown field"):
        models.ExecutionParameter(key="k", foo=1).to_json()  # type: ignore[call-arg]


def test_parsed_records_round_trip_exactly() -> None:
    # (Keys in the spec's order, extra keys last, as the models write them too.)
    wire = _schema_facet(
        [
            {"name": "a", "type": "STRUCT", "fields": [{"name": "b", "ordinal_position": 2}], "x-extra": None},
            {"name": "c", "description": "d", "x": {"nested": [1, 2.5, None]}},
        ]
    )
    facet = models.SchemaDatasetFacet.model_validate_json(wire)
    fields = facet.fields or []
    assert all(type(f) is models.SchemaDatasetFacetFields for f in [*fields, *(fields[0].fields or [])])
    assert fields[0].fields == [{"name": "b", "ordinal_position": 2}]
    assert facet.to_json().encode() == wire
    assert models.SchemaDatasetFacet.model_validate(json.loads(wire)) == facet
    reordered = _schema_facet([{"description": "d", "name": "c"}])
    assert json.loads(models.SchemaDatasetFacet.model_validate_json(reordered).to_json()) == json.loads(reordered)


def test_parsing_errors_name_the_record_field() -> None:
    for fields, path, rule in [
        ([{"name": "a"}, {"name": None}], "fields[1].name", "must be string"),
        ([{"name": "a", "type": None}], "fields[0].type", "must be string"),
        ([{"type": "INT"}], "fields[0].name", "required field missing"),
        ([{"name": "a", "fields": [{"name": 1.5}]}], "fields[0].fields[0].name", "must be string"),
    ]:
        with pytest.raises(olsdk.ValidationError) as caught:
            olsdk.parse_event(_event_with_schema(fields))
        found = [(p.path, p.rule) for p in caught.value.problems]
        expected = f"inputs[0].facets.schema.{path}"
        assert any(p == expected and r.startswith(rule) for p, r in found), found


def _event_with_schema(fields: list[object]) -> bytes:
    event = models.RunEvent(
        eventType=models.EventType.START,
        run=models.Run(runId="0191f3a4-7c55-7d2e-9a31-5be0c6a1d001"),
        job=models.Job(namespace="ns", name="job"),
        inputs=[models.InputDataset(namespace="ns", name="t")],
    )
    document = json.loads(event.to_json())
    document["inputs"][0]["facets"] = {"schema": json.loads(_schema_facet(fields))}
    return json.dumps(document).encode()


def test_a_record_given_to_a_model_is_held_as_a_checked_copy() -> None:
    field = models.SchemaDatasetFacetFields(name="id")
    facet = models.SchemaDatasetFacet(fields=[field, {"name": "from a dict"}])  # type: ignore[list-item]
    assert facet.fields is not None
    assert facet.fields[0] == field and facet.fields[0] is not field
    assert all(type(f) is models.SchemaDatasetFacetFields for f in facet.fields)
    # Held outside olsdk's models (a TypeAdapter), records are made at once.
    adapter = pydantic.TypeAdapter(list[models.SchemaDatasetFacetFields])
    held = adapter.validate_python([field, models.SchemaDatasetFacetFields(name="b", type=None)])
    assert [type(f) for f in held] == [models.SchemaDatasetFacetFields] * 2
    assert held == [{"name": "id"}, {"name": "b"}]
    with pytest.raises(olsdk.ValidationError) as caught:
        models.SchemaDatasetFacet(fields=[{"name": 3}])  # type: ignore[list-item]
    assert [p.path for p in caught.value.problems] == ["fields[0].name"]


def test_model_like_methods() -> None:
    cls = models.InputField
    transformation = models.InputFieldTransformation(type="DIRECT", subtype="IDENTITY", masking=False)
    field = cls(namespace="ns", name="t", field="a", transformations=[transformation])
    document = {
        "namespace": "ns",
        "name": "t",
        "field": "a",
        "transformations": [{"type": "DIRECT", "subtype": "IDENTITY", "masking": False}],
    }
    assert field.model_dump() == field.to_dict() == document
    assert json.loads(field.model_dump_json()) == json.loads(field.to_json()) == document
    assert cls.model_validate(document) == field
    assert type(cls.model_validate_json(json.dumps(document)).transformations[0]) is models.InputFieldTransformation  # type: ignore[index]
    for read in (cls.model_validate, lambda d: cls.model_validate_json(json.dumps(d))):
        with pytest.raises(olsdk.ValidationError) as caught:
            read({"namespace": "ns", "name": "t", "transformations": [{"type": 1}]})
        assert sorted((p.path, p.rule.split(";")[0]) for p in caught.value.problems) == [
            ("field", "required field missing"),
            ("transformations[0].type", "must be string"),
        ]
    assert list(cls.model_fields) == ["namespace", "name", "field", "transformations"]
    assert cls.model_fields["field"].is_required() and not cls.model_fields["transformations"].is_required()
    schema = cls.model_json_schema()
    assert schema["required"] == ["namespace", "name", "field"]
    assert schema["properties"]["name"]["description"] == "The input dataset name"
    shallow, deep = field.model_copy(), field.model_copy(deep=True)
    assert shallow == deep == field and type(deep) is cls
    assert shallow.transformations is field.transformations
    assert deep.transformations is not field.transformations
    assert repr(transformation) == "InputFieldTransformation(type='DIRECT', subtype='IDENTITY', masking=False)"


def test_records_pickle_and_copy_as_their_class() -> None:
    field = models.SchemaDatasetFacetFields(name="a", fields=[models.SchemaDatasetFacetFields(name="b")])
    for made in (pickle.loads(pickle.dumps(field)), copy.copy(field), copy.deepcopy(field)):
        assert made == field
        assert type(made) is models.SchemaDatasetFacetFields
        assert type((made.fields or [])[0]) is models.SchemaDatasetFacetFields


def test_fields_the_spec_deprecates_warn_when_read() -> None:
    entry = models.ColumnLineageDatasetFacetFields(inputFields=[], transformationType="IDENTITY")
    with pytest.warns(DeprecationWarning, match="transformationType"):
        assert entry.transformationType == "IDENTITY"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert entry.inputFields == []


def test_facet_json_schema_describes_its_records() -> None:
    schema = models.SchemaDatasetFacet.model_json_schema()
    defs = schema["$defs"]
    record = defs["SchemaDatasetFacetFields"]
    assert record["required"] == ["name"]
    assert set(record["properties"]) == {"name", "type", "description", "ordinal_position", "fields"}
    assert record["properties"]["ordinal_position"]["type"] == "integer"


def test_parsed_records_stay_dicts_until_first_read_then_are_records_in_place() -> None:
    wire = json.dumps(
        {
            **FACET,
            "fields": {
                "id": {
                    "inputFields": [
                        {"namespace": "n", "name": "t", "field": "a", "transformations": [{"type": "DIRECT"}]}
                    ]
                }
            },
        }
    )
    facet = models.ColumnLineageDatasetFacet.model_validate_json(wire)
    stored = facet.__dict__["fields"]
    assert type(stored["id"]) is dict  # what pydantic-core validated; not yet read
    entry = facet.fields["id"]
    assert type(entry) is models.ColumnLineageDatasetFacetFields
    assert facet.fields is stored and facet.fields["id"] is entry  # typed in place, once
    source = entry.inputFields[0]
    assert type(source) is models.InputField and source is entry.inputFields[0]
    assert type((source.transformations or [])[0]) is models.InputFieldTransformation
    assert facet.to_json() == wire.replace(" ", "")
    # A parsed event equals the same event built in Python, read or not.
    built = models.ColumnLineageDatasetFacet(
        producer=FACET["_producer"],
        schemaURL=FACET["_schemaURL"],
        fields={
            "id": models.ColumnLineageDatasetFacetFields(
                inputFields=[
                    models.InputField(
                        namespace="n",
                        name="t",
                        field="a",
                        transformations=[models.InputFieldTransformation(type="DIRECT")],
                    )
                ]
            )
        },
    )
    assert built == facet == models.ColumnLineageDatasetFacet.model_validate_json(wire)


def test_a_facet_class_of_ones_own_types_its_records_on_first_read() -> None:
    class LayoutDatasetFacet(models.DatasetFacet):  # as a custom facet class is
        columns: list[models.SchemaDatasetFacetFields] | None = None

    facet = LayoutDatasetFacet.model_validate_json(json.dumps({**FACET, "columns": [{"name": "a"}]}))
    assert type(facet.__dict__["columns"][0]) is dict
    assert type((facet.columns or [])[0]) is models.SchemaDatasetFacetFields


def test_records_outside_olsdk_models_are_made_at_once() -> None:
    class Holder(pydantic.BaseModel):  # a user's own model
        fields: list[models.SchemaDatasetFacetFields]

    held = Holder.model_validate_json('{"fields": [{"name": "a", "fields": [{"name": "b"}]}]}')
    assert type(held.__dict__["fields"][0]) is models.SchemaDatasetFacetFields
    assert type(held.fields[0]["fields"][0]) is models.SchemaDatasetFacetFields
    adapter = pydantic.TypeAdapter(list[models.InputFieldTransformation])
    assert type(adapter.validate_json('[{"type": "DIRECT"}]')[0]) is models.InputFieldTransformation


def test_a_field_taken_out_of_the_model_reads_as_before() -> None:
    facet = models.SchemaDatasetFacet.model_validate_json(_schema_facet([{"name": "a"}]))
    del facet.__dict__["fields"]  # as the lenient reader does for a value it keeps aside
    assert facet.fields is None
    facet.fields = [models.SchemaDatasetFacetFields(name="b")]
    assert facet.fields[0].name == "b" and facet.to_dict()["fields"] == [{"name": "b"}]
