"""The ``parent`` run facet: which job run started this one, and the root of the chain.

This is the one place that builds a ``ParentRunFacet`` (``client.run`` and the Spark
layer come here through ``olsdk._builders._build.parent_facet``) and the one place that reads
the root of a chain back out of one.

Spec versions differ here: ``root`` entered ``ParentRunFacet`` in its 1-1-0 schema
(release 1.31.0). On models generated from a release without it (1.30.0 pins
``ParentRunFacet`` 1-0-1) the facet is built without ``root`` and the ``olsdk.naming``
logger warns once that the root was left out; a root in an event parsed by such models
stays as extra data, and :func:`chain_root` still finds it there. What exists is asked
of the generated metadata (``olsdk._models._release``), never read from a version number.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from olsdk._builders.naming import _rules as rules

if TYPE_CHECKING:
    from olsdk._models import ParentRunFacet

__all__ = ["chain_root", "parent", "root_supported"]

_log = logging.getLogger("olsdk.naming")
_STORE = "parent"


def root_supported() -> bool:
    """Whether the generated ``ParentRunFacet`` has the ``root`` field."""
    from olsdk._models._release import has_field

    return has_field("ParentRunFacet", "root")


def _run_id(arg: str, value: object) -> str:
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, str):
        try:
            return str(uuid.UUID(value.strip()))
        except ValueError:
            pass
    raise rules.fail(_STORE, arg, "must be a UUID", value)


def _reference(namespace: str, name: str, run_id: str) -> dict[str, Any]:
    # Nested parts go in as JSON data, so no generated class name is restated here.
    return {"run": {"runId": run_id}, "job": {"namespace": namespace, "name": name}}


def _root(
    namespace: str,
    root_job_name: str | None,
    root_run_id: uuid.UUID | str | None,
    root_job_namespace: str | None,
) -> dict[str, Any] | None:
    """The checked root reference, or None when no root was asked for."""
    if root_job_name is None and root_run_id is None:
        if root_job_namespace is not None:
            raise rules.fail(_STORE, "root_job_namespace", "needs root_job_name and root_run_id", root_job_namespace)
        return None
    if root_job_name is None or root_run_id is None:
        raise rules.fail(_STORE, "root_job_name/root_run_id", "must be given together", (root_job_name, root_run_id))
    root_namespace = (
        namespace if root_job_namespace is None else rules.text(_STORE, "root_job_namespace", root_job_namespace)
    )
    return _reference(
        root_namespace, rules.text(_STORE, "root_job_name", root_job_name), _run_id("root_run_id", root_run_id)
    )


def parent(
    *,
    job_namespace: str,
    job_name: str,
    run_id: uuid.UUID | str,
    root_job_name: str | None = None,
    root_run_id: uuid.UUID | str | None = None,
    root_job_namespace: str | None = None,
    producer: str | None = None,
) -> ParentRunFacet:
    """A ``ParentRunFacet`` pointing at the parent job run and, optionally, the root one.

    The root job is where the chain of runs started (the DAG run above a task above a
    Spark job). Its namespace defaults to the parent's: jobs launched by a scheduler
    share the scheduler's namespace unless configured otherwise (the seeds' rule "if
    there's a parent job, we use the same namespace"). Give ``root_job_name`` and
    ``root_run_id`` together or not at all. ``producer`` sets the facet's
    ``_producer`` (default: the SDK's default producer).

    On models whose ``ParentRunFacet`` has no ``root`` (releases before 1.31.0), the root
    is checked, then left out, and the ``olsdk.naming`` logger warns once.
    """
    from olsdk._models import ParentRunFacet
    from olsdk._models._release import spec_field

    namespace = rules.text(_STORE, "job_namespace", job_namespace)
    data = _reference(namespace, rules.text(_STORE, "job_name", job_name), _run_id("run_id", run_id))
    root = _root(namespace, root_job_name, root_run_id, root_job_namespace)
    # One warning per process when the models cannot hold it: a scheduler building
    # thousands of facets needs to hear it once, not once per task.
    if root is not None and spec_field(
        "ParentRunFacet", "root", feature="parent: the root run of the parent facet", logger=_log
    ):
        data["root"] = root
    if producer is not None:
        data["producer"] = producer
    return ParentRunFacet(**data)


def chain_root(facet: ParentRunFacet) -> tuple[str, str, str]:
    """``(job namespace, job name, run id)`` of the run at the top of ``facet``'s chain.

    That is the facet's ``root`` when it names one, else the parent run itself. A root
    that models without the field kept as extra data (a parsed event) counts too.
    """
    root = getattr(facet, "root", None)
    if isinstance(root, Mapping):
        found = _reference_in(root)
        if found is not None:
            return found
    elif root is not None:
        return str(root.job.namespace), str(root.job.name), str(root.run.runId)
    return str(facet.job.namespace), str(facet.job.name), str(facet.run.runId)


def _reference_in(data: Mapping[str, Any]) -> tuple[str, str, str] | None:
    """``(namespace, name, run id)`` from a root kept as JSON data, if it is complete."""
    run, job = data.get("run"), data.get("job")
    if not isinstance(run, Mapping) or not isinstance(job, Mapping):
        return None
    parts = (job.get("namespace"), job.get("name"), run.get("runId"))
    if not all(isinstance(part, str) and part for part in parts):
        return None
    return str(parts[0]), str(parts[1]), str(parts[2])
