"""The datasets of runs, from their stored events, as Marquez gives them with each run.

- A run's **output dataset versions** are the versions its events wrote: each output of
  each of its events makes the version of that run and the fields of that output's
  ``schema`` facet (a name-based UUID of the dataset, the run and the fields, the same
  ids as the dataset's versions list), with the output's ``outputFacets``.
- A run's **input dataset versions** are, for each dataset its events read, the version
  of it written last by another run at or before the run started (none when no run had
  written it by then), with the input's ``inputFacets``.

Facets of the same key from later events replace earlier ones, as Marquez keeps the most
recent. Event bodies are read a few MB at a time, so that large events are never all in
memory at once.
"""

from __future__ import annotations

import bisect
import json
import uuid
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from sqlalchemy import func, select
from sqlalchemy.engine import Connection

from olsdk._builders.facets._base import key_of
from olsdk._integrations.serve import _schema as t
from olsdk._models import SchemaDatasetFacet

__all__ = [
    "RunDatasets",
    "Written",
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
_BODY_CHARS: Final = 4 * 1024 * 1024  # of event bodies read at once (one larger body is read alone)

Dataset = tuple[str, str]  # (namespace, name)
Written = dict[int, dict[Dataset, str]]  # event seq -> the version of each dataset the event writes
Ask = tuple[Dataset, str, str | None]  # a dataset, when it was read, the run that read it


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

    def add(self, run_id: str | None, document: Mapping[str, Any]) -> dict[Dataset, str]:
        """Fold in one of the run's events; the version of each dataset it writes."""
        for dataset, entry in _named(document.get("inputs")):
            self.inputs.setdefault(dataset, {}).update(_facets(entry, "inputFacets"))
        versions = {}
        for dataset, entry in _named(document.get("outputs")):
            versions[dataset] = version = written_version(run_id, dataset, entry)
            held = self.outputs.setdefault(version, (dataset, {}))
            held[1].update(_facets(entry, "outputFacets"))
        return versions


def _documents(conn: Connection, seqs: list[int]) -> Iterator[tuple[int, Mapping[str, Any]]]:
    """The decoded events `seqs`, in that order, read a few MB of them at a time."""
    c = t.events.c
    sizes: dict[int, int] = {}
    for start in range(0, len(seqs), _CHUNK):
        query = select(c.seq, func.length(c.body).label("size")).where(c.seq.in_(seqs[start : start + _CHUNK]))
        sizes.update((row.seq, int(row.size or 0)) for row in conn.execute(query))
    chunk: list[int] = []
    held = 0
    for position, seq in enumerate(seqs):
        chunk.append(seq)
        held += sizes.get(seq, 0)
        if held < _BODY_CHARS and len(chunk) < _CHUNK and position < len(seqs) - 1:
            continue
        bodies = {row.seq: row.body for row in conn.execute(select(c.seq, c.body).where(c.seq.in_(chunk)))}
        for each in chunk:
            document = json.loads(bodies[each]) if each in bodies else None
            yield each, document if isinstance(document, Mapping) else {}
        chunk, held = [], 0


def run_datasets(
    conn: Connection, runs: Iterable[tuple[str, str]], written: Written | None = None
) -> dict[tuple[str, str], RunDatasets]:
    """What the events of each run (job key, run id) named, oldest event first; the versions
    each event writes go into `written` too."""
    found = {key: RunDatasets() for key in runs}
    written = {} if written is None else written
    ids = sorted({run_id for _job_key, run_id in found})
    c = t.events.c
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        prefixes = sorted({run_id[: t.INDEXED_CHARS] for run_id in chunk})  # through the events' run index
        # The whole ids are matched here, and the order made here: given either, SQLite walks the
        # events' time index or the whole table instead of the run index.
        query = select(c.seq, c.event_time, c.job_key, c.run_id).where(t.indexed_prefix(c.run_id).in_(prefixes))
        rows = sorted(
            (row for row in conn.execute(query) if (row.job_key, row.run_id) in found),
            key=lambda row: (row.event_time, row.seq),
        )
        run_of = {row.seq: (row.job_key, row.run_id) for row in rows}
        for seq, document in _documents(conn, [row.seq for row in rows]):
            written[seq] = found[run_of[seq]].add(run_of[seq][1], document)
    return found


def _versions_written(run_id: str | None, document: Mapping[str, Any]) -> dict[Dataset, str]:
    return {dataset: written_version(run_id, dataset, entry) for dataset, entry in _named(document.get("outputs"))}


class _WriteLog:
    """The events of the jobs that write some datasets, by event time, and the version of each
    dataset each event writes (`written`: those known; the others read when first needed)."""

    def __init__(self, conn: Connection, datasets: Iterable[Dataset], written: Written) -> None:
        self.conn, self.written = conn, written
        keys = {t.name_key(*dataset): dataset for dataset in datasets}
        self.rows: dict[Dataset, list[Any]] = {dataset: [] for dataset in keys.values()}
        c, edges = t.events.c, t.edges.c
        asked = sorted(keys)
        for start in range(0, len(asked), _CHUNK):
            query = (
                select(edges.dataset_key, c.seq, c.event_time, c.run_id)
                .select_from(t.edges.join(t.events, c.job_key == edges.job_key))
                .where(edges.dataset_key.in_(asked[start : start + _CHUNK]), edges.direction == "output")
            )
            for row in conn.execute(query):
                self.rows[keys[row.dataset_key]].append(row)
        for rows in self.rows.values():
            rows.sort(key=lambda row: (row.event_time, row.seq))
        self.times = {dataset: [row.event_time for row in rows] for dataset, rows in self.rows.items()}

    def place(self, dataset: Dataset, time: str) -> int:
        """How many of the dataset's writer events happened at or before `time`."""
        return bisect.bisect_right(self.times[dataset], time)

    def walk(self, ask: Ask, place: int) -> tuple[int, tuple[str, str | None] | None]:
        """Back from the `place`-th writer event over those whose versions are known: (version,
        writing run) of the first that writes the dataset, by a run other than the reader; else
        where the walk stopped (0: at the first event; more: at an event to read first)."""
        dataset, _time, reader = ask
        rows = self.rows[dataset]
        while place > 0:
            row = rows[place - 1]
            versions = self.written.get(row.seq)
            if reader is not None and row.run_id == reader:
                place -= 1
            elif versions is None:
                return place, None
            elif dataset in versions:
                return place, (versions[dataset], row.run_id)
            else:
                place -= 1
        return 0, None

    def read(self, events: dict[int, str | None]) -> None:
        """The versions the events (seq: run id) write."""
        for seq, document in _documents(self.conn, sorted(events)):
            self.written[seq] = _versions_written(events[seq], document)


def versions_read(
    conn: Connection, asks: Mapping[Dataset, Iterable[tuple[str, str | None]]], written: Written | None = None
) -> dict[Ask, tuple[str, str | None]]:
    """For each dataset and each (time, reading run id) asked: the version of the dataset a run
    starting then read (the last written at or before `time` by another run), and the run that
    wrote it. Those no run had written by then are left out. `written`: the versions known to
    be written by events (from `run_datasets`), so that those are not read again."""
    log = _WriteLog(conn, asks, {} if written is None else written)
    pending = {
        (dataset, time, reader): log.place(dataset, time) for dataset, reads in asks.items() for time, reader in reads
    }
    found: dict[Ask, tuple[str, str | None]] = {}
    while pending:  # each round reads the events the walks stopped at, all at once
        unread: dict[int, str | None] = {}
        for ask, place in list(pending.items()):
            place, version = log.walk(ask, place)
            if version is not None:
                found[ask] = version
            if version is not None or place == 0:
                del pending[ask]
                continue
            pending[ask] = place
            row = log.rows[ask[0]][place - 1]
            unread[row.seq] = row.run_id
        log.read(unread)
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
    written: Written = {}
    named = run_datasets(conn, by_key, written)
    asks: dict[Dataset, set[tuple[str, str | None]]] = {}
    for (_job_key, run_id), datasets in named.items():
        for dataset in datasets.inputs:
            asks.setdefault(dataset, set()).add((read_at(by_key[_job_key, run_id][0]), run_id))
    read = versions_read(conn, asks, written)
    for (job_key, run_id), datasets in named.items():
        at = read_at(by_key[job_key, run_id][0])
        inputs = [
            _entry(dataset, read.get((dataset, at, run_id), (None, None))[0], facets)
            for dataset, facets in datasets.inputs.items()
        ]
        outputs = [_entry(dataset, version, facets) for version, (dataset, facets) in datasets.outputs.items()]
        for run in by_key[job_key, run_id]:
            run["inputDatasetVersions"], run["outputDatasetVersions"] = inputs, outputs
