"""The demo pipeline (``examples.spark_demo``): its events validate against the spec."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import olsdk
from tests.spark.conftest import Collector

pytestmark = pytest.mark.spark


def test_demo_pipeline_events_validate(spark: Any, spark_dirs: Path, lineage: Collector) -> None:
    from examples.spark_demo import generate_data, run_pipeline, summarize
    from tests.support.spec_schema import event_validator

    base = spark_dirs / "demo"
    generate_data(base / "input", customers=20, orders=100)
    lineage.take()
    result = run_pipeline(spark, base)
    assert "refusing to export" in result["failed_step"]
    events = lineage.take()
    for event in events:
        event_validator().validate(json.loads(olsdk.to_json(event)))
    summary = summarize([olsdk.parse_event(olsdk.to_json(e)) for e in events])
    assert (len(summary.runs), len(summary.failed_runs)) == (3, 1)
    assert len(summary.datasets) == 5
    assert {e.eventType for e in events} == {"START", "COMPLETE", "FAIL"}
