"""Defining custom facets: errors at definition time, registration, typed parsing."""

from __future__ import annotations

import json
from typing import Any

import pytest

import olsdk
from olsdk._foundation import _registry
from olsdk.facets import (
    CustomDatasetFacet,
    CustomJobFacet,
    CustomRunFacet,
    FacetKeyConflict,
    key_of,
    register_facet,
    unregister_facet,
)
from olsdk.models import DeletedFacet, RunEvent, RunFacet, RunFacets
from tests.support.overlay import needs

BASE = "https://schemas.example.com/olfacets"
RUN_ID = "3b452093-782c-4ef2-9c0c-aafe2aa6f34d"


def run_event(run_facets: dict[str, Any]) -> dict[str, Any]:
    return {
        "eventType": "START",
        "eventTime": "2024-05-01T10:00:00Z",
        "producer": "https://example.com/producer",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": RUN_ID, "facets": run_facets},
        "job": {"namespace": "ns", "name": "job"},
    }


def stats_class() -> type[CustomRunFacet]:
    class MyCompanyStatisticsRunFacet(CustomRunFacet, prefix="myCompany", schema_base_url=BASE, version="1-0-0"):
        rows: int

    return MyCompanyStatisticsRunFacet


def test_definition_derives_key_and_schema_url_and_registers() -> None:
    cls = stats_class()
    assert cls.__olsdk_facet_key__ == "myCompany_statistics"
    assert key_of(cls) == "myCompany_statistics"
    assert cls.__olsdk_schema_url__ == (
        f"{BASE}/1-0-0/MyCompanyStatisticsRunFacet.json#/$defs/MyCompanyStatisticsRunFacet"
    )
    assert _registry.DEFAULT.lookup("run", "myCompany_statistics") is cls


def test_construction_fills_producer_and_schema_url() -> None:
    cls = stats_class()
    olsdk.set_default_producer("https://example.com/my-pipeline")
    try:
        facet = cls(rows=1)
    finally:
        olsdk.set_default_producer("https://github.com/olsdk/olsdk")
    assert facet.to_dict() == {
        "_producer": "https://example.com/my-pipeline",
        "_schemaURL": cls.__olsdk_schema_url__,
        "rows": 1,
    }


def test_parse_event_returns_the_registered_class() -> None:
    cls = stats_class()
    facet = cls(rows=7)
    event = olsdk.parse_event(run_event({"myCompany_statistics": facet.to_dict()}))
    assert isinstance(event, RunEvent) and event.run.facets is not None
    parsed = event.run.facets["myCompany_statistics"]
    assert type(parsed) is cls
    assert parsed == facet


def test_a_registered_facet_built_in_python_stays_its_object_in_a_facet_map() -> None:
    cls = stats_class()
    facet = cls(rows=7)
    facets = RunFacets(myCompany_statistics=facet)
    assert facets["myCompany_statistics"] is facet
    assert RunFacets.model_validate({"myCompany_statistics": facet})["myCompany_statistics"] is facet


def test_unregistered_keys_stay_plain_data() -> None:
    data = {"_producer": "https://x.org", "_schemaURL": "https://x.org/s.json", "n": [1, {"a": None}]}
    document = run_event({"someoneElse_stats": data})
    event = olsdk.parse_event(document)
    assert isinstance(event, RunEvent) and event.run.facets is not None
    assert event.run.facets["someoneElse_stats"] == data
    assert json.loads(olsdk.to_json(event)) == document


def test_key_registered_after_definition_is_typed_only_while_registered() -> None:
    cls = stats_class()
    document = run_event({"myCompany_statistics": cls(rows=1).to_dict()})
    unregister_facet(cls)
    event = olsdk.parse_event(document)
    assert isinstance(event, RunEvent) and event.run.facets is not None
    assert isinstance(event.run.facets["myCompany_statistics"], dict)
    register_facet(cls)
    event = olsdk.parse_event(document)
    assert isinstance(event, RunEvent) and event.run.facets is not None
    assert isinstance(event.run.facets["myCompany_statistics"], cls)


def test_deleted_marker_parses_as_deletion_even_for_a_registered_key() -> None:
    stats_class()
    marker = {"_producer": "https://x.org", "_schemaURL": "https://x.org/s.json", "_deleted": True}
    document = run_event({"myCompany_statistics": marker, "unknown_key": marker})
    event = olsdk.parse_event(document)
    assert isinstance(event, RunEvent) and event.run.facets is not None
    assert isinstance(event.run.facets["myCompany_statistics"], DeletedFacet)
    assert isinstance(event.run.facets["unknown_key"], DeletedFacet)
    assert json.loads(olsdk.to_json(event)) == document


def test_a_registered_key_with_a_bad_payload_is_a_clear_error() -> None:
    stats_class()
    bad = {"_producer": "https://x.org", "_schemaURL": "https://x.org/s.json", "rows": "many"}
    with pytest.raises(olsdk.ValidationError, match="myCompany_statistics"):
        olsdk.parse_event(run_event({"myCompany_statistics": bad}))


# --- errors at definition time -------------------------------------------------------


def test_bad_name_is_a_type_error_naming_the_right_name() -> None:
    with pytest.raises(TypeError, match="should be named 'MyCompanyStatisticsRunFacet'"):

        class StatisticsRunFacet(CustomRunFacet, prefix="myCompany", schema_base_url=BASE, version="1-0-0"):
            rows: int


def test_wrong_entity_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="reads as a job facet"):

        class MyCompanyStatisticsJobFacet(CustomRunFacet, prefix="myCompany", schema_base_url=BASE, version="1-0-0"):
            rows: int


def test_missing_prefix_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="has no prefix"):

        class MyCompanyStatisticsRunFacet(CustomRunFacet, schema_base_url=BASE, version="1-0-0"):
            rows: int


def test_missing_version_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="needs version"):

        class MyCompanyStatisticsRunFacet(CustomRunFacet, prefix="myCompany", schema_base_url=BASE):
            rows: int


def test_bad_version_and_prefix_are_type_errors() -> None:
    with pytest.raises(TypeError, match="MAJOR-MINOR-PATCH"):

        class MyCompanyAJobFacet(CustomJobFacet, prefix="myCompany", schema_base_url=BASE, version="1.0"):
            pass

    with pytest.raises(TypeError, match="did you mean prefix='myCompany'"):

        class MyCompanyBJobFacet(CustomJobFacet, prefix="MyCompany", schema_base_url=BASE, version="1-0-0"):
            pass


def test_unknown_class_keyword_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="unknown class keyword"):

        class MyCompanyStatisticsRunFacet(CustomRunFacet, prefx="myCompany"):  # type: ignore[call-arg]
            rows: int


def test_duplicate_key_is_an_error_not_an_overwrite() -> None:
    first = stats_class()

    with pytest.raises(FacetKeyConflict, match="myCompany_statistics"):

        class MyCompanyStatisticsRunFacet(CustomRunFacet, prefix="myCompany", schema_base_url=BASE, version="2-0-0"):
            rows: int
            bytes: int

    with pytest.raises(FacetKeyConflict, match="already registered"):

        class MyCompanyRowsRunFacet(
            CustomRunFacet,
            prefix="myCompany",
            schema_base_url=BASE,
            version="1-0-0",
            key="myCompany_statistics",
        ):
            rows: int

    assert _registry.DEFAULT.lookup("run", "myCompany_statistics") is first


def test_same_class_defined_again_is_not_a_conflict() -> None:
    # Re-running a module (a notebook cell, importlib.reload) recreates the class.
    assert stats_class() is not stats_class()


@needs("GcpDataprocRunFacet")
def test_a_key_of_the_spec_cannot_be_claimed_by_its_name() -> None:
    with pytest.raises(FacetKeyConflict, match="spec"):

        class GcpDataprocRunFacet(CustomRunFacet, prefix="gcp", schema_base_url=BASE, version="1-0-0"):
            appId: str


def test_a_key_of_the_spec_cannot_be_claimed() -> None:
    with pytest.raises(FacetKeyConflict, match="spec"):

        class MyCompanyParentRunFacet(
            CustomRunFacet, prefix="myCompany", schema_base_url=BASE, version="1-0-0", key="parent"
        ):
            pass


def test_same_key_for_another_entity_is_fine() -> None:
    class MyCompanyTagsJobFacet(CustomJobFacet, prefix="myCompany", schema_base_url=BASE, version="1-0-0"):
        tags: list[str]

    class MyCompanyTagsDatasetFacet(CustomDatasetFacet, prefix="myCompany", schema_base_url=BASE, version="1-0-0"):
        tags: list[str]

    assert key_of(MyCompanyTagsJobFacet) == key_of(MyCompanyTagsDatasetFacet) == "myCompany_tags"


# --- bases, subclasses, explicit keys ---------------------------------------------------


def test_abstract_base_carries_options_and_is_not_registered() -> None:
    before = dict(_registry.DEFAULT.registered())

    class MyCompanyRunFacetBase(CustomRunFacet, prefix="myCompany", schema_base_url=BASE, abstract=True):
        pass

    assert _registry.DEFAULT.registered() == before
    with pytest.raises(TypeError, match="abstract facet base"):
        MyCompanyRunFacetBase()
    with pytest.raises(TypeError, match="abstract facet base"):
        CustomRunFacet()

    class MyCompanyTimingRunFacet(MyCompanyRunFacetBase, version="3-0-1"):
        seconds: float

    assert key_of(MyCompanyTimingRunFacet) == "myCompany_timing"
    assert MyCompanyTimingRunFacet.__olsdk_schema_url__.startswith(f"{BASE}/3-0-1/")
    assert MyCompanyTimingRunFacet(seconds=1.5).seconds == 1.5


def test_subclass_of_a_custom_facet_is_a_new_facet() -> None:
    parent = stats_class()

    class MyCompanyDetailedStatisticsRunFacet(parent):  # type: ignore[valid-type, misc]
        bytes: int

    assert key_of(MyCompanyDetailedStatisticsRunFacet) == "myCompany_detailedStatistics"
    assert "/1-0-0/MyCompanyDetailedStatisticsRunFacet.json" in (
        MyCompanyDetailedStatisticsRunFacet.__olsdk_schema_url__
    )
    assert _registry.DEFAULT.lookup("run", "myCompany_statistics") is parent
    assert _registry.DEFAULT.lookup("run", "myCompany_detailedStatistics") is MyCompanyDetailedStatisticsRunFacet

    with pytest.raises(TypeError, match="should be named 'MyCompanyDetailedRunFacet'"):

        class DetailedRunFacet(parent):  # type: ignore[valid-type, misc]
            pass


def test_explicit_key_override_and_pydantic_config_keywords() -> None:
    class MyCompanyStatisticsRunFacet(
        CustomRunFacet,
        prefix="myCompany",
        schema_base_url=BASE,
        version="1-0-0",
        key="myCompany.stats",
        frozen=True,
    ):
        rows: int

    assert key_of(MyCompanyStatisticsRunFacet) == "myCompany.stats"
    assert MyCompanyStatisticsRunFacet.model_config.get("frozen") is True


def test_register_facet_for_a_class_made_elsewhere() -> None:
    class SparkExceptionRunFacet(RunFacet):  # outside the naming convention, like the Java agent's
        message: str

    with pytest.raises(TypeError, match="pass key="):
        register_facet(SparkExceptionRunFacet)
    with pytest.raises(TypeError, match="is a run facet"):
        register_facet(SparkExceptionRunFacet, key="acme.exception", entity="dataset")
    url = "https://example.com/spark/1-0-0/SparkExceptionRunFacet.json#/$defs/SparkExceptionRunFacet"
    assert register_facet(SparkExceptionRunFacet, key="acme.exception", schema_url=url) is SparkExceptionRunFacet
    assert key_of(SparkExceptionRunFacet) == "acme.exception"

    facet = SparkExceptionRunFacet(message="boom")
    assert facet.schemaURL == url
    event = olsdk.parse_event(run_event({"acme.exception": facet.to_dict()}))
    assert isinstance(event, RunEvent) and event.run.facets is not None
    assert event.run.facets["acme.exception"] == facet


def test_key_of_an_unregistered_class_says_how_to_register_it() -> None:
    class SomeRunFacet(RunFacet):
        pass

    with pytest.raises(LookupError, match="register_facet"):
        key_of(SomeRunFacet)


def test_facet_maps_run_python_only_while_a_custom_facet_is_registered() -> None:
    # pydantic-core calls `__olsdk_post_init__` on every facet map it builds: the C
    # no-op `id` while no custom facet is registered for the entity (parsing runs no
    # Python), the hook that types registered keys while one is.
    cls = stats_class()
    assert RunFacets.__olsdk_post_init__ is not id
    document = run_event({"myCompany_statistics": cls(rows=3).to_dict()})
    assert isinstance(olsdk.parse_event(document).run.facets["myCompany_statistics"], cls)  # type: ignore[union-attr]
    unregister_facet(cls)
    assert (RunFacets.__olsdk_post_init__ is id) is not _registry.any_custom("run")
    if not _registry.any_custom("run"):
        event = olsdk.parse_event(document)
        assert type(event.run.facets["myCompany_statistics"]) is dict  # type: ignore[union-attr]
