"""`python -m bench.experiments`: where olsdk's parse and construct time goes.

Small, interleaved experiments on the benchmark's workloads, each against its own
baseline measured in the same rounds (15 rounds, thread CPU time rather than wall
time, so that other processes on the shared cores disturb them less), plus cProfile listings of the Python-level
frames. Model variants are scratch copies built by `bench.variants` (olsdk's own
sources are never modified). The findings are written up by hand at the end of
docs/explanation/benchmarks.md ("Where the time goes").
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import time
from collections.abc import Callable
from functools import partial
from typing import Annotated, Any

import orjson
from pydantic import Field, TypeAdapter

import olsdk
from bench import variants, workloads
from bench.timing import calibrate, interleave, loop_measure

ROUNDS = 15
SAMPLE = 0.03


def _parse_dict(wire: bytes) -> object:
    return olsdk.parse_event(orjson.loads(wire))


def _build_and_dump(build: Callable[[Any], Any], module: Any) -> object:
    return build(module).model_dump_json(exclude_unset=True)


def _validate_dict(validator: Callable[[Any], object], wire: bytes) -> object:
    return validator(orjson.loads(wire))


def compare(title: str, fns: dict[str, Callable[[], object]], reference: str) -> None:
    measures = {name: loop_measure(fn, calibrate(fn, SAMPLE), clock=time.thread_time_ns) for name, fn in fns.items()}
    series = interleave(measures, reference, ROUNDS)
    ref_min = min(series[reference].samples_ns)
    print(f"\n### {title}\n")
    print("| variant | median | min | time vs first row (median of rounds) | (mins) |")
    print("|---|---|---|---|---|")
    for name, s in series.items():
        rel = 1 / s.ratio  # contender time / reference time, per round
        rel_min = min(s.samples_ns) / ref_min
        print(
            f"| {name} | {s.median_ns / 1e3:.1f} µs | {min(s.samples_ns) / 1e3:.1f} µs"
            f" | {rel:.2f} ({(rel - 1) * 100:+.0f}%) | {rel_min:.2f} |"
        )


def parse_dispatch() -> None:
    from olsdk.models import DatasetEvent, JobEvent, RunEvent

    left_to_right: TypeAdapter[Any] = TypeAdapter(
        Annotated[RunEvent | DatasetEvent | JobEvent, Field(union_mode="left_to_right")]
    )
    smart: TypeAdapter[Any] = TypeAdapter(RunEvent | DatasetEvent | JobEvent)
    for workload in ("full", "minimal"):
        wire = workloads.official_bytes(workloads.WORKLOADS[workload][0]())
        assert type(left_to_right.validate_json(wire)) is RunEvent
        compare(
            f"parse dispatch, {workload} event (bytes -> RunEvent)",
            {
                "olsdk.parse_event (callable Discriminator)": partial(olsdk.parse_event, wire),
                "RunEvent.model_validate_json": partial(RunEvent.model_validate_json, wire),
                "union left_to_right .validate_json": partial(left_to_right.validate_json, wire),
                "union smart .validate_json": partial(smart.validate_json, wire),
                "orjson.loads + parse_event(dict)": partial(_parse_dict, wire),
                "orjson.loads (no validation)": partial(orjson.loads, wire),
            },
            "olsdk.parse_event (callable Discriminator)",
        )


FEATURES = [
    variants.BASELINE,
    variants.NO_WRAP,
    variants.AFTER_VALIDATOR,
    variants.NO_PATTERN,
    variants.EXTRA_IGNORE,
    variants.combine("no_wrap+no_pattern", "no wrap validator + plain str", variants.NO_WRAP, variants.NO_PATTERN),
    variants.combine(
        "no_wrap+extra_ignore",
        "no wrap validator + extra ignore",
        variants.NO_WRAP,
        variants.EXTRA_IGNORE,
    ),
    variants.combine(
        "all_three",
        "no wrap validator + plain str + extra ignore",
        variants.NO_WRAP,
        variants.NO_PATTERN,
        variants.EXTRA_IGNORE,
    ),
]


def feature_costs() -> None:
    modules = {}
    for v in FEATURES:
        try:
            modules[v.name] = variants.load(v)
        except variants.PatchMismatch as exc:
            print(f"- `{v.name}`: skipped, {exc} (try --rev 15a4881)")
            continue
        print(f"- `{v.name}`: {v.description}")
    for workload in ("full", "minimal"):
        wire = workloads.official_bytes(workloads.WORKLOADS[workload][0]())
        compare(
            f"parse {workload}: RunEvent.model_validate_json, model variants",
            {name: partial(m.RunEvent.model_validate_json, wire) for name, m in modules.items()},
            "baseline",
        )
    builders = {"full": workloads.olsdk_full, "minimal": workloads.olsdk_minimal}
    for workload, build in builders.items():
        for m in modules.values():  # every variant builds the same document
            workloads.check_same_document(
                workloads.official_bytes(workloads.WORKLOADS[workload][0]()),
                build(m).model_dump_json(exclude_unset=True),
            )
        compare(
            f"construct + serialise {workload}, model variants",
            {name: partial(_build_and_dump, build, m) for name, m in modules.items()},
            "baseline",
        )


def floor() -> None:
    """How close can a pydantic parse get to orjson.loads, and what else validates fast."""
    from pydantic_core import from_json

    from bench import schema

    lean: Any = None
    for variant in (FEATURES[-1], variants.combine("lean", "", variants.NO_PATTERN, variants.EXTRA_IGNORE)):
        try:
            lean = variants.load(variant)
            break
        except variants.PatchMismatch as exc:
            print(f"- lean variant `{variant.name}`: skipped, {exc} (try --rev 15a4881)")
    rs = schema.jsonschema_rs_validator()
    for workload in ("full", "minimal"):
        wire = workloads.official_bytes(workloads.WORKLOADS[workload][0]())
        assert rs(orjson.loads(wire))
        compare(
            f"parse floor, {workload}: time relative to orjson.loads",
            {
                "orjson.loads": partial(orjson.loads, wire),
                "pydantic_core.from_json (jiter, no validation)": partial(from_json, wire),
                "olsdk.parse_event": partial(olsdk.parse_event, wire),
                "orjson.loads + jsonschema_rs full validation (dicts, no models)": partial(_validate_dict, rs, wire),
                **(
                    {"lean variant RunEvent.model_validate_json": partial(lean.RunEvent.model_validate_json, wire)}
                    if lean is not None
                    else {}
                ),
            },
            "orjson.loads",
        )


def init_override() -> None:
    base = variants.load(variants.BASELINE)
    bare = variants.load(variants.NO_INIT)
    url = base.SQLJobFacet.__olsdk_schema_url__
    producer = workloads.PRODUCER
    core = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"

    def facet(m: Any, explicit: bool) -> Callable[[], object]:
        if explicit:
            return lambda: m.SQLJobFacet(query="SELECT 1", _producer=producer, _schemaURL=url)
        return lambda: m.SQLJobFacet(query="SELECT 1")

    compare(
        "one facet, SQLJobFacet(query=...): the FacetModel.__init__ override",
        {
            "olsdk copy, _producer/_schemaURL filled by __init__": facet(base, False),
            "olsdk copy, both passed": facet(base, True),
            "no __init__ override, both passed": facet(bare, True),
            "model_construct (no validation), both passed": lambda: base.SQLJobFacet.model_construct(
                query="SELECT 1", _producer=producer, _schemaURL=url
            ),
        },
        "olsdk copy, _producer/_schemaURL filled by __init__",
    )
    run = {"runId": workloads.RUN_ID}
    job = {"namespace": workloads.NAMESPACE, "name": "job"}

    def event(m: Any, explicit: bool) -> Callable[[], object]:
        if explicit:
            return lambda: m.RunEvent(
                eventTime=workloads.EVENT_TIME,
                producer=producer,
                schemaURL=core,
                eventType="START",
                run=run,
                job=job,
            )
        return lambda: m.RunEvent(eventType="START", run=run, job=job)

    compare(
        "one minimal RunEvent from dicts: the EventModel.__init__ override",
        {
            "olsdk copy, eventTime/producer/schemaURL filled": event(base, False),
            "olsdk copy, all passed": event(base, True),
            "no __init__ override, all passed": event(bare, True),
        },
        "olsdk copy, eventTime/producer/schemaURL filled",
    )


def construction_style() -> None:
    from olsdk.models import RunEvent

    for workload, build in (("full", workloads.olsdk_full), ("minimal", workloads.olsdk_minimal)):
        doc = orjson.loads(olsdk.to_json(build()))
        wire = orjson.dumps(doc)
        compare(
            f"construct {workload} (no serialise): nested constructors vs one validation call",
            {
                "nested constructors (bench emit row)": build,
                "RunEvent.model_validate(nested dict)": partial(RunEvent.model_validate, doc),
                "RunEvent.model_validate_json(bytes)": partial(RunEvent.model_validate_json, wire),
            },
            "nested constructors (bench emit row)",
        )


def serialisation() -> None:
    event = workloads.olsdk_full()
    ser = type(event).__pydantic_serializer__
    compare(
        "serialise full: model_dump_json options",
        {
            "olsdk.to_json (exclude_unset) -> str": lambda: olsdk.to_json(event),
            "olsdk.to_json(...).encode() (what the client sends)": lambda: olsdk.to_json(event).encode(),
            "__pydantic_serializer__.to_json(exclude_unset) -> bytes": lambda: ser.to_json(event, exclude_unset=True),
            "model_dump_json() (no exclude_unset)": lambda: event.model_dump_json(),
            "model_dump_json(exclude_none=True)": lambda: event.model_dump_json(exclude_none=True),
            "model_dump(mode=json) + orjson.dumps": lambda: orjson.dumps(
                event.model_dump(mode="json", exclude_unset=True)
            ),
        },
        "olsdk.to_json (exclude_unset) -> str",
    )


def profile(title: str, fn: Callable[[], object], n: int, top: int = 14) -> None:
    fn()
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(n):
        fn()
    prof.disable()
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out).strip_dirs().sort_stats("tottime")
    stats.print_stats(top)
    print(f"\n### cProfile: {title} (x{n}, sorted by own time)\n\n```")
    body = out.getvalue()
    print(body[body.find("ncalls") :].rstrip())
    print("```")


def profiles() -> None:
    full = workloads.official_bytes(workloads.official_full())
    profile("olsdk.parse_event(full bytes)", lambda: olsdk.parse_event(full), 300)
    profile("olsdk_full() construct", workloads.olsdk_full, 300)
    profile(
        "olsdk_minimal() construct + to_json",
        lambda: olsdk.to_json(workloads.olsdk_minimal()),
        3000,
    )


SECTIONS = {
    "dispatch": parse_dispatch,
    "features": feature_costs,
    "floor": floor,
    "init": init_override,
    "construction": construction_style,
    "serialise": serialisation,
    "profile": profiles,
}


def main(argv: list[str] | None = None) -> None:
    global ROUNDS, SAMPLE
    parser = argparse.ArgumentParser(prog="python -m bench.experiments", description=__doc__)
    parser.add_argument("sections", nargs="*", choices=[*SECTIONS, []], default=[])
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--sample-ms", type=float, default=SAMPLE * 1000)
    parser.add_argument(
        "--rev",
        default=variants.LAST_SINGLE_FILE_RUNTIME,
        help="build the model variants from this git revision of src/olsdk/_models/_runtime.py and"
        f" generated/ (default and the write-up's: {variants.LAST_SINGLE_FILE_RUNTIME}; the runtime"
        " has been a package since, which the variants' patches do not know)",
    )
    args = parser.parse_args(argv)
    ROUNDS, SAMPLE = args.rounds, args.sample_ms / 1000
    variants.SOURCE_REV = args.rev
    if args.rev:
        print(f"model variants built from git revision {args.rev}")
    for name in args.sections or SECTIONS:
        SECTIONS[name]()


if __name__ == "__main__":
    main()
