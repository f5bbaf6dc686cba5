"""OpenLineage event files (NDJSON) on Spark: a schema, a reader, validation, edges.

The Spark schema is derived from the generated event models (so from the spec): every
object becomes a struct, every list an array, and every facet container a
``map<string,string>`` whose values Spark keeps as **raw JSON text**. Custom facets of
any shape survive that way, and ``from_json``/``json.loads`` recovers any facet (B5).

Validation runs in the Python workers (``mapInArrow``): every line goes through
olsdk's validator (``olsdk.validate_event`` when the installed olsdk has it, else
``olsdk.parse_event``), and only the invalid lines come back, each with its problems.
Local files are read by the workers themselves, split by byte ranges (moving the text
from the JVM to Python cost more than validating it); other file systems are read by
Spark and sent over Arrow. Line numbers are exact without a shuffle: each line belongs
to exactly one split, a worker counts the lines of every split it reads, and the driver
adds the counts of earlier splits.
"""

from __future__ import annotations

import enum
import importlib
import json
import os
import re
import types
import typing
from collections.abc import Iterable, Iterator, Sequence
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
    "EventValidation",
    "ValidationReport",
    "event_log_schema",
    "lineage_edges",
    "read_events",
    "validate_events",
]

CORRUPT = "_corrupt_record"
_BATCH_ROWS = 20_000  # Arrow batch size for validation (Spark's default is 10,000)
_RESULT_SCHEMA = (
    "kind string, file string, block long, first_id long, idx long, lines long, events long, "
    "run_id string, event_type string, problems array<struct<path:string,rule:string>>"
)
_UUID = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"


def _spark_type(annotation: Any, depth: int) -> DataType:
    from olsdk._models._runtime import FacetContainer

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
    from olsdk._models import DatasetEvent, JobEvent, RunEvent

    merged: dict[str, StructField] = {}
    for model in (RunEvent, DatasetEvent, JobEvent):
        for struct_field in _struct(model).fields:
            merged.setdefault(struct_field.name, struct_field)
    fields = list(merged.values())
    if corrupt_record:
        fields.append(StructField(CORRUPT, StringType(), True))
    return StructType(fields)


def _with_timestamp(df: Any) -> Any:
    """``eventTime`` as a timestamp column (null where it is not one)."""
    from pyspark.sql import functions as F

    return df.withColumn("eventTime", F.expr("try_cast(eventTime AS TIMESTAMP)"))


def read_events(spark: Any, path: str, *, valid_only: bool = False, facet_modules: Sequence[str] = ()) -> Any:
    """Event files as a DataFrame with ``event_log_schema()``, ``eventTime`` a timestamp.

    By default every line is kept (malformed ones in ``_corrupt_record``); with
    ``valid_only`` only the events olsdk's validator accepts (see ``validate_events``),
    with their ``_file`` and ``_line``.
    """
    if valid_only:
        return validate_events(spark, path, facet_modules=facet_modules).valid
    raw = (
        spark.read.schema(event_log_schema())
        .option("mode", "PERMISSIVE")
        .option("columnNameOfCorruptRecord", CORRUPT)
        .json(path)
    )
    return _with_timestamp(raw)


@dataclass
class ValidationReport:
    """Counts, and the most frequent problems (``(path: rule, count)``)."""

    total: int = 0
    valid: int = 0
    invalid: int = 0
    errors: list[tuple[str, int]] = field(default_factory=list)  # (message, count)

    def __str__(self) -> str:
        lines = [f"{self.total} events: {self.valid} valid, {self.invalid} invalid"]
        lines += [f"  {count:>8}  {message}" for message, count in self.errors]
        return "\n".join(lines)


def _validator() -> Any:
    """``line -> [(path, rule)]``: the bulk validator when olsdk has it, else the parser."""
    import olsdk
    from olsdk._integrations.spark.agent_facets import REGISTRY  # the agent's facets typed too

    validate = getattr(olsdk, "validate_event", None)
    if validate is not None:

        def problems(line: str | bytes) -> list[tuple[str, str]]:
            return [(p.path, p.rule) for p in validate(line, registry=REGISTRY)]

        return problems

    def parsed(line: str | bytes) -> list[tuple[str, str]]:
        try:
            olsdk.parse_event(line, registry=REGISTRY)
        except olsdk.ValidationError as error:
            return [(p.path, p.rule) for p in error.problems] or [("", str(error))]
        except Exception as error:  # not JSON at all
            return [("", f"not an event: {type(error).__name__}: {str(error)[:200]}")]
        return []

    return parsed


def _identity(line: str | bytes) -> tuple[str | None, str | None]:
    """Run id and event type of an invalid line, when they can be read."""
    try:
        data = json.loads(line)
    except ValueError:
        return None, None
    if not isinstance(data, dict):
        return None, None
    run = data.get("run")
    run_id = run.get("runId") if isinstance(run, dict) else None
    kind = data.get("eventType")
    return (str(run_id) if run_id is not None else None), (str(kind) if kind is not None else None)


class _Results:
    """What a worker sends back: a row per invalid line, a row of counts per file split."""

    def __init__(self, facet_modules: Sequence[str]) -> None:
        import pyarrow as pa  # type: ignore[import-untyped]

        for module in facet_modules:  # custom facets registered where they are checked
            importlib.import_module(module)
        self._pa = pa
        problem = pa.struct([("path", pa.string()), ("rule", pa.string())])
        self.schema = pa.schema(
            [(name, pa.string()) for name in ("kind", "file")]
            + [(name, pa.int64()) for name in ("block", "first_id", "idx", "lines", "events")]
            + [("run_id", pa.string()), ("event_type", pa.string()), ("problems", pa.list_(problem))]
        )
        self.validate = _validator()
        self.out: dict[str, list[Any]] = {name: [] for name in self.schema.names}
        self.current: tuple[str, int] | None = None
        self.first_id: int | None = None
        self.index = self.events = 0

    def line(self, file: str, block: int, row_id: int | None, text: str | bytes | None) -> None:
        if self.current != (file, block):
            self.end_split()
            self.current, self.first_id, self.index, self.events = (file, block), row_id, 0, 0
        if text and text.strip():
            self.events += 1
            found = self.validate(text)
            if found:
                run_id, kind = _identity(text)
                problems = [{"path": p, "rule": r} for p, r in found]
                _row(self.out, "invalid", file, block, None, self.index, None, None, run_id, kind, problems)
        self.index += 1

    def end_split(self) -> None:
        if self.current is not None:
            file, block = self.current
            _row(self.out, "block", file, block, self.first_id, None, self.index, self.events, None, None, None)
            self.current = None

    def batch(self, final: bool = False) -> Any | None:
        if final:
            self.end_split()
        if not self.out["kind"] or (not final and len(self.out["kind"]) < 1000):
            return None
        batch = self._pa.RecordBatch.from_pydict(self.out, schema=self.schema)
        self.out = {name: [] for name in self.schema.names}
        return batch


def _checker(facet_modules: Sequence[str]) -> Any:
    """Workers, JVM reader: Arrow batches of lines (with file, split, row id) -> results."""
    modules = tuple(facet_modules)

    def check(batches: Iterable[Any]) -> Iterator[Any]:
        results = _Results(modules)
        for batch in batches:
            columns = [batch.column(name).to_pylist() for name in ("value", "file", "block", "row_id")]
            for value, file, block, row_id in zip(*columns, strict=True):
                results.line(file, block, row_id, value)
            ready = results.batch()
            if ready is not None:
                yield ready
        last = results.batch(final=True)
        if last is not None:
            yield last

    return check


def _split_lines(path: str, start: int, length: int) -> Iterator[bytes]:
    """The lines that start in ``[start, start + length)`` of a local file, as bytes.

    Every line is read by exactly one split: a split starting inside a line leaves it to
    the split before, which reads on past its end to finish it.
    """
    end = start + length
    with open(path, "rb", buffering=1 << 20) as handle:
        if start > 0:
            handle.seek(start - 1)
            handle.readline()  # the rest of a line begun before this split (or its newline)
        position = handle.tell()
        while position < end:
            line = handle.readline()
            if not line:
                return
            position += len(line)
            yield line.rstrip(b"\r\n")


def _split_checker(facet_modules: Sequence[str]) -> Any:
    """Workers, Python reader: each row names a file split; the worker reads and checks it."""
    modules = tuple(facet_modules)

    def check(batches: Iterable[Any]) -> Iterator[Any]:
        results = _Results(modules)
        for batch in batches:
            for file, local, start, length in zip(
                *(batch.column(name).to_pylist() for name in ("file", "local", "start", "length")), strict=True
            ):
                for text in _split_lines(local, start, length):
                    results.line(file, start, None, text)
                results.end_split()
                ready = results.batch()
                if ready is not None:
                    yield ready
        last = results.batch(final=True)
        if last is not None:
            yield last

    return check


def _row(out: dict[str, list[Any]], *values: Any) -> None:
    for name, value in zip(out, values, strict=True):
        out[name].append(value)


def _lines(spark: Any, path: str) -> Any:
    """Every line of the files with its file, split and a per-partition row id."""
    from pyspark.sql import functions as F

    return spark.read.text(path).select(
        "value",
        F.col("_metadata.file_path").alias("file"),
        F.col("_metadata.file_block_start").alias("block"),
        F.monotonically_increasing_id().alias("row_id"),
    )


class EventValidation:
    """What ``validate_events`` found: counts, the invalid lines, and the valid events.

    ``invalid``: a DataFrame of ``file``, ``line`` (1-based), ``run_id`` and
    ``event_type`` (when readable), ``problems`` (``array<struct<path, rule>>``: every
    problem of the line). ``valid``: the accepted events, parsed with
    ``event_log_schema()`` (``eventTime`` a timestamp) plus ``_file`` and ``_line``; it
    reads the files again in the JVM, without Python. ``report(top)`` counts and lists
    the most frequent problems; ``unpersist()`` frees the cached results.
    """

    def __init__(self, spark: Any, path: str, checked: Any, blocks: list[Any]) -> None:
        from pyspark.sql import functions as F

        self._spark = spark
        self._path = path
        self._checked = checked
        self.total = sum(int(r["events"]) for r in blocks)
        self._offsets = _first_lines(spark, [(r["file"], r["block"], r["first_id"], r["lines"]) for r in blocks])
        self.invalid = (
            checked.where(F.col("kind") == "invalid")
            .join(F.broadcast(self._offsets), ["file", "block"])
            .select("file", (F.col("first_line") + F.col("idx")).alias("line"), "run_id", "event_type", "problems")
            .cache()
        )
        self.invalid_count = self.invalid.count()
        self.valid_count = self.total - self.invalid_count
        self._jvm_offsets = self._offsets if all(r["first_id"] is not None for r in blocks) else None

    @property
    def valid(self) -> Any:
        from pyspark.sql import functions as F

        if self._jvm_offsets is None:
            # validated by the Python reader: number the JVM's own splits once (JVM only)
            counts = (
                _lines(self._spark, self._path)
                .groupBy("file", "block")
                .agg(F.min("row_id").alias("first_id"), F.count("*").alias("lines"))
                .collect()
            )
            self._jvm_offsets = _first_lines(
                self._spark, [(r["file"], r["block"], r["first_id"], r["lines"]) for r in counts]
            )
        bad = F.broadcast(self.invalid.select(F.col("file").alias("_f"), F.col("line").alias("_l")))
        lines = (
            _lines(self._spark, self._path)
            .join(F.broadcast(self._jvm_offsets), ["file", "block"])
            .withColumn("_line", F.col("first_line") + F.col("row_id") - F.col("first_id"))
            .where(F.trim("value") != "")
        )
        kept = lines.join(bad, (lines["file"] == bad["_f"]) & (lines["_line"] == bad["_l"]), "left_anti")
        parsed = kept.select(
            F.from_json("value", event_log_schema(corrupt_record=False)).alias("e"),
            F.col("file").alias("_file"),
            "_line",
        ).select("e.*", "_file", "_line")
        return _with_timestamp(parsed)

    def unpersist(self) -> None:
        """Free the cached validation results (the invalid rows and per-split counts)."""
        self.invalid.unpersist()
        self._checked.unpersist()

    def report(self, top: int = 20) -> ValidationReport:
        from pyspark.sql import functions as F

        rows = (
            self.invalid.select(F.explode("problems").alias("p"))
            .groupBy("p.path", "p.rule")
            .count()
            .orderBy(F.desc("count"), "path", "rule")
            .limit(top)
            .collect()
        )
        errors = [(f"{r['path'] or '(event)'}: {r['rule']}", int(r["count"])) for r in rows]
        return ValidationReport(self.total, self.valid_count, self.invalid_count, errors)

    def __str__(self) -> str:
        return str(self.report())


def _first_lines(spark: Any, splits: list[tuple[str, int, int | None, int]]) -> Any:
    """(file, split start, first row id, lines) -> a frame adding each split's first line number."""
    rows: list[tuple[str, int, int | None, int]] = []
    line, previous = 1, None
    for file, block, first_id, count in sorted(splits, key=lambda r: (r[0], r[1])):
        if file != previous:
            previous, line = file, 1
        rows.append((file, int(block), first_id, line))
        line += int(count)
    return spark.createDataFrame(rows, "file string, block long, first_id long, first_line long")


def _local_files(spark: Any, path: str) -> list[tuple[str, str, int]] | None:
    """(file as Spark names it, local path, size) of every file, or None if one is not local."""
    from urllib.parse import unquote, urlsplit

    found: list[tuple[str, str, int]] = []
    for uri in spark.read.text(path).inputFiles():
        parts = urlsplit(str(uri))
        if parts.scheme not in ("", "file") or parts.netloc not in ("", "localhost"):
            return None
        local = unquote(parts.path)
        try:
            size = os.path.getsize(local)
        except OSError:
            return None
        found.append((re.sub(r"^file:///", "file:/", str(uri)), local, size))
    return found


def validate_events(
    spark: Any,
    path: str,
    *,
    facet_modules: Sequence[str] = (),
    batch_rows: int = _BATCH_ROWS,
    reader: str = "auto",
    split_bytes: int = 64 << 20,
) -> EventValidation:
    """Validate every event of NDJSON file(s) at ``path`` on the cluster.

    Each non-blank line goes through olsdk's validator in the Python workers.
    ``reader="python"`` (what ``auto`` picks when every file is on a local or shared
    POSIX file system) sends the workers file splits of at most ``split_bytes`` that
    they read themselves, so the text never crosses from the JVM; ``reader="jvm"`` (any
    Hadoop file system: ``s3a://``, ``hdfs://``, ...) reads the lines in Spark and sends
    them over Arrow batches of ``batch_rows``. ``facet_modules`` names modules that
    register custom facets (``register_facet``): they are imported in every worker before
    validating, so custom facets are checked there as in the driver (ship them with
    ``--py-files`` or ``sc.addPyFile`` on a cluster). Workers must be able to import olsdk
    (``PYSPARK_PYTHON``). Returns an ``EventValidation``; ``str()`` of it is the report.
    """
    if reader not in ("auto", "python", "jvm"):
        raise ValueError(f"validate_events: reader must be 'auto', 'python' or 'jvm', got {reader!r}")
    for module in facet_modules:
        importlib.import_module(module)  # a module that is not there fails here, clearly
    files = _local_files(spark, path) if reader != "jvm" else None
    if reader == "python" and files is None:
        raise ValueError(f"validate_events: reader='python' needs local files; {path!r} has others (use 'jvm')")
    if files is not None:
        checked = _python_read(spark, files, facet_modules, split_bytes)
        blocks = checked.where("kind = 'block'").select("file", "block", "first_id", "lines", "events").collect()
        return EventValidation(spark, path, checked, blocks)
    key = "spark.sql.execution.arrow.maxRecordsPerBatch"
    previous = spark.conf.get(key, None)
    spark.conf.set(key, str(batch_rows))
    try:
        checked = _lines(spark, path).mapInArrow(_checker(facet_modules), _RESULT_SCHEMA).cache()
        blocks = checked.where("kind = 'block'").select("file", "block", "first_id", "lines", "events").collect()
    finally:
        if previous is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, previous)
    return EventValidation(spark, path, checked, blocks)


def _python_read(spark: Any, files: list[tuple[str, str, int]], facet_modules: Sequence[str], split_bytes: int) -> Any:
    """Validation over file splits that the workers read themselves, one split a partition."""
    total = sum(size for _, _, size in files)
    parallelism = max(1, int(spark.sparkContext.defaultParallelism))
    # enough splits to keep every core busy, none larger than split_bytes
    size = max(1 << 20, min(split_bytes, -(-total // (parallelism * 4)) or 1))
    splits = [
        (file, local, start, min(size, length - start))
        for file, local, length in files
        for start in (range(0, length, size) if length else [0])
    ]
    rdd = spark.sparkContext.parallelize(splits, max(1, len(splits)))
    frame = spark.createDataFrame(rdd, "file string, local string, start long, length long")
    return frame.mapInArrow(_split_checker(facet_modules), _RESULT_SCHEMA).cache()


def lineage_edges(events: Any, *, include_invalid: bool = False) -> Any:
    """Distinct (dataset -> job) and (job -> dataset) edges of an events DataFrame.

    Columns: ``direction`` (``input``/``output``), ``job_namespace``, ``job_name``,
    ``dataset_namespace``, ``dataset_name``. ``events`` comes from ``read_events`` (or is
    ``validate_events(...).valid``). Rows whose identity is unusable (a line that is not
    JSON, an unknown ``eventType``, a ``runId`` that is no UUID, an ``eventTime`` that is
    no time, no job name) are left out unless ``include_invalid``.
    """
    from pyspark.sql import functions as F

    if not include_invalid:
        # each check where its column exists: a frame of other callers' making may lack some
        checks = {
            "job": F.col("job.name").isNotNull(),
            "eventTime": F.col("eventTime").isNotNull(),
            "run": F.col("run").isNull() | F.col("run.runId").rlike(_UUID),  # job events have no run
            "eventType": F.col("eventType").isNull() | F.col("eventType").isin(_event_types()),
            CORRUPT: F.col(CORRUPT).isNull(),
        }
        for column, check in checks.items():
            if column in events.columns:
                events = events.where(check)

    def side(column: str, direction: str) -> Any:
        return (
            events.select(
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


def _event_types() -> list[str]:
    from olsdk._models import EventType

    return [member.value for member in EventType]
