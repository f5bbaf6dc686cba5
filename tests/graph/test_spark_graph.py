"""`olsdk.spark.lineage_page` on a real local[2] SparkSession equals `olsdk graph`."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from olsdk._integrations._graph._model import build_graph
from olsdk._integrations._graph._page import write_page
from olsdk._integrations._graph._read import read_events
from tests.graph.events import (
    BAD_LINES,
    at,
    demo_events,
    large_log,
    parent_events,
    pipeline_events,
    run_event,
    write_ndjson,
)
from tests.graph.pages import embedded_data

pytestmark = pytest.mark.spark
pytest.importorskip("pyspark")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("Spark tests need Java 17+", allow_module_level=True)


@pytest.fixture(scope="module")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The session of tests/spark when it is running, else one for this module only."""
    from pyspark.sql import SparkSession

    existing = SparkSession.getActiveSession()
    if existing is not None:
        yield existing
        return
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    base = tmp_path_factory.mktemp("spark-graph")
    session = (
        SparkSession.builder.master("local[2]")
        .appName("olsdk graph tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.warehouse.dir", str(base / "warehouse"))
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={base / 'derby'}")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def tricky_events() -> list[Any]:
    """Ties, out-of-order events, missing times, runs of equal start: where rules matter."""
    job = ("etl", "tricky")
    events: list[Any] = [
        run_event("COMPLETE", job, "r1", at(5)),
        run_event("START", job, "r1", at(1)),
        run_event("COMPLETE", job, "r2", at(9)),
        run_event("FAIL", job, "r2", at(9), error="second"),
        run_event("START", job, "r2", at(9), error="first"),
        run_event("START", job, "r3", "not a time"),
        run_event("OTHER", job, "r4", at(9)),
    ]
    for n in range(30):  # more runs than the history keeps
        events.append(run_event("START", ("etl", "busy"), f"busy-{n:02d}", at(n)))
        events.append(run_event("FAIL" if n % 7 == 0 else "COMPLETE", ("etl", "busy"), f"busy-{n:02d}", at(n + 0.5)))
    return events


def test_the_spark_page_equals_the_one_process_page(spark: Any, tmp_path: Path) -> None:
    from olsdk.spark import lineage_page

    folder = tmp_path / "log"
    write_ndjson(folder / "part-1.ndjson", pipeline_events(), [line for line, _ in BAD_LINES])
    write_ndjson(folder / "part-2.ndjson", tricky_events() + large_log(600, seed=5))
    write_ndjson(folder / "part-3.ndjson", demo_events() + parent_events())
    local = build_graph(read_events([str(folder)]))
    local_page = write_page(local, tmp_path / "local.html", title="t", sources=[str(folder)])

    on_spark = lineage_page(spark, str(folder), tmp_path / "spark.html", title="t")

    assert on_spark.to_dict(samples=False) == local.to_dict(samples=False)
    assert len(local.jobs) > 200 and local.unreadable_total == len(BAD_LINES)
    spark_data = embedded_data((tmp_path / "spark.html").read_text(encoding="utf-8"))
    local_data = embedded_data(local_page.read_text(encoding="utf-8"))
    for data in (spark_data, local_data):
        del data["generated"]  # the only difference: when each page was written
    assert spark_data == local_data
    busy = next(j for j in on_spark.jobs if j.name == "busy")
    assert (busy.runs_total, len(busy.runs), busy.runs[0].run_id) == (30, 30, "busy-29")  # every run kept
    assert len(on_spark.parents) == 3 + 2  # the demo's application and its jobs; the DAG and its tasks
    task = next(j for j in on_spark.jobs if j.name == "dag.task_a")
    assert {r.run_id: r.parent for r in task.runs} == {
        "task-a-1": ("airflow", "dag", "dag-run-1"),
        "task-a-2": ("airflow", "dag", "dag-run-2"),  # its latest event's parent
    }
    tricky = {r.run_id: (r.state, r.error) for r in next(j for j in on_spark.jobs if j.name == "tricky").runs}
    assert tricky == {
        "r1": ("COMPLETE", None),
        "r2": ("FAIL", "second"),
        "r3": ("RUNNING", None),
        "r4": ("OTHER", None),
    }
