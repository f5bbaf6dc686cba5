"""How cost grows with event size, and what Python's garbage collector adds to a parse.

Growth: the minimal START event plus one input dataset whose schema facet has N fields
(N = 1, 10, 100, 1,000), built by the official client and serialised with its
`Serde.to_json` like the other workloads. Per size, one row group parses the bytes
(`olsdk.parse_event` against `orjson.loads`) and one emits the event (olsdk's models +
`olsdk.to_json` against the official client's models + `Serde.to_json`); a ratio that
stays level across sizes means olsdk's cost grows as its reference's does.

Garbage collector: an event with 10,000 schema fields (about 0.8 MB as `Serde.to_json`
writes it) parsed with the collector as it is, after `gc.freeze()`, and with the
collector off; in the benchmark process as it is, and holding 500 parsed full events
(the full event too, there). A large parse allocates tens of thousands of tracked
objects: every 700 allocations start a young collection, and the oldest generation's
collections scan every object the process holds, so the more it holds, the more a large
parse pays. `gc.freeze()` moves everything alive to a generation the collector never
scans: what a bulk job does once after start-up.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any

import orjson
from openlineage.client import event_v2 as ev
from openlineage.client.generated import schema_dataset as sd
from openlineage.client.serde import Serde

import olsdk
from bench import workloads
from bench.cases import Case, Contender, timed_loop
from bench.timing import Measure, calibrate
from olsdk import models as m

SIZES = (1, 10, 100, 1000)
LARGE = 10_000
HELD_EVENTS = 500
GC_SAMPLE_FACTOR = 5
WARM_UP_PARSES = 2

# How the collector runs during a sample of the garbage-collector rows.
COLLECTOR_ON = "collector on"
COLLECTOR_FROZEN = "after gc.freeze()"
COLLECTOR_OFF = "collector off"


def _column(i: int) -> tuple[str, str]:
    return f"col_{i:05d}", f"column {i}"


def official_with_fields(count: int) -> Any:
    """The minimal START event plus an input dataset with a `count`-field schema (official client)."""
    base = workloads.official_minimal()
    schema = sd.SchemaDatasetFacet(
        fields=[
            sd.SchemaDatasetFacetFields(name=name, type="VARCHAR", description=description)
            for name, description in map(_column, range(count))
        ],
        producer=workloads.PRODUCER,
    )
    return ev.RunEvent(
        eventType=base.eventType,
        eventTime=base.eventTime,
        producer=base.producer,
        run=base.run,
        job=base.job,
        inputs=[ev.InputDataset(namespace=workloads.DATA_NAMESPACE, name="raw.orders", facets={"schema": schema})],
    )


def olsdk_with_fields(count: int) -> m.RunEvent:
    """The same event built with olsdk's models, as type-checked code writes it."""
    schema = m.SchemaDatasetFacet(
        fields=[
            m.SchemaDatasetFacetFields(name=name, type="VARCHAR", description=description)
            for name, description in map(_column, range(count))
        ],
        producer=workloads.PRODUCER,
    )
    return m.RunEvent(
        eventType=m.EventType.START,
        eventTime=workloads.EVENT_TIME,
        producer=workloads.PRODUCER,
        run=m.Run(runId=workloads.RUN_ID),
        job=m.Job(namespace=workloads.NAMESPACE, name="orders_daily.enrich_orders"),
        inputs=[
            m.InputDataset(namespace=workloads.DATA_NAMESPACE, name="raw.orders", facets=m.DatasetFacets(schema=schema))
        ],
    )


def wire_with_fields(count: int) -> bytes:
    """The official bytes of the `count`-field event, checked against olsdk's build and parse."""
    wire = workloads.official_bytes(official_with_fields(count))
    workloads.check_same_document(wire, olsdk.to_json(olsdk_with_fields(count)))
    workloads.check_same_document(wire, olsdk.to_json(olsdk.parse_event(wire)))
    return wire


def _fields(count: int) -> str:
    return f"{count:,} field" + ("" if count == 1 else "s")


def _size(wire: bytes) -> str:
    return f"{len(wire) / 1024:,.1f} KB" if len(wire) < 2**20 else f"{len(wire) / 2**20:,.2f} MB"


def parse_case(count: int, sample_seconds: float) -> Case:
    wire = wire_with_fields(count)
    return Case(
        "growth",
        "parse, growing schema",
        f"{_fields(count)} ({_size(wire)})",
        reference="orjson.loads",
        contenders=[
            Contender("olsdk.parse_event", timed_loop(lambda: olsdk.parse_event(wire), sample_seconds)),
            Contender("orjson.loads", timed_loop(lambda: orjson.loads(wire), sample_seconds)),
        ],
    )


def emit_case(count: int, sample_seconds: float) -> Case:
    return Case(
        "growth",
        "emit, growing schema",
        _fields(count),
        reference="official client",
        contenders=[
            Contender(
                "olsdk",
                timed_loop(lambda: olsdk.to_json(olsdk_with_fields(count)), sample_seconds),
                "typed models + olsdk.to_json",
            ),
            Contender(
                "official client",
                timed_loop(lambda: Serde.to_json(official_with_fields(count)), sample_seconds),
                "attrs models + Serde.to_json",
            ),
        ],
    )


def collector_measure(
    mode: str, parse: Callable[[], object], iterations: int, held: Callable[[], object] = lambda: None
) -> Measure:
    """Time `iterations` calls of `parse` (thread CPU time) with the collector in `mode`,
    while the process also holds what `held()` returns; the collector's state (enabled,
    frozen) is as before once the sample is taken.

    Each sample starts from a bulk job's state: what it holds built and collected, the
    collector set, then a few parses untimed, so that the sample sees the collector's
    steady rhythm and not the quiet stretch after a full collection.
    """
    if mode not in (COLLECTOR_ON, COLLECTOR_FROZEN, COLLECTOR_OFF):
        raise ValueError(f"unknown collector mode {mode!r}")

    def measure() -> float:
        was_enabled = gc.isenabled()
        frozen_before = gc.get_freeze_count()
        kept = held()
        gc.collect()
        if mode == COLLECTOR_FROZEN:
            gc.freeze()
        elif mode == COLLECTOR_OFF:
            gc.disable()
        try:
            for _ in range(WARM_UP_PARSES):
                parse()
            t0 = time.thread_time_ns()
            for _ in range(iterations):
                parse()
            return (time.thread_time_ns() - t0) / iterations
        finally:
            # Unfreezing would also release what the process itself froze before.
            if mode == COLLECTOR_FROZEN and frozen_before == 0:
                gc.unfreeze()
            if was_enabled:
                gc.enable()
            del kept

    return measure


def _tracked_objects(held: Callable[[], object]) -> int:
    kept = held()
    gc.collect()
    tracked = len(gc.get_objects())
    del kept
    return tracked


def collector_case(workload: str, wire: bytes, sample_seconds: float, *, hold_events: int = 0) -> Case:
    """Parsing `wire` with the collector on, frozen and off, in a process that also holds
    `hold_events` parsed full events (as a job keeping earlier results would)."""
    full_wire = workloads.official_bytes(workloads.official_full())

    def held() -> list[object]:
        return [olsdk.parse_event(full_wire) for _ in range(hold_events)]

    def parse() -> object:
        return olsdk.parse_event(wire)

    # Longer samples than the other rows: one must span several full collections.
    iterations = calibrate(parse, sample_seconds * GC_SAMPLE_FACTOR)
    holding = f"holding {hold_events:,} parsed full events" if hold_events else "the bench process as it is"
    tracked = _tracked_objects(held)
    notes = {COLLECTOR_ON: "the default", COLLECTOR_FROZEN: "for bulk jobs", COLLECTOR_OFF: "the bound"}
    return Case(
        "growth",
        "parse, garbage collector",
        f"{workload}, {holding} ({tracked / 1000:,.0f}k objects tracked)",
        reference=COLLECTOR_ON,
        contenders=[Contender(mode, collector_measure(mode, parse, iterations, held), notes[mode]) for mode in notes],
    )


def collector_cases(sample_seconds: float) -> list[Case]:
    large = wire_with_fields(LARGE)
    full = workloads.official_bytes(workloads.official_full())
    large_name = f"{_fields(LARGE)} ({_size(large)})"
    return [
        collector_case(large_name, large, sample_seconds),
        collector_case(large_name, large, sample_seconds, hold_events=HELD_EVENTS),
        collector_case(f"full ({_size(full)})", full, sample_seconds, hold_events=HELD_EVENTS),
    ]


def growth_cases(sample_seconds: float) -> list[Case]:
    """The growth group: parse per size, emit per size, then the collector rows."""
    return [
        *(parse_case(count, sample_seconds) for count in SIZES),
        *(emit_case(count, sample_seconds) for count in SIZES),
        *collector_cases(sample_seconds),
    ]
