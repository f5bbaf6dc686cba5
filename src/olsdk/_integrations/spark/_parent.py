"""``parent_conf``: make a Python run the parent of the Java agent's Spark events."""

from __future__ import annotations

from typing import Any

from olsdk._builders.naming._parent import chain_root

__all__ = ["parent_conf"]


def parent_conf(run: Any) -> dict[str, str]:
    """The ``spark.openlineage.parent*`` / ``rootParent*`` settings pointing at ``run``.

    ``run`` is a ``RunContext`` (from ``client.run(...)`` or ``lineage_run``) or a
    ``ParentRunFacet``. Pass the result to ``SparkSession.builder.config(map=...)`` or
    ``spark-submit --conf``: the Java agent then emits its application run as a child
    of ``run`` and keeps ``run``'s root as the root. ``olsdk.spark.install`` reads the
    same settings.
    """
    facet = run.parent_facet() if hasattr(run, "parent_facet") else run
    if not hasattr(facet, "run") or not hasattr(facet, "job"):
        raise TypeError(f"parent_conf: run must be a RunContext or a ParentRunFacet, got {type(run).__name__}")
    root_namespace, root_name, root_run_id = chain_root(facet)
    return {
        "spark.openlineage.parentJobNamespace": str(facet.job.namespace),
        "spark.openlineage.parentJobName": str(facet.job.name),
        "spark.openlineage.parentRunId": str(facet.run.runId),
        "spark.openlineage.rootParentJobNamespace": root_namespace,
        "spark.openlineage.rootParentJobName": root_name,
        "spark.openlineage.rootParentRunId": root_run_id,
    }
