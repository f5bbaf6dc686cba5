"""The ``parent`` run facet: which job run started this one, and the root of the chain."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from olsdk.naming import rules

if TYPE_CHECKING:
    from olsdk.models import ParentRunFacet

__all__ = ["parent"]


def _run_id(arg: str, value: object) -> str:
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, str):
        try:
            return str(uuid.UUID(value.strip()))
        except ValueError:
            pass
    raise rules.fail("parent", arg, "must be a UUID", value)


def parent(
    *,
    job_namespace: str,
    job_name: str,
    run_id: uuid.UUID | str,
    root_job_name: str | None = None,
    root_run_id: uuid.UUID | str | None = None,
    root_job_namespace: str | None = None,
) -> ParentRunFacet:
    """A ``ParentRunFacet`` pointing at the parent job run and, optionally, the root one.

    The root job is where the chain of runs started (the DAG run above a task above a
    Spark job). Its namespace defaults to the parent's: jobs launched by a scheduler
    share the scheduler's namespace unless configured otherwise (the seeds' rule "if
    there's a parent job, we use the same namespace"). Give ``root_job_name`` and
    ``root_run_id`` together or not at all.
    """
    from olsdk.models import (
        ParentRunFacet,
        ParentRunFacetJob,
        ParentRunFacetRoot,
        ParentRunFacetRun,
        RootJob,
        RootRun,
    )

    namespace = rules.text("parent", "job_namespace", job_namespace)
    facet_job = ParentRunFacetJob(namespace=namespace, name=rules.text("parent", "job_name", job_name))
    facet_run = ParentRunFacetRun(runId=_run_id("run_id", run_id))

    if root_job_name is None and root_run_id is None:
        if root_job_namespace is not None:
            raise rules.fail(
                "parent",
                "root_job_namespace",
                "needs root_job_name and root_run_id",
                root_job_namespace,
            )
        return ParentRunFacet(run=facet_run, job=facet_job)
    if root_job_name is None or root_run_id is None:
        raise rules.fail(
            "parent",
            "root_job_name/root_run_id",
            "must be given together",
            (root_job_name, root_run_id),
        )
    root_namespace = (
        namespace if root_job_namespace is None else rules.text("parent", "root_job_namespace", root_job_namespace)
    )
    root = ParentRunFacetRoot(
        run=RootRun(runId=_run_id("root_run_id", root_run_id)),
        job=RootJob(namespace=root_namespace, name=rules.text("parent", "root_job_name", root_job_name)),
    )
    return ParentRunFacet(run=facet_run, job=facet_job, root=root)
