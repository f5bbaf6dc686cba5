"""Facet registries as objects: the readers are given one, and no import changes another's verdicts."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

import olsdk
from olsdk._foundation import _registry
from olsdk.facets import (
    FacetKeyConflict,
    FacetRegistry,
    attach,
    default_registry,
    key_of,
    register_facet,
    unregister_facet,
)
from olsdk.models import Run, RunFacet, RunFacets
from tests.facets.test_base import run_event

SCHEMA_URL = "https://schemas.example.com/olfacets/1-0-0/QualityRunFacet.json#/$defs/QualityRunFacet"


class QualityRunFacet(RunFacet):
    """A facet class made by hand (no custom facet base): registered explicitly."""

    score: int


def quality(score: Any) -> dict[str, Any]:
    return {"_producer": "https://example.com/p", "_schemaURL": SCHEMA_URL, "score": score}


def test_a_registry_types_its_keys_for_the_readers_given_it_only() -> None:
    registry = FacetRegistry(parent=default_registry)
    registry.register_facet(QualityRunFacet, key="acme.quality")
    document = run_event({"acme.quality": quality(3)})

    typed = olsdk.parse_event(document, registry=registry).run.facets["acme.quality"]  # type: ignore[union-attr]
    assert isinstance(typed, QualityRunFacet) and typed.score == 3
    # The default registry (no registry given) does not know the key: plain data.
    assert type(olsdk.parse_event(document).run.facets["acme.quality"]) is dict  # type: ignore[union-attr]
    # Tolerant reading and JSON text take it too.
    lenient = olsdk.parse_event(olsdk.to_json(olsdk.parse_event(document)), strict=False, registry=registry)
    assert isinstance(lenient.run.facets["acme.quality"], QualityRunFacet)  # type: ignore[union-attr]

    wrong = run_event({"acme.quality": quality("high")})
    assert olsdk.validate_event(wrong) == []
    problems = olsdk.validate_event(wrong, registry=registry)
    assert [p.path for p in problems] == ["run.facets.acme.quality.score"]
    with pytest.raises(olsdk.ValidationError, match=r"acme\.quality"):
        olsdk.parse_event(wrong, registry=registry)
    olsdk.parse_event(wrong)  # the default verdict is unchanged

    registry.unregister_facet(QualityRunFacet)
    assert type(olsdk.parse_event(document, registry=registry).run.facets["acme.quality"]) is dict  # type: ignore[union-attr]


def test_a_registry_holds_its_parents_facets_and_refuses_their_keys() -> None:
    registry = FacetRegistry(parent=default_registry)
    register_facet(QualityRunFacet, key="acme.quality")  # into the default registry
    try:
        assert registry.lookup("run", "acme.quality") is QualityRunFacet
        assert FacetRegistry().lookup("run", "acme.quality") is None  # no parent: its own only

        class OtherRunFacet(RunFacet):
            pass

        with pytest.raises(FacetKeyConflict, match="already registered"):
            registry.register_facet(OtherRunFacet, key="acme.quality")
        with pytest.raises(FacetKeyConflict, match="belongs to the spec"):
            registry.register_facet(OtherRunFacet, key="parent")
        with pytest.raises(TypeError, match="pass key="):
            registry.register_facet(OtherRunFacet)
    finally:
        unregister_facet(QualityRunFacet)
    assert registry.lookup("run", "acme.quality") is None


def test_register_facet_takes_a_registry() -> None:
    registry = FacetRegistry()
    register_facet(QualityRunFacet, key="acme.quality", registry=registry)
    assert registry.lookup("run", "acme.quality") is QualityRunFacet
    assert default_registry.lookup("run", "acme.quality") is None
    # The key is the class's, whichever registry holds it: attach finds it.
    assert key_of(QualityRunFacet) == "acme.quality"
    run = attach(Run(runId="3b452093-782c-4ef2-9c0c-aafe2aa6f34d"), QualityRunFacet(score=1))
    assert list(run.facets or {}) == ["acme.quality"]
    unregister_facet(QualityRunFacet, registry=registry)
    with pytest.raises(LookupError, match="is not registered"):
        key_of(QualityRunFacet)
    assert registry.custom() == {}
    # When no live registry holds a custom run facet (another test's or the Spark
    # integration's may), facet maps run no Python again.
    if not _registry.any_custom("run"):
        assert RunFacets.__olsdk_post_init__ is id


def test_importing_the_spark_integration_changes_no_verdict_of_the_default_registry() -> None:
    probe = (
        "import olsdk, olsdk.spark, olsdk.spark.agent_facets as a; "
        "from olsdk.facets import default_registry as d; "
        "print(sorted(d.custom()), sorted(k for _, k in a.REGISTRY.custom())[:2])"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[] ['environment-properties', 'spark.exception']"
