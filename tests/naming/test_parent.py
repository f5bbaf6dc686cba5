"""naming._parent: the one parent-facet builder, and the root of a chain read back.

These run on whichever models are imported: the repository's, or an older release's under
`make test-spec-<release>`, whose ParentRunFacet may have no `root` (before 1.31.0). There
the documented degradation is asserted: the root is checked, left out, and one warning says so.
"""

import json
import logging
import uuid

import pytest

from olsdk import ValidationError, models, naming, parse_event
from olsdk._builders._build import RunRef, parent_facet
from olsdk._builders.naming import _parent
from tests.support.overlay import forget_release_warnings, parent_root_in_models

PARENT_RUN = "0190a2c4-95f5-7c1e-8a57-2d7e0a3f1b11"
ROOT_RUN = "0190a2c4-95f5-7c1e-8a57-2d7e0a3f1b12"
ROOT_IN_MODELS = parent_root_in_models()


@pytest.fixture
def naming_log(caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> pytest.LogCaptureFixture:
    """Captures the `olsdk.naming` logger, with the warn-once flag reset for the test."""
    forget_release_warnings(monkeypatch)
    caplog.set_level(logging.WARNING, logger="olsdk.naming")
    return caplog


def _naming_records(log: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [record for record in log.records if record.name == "olsdk.naming"]


def _with_root(**extra: str) -> models.ParentRunFacet:
    return naming.parent(
        job_namespace="airflow-prod",
        job_name="orders_etl.count_orders",
        run_id=PARENT_RUN,
        root_job_name="orders_etl",
        root_run_id=uuid.UUID(ROOT_RUN),
        **extra,
    )


def test_parent_facet_with_root_inherits_the_parent_namespace() -> None:
    facet = _with_root()
    assert isinstance(facet, models.ParentRunFacet)
    dumped = facet.to_dict()
    assert dumped["run"] == {"runId": PARENT_RUN}
    assert dumped["job"] == {"namespace": "airflow-prod", "name": "orders_etl.count_orders"}
    if ROOT_IN_MODELS:
        assert dumped["root"] == {
            "run": {"runId": ROOT_RUN},
            "job": {"namespace": "airflow-prod", "name": "orders_etl"},
        }
    else:
        assert "root" not in dumped  # dropped, not smuggled in as extra data
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
    if ROOT_IN_MODELS:
        assert facet.to_dict()["root"]["job"]["namespace"] == "airflow"
    else:
        assert "root" not in facet.to_dict()
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
    # The root is checked on every spec, also where it is then dropped.
    base = {"job_namespace": "n", "job_name": "j", "run_id": PARENT_RUN}
    with pytest.raises(ValueError, match=message):
        naming.parent(**{**base, **kwargs})  # type: ignore[arg-type]


def test_a_root_the_models_cannot_hold_is_dropped_with_one_warning(naming_log: pytest.LogCaptureFixture) -> None:
    for _ in range(3):
        _with_root()
    mine = _naming_records(naming_log)
    if ROOT_IN_MODELS:
        assert mine == []
    else:
        [warning] = mine
        assert warning.levelno == logging.WARNING
        message = warning.getMessage()
        assert message.startswith("parent: the root run of the parent facet: left out: ")
        assert "ParentRunFacet of these models" in message and "has no 'root' field" in message
        assert models.SPEC_RELEASE in message


def test_no_warning_when_no_root_is_asked_for(naming_log: pytest.LogCaptureFixture) -> None:
    naming.parent(job_namespace="n", job_name="j", run_id=PARENT_RUN)
    assert _naming_records(naming_log) == []


def test_producer_is_the_facets_producer() -> None:
    facet = _with_root(producer="https://example.com/scheduler/2.0")
    assert facet.to_dict()["_producer"] == "https://example.com/scheduler/2.0"
    assert naming.parent(job_namespace="n", job_name="j", run_id=PARENT_RUN).to_dict()["_producer"]


def test_chain_root_is_the_root_else_the_parent() -> None:
    with_root = _with_root()
    expected_top = ("airflow-prod", "orders_etl", ROOT_RUN) if ROOT_IN_MODELS else None
    parent_itself = ("airflow-prod", "orders_etl.count_orders", PARENT_RUN)
    assert _parent.chain_root(with_root) == (expected_top or parent_itself)
    without = naming.parent(job_namespace="n", job_name="j", run_id=PARENT_RUN)
    assert _parent.chain_root(without) == ("n", "j", PARENT_RUN)


def _parsed_parent(root: object) -> models.ParentRunFacet:
    event = {
        "eventType": "START",
        "eventTime": "2025-01-01T00:00:00Z",
        "producer": "https://example.com/p",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {
            "runId": "0190a2c4-95f5-7c1e-8a57-2d7e0a3f1b13",
            "facets": {
                "parent": {
                    "_producer": "https://example.com/p",
                    "_schemaURL": "https://openlineage.io/spec/facets/1-1-0/ParentRunFacet.json#/$defs/ParentRunFacet",
                    "run": {"runId": PARENT_RUN},
                    "job": {"namespace": "n", "name": "task"},
                    "root": root,
                }
            },
        },
        "job": {"namespace": "n", "name": "child"},
    }
    parsed = parse_event(json.dumps(event))
    assert isinstance(parsed, models.RunEvent) and parsed.run.facets is not None
    facet = parsed.run.facets.parent
    assert isinstance(facet, models.ParentRunFacet)
    return facet


def test_chain_root_reads_a_parsed_root_on_every_spec() -> None:
    # Models without the field keep the root as extra data; the chain still reaches it.
    facet = _parsed_parent({"run": {"runId": ROOT_RUN}, "job": {"namespace": "airflow", "name": "dag"}})
    assert _parent.chain_root(facet) == ("airflow", "dag", ROOT_RUN)
    if not ROOT_IN_MODELS:
        assert facet.model_extra is not None and facet.model_extra["root"]["job"]["name"] == "dag"


def test_an_incomplete_root_is_rejected_or_passed_over() -> None:
    incomplete = {"run": {"runId": ROOT_RUN}}
    if ROOT_IN_MODELS:
        with pytest.raises(ValidationError, match="root"):
            _parsed_parent(incomplete)
    else:
        # Kept as data the models do not check: the chain falls back to the parent.
        assert _parent.chain_root(_parsed_parent(incomplete)) == ("n", "task", PARENT_RUN)


def test_build_parent_facet_comes_from_naming_parent() -> None:
    parent, root = RunRef("spark", "app", PARENT_RUN), RunRef("airflow", "dag", ROOT_RUN)
    built = parent_facet(parent, root, producer="https://example.com/p")
    same = naming.parent(
        job_namespace="spark",
        job_name="app",
        run_id=PARENT_RUN,
        root_job_namespace="airflow",
        root_job_name="dag",
        root_run_id=ROOT_RUN,
        producer="https://example.com/p",
    )
    assert built.to_dict() == same.to_dict()
    # Without a root the parent is its own root, as the Java agent does.
    assert _parent.chain_root(parent_facet(parent)) == ("spark", "app", PARENT_RUN)
