"""What a custom facet's JSON holds: every value set explicitly, never an unset field."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import olsdk
from olsdk.facets import CustomDatasetFacet, attach
from olsdk.models import EventType, InputDataset, Job, Run, RunEvent

BASE = "https://schemas.example.com/olfacets"
RUN_ID = "3b452093-782c-4ef2-9c0c-aafe2aa6f34d"


def quality_class() -> Any:
    class AcmeQualityDatasetFacet(CustomDatasetFacet, prefix="acme", schema_base_url=BASE, version="1-0-0"):
        checksPassed: bool = True
        retries: int = 3
        owner: str | None = None
        schedule: str = "nightly"

    return AcmeQualityDatasetFacet


def event_with(facet: CustomDatasetFacet) -> RunEvent:
    return RunEvent(
        eventType=EventType.COMPLETE,
        eventTime="2024-05-01T10:00:00Z",
        run=Run(runId=RUN_ID),
        job=Job(namespace="ns", name="job"),
        inputs=[attach(InputDataset(namespace="ns", name="table"), facet)],
    )


def facet_json(event_json: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(event_json)["inputs"][0]["facets"]["acme_quality"]
    return doc


def test_values_equal_to_their_default_are_written_when_set() -> None:
    cls = quality_class()
    facet = cls(checksPassed=True, retries=3, schedule="nightly")
    written = facet_json(olsdk.to_json(event_with(facet)))
    assert written["checksPassed"] is True and written["retries"] == 3 and written["schedule"] == "nightly"
    assert "owner" not in written
    assert facet.to_dict()["checksPassed"] is True
    assert json.loads(facet.to_json())["checksPassed"] is True
    # A value other than the default was always written; it still is.
    assert facet_json(olsdk.to_json(event_with(cls(checksPassed=False))))["checksPassed"] is False


def test_unset_fields_and_none_are_left_out() -> None:
    cls = quality_class()
    written = facet_json(olsdk.to_json(event_with(cls(owner=None))))
    assert set(written) == {"_producer", "_schemaURL"}
    # Explicit exclusions still win over "set explicitly".
    assert "checksPassed" not in cls(checksPassed=True).model_dump(exclude={"checksPassed"}, exclude_defaults=True)


def test_parse_back_keeps_the_set_value_and_dumps_it_again() -> None:
    cls = quality_class()
    text = olsdk.to_json(event_with(cls(checksPassed=True)))
    parsed = olsdk.parse_event(text)
    assert isinstance(parsed, RunEvent) and parsed.inputs and parsed.inputs[0].facets is not None
    facet = parsed.inputs[0].facets["acme_quality"]
    assert isinstance(facet, cls) and facet.checksPassed is True
    assert olsdk.to_json(parsed) == text


CONSUMER = """
import json, sys
import olsdk
event = olsdk.parse_event(sys.stdin.read())
print(json.dumps(olsdk.to_dict(event)["inputs"][0]["facets"]["acme_quality"]))
"""


def test_a_consumer_without_the_class_sees_the_value() -> None:
    text = olsdk.to_json(event_with(quality_class()(checksPassed=True)))
    proc = subprocess.run(
        [sys.executable, "-c", CONSUMER], input=text, capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout)
    assert seen["checksPassed"] is True
