"""DatasetId -> InputDataset/OutputDataset, and the parent run facet, on the generated models."""

import uuid

import pytest

from olsdk import models, naming

PARENT_RUN = "0190a2c4-95f5-7c1e-8a57-2d7e0a3f1b11"
ROOT_RUN = "0190a2c4-95f5-7c1e-8a57-2d7e0a3f1b12"


def _orders() -> naming.DatasetId:
    return naming.postgres(host="db", database="shop", schema="public", table="orders")


def test_as_input_carries_the_identifier_and_facets_by_key() -> None:
    schema = models.SchemaDatasetFacet(
        fields=[models.SchemaDatasetFacetFields(name="id", type="int")]
    )
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


def test_parent_facet_with_root_inherits_the_parent_namespace() -> None:
    facet = naming.parent(
        job_namespace="airflow-prod",
        job_name="orders_etl.count_orders",
        run_id=PARENT_RUN,
        root_job_name="orders_etl",
        root_run_id=uuid.UUID(ROOT_RUN),
    )
    assert isinstance(facet, models.ParentRunFacet)
    dumped = facet.to_dict()
    assert dumped["run"] == {"runId": PARENT_RUN}
    assert dumped["job"] == {"namespace": "airflow-prod", "name": "orders_etl.count_orders"}
    assert dumped["root"] == {
        "run": {"runId": ROOT_RUN},
        "job": {"namespace": "airflow-prod", "name": "orders_etl"},
    }
    assert dumped["_schemaURL"].endswith("ParentRunFacet.json#/$defs/ParentRunFacet")


def test_parent_facet_root_namespace_can_differ_and_root_is_optional() -> None:
    facet = naming.parent(
        job_namespace="spark",
        job_name="app",
        run_id=PARENT_RUN,
        root_job_name="dag",
        root_run_id=ROOT_RUN,
        root_job_namespace="airflow",
    )
    assert facet.to_dict()["root"]["job"]["namespace"] == "airflow"
    assert "root" not in naming.parent(job_namespace="n", job_name="j", run_id=PARENT_RUN).to_dict()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"run_id": "not-a-uuid"}, "parent: run_id must be a UUID"),
        ({"job_name": ""}, "parent: job_name must not be empty"),
        ({"job_namespace": " "}, "parent: job_namespace must not be empty"),
        ({"root_job_name": "dag"}, "must be given together"),
        ({"root_job_namespace": "x"}, "needs root_job_name and root_run_id"),
        ({"root_job_name": "dag", "root_run_id": "nope"}, "parent: root_run_id must be a UUID"),
    ],
)
def test_parent_facet_rejects_bad_input(kwargs: dict[str, str], message: str) -> None:
    base = {"job_namespace": "n", "job_name": "j", "run_id": PARENT_RUN}
    with pytest.raises(ValueError, match=message):
        naming.parent(**{**base, **kwargs})  # type: ignore[arg-type]
