"""Event files on Spark: validation with file, line and every problem; valid events with a
timestamp ``eventTime``; custom facets checked in the workers; edges of valid events only."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

import olsdk
from tests.spark.conftest import Collector

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def event_file(spark: Any, spark_dirs: Path, lineage: Collector) -> tuple[Path, int, list[str]]:
    """NDJSON with real listener events plus broken lines (and a blank one) at known lines."""
    base = spark_dirs / "events"
    base.mkdir(exist_ok=True)
    spark.range(5).write.mode("overwrite").parquet(str(base / "src"))
    spark.read.parquet(str(base / "src")).write.mode("overwrite").json(str(base / "dst"))
    events = [olsdk.to_json(e) for e in lineage.take()]
    good = json.loads(events[-1])
    bad_type = {**good, "eventType": "EXPLODED"}
    no_run_id = {**good, "run": {"facets": {}}}
    lines = [*events, json.dumps(bad_type), json.dumps(no_run_id), "{not json", ""]
    path = base / "events.ndjson"
    path.write_text("\n".join(lines))
    return path, len(events), lines


def test_validate_events(spark: Any, event_file: tuple[Path, int, list[str]]) -> None:
    from olsdk.spark import validate_events

    path, good, lines = event_file
    result = validate_events(spark, str(path))
    assert (result.total, result.valid_count, result.invalid_count) == (good + 3, good, 3)
    invalid = {r["line"]: r for r in result.invalid.collect()}
    assert sorted(invalid) == [good + 1, good + 2, good + 3]  # 1-based line numbers
    bad_type, no_run, not_json = (invalid[good + i] for i in (1, 2, 3))
    assert bad_type["file"].endswith("events.ndjson")
    assert bad_type["run_id"] == json.loads(lines[good])["run"]["runId"] and bad_type["event_type"] == "EXPLODED"
    assert [p["path"] for p in bad_type["problems"]] == ["eventType"]
    assert no_run["run_id"] is None and any(p["path"] == "run.runId" for p in no_run["problems"])
    assert not_json["run_id"] is None and "JSON" in not_json["problems"][0]["rule"]
    report = result.report()
    assert "3 invalid" in str(report)
    assert {m.split(":")[0] for m, _ in report.errors} >= {"eventType", "run.runId"}


@pytest.mark.parametrize("reader", ["python", "jvm"])
def test_line_numbers_across_splits(spark: Any, spark_dirs: Path, lineage: Collector, reader: str) -> None:
    """Several files, each read in several splits (by the workers, or by Spark): the line
    numbers stay exact, and the valid events are the others."""
    from olsdk.spark import validate_events

    base = spark_dirs / f"split_events_{reader}"
    base.mkdir(exist_ok=True)
    good = olsdk.to_json(lineage.events[-1])  # the application run's START, at least
    record = json.loads(good)
    expected: set[tuple[str, int]] = set()
    for f in range(2):
        lines = []
        for i in range(600):
            if i % 97 == 5:
                lines.append(json.dumps({**record, "eventType": f"BAD{i}"}))
                expected.add((f"part{f}.ndjson", i + 1))
            else:
                lines.append(good)
        (base / f"part{f}.ndjson").write_text("\n".join(lines) + "\n")
    key = "spark.sql.files.maxPartitionBytes"
    spark.conf.set(key, str(64 * 1024))  # many splits per file
    try:
        result = validate_events(spark, str(base), reader=reader, split_bytes=256 * 1024)
        got = {(r["file"].rsplit("/", 1)[-1], r["line"]) for r in result.invalid.collect()}
        valid = {(r["_file"].rsplit("/", 1)[-1], r["_line"]) for r in result.valid.select("_file", "_line").collect()}
    finally:
        spark.conf.unset(key)
    assert got == expected
    assert result.total == 1200
    everything = {(f"part{f}.ndjson", line) for f in range(2) for line in range(1, 601)}
    assert valid == everything - expected


def test_valid_events_and_edges(spark: Any, event_file: tuple[Path, int, list[str]]) -> None:
    from pyspark.sql import functions as F
    from pyspark.sql.types import TimestampType

    from olsdk.spark import lineage_edges, read_events, validate_events

    path, good, _ = event_file
    valid = validate_events(spark, str(path)).valid.cache()
    assert valid.count() == good
    assert isinstance(valid.schema["eventTime"].dataType, TimestampType)
    assert sorted(r["_line"] for r in valid.select("_line").collect()) == list(range(1, good + 1))
    row = valid.where(F.col("eventType") == "COMPLETE").where(F.size("outputs") > 0).first()
    stats = json.loads(row["outputs"][0]["outputFacets"]["outputStatistics"])
    assert stats["rowCount"] == 5
    parent = json.loads(row["run"]["facets"]["parent"])
    assert parent["job"]["name"] == "olsdk_spark_tests"

    everything = read_events(spark, str(path)).cache()
    assert everything.where(F.col("_corrupt_record").isNotNull()).count() == 1
    edges = lineage_edges(everything)
    assert {tuple(r) for r in edges.select("direction", "dataset_name").collect()} >= {
        ("input", str(path.parent / "src")),
        ("output", str(path.parent / "dst")),
    }
    # the EXPLODED event's edges are left out by default; it names the same datasets,
    # so compare by job rows: the edges of valid events only equal those of everything
    assert edges.count() == lineage_edges(valid).count()
    assert lineage_edges(everything, include_invalid=True).count() >= edges.count()
    everything.unpersist()
    valid.unpersist()


def test_custom_facets_checked_in_the_workers(spark: Any, tmp_path: Path, lineage: Collector) -> None:
    """A custom facet module shipped to the workers: a facet breaking it is reported."""
    from olsdk.spark import validate_events

    module = tmp_path / "olsdk_eventlog_facets.py"
    module.write_text(
        textwrap.dedent(
            """
            from olsdk.facets import CustomRunFacet

            class AcmeQualityRunFacet(
                CustomRunFacet, prefix="acme", schema_base_url="https://acme.example/f", version="1-0-0"
            ):
                score: int
            """
        )
    )
    spark.sparkContext.addPyFile(str(module))
    event = json.loads(olsdk.to_json(lineage.events[-1]))
    facet = {"_producer": "https://acme.example", "_schemaURL": "https://acme.example/f/1-0-0/A.json"}
    ok = {**event, "run": {**event["run"], "facets": {"acme_quality": {**facet, "score": 3}}}}
    bad = {**event, "run": {**event["run"], "facets": {"acme_quality": {**facet, "score": "high"}}}}
    path = tmp_path / "custom.ndjson"
    path.write_text(json.dumps(ok) + "\n" + json.dumps(bad) + "\n")
    without = validate_events(spark, str(path))
    assert without.invalid_count == 0  # unknown to the workers: kept as plain data
    result = validate_events(spark, str(path), facet_modules=["olsdk_eventlog_facets"])
    [row] = result.invalid.collect()
    assert row["line"] == 2
    [problem] = row["problems"]
    assert problem["path"] == "run.facets.acme_quality.score"
    # the spec's words (issue 24), with where the rule comes from: the registered facet class
    assert problem["rule"] == "must be integer (the facet class registered for this key)"
