"""What one event contributes to a lineage graph, as plain values.

:func:`extract` turns one decoded event (with a usable identity, see `_read`) into
:class:`EventFacts`: its job, run, state, time, error message, input and output
datasets, schema fields, column lineage, producer and facet keys. The one-process
builder folds these; on Spark the same function runs on the executors
(:func:`facts_row`), so both paths read every event the same way.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from olsdk._builders.facets._base import key_of
from olsdk._models import (
    ColumnLineageDatasetFacet,
    Dataset,
    ErrorMessageRunFacet,
    EventType,
    ParentRunFacet,
    SchemaDatasetFacet,
)
from olsdk._models._spec import ENTITIES, event_kind

__all__ = [
    "ACTIVE_TYPES",
    "FAIL",
    "NO_TIME",
    "OTHER",
    "STATE_RANK",
    "TERMINAL_TYPES",
    "ColumnEdge",
    "DatasetFacts",
    "EventFacts",
    "canonical_time",
    "extract",
]


SCHEMA_KEY: Final = key_of(SchemaDatasetFacet)
COLUMN_LINEAGE_KEY: Final = key_of(ColumnLineageDatasetFacet)
ERROR_MESSAGE_KEY: Final = key_of(ErrorMessageRunFacet)
PARENT_KEY: Final = key_of(ParentRunFacet)

TERMINAL_TYPES: Final = (EventType.COMPLETE.value, EventType.FAIL.value, EventType.ABORT.value)
ACTIVE_TYPES: Final = (EventType.START.value, EventType.RUNNING.value)
OTHER: Final = EventType.OTHER.value
FAIL: Final = EventType.FAIL.value
EVENT_TYPES: Final = frozenset(t.value for t in EventType)
# Two terminal events of one run at the same instant: the worse outcome wins.
STATE_RANK: Final = {EventType.COMPLETE.value: 1, EventType.ABORT.value: 2, EventType.FAIL.value: 3}
NO_TIME: Final = ""  # sorts before every canonical time
MAX_ERROR_CHARS: Final = 4000
MAX_FIELD_DEPTH: Final = 8

# The entity kind of the facets in each facet container of a dataset (the spec's
# `facets`, `inputFacets`, `outputFacets`), read from the generated metadata.
_DATASET_CONTAINERS: Final = tuple((e.field, e.name) for e in ENTITIES if issubclass(e.owner, Dataset))


def canonical_time(value: Any) -> str:
    """An ISO 8601 date-time as fixed-width UTC text (sortable as text), or ``""``.

    Naive times are read as UTC, as most producers that omit the offset mean it.
    """
    if not isinstance(value, str):
        return NO_TIME
    try:
        moment = datetime.fromisoformat(value)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        moment = moment.astimezone(UTC)
    except (ValueError, OverflowError):
        return NO_TIME
    return (
        f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}T"
        f"{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}.{moment.microsecond:06d}Z"
    )


@dataclass(frozen=True, slots=True, order=True)
class ColumnEdge:
    """One input field of one field of a dataset (``field`` None: the whole dataset)."""

    field: str | None
    upstream_namespace: str
    upstream_name: str
    upstream_field: str | None
    transformation: str


@dataclass(slots=True)
class DatasetFacts:
    namespace: str
    name: str
    fields: str | None = None  # JSON list of [name, type] from the schema facet
    columns: list[ColumnEdge] = field(default_factory=list)


@dataclass(slots=True)
class EventFacts:
    kind: str  # run, job or dataset
    job: tuple[str, str] | None = None
    run_id: str | None = None
    event_type: str | None = None
    time: str = NO_TIME
    error: str | None = None
    parent: tuple[str, str, str] | None = None  # the parent run: job namespace, job name, run id
    inputs: list[tuple[str, str]] = field(default_factory=list)
    outputs: list[tuple[str, str]] = field(default_factory=list)
    datasets: list[DatasetFacts] = field(default_factory=list)
    producer: str | None = None
    facet_keys: list[str] = field(default_factory=list)  # "entity:key", once per event
    notes: list[str] = field(default_factory=list)  # parts of the event left out, and why


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value != "" else None


def _facets(container: Any) -> Mapping[str, Any]:
    return container if isinstance(container, Mapping) else {}


def _schema_fields(facet: Any, notes: list[str]) -> str | None:
    if not isinstance(facet, Mapping) or not isinstance(facet.get("fields"), list):
        notes.append(f"{SCHEMA_KEY} facet: fields missing or not a list")
        return None
    flat: list[list[str]] = []

    def walk(fields: list[Any], prefix: str, depth: int) -> None:
        for entry in fields:
            name = _text(entry.get("name")) if isinstance(entry, Mapping) else None
            if name is None:
                notes.append(f"{SCHEMA_KEY} facet: a field without a name")
                continue
            kind = entry.get("type")
            flat.append([prefix + name, kind if isinstance(kind, str) else ""])
            nested = entry.get("fields")
            if isinstance(nested, list) and depth < MAX_FIELD_DEPTH:
                walk(nested, f"{prefix}{name}.", depth + 1)

    walk(facet["fields"], "", 0)
    return json.dumps(flat, ensure_ascii=False, separators=(",", ":"))


def _transformation(input_field: Mapping[str, Any], target: Mapping[str, Any]) -> str:
    labels: list[str] = []
    transformations = input_field.get("transformations")
    for item in transformations if isinstance(transformations, list) else []:
        if isinstance(item, Mapping):
            label = "/".join(part for part in (_text(item.get("type")), _text(item.get("subtype"))) if part)
            if label and label not in labels:
                labels.append(label)
    if not labels and _text(target.get("transformationType")):
        labels.append(target["transformationType"])
    return ", ".join(labels)


def _column_edges(facet: Any, notes: list[str]) -> list[ColumnEdge]:
    if not isinstance(facet, Mapping):
        notes.append(f"{COLUMN_LINEAGE_KEY} facet: not an object")
        return []
    edges: list[ColumnEdge] = []

    def add(target_field: str | None, inputs: Any, target: Mapping[str, Any]) -> None:
        for item in inputs if isinstance(inputs, list) else []:
            namespace = _text(item.get("namespace")) if isinstance(item, Mapping) else None
            name = _text(item.get("name")) if isinstance(item, Mapping) else None
            if namespace is None or name is None:
                notes.append(f"{COLUMN_LINEAGE_KEY} facet: an input field without namespace or name")
                continue
            upstream_field = _text(item.get("field"))
            if upstream_field is None and target_field is not None:
                notes.append(f"{COLUMN_LINEAGE_KEY} facet: an input field without a field name")
                continue
            edges.append(ColumnEdge(target_field, namespace, name, upstream_field, _transformation(item, target)))

    fields = facet.get("fields")
    for target_field, target in (fields if isinstance(fields, Mapping) else {}).items():
        if isinstance(target, Mapping) and target_field:
            add(target_field, target.get("inputFields"), target)
    add(None, facet.get("dataset"), {})
    return edges


def _dataset(item: Any, where: str, facts: EventFacts) -> DatasetFacts | None:
    if not isinstance(item, Mapping):
        facts.notes.append(f"{where}: a dataset that is not an object")
        return None
    namespace, name = _text(item.get("namespace")), _text(item.get("name"))
    if namespace is None or name is None:
        facts.notes.append(f"{where}: a dataset without namespace or name")
        return None
    dataset = DatasetFacts(namespace, name)
    for container, entity in _DATASET_CONTAINERS:
        for key in _facets(item.get(container)):
            facts.facet_keys.append(f"{entity}:{key}")
    facets = _facets(item.get("facets"))
    if SCHEMA_KEY in facets:
        dataset.fields = _schema_fields(facets[SCHEMA_KEY], facts.notes)
    if COLUMN_LINEAGE_KEY in facets:
        dataset.columns = _column_edges(facets[COLUMN_LINEAGE_KEY], facts.notes)
    facts.datasets.append(dataset)
    return dataset


def _parent(facet: Any, facts: EventFacts) -> tuple[str, str, str] | None:
    """(job namespace, job name, run id) of the parent run facet, or None with a note saying why."""
    job = facet.get("job") if isinstance(facet, Mapping) else None
    run = facet.get("run") if isinstance(facet, Mapping) else None
    namespace = _text(job.get("namespace")) if isinstance(job, Mapping) else None
    name = _text(job.get("name")) if isinstance(job, Mapping) else None
    run_id = _text(run.get("runId")) if isinstance(run, Mapping) else None
    if namespace is None or name is None or run_id is None:
        facts.notes.append(f"{PARENT_KEY} facet: job.namespace, job.name or run.runId missing")
        return None
    if (namespace, name, run_id) == (*(facts.job or ("", "")), facts.run_id):
        facts.notes.append(f"{PARENT_KEY} facet: names the run itself")
        return None
    return (namespace, name, run_id)


def extract(event: Mapping[str, Any]) -> EventFacts:
    """The graph facts of one event whose identity `_read.identity_problem` accepted."""
    kind = event_kind(event)
    facts = EventFacts(kind=kind or "unknown", producer=_text(event.get("producer")))
    facts.time = canonical_time(event.get("eventTime"))
    if kind == "dataset":
        _dataset(event["dataset"], "dataset", facts)
        facts.facet_keys = sorted(set(facts.facet_keys))
        return facts
    job = event["job"]
    facts.job = (job["namespace"], job["name"])
    for key in _facets(job.get("facets")):
        facts.facet_keys.append(f"job:{key}")
    if kind == "run":
        run = event["run"]
        facts.run_id = run["runId"]
        event_type = event.get("eventType")
        if isinstance(event_type, str) and event_type.upper() in EVENT_TYPES:
            facts.event_type = event_type.upper()
        else:
            facts.event_type = OTHER
            if event_type is not None:
                facts.notes.append("eventType: not one of the spec's event types (read as OTHER)")
        if facts.time == NO_TIME:
            facts.notes.append("eventTime: missing or not an ISO 8601 date-time")
        run_facets = _facets(run.get("facets"))
        for key in run_facets:
            facts.facet_keys.append(f"run:{key}")
        error = run_facets.get(ERROR_MESSAGE_KEY)
        if isinstance(error, Mapping) and _text(error.get("message")):
            facts.error = error["message"][:MAX_ERROR_CHARS]
        if PARENT_KEY in run_facets:
            facts.parent = _parent(run_facets[PARENT_KEY], facts)
    for side, target in (("inputs", facts.inputs), ("outputs", facts.outputs)):
        items = event.get(side)
        if items is None:
            continue
        if not isinstance(items, list):
            facts.notes.append(f"{side}: not a list")
            continue
        for item in items:
            dataset = _dataset(item, side, facts)
            if dataset is not None:
                target.append((dataset.namespace, dataset.name))
    facts.facet_keys = sorted(set(facts.facet_keys))
    return facts


def facts_json(facts: EventFacts) -> str:
    """`facts` as one JSON object (the row format of the Spark path)."""
    return json.dumps(
        {
            "kind": facts.kind,
            "job": None if facts.job is None else {"namespace": facts.job[0], "name": facts.job[1]},
            "run_id": facts.run_id,
            "event_type": facts.event_type,
            "time": facts.time,
            "error": facts.error,
            "parent": None
            if facts.parent is None
            else {"namespace": facts.parent[0], "name": facts.parent[1], "run_id": facts.parent[2]},
            "inputs": [{"namespace": ns, "name": n} for ns, n in facts.inputs],
            "outputs": [{"namespace": ns, "name": n} for ns, n in facts.outputs],
            "datasets": [
                {
                    "namespace": d.namespace,
                    "name": d.name,
                    "fields": d.fields,
                    "columns": [
                        {
                            "field": c.field,
                            "up_namespace": c.upstream_namespace,
                            "up_name": c.upstream_name,
                            "up_field": c.upstream_field,
                            "transformation": c.transformation,
                        }
                        for c in d.columns
                    ],
                }
                for d in facts.datasets
            ],
            "producer": facts.producer,
            "facet_keys": facts.facet_keys,
            "notes": facts.notes,
        },
        ensure_ascii=False,
        separators=(",", ":"),
    )
