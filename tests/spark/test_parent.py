"""``parent_conf``: the Spark settings that make a Python run the agent's parent."""

from __future__ import annotations

import pytest


def test_parent_conf() -> None:
    from olsdk.client import OpenLineageClient
    from olsdk.spark import parent_conf

    client = OpenLineageClient(config={"transport": {"type": "noop"}}, spool=False)
    dag = client.run("airflow", "dag")
    task = client.run("airflow", "dag.task", parent=dag)
    conf = parent_conf(task)
    assert conf == {
        "spark.openlineage.parentJobNamespace": "airflow",
        "spark.openlineage.parentJobName": "dag.task",
        "spark.openlineage.parentRunId": task.run_id,
        "spark.openlineage.rootParentJobNamespace": "airflow",
        "spark.openlineage.rootParentJobName": "dag",
        "spark.openlineage.rootParentRunId": dag.run_id,
    }
    with pytest.raises(TypeError):
        parent_conf("nope")


def test_parent_conf_of_a_parent_facet_without_root() -> None:
    from olsdk.models import ParentRunFacet, ParentRunFacetJob, ParentRunFacetRun
    from olsdk.spark import parent_conf

    run_id = "0190b1a2-0000-7000-8000-000000000002"
    facet = ParentRunFacet(run=ParentRunFacetRun(runId=run_id), job=ParentRunFacetJob(namespace="ns", name="job"))
    conf = parent_conf(facet)
    assert conf["spark.openlineage.parentRunId"] == conf["spark.openlineage.rootParentRunId"] == run_id
    assert conf["spark.openlineage.rootParentJobName"] == "job"
