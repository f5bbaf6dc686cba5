"""Versions of datasets and jobs, derived from the stored events as Marquez derives them.

- A **dataset version** is made by each run that writes the dataset (names it among its
  outputs), with the schema that run wrote (`schema` facet of that output): the same run
  writing the same fields is one version. Its id is a name-based UUID of the dataset,
  the run and the fields, so it stays the same however often it is asked for.
- A **job version** is the job's code and data as its runs saw them: its source code
  location (`sourceCodeLocation` facet) and the datasets it read and wrote. Runs that
  agree on these share a version (a name-based UUID of them).

Newest first, as Marquez lists them. A run's **upstream lineage** follows the version of
each dataset it read (the last written by another run at or before its start, as in the
run's ``inputDatasetVersions``) to the run that wrote it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import Connection

from olsdk._integrations.serve import _schema as t
from olsdk._integrations.serve._marquez import (
    _DATA_SOURCE,
    _DATASET_DOCS,
    _SOURCE_CODE,
    NotFound,
    _dataset_row,
    _job_row,
    _run,
    tag_names,
)
from olsdk._integrations.serve._marquez import dataset as _dataset
from olsdk._integrations.serve._marquez import job as _job
from olsdk._integrations.serve._run_datasets import (
    Written,
    _fields,
    _text_of,
    fill_dataset_versions,
    read_at,
    run_datasets,
    version_id,
    versions_read,
)
from olsdk._integrations.serve._store import Store

__all__ = [
    "dataset_version",
    "dataset_versions",
    "dataset_with_version",
    "job_version",
    "job_versions",
    "job_with_version",
    "upstream_runs",
]


def _events(conn: Connection, job_keys: list[str]) -> Iterator[tuple[str, str | None, dict[str, Any]]]:
    """(event time, run id, decoded event) of the jobs' events, oldest first."""
    c = t.events.c
    for start in range(0, len(job_keys), 500):
        query = (
            select(c.event_time, c.run_id, c.body)
            .where(c.job_key.in_(job_keys[start : start + 500]))
            .order_by(c.event_time, c.seq)
        )
        for row in conn.execute(query):
            document = json.loads(row.body)
            if isinstance(document, dict):
                yield row.event_time, row.run_id, document


def _run_rows(conn: Connection, run_ids: set[str]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    keys = sorted(t.name_key(run_id) for run_id in run_ids)
    for start in range(0, len(keys), 500):
        query = select(t.runs).where(t.runs.c.run_key.in_(keys[start : start + 500]))
        found.update({row.run_id: row for row in conn.execute(query)})
    return found


def _runs(conn: Connection, run_ids: set[str]) -> dict[str, dict[str, Any]]:
    """The runs `run_ids` in Marquez's shape, with their datasets."""
    rows = _run_rows(conn, run_ids)
    found = {run_id: _run(row) for run_id, row in rows.items()}
    fill_dataset_versions(conn, [(rows[run_id].job_key, run) for run_id, run in found.items()])
    return found


def _page(versions: list[dict[str, Any]], limit: int, offset: int) -> dict[str, Any]:
    versions.sort(key=lambda v: (v["createdAt"], v["version"]), reverse=True)
    return {"versions": versions[offset : offset + limit], "totalCount": len(versions)}


# ---------------------------------------------------------------- datasets


def _dataset_versions(conn: Connection, namespace: str, name: str) -> list[dict[str, Any]]:
    _dataset_row(conn, namespace, name)  # 404 when there is none
    key = t.name_key(namespace, name)
    writers = [
        r.job_key
        for r in conn.execute(
            select(t.edges.c.job_key).where(t.edges.c.dataset_key == key, t.edges.c.direction == "output")
        )
    ]
    found: dict[str, dict[str, Any]] = {}
    for time, run_id, document in _events(conn, writers):
        for output in document.get("outputs") or []:
            if not isinstance(output, Mapping) or (output.get("namespace"), output.get("name")) != (namespace, name):
                continue
            raw = output.get("facets")
            facets: dict[str, Any] = raw if isinstance(raw, dict) else {}
            fields = _fields(facets)
            version = version_id(namespace, name, run_id, fields)
            held = found.setdefault(version, _dataset_version(namespace, name, version, time, run_id, fields))
            held["facets"].update(facets)
            held["sourceName"] = _text_of(held["facets"].get(_DATA_SOURCE), "name") or namespace
            held["description"] = _text_of(held["facets"].get(_DATASET_DOCS), "description")
            held["tags"] = tag_names(held["facets"])
    runs = _runs(conn, {v["_run"] for v in found.values() if v["_run"]})
    for held in found.values():
        held["createdByRun"] = runs.get(held.pop("_run") or "")
    return list(found.values())


def _dataset_version(
    namespace: str, name: str, version: str, time: str, run_id: str | None, fields: list[dict[str, Any]]
) -> dict[str, Any]:
    return {
        "id": {"namespace": namespace, "name": name, "version": version},
        "type": "DB_TABLE",
        "name": name,
        "physicalName": name,
        "createdAt": time,
        "version": version,
        "namespace": namespace,
        "sourceName": namespace,
        "fields": fields,
        "tags": [],
        "lifecycleState": None,
        "description": None,
        "createdByRun": None,
        "facets": {},
        "_run": run_id,
    }


def dataset_versions(store: Store, namespace: str, name: str, limit: int, offset: int) -> dict[str, Any]:
    with store.engine.connect() as conn:
        return _page(_dataset_versions(conn, namespace, name), limit, offset)


def dataset_version(store: Store, namespace: str, name: str, version: str) -> dict[str, Any]:
    return _one_version(store, _dataset_versions, "dataset", (namespace, name), version)


def _one_version(
    store: Store,
    versions: Callable[[Connection, str, str], list[dict[str, Any]]],
    kind: str,
    key: tuple[str, str],
    version: str,
) -> dict[str, Any]:
    """The version `version` of the dataset or job `key` (namespace, name), or NotFound."""
    with store.engine.connect() as conn:
        for held in versions(conn, *key):
            if held["version"] == version:
                return held
    raise NotFound(f"version '{version}' of {kind} '{key[1]}' in namespace '{key[0]}' not found")


# ---------------------------------------------------------------- jobs


def _datasets_of(document: Mapping[str, Any], side: str) -> set[tuple[str, str]]:
    found = set()
    for named in document.get(side) or []:
        if isinstance(named, Mapping):
            ns, name = named.get("namespace"), named.get("name")
            if isinstance(ns, str) and isinstance(name, str):
                found.add((ns, name))
    return found


def _job_versions(conn: Connection, namespace: str, name: str) -> list[dict[str, Any]]:
    row = _job_row(conn, namespace, name)
    by_run: dict[str, dict[str, Any]] = {}  # run id -> what its events said
    for time, run_id, document in _events(conn, [row.key]):
        run = by_run.setdefault(run_id or "", {"first": time, "inputs": set(), "outputs": set(), "facets": {}})
        run["inputs"] |= _datasets_of(document, "inputs")
        run["outputs"] |= _datasets_of(document, "outputs")
        job = document.get("job")
        facets = job.get("facets") if isinstance(job, Mapping) else None
        run["facets"].update(facets if isinstance(facets, dict) else {})
    runs = _runs(conn, set(by_run) - {""})
    found: dict[str, dict[str, Any]] = {}
    for run_id, seen in sorted(by_run.items(), key=lambda item: item[1]["first"]):
        location = _text_of(seen["facets"].get(_SOURCE_CODE), "url")
        inputs, outputs = sorted(seen["inputs"]), sorted(seen["outputs"])
        version = version_id(namespace, name, location, inputs, outputs)
        held = found.setdefault(
            version, _job_version(namespace, name, version, seen["first"], location, inputs, outputs)
        )
        held["latestRun"] = runs.get(run_id) or held["latestRun"]
        held["facets"].update(seen["facets"])
    return list(found.values())


def _job_version(
    namespace: str,
    name: str,
    version: str,
    time: str,
    location: str | None,
    inputs: list[tuple[str, str]],
    outputs: list[tuple[str, str]],
) -> dict[str, Any]:
    return {
        "id": {"namespace": namespace, "name": name, "version": version},
        "name": name,
        "version": version,
        "createdAt": time,
        "namespace": namespace,
        "inputs": [{"namespace": ns, "name": n} for ns, n in inputs],
        "outputs": [{"namespace": ns, "name": n} for ns, n in outputs],
        "location": location,
        "context": {},
        "latestRun": None,
        "facets": {},
    }


def job_versions(store: Store, namespace: str, name: str, limit: int, offset: int) -> dict[str, Any]:
    with store.engine.connect() as conn:
        return _page(_job_versions(conn, namespace, name), limit, offset)


def job_version(store: Store, namespace: str, name: str, version: str) -> dict[str, Any]:
    return _one_version(store, _job_versions, "job", (namespace, name), version)


# ---------------------------------------------------------------- upstream run lineage


def _upstream_step(conn: Connection, frontier: list[str]) -> list[dict[str, Any]]:
    """The runs `frontier` (those stored), each with the dataset versions it read and the runs that wrote them."""
    rows = _run_rows(conn, set(frontier))
    runs = {run_id: _run(row) for run_id, row in rows.items()}
    written: Written = {}
    named = run_datasets(conn, [(row.job_key, run_id) for run_id, row in rows.items()], written)
    inputs = {run_id: sorted(named[rows[run_id].job_key, run_id].inputs) for run_id in rows}
    asks: dict[tuple[str, str], set[tuple[str, str | None]]] = {}
    for run_id, datasets in inputs.items():
        for dataset in datasets:
            asks.setdefault(dataset, set()).add((read_at(runs[run_id]), run_id))
    read = versions_read(conn, asks, written)
    out = []
    for run_id in frontier:
        if run_id not in runs:
            continue
        listed = []
        for dataset in inputs[run_id]:
            version, producer = read.get((dataset, read_at(runs[run_id]), run_id), (None, None))
            listed.append(
                {"namespace": dataset[0], "name": dataset[1], "version": version, "producedByRunId": producer}
            )
        out.append(_upstream_run(runs[run_id], listed))
    return out


def upstream_runs(store: Store, run_id: str, depth: int) -> dict[str, Any]:
    """``GET /api/v1/runlineage/upstream``: the run, the dataset versions it read, the runs that
    wrote them, and so on up to `depth` runs up; each run once."""
    out: list[dict[str, Any]] = []
    with store.engine.connect() as conn:
        frontier, seen = [run_id], {run_id}
        for _level in range(max(0, depth) + 1):
            step = _upstream_step(conn, frontier)
            if not step and not out:
                raise NotFound(f"run '{run_id}' not found")
            out += step
            frontier = []
            for found in step:
                for read in found["inputs"]:
                    producer = read["producedByRunId"]
                    if producer and producer not in seen:
                        seen.add(producer)
                        frontier.append(producer)
            if not frontier:
                break
    return {"runs": out}


def _upstream_run(run: dict[str, Any], inputs: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "job": {**run["jobVersion"], "version": None},
        "run": {"id": run["id"], "start": run["startedAt"], "end": run["endedAt"], "status": run["state"]},
        "inputs": inputs,
    }


# ---------------------------------------------------------------- one dataset or job, with its version


def dataset_with_version(store: Store, namespace: str, name: str) -> dict[str, Any]:
    """``GET .../datasets/{dataset}``: the dataset, its ``currentVersion`` the newest of its versions."""
    found = _dataset(store, namespace, name)
    with store.engine.connect() as conn:
        versions = _page(_dataset_versions(conn, namespace, name), 1, 0)["versions"]
    found["currentVersion"] = versions[0]["version"] if versions else None
    return found


def job_with_version(store: Store, namespace: str, name: str) -> dict[str, Any]:
    """``GET .../jobs/{job}``: the job, its ``currentVersion`` the version of its latest run."""
    found = _job(store, namespace, name)
    with store.engine.connect() as conn:
        versions = _job_versions(conn, namespace, name)
    latest = found.get("latestRun") or {}
    current = next((v for v in versions if (v["latestRun"] or {}).get("id") == latest.get("id")), None)
    found["currentVersion"] = current["version"] if current else None
    return found
