"""The datasets of runs, from their stored events, as Marquez gives them with each run.

- A run's **output dataset versions** are the versions its events wrote: each output of
  each of its events makes the version of that run and the fields of that output's
  ``schema`` facet (a name-based UUID of the dataset, the run and the fields, the same
  ids as the dataset's versions list), with the output's ``outputFacets``.
- A run's **input dataset versions** are, for each dataset its events read, the version
  of it written last by another run at or before the run started (none when no run had
  written it by then), with the input's ``inputFacets``.

Facets of the same key from later events replace earlier ones, as Marquez keeps the most
recent. Event bodies are read a few at a time, so that large events are never all in
memory at once.
"""

from __future__ import annotations

import bisect
import json
import uuid
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from sqlalchemy import select
from sqlalchemy.engine import Connection

from olsdk._builders.facets._base import key_of
from olsdk._integrations.serve import _schema as t
from olsdk._models import SchemaDatasetFacet

__all__ = [
    "RunDatasets",
    "fill_dataset_versions",
    "read_at",
    "run_datasets",
    "tag_names",
    "version_id",
    "versions_read",
    "written_version",
]

_SCHEMA: Final = key_of(SchemaDatasetFacet)
_TAGS: Final = "tags"  # the tags facet of jobs (TagsJobFacet) and datasets (TagsDatasetFacet, per field too)
_VERSIONS: Final = uuid.UUID("6f1c1ab0-58b7-4bb2-9b5a-6f6c5e0d7a11")  # the namespace of olsdk's version ids
_CHUNK: Final = 500  # run ids per IN (...) list
_BODIES: Final = 8  # event bodies read at once

Dataset = tuple[str, str]  # (namespace, name)


def _text_of(facet: Any, key: str) -> str | None:
    value = facet.get(key) if isinstance(facet, dict) else None
    return value if isinstance(value, str) else None


def tag_names(facets: dict[str, Any], field: str | None = None) -> list[str]:
    """The keys of the ``tags`` facet in `facets`: those on the whole job or dataset, or on `field`."""
    facet = facets.get(_TAGS)
    entries = facet.get("tags") if isinstance(facet, dict) else None
    names = set()
    for entry in entries if isinstance(entries, list) else []:
        key = entry.get("key") if isinstance(entry, dict) else None
        if isinstance(key, str) and key and entry.get("field") == field:
            names.add(key)
    return sorted(names)


def _fields(facets: dict[str, Any]) -> list[dict[str, Any]]:
    schema = facets.get(_SCHEMA)
    listed = schema.get("fields") if isinstance(schema, dict) else None
    fields = []
    for entry in listed if isinstance(listed, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("name"), str):
            kind = entry.get("type")
            fields.append(
                {
                    "name": entry["name"],
                    "type": kind if isinstance(kind, str) else None,
                    "tags": tag_names(facets, entry["name"]),
                    "description": _text_of(entry, "description"),
                }
            )
    return fields


def version_id(*parts: Any) -> str:
    """The id of a dataset or job version: a name-based UUID of what makes the version."""
    return str(uuid.uuid5(_VERSIONS, json.dumps(parts, ensure_ascii=False, separators=(",", ":"))))


def _facets(holder: Mapping[str, Any], key: str) -> dict[str, Any]:
    found = holder.get(key)
    return found if isinstance(found, dict) else {}


def written_version(run_id: str | None, dataset: Dataset, output: Mapping[str, Any]) -> str:
    """The version of `dataset` that an event of run `run_id` writes with `output` (one of its outputs)."""
    return version_id(dataset[0], dataset[1], run_id, _fields(_facets(output, "facets")))


def _named(side: Any) -> Iterator[tuple[Dataset, Mapping[str, Any]]]:
    """The (namespace, name) and the entry of each dataset of an event's inputs or outputs."""
    for entry in side if isinstance(side, list) else []:
        if isinstance(entry, Mapping):
            namespace, name = entry.get("namespace"), entry.get("name")
            if isinstance(namespace, str) and isinstance(name, str):
                yield (namespace, name), entry


@dataclass(slots=True)
class RunDatasets:
    """What a run's events named: the datasets it read (with their input facets), in the order
    first read, and the dataset versions it wrote (with their output facets), in the order written."""

    inputs: dict[Dataset, dict[str, Any]] = field(default_factory=dict)
    outputs: dict[str, tuple[Dataset, dict[str, Any]]] = field(default_factory=dict)

    def add(self, run_id: str | None, document: Mapping[str, Any]) -> None:
        for dataset, entry in _named(document.get("inputs")):
            self.inputs.setdefault(dataset, {}).update(_facets(entry, "inputFacets"))
        for dataset, entry in _named(document.get("outputs")):
            held = self.outputs.setdefault(written_version(run_id, dataset, entry), (dataset, {}))
            held[1].update(_facets(entry, "outputFacets"))


def _documents(conn: Connection, seqs: list[int]) -> Iterator[tuple[int, Mapping[str, Any]]]:
    """The decoded events `seqs`, in that order, read `_BODIES` at a time."""
    c = t.events.c
    for start in range(0, len(seqs), _BODIES):
        chunk = seqs[start : start + _BODIES]
        bodies = {row.seq: row.body for row in conn.execute(select(c.seq, c.body).where(c.seq.in_(chunk)))}
        for seq in chunk:
            document = json.loads(bodies[seq]) if seq in bodies else None
            yield seq, document if isinstance(document, Mapping) else {}


def run_datasets(conn: Connection, runs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], RunDatasets]:
    """What the events of each run (job key, run id) named, oldest event first."""
    found = {key: RunDatasets() for key in runs}
    ids = sorted({run_id for _job_key, run_id in found})
    c = t.events.c
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        prefixes = sorted({run_id[: t.RUN_ID_PREFIX] for run_id in chunk})  # through the events' run index
        query = (
            select(c.seq, c.job_key, c.run_id)
            .where(t.run_id_prefix(c.run_id).in_(prefixes), c.run_id.in_(chunk))
            .order_by(c.event_time, c.seq)
        )
        rows = [row for row in conn.execute(query) if (row.job_key, row.run_id) in found]
        run_of = {row.seq: (row.job_key, row.run_id) for row in rows}
        for seq, document in _documents(conn, [row.seq for row in rows]):
            found[run_of[seq]].add(run_of[seq][1], document)
    return found


class _Writes:
    """The events of the jobs that write one dataset, by event time, and the version each
    writes (read when first asked for)."""

    def __init__(self, conn: Connection, dataset: Dataset) -> None:
        self.conn, self.dataset = conn, dataset
        c, edges = t.events.c, t.edges.c
        writers = select(edges.job_key).where(edges.dataset_key == t.name_key(*dataset), edges.direction == "output")
        query = select(c.seq, c.event_time, c.run_id).where(c.job_key.in_(writers)).order_by(c.event_time, c.seq)
        self.rows = list(conn.execute(query))
        self.times = [row.event_time for row in self.rows]
        self.versions: dict[int, str | None] = {}  # event seq -> the version it writes (None: it does not)

    def last_before(self, time: str, reader: str | None) -> tuple[str, str | None] | None:
        """(version, writing run id) of the last write at or before `time` by a run other than `reader`."""
        place = bisect.bisect_right(self.times, time)
        while place > 0:
            place -= 1
            row = self.rows[place]
            if reader is not None and row.run_id == reader:
                continue
            if row.seq not in self.versions:
                self._read(place)
            version = self.versions[row.seq]
            if version is not None:
                return version, row.run_id
        return None

    def _read(self, place: int) -> None:
        """The versions the events at `place` and a few before it write."""
        rows = [row for row in self.rows[max(0, place - _BODIES + 1) : place + 1] if row.seq not in self.versions]
        run_of = {row.seq: row.run_id for row in rows}
        for seq, document in _documents(self.conn, [row.seq for row in rows]):
            version = None
            for dataset, entry in _named(document.get("outputs")):
                if dataset == self.dataset:
                    version = written_version(run_of[seq], dataset, entry)
            self.versions[seq] = version


def versions_read(
    conn: Connection, asks: Mapping[Dataset, Iterable[tuple[str, str | None]]]
) -> dict[tuple[Dataset, str, str | None], tuple[str, str | None]]:
    """For each dataset and each (time, reading run id) asked: the version of the dataset a run
    starting then read (the last written at or before `time` by another run), and the run that
    wrote it. Those no run had written by then are left out."""
    found: dict[tuple[Dataset, str, str | None], tuple[str, str | None]] = {}
    for dataset, reads in asks.items():
        writes = _Writes(conn, dataset)
        for time, reader in reads:
            version = writes.last_before(time, reader)
            if version is not None:
                found[dataset, time, reader] = version
    return found


def read_at(run: Mapping[str, Any]) -> str:
    """When a run (in Marquez's shape) read its inputs: its start, else when it was first seen."""
    return str(run["startedAt"] or run["createdAt"])


def _entry(dataset: Dataset, version: str | None, facets: dict[str, Any]) -> dict[str, Any]:
    return {"datasetVersionId": {"namespace": dataset[0], "name": dataset[1], "version": version}, "facets": facets}


def fill_dataset_versions(conn: Connection, runs: Iterable[tuple[str, dict[str, Any]]]) -> None:
    """Fill ``inputDatasetVersions`` and ``outputDatasetVersions`` of runs (their job key, the run
    in Marquez's shape) from their events; an input no run had written has no version (null)."""
    by_key: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for job_key, run in runs:
        by_key.setdefault((job_key, run["id"]), []).append(run)
    named = run_datasets(conn, by_key)
    asks: dict[Dataset, set[tuple[str, str | None]]] = {}
    for (_job_key, run_id), datasets in named.items():
        for dataset in datasets.inputs:
            asks.setdefault(dataset, set()).add((read_at(by_key[_job_key, run_id][0]), run_id))
    read = versions_read(conn, asks)
    for (job_key, run_id), datasets in named.items():
        at = read_at(by_key[job_key, run_id][0])
        inputs = [
            _entry(dataset, read.get((dataset, at, run_id), (None, None))[0], facets)
            for dataset, facets in datasets.inputs.items()
        ]
        outputs = [_entry(dataset, version, facets) for version, (dataset, facets) in datasets.outputs.items()]
        for run in by_key[job_key, run_id]:
            run["inputDatasetVersions"], run["outputDatasetVersions"] = inputs, outputs
