"""OpenLineage event files (NDJSON) on Spark: a schema, a reader, validation, edges.

The Spark schema is derived from the generated event models (so from the spec): every
object becomes a struct, every list an array, and every facet container a
``map<string,string>`` whose values Spark keeps as **raw JSON text**. Custom facets of
any shape survive that way, and ``from_json``/``json.loads`` recovers any facet (B5).
Validation runs ``olsdk.parse_event`` on the executors through ``mapInPandas``.
"""

from __future__ import annotations

import enum
import types
import typing
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel
from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    DataType,
    DoubleType,
    LongType,
    MapType,
    StringType,
    StructField,
    StructType,
)

__all__ = [
    "ValidationReport",
    "event_log_schema",
    "lineage_edges",
    "read_events",
    "validate_events",
]

CORRUPT = "_corrupt_record"


def _spark_type(annotation: Any, depth: int) -> DataType:
    from olsdk._runtime import FacetContainer

    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _spark_type(args[0], depth) if len(args) == 1 else StringType()
    if origin is typing.Annotated:
        return _spark_type(typing.get_args(annotation)[0], depth)
    if origin is list:
        return ArrayType(_spark_type(typing.get_args(annotation)[0], depth))
    if origin is dict:
        return MapType(StringType(), StringType())
    if isinstance(annotation, type):
        if issubclass(annotation, FacetContainer):
            return MapType(StringType(), StringType())  # facet values as raw JSON
        if issubclass(annotation, BaseModel):
            return _struct(annotation, depth + 1) if depth < 6 else StringType()
        if issubclass(annotation, bool):
            return BooleanType()
        if issubclass(annotation, int) and not issubclass(annotation, enum.Enum):
            return LongType()
        if issubclass(annotation, float):
            return DoubleType()
    return StringType()  # str, enums, uuid, date-time, uri


def _struct(model: type[BaseModel], depth: int = 0) -> StructType:
    fields = [
        StructField(info.alias or name, _spark_type(info.annotation, depth), True)
        for name, info in model.model_fields.items()
    ]
    return StructType(fields)


def event_log_schema(corrupt_record: bool = True) -> StructType:
    """The Spark schema of OpenLineage event files: run, dataset and job events in one.

    Facet containers (``run.facets``, ``inputs[].inputFacets``, ...) are
    ``map<string,string>`` holding each facet's JSON. With ``corrupt_record`` a
    ``_corrupt_record`` column receives lines that are not JSON objects.
    """
    from olsdk.models import DatasetEvent, JobEvent, RunEvent

    merged: dict[str, StructField] = {}
    for model in (RunEvent, DatasetEvent, JobEvent):
        for struct_field in _struct(model).fields:
            merged.setdefault(struct_field.name, struct_field)
    fields = list(merged.values())
    if corrupt_record:
        fields.append(StructField(CORRUPT, StringType(), True))
    return StructType(fields)


def read_events(spark: Any, path: str) -> Any:
    """Event files as a DataFrame with ``event_log_schema()`` (malformed lines kept)."""
    return (
        spark.read.schema(event_log_schema())
        .option("mode", "PERMISSIVE")
        .option("columnNameOfCorruptRecord", CORRUPT)
        .json(path)
    )


@dataclass
class ValidationReport:
    """Result of ``validate_events``: counts, and the most frequent problems."""

    total: int = 0
    valid: int = 0
    invalid: int = 0
    errors: list[tuple[str, int]] = field(default_factory=list)  # (message, count)

    def __str__(self) -> str:
        lines = [f"{self.total} events: {self.valid} valid, {self.invalid} invalid"]
        lines += [f"  {count:>8}  {message}" for message, count in self.errors]
        return "\n".join(lines)


def _check_batches(batches: Any) -> Any:
    """Runs on the executors: ``olsdk.parse_event`` on every line."""
    import pandas as pd  # type: ignore[import-untyped]

    from olsdk import ValidationError, parse_event

    for batch in batches:
        valid: list[bool] = []
        errors: list[str | None] = []
        for line in batch["value"]:
            try:
                parse_event(line)
            except ValidationError as exc:
                valid.append(False)
                errors.append(_first_problem(str(exc)))
            except Exception as exc:  # not JSON at all
                valid.append(False)
                errors.append(f"not an event: {type(exc).__name__}: {str(exc)[:200]}")
            else:
                valid.append(True)
                errors.append(None)
        yield pd.DataFrame({"valid": valid, "error": errors})


def _first_problem(message: str) -> str:
    # The first line names the event; the problems follow, one per line. Group by the
    # problems, not by the (unique) event identity.
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    return "; ".join(lines[1:4]) if len(lines) > 1 else (lines[0] if lines else "invalid")


def validate_events(spark: Any, path: str, top: int = 20) -> ValidationReport:
    """Validate every event of NDJSON file(s) at ``path`` on the cluster.

    Each non-blank line goes through ``olsdk.parse_event`` (the typed models) on the
    executors; the report counts valid and invalid events and lists the ``top`` most
    frequent problems. Workers must be able to import olsdk (``PYSPARK_PYTHON``).
    """
    from pyspark.sql import functions as F

    lines = spark.read.text(path).where(F.trim(F.col("value")) != "")
    checked = lines.mapInPandas(_check_batches, "valid boolean, error string")
    rows = checked.groupBy("valid", "error").count().collect()
    report = ValidationReport()
    problems: list[tuple[str, int]] = []
    for row in rows:
        report.total += row["count"]
        if row["valid"]:
            report.valid += row["count"]
        else:
            report.invalid += row["count"]
            problems.append((row["error"] or "invalid", row["count"]))
    report.errors = sorted(problems, key=lambda p: (-p[1], p[0]))[:top]
    return report


def lineage_edges(events: Any) -> Any:
    """Distinct (dataset -> job) and (job -> dataset) edges of an events DataFrame.

    Columns: ``direction`` (``input``/``output``), ``job_namespace``, ``job_name``,
    ``dataset_namespace``, ``dataset_name``. ``events`` comes from ``read_events``.
    """
    from pyspark.sql import functions as F

    def side(column: str, direction: str) -> Any:
        return (
            events.where(F.col("job").isNotNull())
            .select(
                F.col("job.namespace").alias("job_namespace"),
                F.col("job.name").alias("job_name"),
                F.explode_outer(column).alias("ds"),
            )
            .where(F.col("ds").isNotNull())
            .select(
                F.lit(direction).alias("direction"),
                "job_namespace",
                "job_name",
                F.col("ds.namespace").alias("dataset_namespace"),
                F.col("ds.name").alias("dataset_name"),
            )
        )

    return side("inputs", "input").unionByName(side("outputs", "output")).distinct()
