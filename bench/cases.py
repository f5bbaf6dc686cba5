"""The benchmark rows: what each contender does, the reference it is compared with, targets.

A `Case` is one comparison on one workload: a few contenders measured side by side
(interleaved, see `timing`), one of them the reference. A contender's number is the
median time per operation; its ratio is its speed relative to the reference (the
reference's time divided by the contender's, per round, median over the rounds), so
`0.5x orjson.loads` means "half as fast as orjson.loads" and `20x` means "20 times
faster". A target, when the issue sets one, is a minimum for that ratio.

Micro-benchmarks time this thread's CPU time (`time.thread_time_ns`), not wall time: on
a shared machine wall time also counts the moments other processes hold the CPU, which
moves ratios by tens of percent between runs.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from keyword import iskeyword
from typing import Any, NamedTuple

import orjson
from openlineage.client.serde import Serde

import olsdk
from bench import workloads
from bench.timing import Measure, calibrate, loop_measure
from olsdk import models
from olsdk.facets import key_of


@dataclass
class Contender:
    name: str
    measure: Measure
    note: str = ""


@dataclass
class Case:
    group: str  # parse | validate | read | serialise | emit | growth | schema | http
    title: str
    workload: str
    reference: str
    contenders: list[Contender]
    target: tuple[str, float] | None = None  # (contender, minimum ratio vs the reference)
    # (contender, most ns above the reference: the median over rounds of the difference)
    limit: tuple[str, float] | None = None
    unit: str = "op"  # what one operation is ("op" or "event")
    pending: list[str] = field(default_factory=list)  # contenders not measurable yet
    note: str = ""  # one line under the results' notes


# The targets (ratios to the reference); start-up's are in `bench.startup`.
TARGETS = {
    ("parse", "full"): 0.28,
    ("parse", "minimal"): 0.20,
    ("validate", "full"): 0.45,
    ("serialise", "full"): 16.0,
    ("emit", "full"): 5.0,
    ("emit", "minimal"): 6.5,
    ("http", "minimal"): 10.0,
}


@dataclass
class Inputs:
    """Everything a workload's cases need, built (and cross-checked) once."""

    workload: str
    official_build: Callable[[], Any]
    olsdk_build: Callable[[], Any]
    wire: bytes  # the official client's Serde.to_json output, UTF-8
    official_event: Any
    olsdk_event: Any
    as_dict: dict[str, Any]


def prepare(workload: str) -> Inputs:
    official_build, olsdk_build = workloads.WORKLOADS[workload]
    official_event = official_build()
    wire = workloads.official_bytes(official_event)
    olsdk_event = olsdk_build()
    workloads.check_same_document(wire, olsdk.to_json(olsdk_event))
    parsed = olsdk.parse_event(wire)  # olsdk must accept the official bytes
    workloads.check_same_document(wire, olsdk.to_json(parsed))
    return Inputs(
        workload,
        official_build,
        olsdk_build,
        wire,
        official_event,
        olsdk_event,
        orjson.loads(wire),
    )


def timed_loop(fn: Callable[[], object], sample_seconds: float) -> Measure:
    """A measure of about `sample_seconds` of calls of `fn`, in thread CPU time."""
    return loop_measure(fn, calibrate(fn, sample_seconds), clock=time.thread_time_ns)


def parse_case(inp: Inputs, sample_seconds: float) -> Case:
    wire = inp.wire
    model = type(inp.olsdk_event)
    return Case(
        "parse",
        "parse + validate bytes",
        inp.workload,
        reference="orjson.loads",
        contenders=[
            Contender(
                "olsdk.parse_event",
                timed_loop(lambda: olsdk.parse_event(wire), sample_seconds),
                "bytes -> typed event, validated",
            ),
            Contender(
                f"olsdk {model.__name__}.model_validate_json",
                timed_loop(lambda: model.model_validate_json(wire), sample_seconds),
                "event type known up front (no dispatch)",
            ),
            Contender(
                "orjson.loads",
                timed_loop(lambda: orjson.loads(wire), sample_seconds),
                "dict, no validation",
            ),
            Contender(
                "json.loads",
                timed_loop(lambda: json.loads(wire), sample_seconds),
                "dict, no validation",
            ),
        ],
        target=("olsdk.parse_event", TARGETS[("parse", inp.workload)]),
    )


def validate_case(inp: Inputs, sample_seconds: float) -> Case:
    """`olsdk.validate_event`: the strict parser's verdicts without building objects."""
    wire = inp.wire
    problems = olsdk.validate_event(wire)
    if problems:
        raise RuntimeError(f"olsdk.validate_event finds problems in the {inp.workload} workload: {problems}")
    target = TARGETS.get(("validate", inp.workload))
    return Case(
        "validate",
        "validate bytes, no objects built",
        inp.workload,
        reference="orjson.loads",
        contenders=[
            Contender(
                "olsdk.validate_event",
                timed_loop(lambda: olsdk.validate_event(wire), sample_seconds),
                "list of problems, empty here",
            ),
            Contender("orjson.loads", timed_loop(lambda: orjson.loads(wire), sample_seconds), "dict, no validation"),
        ],
        target=("olsdk.validate_event", target) if target else None,
    )


class Reads(NamedTuple):
    """What a reader went through: both readers of one event must give the same."""

    facets: int
    schema_fields: int  # nested fields included
    name_chars: int  # total length of the fields' names (each name is really read)


SCHEMA_KEY = key_of(models.SchemaDatasetFacet)


def parse_run_event(wire: bytes) -> models.RunEvent:
    event = olsdk.parse_event(wire)
    if not isinstance(event, models.RunEvent):
        raise TypeError(f"expected a RunEvent, parsed a {type(event).__name__}")
    return event


def read_every_facet(event: models.RunEvent) -> Reads:
    """Read every facet of a parsed event as a user would: a typed attribute for a key
    the container types, `facets[key]` for any other key; then every schema field's name.

    Only the public API: `keys()`, `__getitem__`, attributes and `__olsdk_keys__` (the
    JSON keys a container types), so a change of the containers' internals does not
    change what this measures.
    """
    maps: list[models.FacetContainer | None] = [event.run.facets, event.job.facets]
    for input_dataset in event.inputs or ():
        maps += (input_dataset.facets, input_dataset.inputFacets)
    for output_dataset in event.outputs or ():
        maps += (output_dataset.facets, output_dataset.outputFacets)
    facets_read = schema_fields = name_chars = 0
    for facets in maps:
        if facets is None:
            continue
        typed_keys = type(facets).__olsdk_keys__
        for key in facets:
            # A typed key reads as the attribute of the same name unless it is no Python
            # name (the generated field is then renamed): such keys go through the mapping.
            if key in typed_keys and key.isidentifier() and not iskeyword(key):
                facet = getattr(facets, key)
            else:
                facet = facets[key]
            facets_read += 1
            if isinstance(facet, models.SchemaDatasetFacet):
                columns = list(facet.fields or ())
                while columns:
                    column = columns.pop()
                    schema_fields += 1
                    name_chars += len(column.name)
                    if column.fields:
                        columns += column.fields
    return Reads(facets_read, schema_fields, name_chars)


def read_every_facet_of_dict(doc: dict[str, Any]) -> Reads:
    """The same reads on the decoded JSON (the schema facet found by its key)."""
    dataset_maps: list[dict[str, Any] | None] = []
    other_maps: list[dict[str, Any] | None] = [doc["run"].get("facets"), doc["job"].get("facets")]
    for input_dataset in doc.get("inputs") or ():
        dataset_maps.append(input_dataset.get("facets"))
        other_maps.append(input_dataset.get("inputFacets"))
    for output_dataset in doc.get("outputs") or ():
        dataset_maps.append(output_dataset.get("facets"))
        other_maps.append(output_dataset.get("outputFacets"))
    facets_read = schema_fields = name_chars = 0
    for facets in other_maps:
        if facets:
            for key in facets:
                facets[key]  # the read being measured
                facets_read += 1
    for facets in dataset_maps:
        if not facets:
            continue
        for key in facets:
            facet = facets[key]
            facets_read += 1
            if key == SCHEMA_KEY:
                columns = list(facet.get("fields") or ())
                while columns:
                    column = columns.pop()
                    schema_fields += 1
                    name_chars += len(column["name"])
                    if column.get("fields"):
                        columns += column["fields"]
    return Reads(facets_read, schema_fields, name_chars)


def read_case(inp: Inputs, sample_seconds: float) -> Case:
    wire = inp.wire
    typed = read_every_facet(parse_run_event(wire))
    plain = read_every_facet_of_dict(orjson.loads(wire))
    if typed != plain:
        raise RuntimeError(f"{inp.workload}: the typed reads {typed} and the dict reads {plain} disagree")
    return Case(
        "read",
        "parse + read every facet",
        inp.workload,
        reference="orjson.loads + reads",
        contenders=[
            Contender(
                "olsdk.parse_event + typed reads",
                timed_loop(lambda: read_every_facet(parse_run_event(wire)), sample_seconds),
                "attributes for typed keys, facets[key] for others, every field's .name",
            ),
            Contender(
                "orjson.loads + reads",
                timed_loop(lambda: read_every_facet_of_dict(orjson.loads(wire)), sample_seconds),
                "the same reads on dicts, no validation",
            ),
        ],
        note=f"each reader reads {typed.facets} facets and {typed.schema_fields} schema field names",
    )


def serialise_case(inp: Inputs, sample_seconds: float) -> Case:
    official, ours, doc = inp.official_event, inp.olsdk_event, inp.as_dict
    # This row dumps a parsed event (what a service relaying events does); the
    # event built in Python is shown beside it.
    parsed = olsdk.parse_event(inp.wire)
    target = TARGETS.get(("serialise", inp.workload))
    return Case(
        "serialise",
        "serialise typed event",
        inp.workload,
        reference="official Serde.to_json",
        contenders=[
            Contender("olsdk.to_json (parsed)", timed_loop(lambda: olsdk.to_json(parsed), sample_seconds), "str"),
            Contender("olsdk.to_json (built)", timed_loop(lambda: olsdk.to_json(ours), sample_seconds), "str"),
            Contender(
                "official Serde.to_json",
                timed_loop(lambda: Serde.to_json(official), sample_seconds),
                "str",
            ),
            Contender(
                "orjson.dumps(dict)",
                timed_loop(lambda: orjson.dumps(doc), sample_seconds),
                "plain dict, the practical limit",
            ),
        ],
        target=("olsdk.to_json (parsed)", target) if target else None,
    )


def emit_case(inp: Inputs, sample_seconds: float) -> Case:
    official_build, olsdk_build = inp.official_build, inp.olsdk_build
    return Case(
        "emit",
        "construct + serialise (emit)",
        inp.workload,
        reference="official client",
        contenders=[
            Contender(
                "olsdk",
                timed_loop(lambda: olsdk.to_json(olsdk_build()), sample_seconds),
                "typed models + olsdk.to_json",
            ),
            Contender(
                "official client",
                timed_loop(lambda: Serde.to_json(official_build()), sample_seconds),
                "attrs models + Serde.to_json",
            ),
        ],
        target=("olsdk", TARGETS[("emit", inp.workload)]),
    )


def schema_case(inp: Inputs, sample_seconds: float) -> Case:
    from bench import schema

    doc = inp.as_dict
    python_validator = schema.jsonschema_validator()
    rust_validator = schema.jsonschema_rs_validator()
    for validator in (python_validator, rust_validator):
        missing = validator.unresolved(doc)
        if missing:
            raise RuntimeError(f"no local schema for facets {missing}")
        if not validator(doc):
            raise RuntimeError(f"{inp.workload} event fails JSON-Schema validation")
    wire = inp.wire
    return Case(
        "schema",
        "JSON-Schema validation, full",
        inp.workload,
        reference="jsonschema",
        contenders=[
            Contender(
                "jsonschema",
                timed_loop(lambda: python_validator(doc), sample_seconds),
                "decoded dict",
            ),
            Contender(
                "jsonschema_rs",
                timed_loop(lambda: rust_validator(doc), sample_seconds),
                "decoded dict",
            ),
            Contender(
                "olsdk.parse_event (for scale)",
                timed_loop(lambda: olsdk.parse_event(wire), sample_seconds),
                "typed validation of the bytes; not a JSON-Schema validator",
            ),
        ],
    )
