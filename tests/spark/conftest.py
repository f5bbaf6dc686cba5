"""One local[2] SparkSession for every Spark test, with lineage installed once.

Python workers are pinned to this interpreter (B7.1), the UI and progress bars are
off, and the warehouse, the Hive metastore and Derby live in a temporary directory
so that nothing lands in the working tree (B7.3).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.client_testkit import free_port, server

__all__ = ["free_port", "server"]  # fixtures: a port nothing listens on, a lineage server on 127.0.0.1

pyspark = pytest.importorskip("pyspark")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("Spark tests need Java 17+", allow_module_level=True)

APP_NAME = "olsdk Spark Tests"
APP_JOB = "olsdk_spark_tests"


class Collector:
    """What the Spark layer emitted, through a real client whose transport is a
    ``CallbackTransport``: each event is serialised as any transport would send it and
    parsed back. ``take()`` waits for Spark's listener bus first."""

    def __init__(self) -> None:
        import olsdk
        from olsdk.client import OpenLineageClient
        from olsdk.transports import CallbackTransport

        self.events: list[Any] = []
        self._seen = 0
        self.handle: Any = None
        # calls are serialised by the transport; undeliverable events fail the emit
        receive = CallbackTransport(lambda payload: self.events.append(olsdk.parse_event(payload.body)))
        self.client = OpenLineageClient(receive, error_policy="raise", spool=False, environ={})

    def take(self) -> list[Any]:
        """The events emitted since the previous ``take()``."""
        assert self.handle is not None
        assert self.handle.flush(60)
        new = self.events[self._seen :]
        self._seen += len(new)
        return new


@pytest.fixture(scope="session")
def spark_dirs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("spark")


@pytest.fixture(scope="session")
def spark(spark_dirs: Path) -> Iterator[Any]:
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName(APP_NAME)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.warehouse.dir", str(spark_dirs / "warehouse"))
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={spark_dirs / 'derby'}")
        .config("spark.executorEnv.PYSPARK_PYTHON", sys.executable)
        .enableHiveSupport()
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def lineage(spark: Any) -> Iterator[Collector]:
    """``olsdk.spark.install`` on the test session, emitting into a Collector's client.

    Stopping the session at the end must close the application run: checked here.
    """
    from olsdk.spark import install

    collector = Collector()
    collector.handle = install(spark, collector.client, namespace="olsdk-tests")
    yield collector
    spark.stop()
    last = collector.events[-1]
    assert (last.eventType, last.job.name) == ("COMPLETE", APP_JOB), "app run not completed"


def gated(df: Any, gate: Path, limit: float = 120.0) -> Any:
    """``df`` with a column whose Python UDF waits until the file ``gate`` exists.

    A query over it keeps running until the test creates ``gate`` (or ``limit``
    seconds pass), so a test can look at what happens *while* a query runs without
    timing anything. The function is defined here and pickled by value for the workers.
    """
    from pyspark.sql import functions as F

    path, seconds = str(gate), limit

    def wait(value):  # type: ignore[no-untyped-def]  # no hints: pyspark reads them as a UDF kind
        import os as _os
        import time as _time

        deadline = _time.monotonic() + seconds
        while not _os.path.exists(path) and _time.monotonic() < deadline:
            _time.sleep(0.05)
        return value

    return df.withColumn("gated", F.udf(wait, "long")(F.col("id")))
