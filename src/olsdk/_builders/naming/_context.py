"""The OpenLineage context payload: the parent (and root) run a scheduler hands to a process it starts.

A scheduler (Airflow, for one) sets the ``OPENLINEAGE_CONTEXT`` environment variable, or
``spark.openlineage.context`` for a Spark application, to JSON shaped like::

    {"parent": {"run": {"runId": "..."}, "job": {"namespace": "...", "name": "..."},
                "root": {"run": {"runId": "..."}, "job": {"namespace": "...", "name": "..."}}}}

``run`` and ``job`` (of the parent and of the root) may carry ``facets``, which go into the
``parent`` facet as they are. Other top-level keys are ignored. Without ``root`` the parent
is the root; a root that leaves out its run id, job namespace or job name takes the
parent's. A payload that is not usable is ignored with a warning naming the setting, the
field and the value, as the OpenLineage integrations ignore it; the run then has no
parent from the context.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from olsdk._models import ParentRunFacet

__all__ = ["CONTEXT_ENV", "context_parent"]

CONTEXT_ENV = "OPENLINEAGE_CONTEXT"

_log = logging.getLogger("olsdk.naming")


class _Unusable(ValueError):
    """A context payload that cannot give a parent run: what the warning says."""


def _object(where: str, value: Any, field: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise _Unusable(f"{where}: {field} must be a JSON object, got {value!r}")
    return value


def _text(where: str, data: Mapping[str, Any], key: str, field: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise _Unusable(f"{where}: {field} must be a non-empty string, got {value!r}")
    return value.strip()


def _run_id(where: str, value: str, field: str) -> str:
    try:
        return str(uuid.UUID(value))
    except ValueError:
        raise _Unusable(f"{where}: {field} must be a UUID, got {value!r}") from None


def _facets(where: str, data: Mapping[str, Any], field: str) -> dict[str, Any] | None:
    facets = data.get("facets")
    if facets is None:
        return None
    return dict(_object(where, facets, f"{field}.facets"))


def _reference(where: str, data: Mapping[str, Any], field: str, default: dict[str, Any] | None) -> dict[str, Any]:
    """``{"run": {...}, "job": {...}}`` of ``data`` (the parent, or the root with ``default`` filling gaps)."""
    run = _object(where, data.get("run", {} if default else None), f"{field}.run")
    job = _object(where, data.get("job", {} if default else None), f"{field}.job")
    fallback = default or {"run": {}, "job": {}}
    run_id = _text(where, run, "runId", f"{field}.run.runId") if "runId" in run or not default else None
    namespace = _text(where, job, "namespace", f"{field}.job.namespace") if "namespace" in job or not default else None
    name = _text(where, job, "name", f"{field}.job.name") if "name" in job or not default else None
    out_run: dict[str, Any] = {
        "runId": _run_id(where, run_id, f"{field}.run.runId") if run_id else fallback["run"]["runId"]
    }
    out_job: dict[str, Any] = {
        "namespace": namespace or fallback["job"]["namespace"],
        "name": name or fallback["job"]["name"],
    }
    for target, source, part in ((out_run, run, "run"), (out_job, job, "job")):
        facets = _facets(where, source, f"{field}.{part}")
        if facets is not None:
            target["facets"] = facets
    return {"run": out_run, "job": out_job}


def _parent_data(raw: str, where: str) -> dict[str, Any] | None:
    try:
        payload = json.loads(raw)
    except ValueError as error:
        raise _Unusable(f"{where}: not JSON ({error}), got {raw!r}") from None
    parent = payload.get("parent") if isinstance(payload, Mapping) else None
    if parent is None:
        return None
    parent = _object(where, parent, "parent")
    data = _reference(where, parent, "parent", None)
    root = parent.get("root")
    if root is not None:
        data["root"] = _reference(where, _object(where, root, "parent.root"), "parent.root", data)
    return data


def context_parent(raw: str | None, *, where: str = CONTEXT_ENV, producer: str | None = None) -> ParentRunFacet | None:
    """The ``parent`` facet the context payload ``raw`` names, or None.

    None when ``raw`` is unset or empty, has no ``parent``, or is not usable (then after a
    warning naming ``where``, the field and the value). ``producer`` sets the facet's
    ``_producer``.
    """
    if raw is None or not raw.strip():
        return None
    try:
        data = _parent_data(raw, where)
    except _Unusable as error:
        _log.warning("%s; ignored", error)
        return None
    if data is None:
        _log.debug("%s has no 'parent' object; no parent run from it", where)
        return None
    return _facet(data, producer, where)


def _facet(data: dict[str, Any], producer: str | None, where: str) -> ParentRunFacet:
    """The facet for the checked ``data``: built by ``parent()``, then the forwarded facets added
    (left out, with a warning, when they are not facets these models accept)."""
    from pydantic import ValidationError

    from olsdk._builders.naming._parent import parent

    root = data.get("root", data)
    facet = parent(
        job_namespace=data["job"]["namespace"],
        job_name=data["job"]["name"],
        run_id=data["run"]["runId"],
        root_job_namespace=root["job"]["namespace"],
        root_job_name=root["job"]["name"],
        root_run_id=root["run"]["runId"],
        producer=producer,
    )
    forwarded = _forwarded(data)
    if not forwarded:
        return facet
    dumped = facet.model_dump(mode="json", by_alias=True, exclude_none=True)
    for path, facets in forwarded.items():
        if path[0] not in dumped:  # a root the models cannot hold
            continue
        node = dumped
        for key in path:
            node = node.setdefault(key, {})
        node["facets"] = facets
    try:
        return type(facet).model_validate(dumped)
    except ValidationError as error:
        _log.warning("%s: the forwarded facets are left out, they are not valid facets: %s", where, error)
        return facet


def _forwarded(data: dict[str, Any]) -> dict[tuple[str, ...], dict[str, Any]]:
    """Where the payload carried ``facets``: path in the facet -> the facets."""
    found: dict[tuple[str, ...], dict[str, Any]] = {}
    for prefix, ref in (((), data), (("root",), data.get("root"))):
        if ref is None or (prefix and ref is data):
            continue
        for part in ("run", "job"):
            facets = ref[part].get("facets")
            if facets is not None:
                found[(*prefix, part)] = facets
    return found
