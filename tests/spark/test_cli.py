"""``olsdk spark run``: an unmodified PySpark script, run with lineage on (a real process)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from olsdk._integrations.spark._cli import _submit_args, parse_confs

SCRIPT = textwrap.dedent(
    """
    import sys
    from pyspark.sql import SparkSession

    out, warehouse = sys.argv[1], sys.argv[2]
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("Launched Job")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.warehouse.dir", warehouse)
        .config("spark.openlineage.job.tags", "launched")  # the script's own setting
        .getOrCreate()
    )
    spark.range(5).write.mode("overwrite").parquet(out)
    spark.stop()
    """
)


def test_conf_parsing() -> None:
    assert parse_confs(["a=b", "c=d=e", "f="]) == {"a": "b", "c": "d=e", "f": ""}
    with pytest.raises(ValueError, match=r"--conf: expected KEY=VALUE, got 'oops'"):
        parse_confs(["oops"])
    args = _submit_args({"spark.x": "a b"}, "--master local[1] pyspark-shell")
    assert args == "--master 'local[1]' --conf 'spark.x=a b' pyspark-shell"


@pytest.mark.spark
def test_run_script_with_lineage(tmp_path: Path) -> None:
    script = tmp_path / "job.py"
    script.write_text(SCRIPT)
    events_file = tmp_path / "events.ndjson"
    out = tmp_path / "out"
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable}
    env.pop("PYSPARK_SUBMIT_ARGS", None)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "olsdk._integrations._cli",
            "spark",
            "run",
            "--conf",
            "spark.openlineage.transport.type=file",
            "--conf",
            f"spark.openlineage.transport.location={events_file}",
            "--conf",
            "spark.openlineage.namespace=launched",
            "--conf",
            "spark.openlineage.job.tags=overridden",
            "--conf",
            f"spark.driver.extraJavaOptions=-Dderby.system.home={tmp_path / 'derby'}",
            str(script),
            str(out),
            str(tmp_path / "warehouse"),
        ],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    assert (out / "_SUCCESS").exists()
    events = [json.loads(line) for line in events_file.read_text().splitlines()]
    kinds = [(e["eventType"], e["job"]["name"]) for e in events]
    write_job = "launched_job.execute_insert_into_hadoop_fs_relation_command." + f"{tmp_path.name}_out"
    assert kinds == [
        ("START", "launched_job"),
        ("START", write_job),
        ("COMPLETE", write_job),
        ("COMPLETE", "launched_job"),
    ]
    assert {e["job"]["namespace"] for e in events} == {"launched"}
    tags = events[1]["job"]["facets"]["tags"]["tags"]
    assert tags == [{"key": "launched", "value": "true", "source": "CONFIG"}]  # the script's setting wins


def test_missing_script(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "olsdk._integrations._cli", "spark", "run", str(tmp_path / "nope.py")],
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert b"no such file" in proc.stderr
