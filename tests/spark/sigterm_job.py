"""A PySpark job for the SIGTERM test of ``test_listener``: run as a process of its own.

    python -m tests.spark.sigterm_job URL WORKDIR

Lineage is configured the agent's way (``spark.openlineage.transport.*``), one write
completes, then a second write waits on a gate file that never comes, until the test
sends SIGTERM to this process.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def main() -> None:
    url, workdir = sys.argv[1], Path(sys.argv[2])
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    from olsdk.spark import install
    from tests.spark.conftest import gated

    spark = (
        SparkSession.builder.master("local[2]")
        .appName("sigterm job")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.warehouse.dir", str(workdir / "warehouse"))
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={workdir / 'derby'}")
        .config("spark.openlineage.transport.type", "http")
        .config("spark.openlineage.transport.url", url)
        .config("spark.openlineage.namespace", "sigterm")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    install(spark)
    spark.range(3).write.mode("overwrite").parquet(str(workdir / "first"))
    gated(spark.range(3), workdir / "never", limit=300).write.mode("overwrite").parquet(str(workdir / "held"))
    spark.stop()


if __name__ == "__main__":
    main()
