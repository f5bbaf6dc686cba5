"""RDD writes: a run per ``saveAs*`` call, its output path, and the files its lineage reads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.spark.conftest import APP_JOB, Collector
from tests.spark.test_listener import one_run

pytestmark = pytest.mark.spark


def test_save_as_text_file(spark: Any, lineage: Collector, tmp_path: Path) -> None:
    lineage.take()
    source = tmp_path / "lines"
    source.mkdir()
    (source / "a.txt").write_text("one\ntwo\n")
    (source / "b.txt").write_text("three\n")
    target = tmp_path / "upper"
    spark.sparkContext.textFile(str(source)).map(str.upper).saveAsTextFile(str(target))
    _, complete = one_run(lineage.take())
    assert complete.job.name == f"{APP_JOB}.save_as_text_file.{tmp_path.name}_upper"
    assert complete.job.facets.jobType.jobType == "RDD_JOB"
    assert [(i.namespace, i.name) for i in complete.inputs] == [("file", str(source))]
    assert [(o.namespace, o.name) for o in complete.outputs] == [("file", str(target))]
    assert (target / "_SUCCESS").exists()


def test_rdd_of_a_dataframe_and_a_failing_save(spark: Any, lineage: Collector, tmp_path: Path) -> None:
    parquet = tmp_path / "ids"
    spark.range(4).write.parquet(str(parquet))
    lineage.take()
    spark.read.parquet(str(parquet)).rdd.map(lambda row: row.id).saveAsPickleFile(str(tmp_path / "pickled"))
    _, complete = one_run(lineage.take())
    assert [i.name for i in complete.inputs] == [str(parquet)]
    with pytest.raises(Exception, match="already exists"):
        spark.sparkContext.parallelize([1]).saveAsTextFile(str(tmp_path / "pickled"))
    _, fail = one_run(lineage.take(), end="FAIL")
    assert fail.inputs == []  # parallelized Python data reads no dataset
    assert "already exists" in fail.run.facets.errorMessage.message
