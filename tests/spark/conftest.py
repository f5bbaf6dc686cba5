"""One local[2] SparkSession for every Spark test, with lineage installed once.

Python workers are pinned to this interpreter (B7.1), the UI and progress bars are
off, and the warehouse, the Hive metastore and Derby live in a temporary directory
so that nothing lands in the working tree (B7.3).
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pyspark = pytest.importorskip("pyspark")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("Spark tests need Java 17+", allow_module_level=True)

APP_NAME = "olsdk Spark Tests"
APP_JOB = "olsdk_spark_tests"


class Collector:
    """Collects emitted events; ``take()`` waits for Spark's listener bus first."""

    def __init__(self) -> None:
        self.events: list[Any] = []
        self._lock = threading.Lock()
        self._seen = 0
        self.handle: Any = None

    def __call__(self, event: Any) -> None:
        with self._lock:
            self.events.append(event)

    def take(self) -> list[Any]:
        """The events emitted since the previous ``take()``."""
        assert self.handle is not None
        assert self.handle.flush(60)
        with self._lock:
            new = self.events[self._seen :]
            self._seen = len(self.events)
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
    """``olsdk.spark.install`` on the test session, emitting into a Collector.

    Stopping the session at the end must close the application run: checked here.
    """
    from olsdk.spark import install

    collector = Collector()
    collector.handle = install(spark, collector, namespace="olsdk-tests")
    yield collector
    spark.stop()
    last = collector.events[-1]
    assert (last.eventType, last.job.name) == ("COMPLETE", APP_JOB), "app run not completed"
