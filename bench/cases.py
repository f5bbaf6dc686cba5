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
from typing import Any

import orjson
from openlineage.client.serde import Serde

import olsdk
from bench import workloads
from bench.timing import Measure, calibrate, loop_measure


@dataclass
class Contender:
    name: str
    measure: Measure
    note: str = ""


@dataclass
class Case:
    group: str  # parse | serialise | emit | schema | http
    title: str
    workload: str
    reference: str
    contenders: list[Contender]
    target: tuple[str, float] | None = None  # (contender, minimum ratio vs the reference)
    unit: str = "op"  # what one operation is ("op" or "event")
    pending: list[str] = field(default_factory=list)  # contenders not measurable yet
    note: str = ""


# Issue 15's targets; the HTTP one is issue 7's.
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


def serialise_case(inp: Inputs, sample_seconds: float) -> Case:
    official, ours, doc = inp.official_event, inp.olsdk_event, inp.as_dict
    target = TARGETS.get(("serialise", inp.workload))
    return Case(
        "serialise",
        "serialise typed event",
        inp.workload,
        reference="official Serde.to_json",
        contenders=[
            Contender("olsdk.to_json", timed_loop(lambda: olsdk.to_json(ours), sample_seconds), "str"),
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
        target=("olsdk.to_json", target) if target else None,
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
        note="olsdk offers no JSON-Schema validation; its typed parse is shown for scale.",
    )
