"""naming._identifier: DatasetId, and DatasetId -> InputDataset/OutputDataset on the generated models."""

import pytest

from olsdk import models, naming
from olsdk.naming import DatasetId


def test_dataset_id_rejects_empty_parts_and_is_frozen() -> None:
    with pytest.raises(ValueError, match="namespace"):
        DatasetId("", "x")
    identifier = DatasetId("file", "/x")
    with pytest.raises(AttributeError):
        identifier.name = "/y"  # type: ignore[misc]
    assert str(identifier) == "file:/x"


def _orders() -> naming.DatasetId:
    return naming.postgres(host="db", database="shop", schema="public", table="orders")


def test_as_input_carries_the_identifier_and_facets_by_key() -> None:
    # The field as JSON data: its class is SchemaDatasetFacetField before release 1.12.0.
    schema = models.SchemaDatasetFacet(fields=[{"name": "id", "type": "int"}])
    dataset = _orders().as_input(schema=schema)
    assert isinstance(dataset, models.InputDataset)
    assert (dataset.namespace, dataset.name) == ("postgres://db:5432", "shop.public.orders")
    assert dataset.facets is not None
    assert dataset.facets.schema is schema  # typed container: the spec key is a field
    dumped = dataset.to_dict()
    assert dumped["facets"]["schema"]["fields"] == [{"name": "id", "type": "int"}]
    assert dumped["facets"]["schema"]["_producer"]


def test_as_output_without_facets_dumps_only_the_identifier() -> None:
    dataset = naming.s3(bucket_name="b", object_key="k").as_output()
    assert isinstance(dataset, models.OutputDataset)
    assert dataset.to_dict() == {"namespace": "s3://b", "name": "k"}


def test_as_input_rejects_facets_the_models_reject() -> None:
    with pytest.raises(ValueError, match="_producer"):
        _orders().as_input(myco_custom={"a": 1})
