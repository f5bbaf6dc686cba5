"""The hand-written layer on whatever models are imported: everything at once, no exception.

`python -m tests.support.spec_smoke [--spark] WORKDIR` is what `tests.support.spec_history`
runs for each release, in a child process with that release's package copy first on
`PYTHONPATH`. It builds a client with every enrichment key, runs a job under a parent run
that has a root, exports and parses a custom facet, and (with `--spark`) installs the
listener on a local Spark session and writes a file. It prints one JSON line: the
release, the events each part emitted, every warning the `olsdk` loggers gave, and the
error, if any (then the exit status is 1). Emitting events or warning is success;
an exception, an error logged by the layer or a part that emitted nothing is not.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import traceback
import uuid
from pathlib import Path
from typing import Any

PRODUCER = "https://example.com/olsdk-spec-smoke"


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def client_part(work: Path) -> int:
    """A client with every enrichment key; a run under a parent run with a root."""
    import olsdk
    from olsdk import OpenLineageClient, naming

    repo_dir = work / "repo"
    repo_dir.mkdir(parents=True, exist_ok=True)
    out = work / "client.ndjson"
    config = {
        "transport": {"type": "file", "log_file_path": str(out), "append": True},
        "facets": {
            "environment_variables": ["OLSDK_SMOKE_TEAM"],
            "source_code_location": {"disabled": False, "repo_url": "https://example.com/repo.git", "branch": "main"},
        },
        "tags": {"job": {"team": "data"}, "run": {"env": "test"}},
        "dataset": {"reducing_enabled": True},
    }
    root_run = str(uuid.uuid4())
    environ = {"OLSDK_SMOKE_TEAM": "data"}
    with OpenLineageClient(
        config=config, producer=PRODUCER, spool=False, environ=environ, error_policy="raise"
    ) as client:
        dag = naming.parent(
            job_namespace="smoke",
            job_name="dag.task",
            run_id=str(uuid.uuid4()),
            root_job_name="dag",
            root_run_id=root_run,
        )
        with (
            client.run(
                "smoke",
                "daily_load",
                inputs=[("s3://bucket", "/raw/events/dt=2024-01-01"), ("s3://bucket", "/raw/events/dt=2024-01-02")],
                outputs=[("s3://bucket", "/curated/daily")],
                parent=dag,
            ) as run,
            client.run("smoke", "daily_load.child", parent=run),
        ):
            pass
    events = [olsdk.parse_event(line) for line in out.read_text().splitlines()]
    return len(events)


def facets_part(work: Path) -> int:
    """A custom facet defined, exported, attached and parsed back."""
    import olsdk
    from olsdk.facets import CustomRunFacet, attach, export_schemas
    from olsdk.models import EventType, Job, Run, RunEvent

    class SmokeStatisticsRunFacet(
        CustomRunFacet, prefix="smoke", schema_base_url="https://schemas.example.com/smoke", version="1-0-0"
    ):
        """Row statistics of a run."""

        rows: int

    written = export_schemas([SmokeStatisticsRunFacet], work / "facets")
    facet = SmokeStatisticsRunFacet(rows=42)
    event = RunEvent(
        eventType=EventType.COMPLETE,
        run=attach(Run(runId=str(uuid.uuid4())), facet),
        job=Job(namespace="smoke", name="facets"),
    )
    parsed = olsdk.parse_event(olsdk.to_json(event))
    assert isinstance(parsed, RunEvent) and parsed.run.facets is not None
    assert parsed.run.facets["smoke_statistics"] == facet, "the custom facet did not come back typed"
    assert not olsdk.validate_event(olsdk.to_json(event)), olsdk.validate_event(olsdk.to_json(event))
    return len(written)


def spark_part(work: Path) -> int:
    """The listener on a local Spark session; one file write with tags, owners and a root."""
    import os

    from pyspark.sql import SparkSession

    from olsdk import OpenLineageClient
    from olsdk.spark import install

    os.environ["PYSPARK_PYTHON"] = sys.executable
    out = work / "spark.ndjson"
    session = (
        SparkSession.builder.master("local[1]")
        .appName("spec smoke")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.sql.warehouse.dir", str(work / "warehouse"))
        .config("spark.openlineage.job.tags", "team:data")
        .config("spark.openlineage.run.tags", "env:test")
        .config("spark.openlineage.job.owners.team", "data")
        .config("spark.openlineage.parentJobNamespace", "airflow")
        .config("spark.openlineage.parentJobName", "dag.task")
        .config("spark.openlineage.parentRunId", str(uuid.uuid4()))
        .config("spark.openlineage.rootParentJobNamespace", "airflow")
        .config("spark.openlineage.rootParentJobName", "dag")
        .config("spark.openlineage.rootParentRunId", str(uuid.uuid4()))
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    client = OpenLineageClient(
        config={"transport": {"type": "file", "log_file_path": str(out), "append": True}}, spool=False
    )
    try:
        install(session, client, handle_sigterm=False)
        frame = session.createDataFrame([(i, f"n{i}") for i in range(5)], "id INT, name STRING")
        frame.write.mode("overwrite").parquet(str(work / "out" / "people"))
    finally:
        session.stop()
        client.close()
    import olsdk

    events = [olsdk.parse_event(line) for line in out.read_text().splitlines()] if out.exists() else []
    writes = [
        e
        for e in events
        if e.job.name.endswith("out_people") and str(e.eventType) in ("COMPLETE", "EventType.COMPLETE")
    ]
    assert writes, f"no COMPLETE event of the write among {[(e.job.name, str(e.eventType)) for e in events]}"
    return len(events)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.support.spec_smoke", description=__doc__)
    parser.add_argument("work", type=Path, help="an empty folder for the parts' files")
    parser.add_argument("--spark", action="store_true", help="also install the listener and write with Spark")
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    collect = _Collect()
    logging.getLogger("olsdk").addHandler(collect)
    report: dict[str, Any] = {"events": {}, "warnings": [], "error": None}
    try:
        from olsdk.models import SPEC_RELEASE

        report["release"] = SPEC_RELEASE
        parts = [("client", client_part), ("facets", facets_part)]
        if args.spark:
            parts.append(("spark", spark_part))
        for name, part in parts:
            report["events"][name] = part(args.work / name)
            if not report["events"][name]:
                raise AssertionError(f"{name}: emitted nothing")
    except Exception:
        report["error"] = traceback.format_exc(limit=-6)
    report["warnings"] = sorted({f"{r.name}: {r.getMessage()}" for r in collect.records if r.levelno < logging.ERROR})
    errors = sorted({f"{r.name}: {r.getMessage()}" for r in collect.records if r.levelno >= logging.ERROR})
    if errors and report["error"] is None:
        report["error"] = "errors logged: " + "; ".join(errors)
    print(json.dumps(report, sort_keys=True))
    return 0 if report["error"] is None else 1


if __name__ == "__main__":
    sys.exit(main())
