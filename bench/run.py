"""`python -m bench`: olsdk side by side with the official client and raw JSON.

Prints a table and writes it, with the machine, versions and date, to
`docs/explanation/benchmarks.md` (everything from the "## Where the time goes" heading on is kept
as it is: that part is written by hand from profiles). `--quick` is a smoke run of a
few seconds that writes nothing unless `--out` is given.
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import os
import platform
import sys
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from bench import cases, delivery, growth, memory, startup, workloads
from bench.timing import Series, interleave

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "explanation" / "benchmarks.md"
HAND_WRITTEN = "## Where the time goes"
GROUPS = ("parse", "validate", "read", "serialise", "emit", "growth", "schema", "http", "memory", "startup")
WORKLOADS = ("full", "minimal")


@dataclass
class Settings:
    rounds: int = 7
    sample_seconds: float = 0.1
    http_events: int = 10_000
    http_rounds: int = 3
    ndjson_bytes: int = 256 * 1024 * 1024
    startup_rounds: int = 11
    only: tuple[str, ...] = GROUPS
    quick: bool = False


@dataclass
class Measured:
    case: cases.Case
    series: dict[str, Series]


@dataclass
class Results:
    settings: Settings
    measured: list[Measured] = field(default_factory=list)
    memory: dict[str, Any] | None = None
    seconds: float = 0.0


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run(settings: Settings) -> Results:
    t0 = time.perf_counter()
    results = Results(settings)
    inputs = {name: cases.prepare(name) for name in WORKLOADS}
    per_workload = {
        "parse": cases.parse_case,
        "validate": cases.validate_case,
        "read": cases.read_case,
        "serialise": cases.serialise_case,
        "emit": cases.emit_case,
        "schema": cases.schema_case,
    }
    for group in GROUPS:
        if group not in settings.only:
            continue
        if group == "growth":
            _log(f"bench: growth, building its events ({time.perf_counter() - t0:.0f} s)")
            built = growth.growth_cases(settings.sample_seconds)
        elif group in per_workload:
            built = [per_workload[group](inputs[workload], settings.sample_seconds) for workload in WORKLOADS]
        else:
            continue  # http and memory: below
        for case in built:
            _log(f"bench: {group} / {case.title} / {case.workload} ({time.perf_counter() - t0:.0f} s)")
            measures = {c.name: c.measure for c in case.contenders}
            series = interleave(measures, case.reference, settings.rounds)
            results.measured.append(Measured(case, series))
    if "http" in settings.only:
        _log(
            f"bench: http / {settings.http_events} minimal events x {settings.http_rounds}"
            f" rounds ({time.perf_counter() - t0:.0f} s)"
        )
        results.measured.append(_http(settings, inputs["minimal"]))
    if "startup" in settings.only:
        _log(f"bench: startup / fresh processes x {settings.startup_rounds} rounds ({time.perf_counter() - t0:.0f} s)")
        results.measured += _startup(settings)
    if "memory" in settings.only:
        _log(f"bench: memory / {settings.ndjson_bytes / 2**20:.0f} MiB NDJSON ({time.perf_counter() - t0:.0f} s)")
        results.memory = memory.run(settings.ndjson_bytes)
    results.seconds = time.perf_counter() - t0
    return results


def _http(settings: Settings, inp: cases.Inputs) -> Measured:
    with delivery.Sink() as sink:
        measures, pending = delivery.measures(sink, settings.http_events, inp.official_event, inp.olsdk_event)
        series = interleave(measures, delivery.OFFICIAL, settings.http_rounds)
    case = cases.Case(
        "http",
        f"HTTP delivery, {settings.http_events:,} events",
        "minimal",
        reference=delivery.OFFICIAL,
        contenders=[cases.Contender(name, measures[name]) for name in measures],
        target=(delivery.OLSDK_BATCH, cases.TARGETS[("http", "minimal")]),
        unit="event",
        pending=pending,
    )
    return Measured(case, series)


def _startup(settings: Settings) -> list[Measured]:
    out = []
    for group in startup.measure(settings.startup_rounds):
        imports = group.reference == startup.IMPORT_REFERENCE
        case = cases.Case(
            "startup",
            group.title,
            "CPU time",
            reference=group.reference,
            contenders=[cases.Contender(name, probe.measure) for name, probe in group.probes.items()],
            target=None if imports else ("olsdk", startup.FIRST_EVENT_TARGET),
            limit=("import olsdk", startup.IMPORT_LIMIT_NS) if imports else None,
            unit="process",
            note=startup.wall_note(group),
        )
        out.append(Measured(case, group.series))
    return out


# ---------------------------------------------------------------------------------------
# reporting


def _fmt_time(ns: float) -> str:
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.1f} µs"
    return f"{ns:.0f} ns"


def _fmt_rate(ns: float) -> str:
    per_second = 1e9 / ns
    if per_second >= 1e6:
        return f"{per_second / 1e6:.2f} M/s"
    if per_second >= 1e3:
        return f"{per_second / 1e3:.1f} k/s"
    return f"{per_second:.0f} /s"


def _fmt_ratio(ratio: float) -> str:
    if math.isnan(ratio):
        return "-"
    return f"{ratio:.2f}x" if ratio < 10 else f"{ratio:.1f}x"


def table_rows(results: Results) -> list[list[str]]:
    rows: list[list[str]] = []
    for item in results.measured:
        case = item.case
        for contender in case.contenders:
            s = item.series[contender.name]
            target, verdict = "", ""
            if case.target and case.target[0] == contender.name:
                target = f">= {case.target[1]:g}x"
                verdict = "met" if s.ratio >= case.target[1] else "MISSED"
            is_ref = contender.name == case.reference
            speed = "1.00x (ref)" if is_ref else _fmt_ratio(s.ratio) + f" {case.reference}"
            if case.limit and case.limit[0] == contender.name:
                above = startup.paired_difference_ns(s, item.series[case.reference])
                target = f"<= ref + {_fmt_time(case.limit[1])}"
                verdict = "met" if above <= case.limit[1] else "MISSED"
                speed += f" (ref {'+' if above >= 0 else '-'} {_fmt_time(abs(above))})"
            rate = "-" if case.unit == "process" else _fmt_rate(s.median_ns)
            rows.append(
                [
                    case.title,
                    case.workload,
                    contender.name,
                    _fmt_time(s.median_ns) + ("/event" if case.unit == "event" else ""),
                    rate + (" events" if case.unit == "event" else ""),
                    f"{s.spread:.0%}",
                    speed,
                    target,
                    verdict,
                ]
            )
        for name in case.pending:
            pending_target = case.target[1] if case.target and case.target[0] == name else None
            verdict = "PENDING" if pending_target is not None else ""
            target = f">= {pending_target:g}x" if pending_target is not None else ""
            rows.append([case.title, case.workload, name, "pending", "-", "-", "-", target, verdict])
    mem = results.memory
    if mem is not None:
        size = f"{mem['bytes'] / 2**20:,.0f} MiB NDJSON, {mem['events']:,} full"
        rss = " -> ".join(f"{mb:.0f}" for _, mb in mem["samples"][:: max(1, len(mem["samples"]) // 5)])
        rows.append(
            [
                "streaming validation RSS",
                size,
                "olsdk.parse_event per line",
                f"{mem['seconds'] / mem['events'] * 1e3:.2f} ms/event",
                f"{mem['bytes'] / 2**20 / mem['seconds']:.1f} MiB/s",
                "-",
                f"peak {mem['peak_rss_mb']:.0f} MB, warm {mem['warm_rss_mb']:.0f} MB ({rss})",
                "flat",
                "met" if mem["flat"] else "MISSED",
            ]
        )
    return rows


HEADER = [
    "Benchmark",
    "Workload",
    "Contender",
    "Median",
    "Throughput",
    "Spread",
    "Speed vs reference",
    "Target",
    "Result",
]


def markdown_table(rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    last = None
    for row in rows:
        shown = list(row)
        key = (row[0], row[1])
        if key == last:
            shown[0] = shown[1] = ""
        last = key
        lines.append("| " + " | ".join(shown) + " |")
    return "\n".join(lines)


def text_table(rows: list[list[str]]) -> str:
    shown = [HEADER, *rows]
    widths = [min(max(len(r[i]) for r in shown), 60) for i in range(len(HEADER))]
    out = []
    for n, row in enumerate(shown):
        out.append("  ".join(cell[:60].ljust(widths[i]) for i, cell in enumerate(row)).rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def machine() -> dict[str, str]:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count() or 0
    try:
        load = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        load = "?"
    return {
        "CPU": cpu,
        "Cores": f"{os.cpu_count()} ({usable} usable), shared",
        "Load average at start (1/5/15 min)": load,
        "OS": platform.platform(),
        "Python": f"{platform.python_implementation()} {platform.python_version()}",
        "pydantic": _version("pydantic"),
        "pydantic-core": _version("pydantic_core"),
        "openlineage-python": _version("openlineage-python"),
        "orjson": _version("orjson"),
        "jsonschema": _version("jsonschema"),
        "jsonschema-rs": _version("jsonschema_rs"),
        "requests": _version("requests"),
        "olsdk": _version("olsdk"),
    }


def _targets_summary(results: Results) -> list[str]:
    out = []
    for row in table_rows(results):
        if row[8] in ("met", "MISSED", "PENDING"):
            out.append(f"- {row[0]}, {row[1]}: {row[2]} {row[6]} (target {row[7]}): **{row[8]}**")
    return out


def markdown(results: Results, machine_info: dict[str, str], command: str) -> str:
    s = results.settings
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# Benchmarks",
        "",
        f"<!-- Written by `{command}`. Everything above the '{HAND_WRITTEN}' heading is",
        "     regenerated on every run; that section and what follows are kept. -->",
        "",
        "olsdk side by side with the official client (`openlineage-python`) and raw JSON.",
        "Both workloads are built by the official client's models and serialised with its",
        "`Serde.to_json`, so every contender reads the very same bytes; olsdk builds the",
        "same event with its own models for the serialise and emit rows (checked equal).",
        "",
        "- **full**: a RunEvent of "
        f"{len(workloads.official_bytes(workloads.official_full())):,} bytes: "
        "parent (with root), errorMessage with a stack trace, sql, sourceCodeLocation, two "
        "datasets with 20-field schemas and dataSource, columnLineage over 20 columns, "
        "outputStatistics.",
        "- **minimal**: a START RunEvent with a run id and a job "
        f"({len(workloads.official_bytes(workloads.official_minimal())):,} bytes).",
        "- **N fields** (growth rows): the minimal event plus one input dataset whose schema",
        f"  facet has N fields, N = {', '.join(f'{n:,}' for n in growth.SIZES)}; the garbage-collector"
        f" rows: {growth.LARGE:,} fields, and the full event.",
        "",
        "How to read it: contenders of one row group are measured interleaved (every round",
        "times each once, in a rotating order), "
        f"{s.rounds} rounds of about {s.sample_seconds * 1000:.0f} ms each "
        f"(HTTP: {s.http_rounds} rounds of {s.http_events:,} events). *Median* is the median",
        "time per operation; *Spread* is (max - min) / median of the rounds, a noise",
        "indicator. *Speed vs reference* is the median over rounds of (reference time /",
        "contender time): `0.30x orjson.loads` is 0.3 times as fast as `orjson.loads`,",
        "`20x official ...` is 20 times faster. Only these same-run ratios mean anything",
        "on a shared machine; absolute times move with the load. Micro-benchmarks time the",
        "thread's CPU time (`time.thread_time_ns`): wall time would also count the moments",
        "other processes hold the CPU. HTTP and memory rows are wall time.",
        "",
        "Commands: `make bench` (= `.venv/bin/python -m bench`, a few minutes);"
        " `python -m bench --quick` (smoke run, seconds); `--ndjson-gb 1` for a"
        " 1 GB stream; `--only parse,emit,...`; `python -m bench.experiments` for the"
        " profile experiments below.",
        "",
        f"Run: `{command}`, {when}, took {results.seconds:.0f} s"
        + (" (**quick mode: smoke numbers only**)" if s.quick else "")
        + ".",
        "",
        "| Machine | |",
        "|---|---|",
        *(f"| {k} | {v} |" for k, v in machine_info.items()),
        "",
        "## Results",
        "",
        markdown_table(table_rows(results)),
        "",
        "## Targets",
        "",
        *_targets_summary(results),
        "",
        "Notes:",
        "",
        *(
            f"- {item.case.title}, {item.case.workload}: {item.case.note}."
            for item in results.measured
            if item.case.note
        ),
        "- *validate bytes*: `olsdk.validate_event`, the strict parser's verdicts without",
        "  building the event (checked to find no problem in the workload).",
        "- *parse + read every facet*: parse, then read every facet of every facet map",
        "  through the typed API (an attribute for a key the container types, `facets[key]`",
        "  for any other key) and every schema field's `.name`; the reference does the same",
        "  reads on `orjson.loads`' dicts, and both readers must count the same facets and",
        "  names.",
        "- *growing schema*: one row group per size; a ratio that stays level across sizes",
        "  means olsdk's cost grows as its reference's does (linearly).",
        "- *garbage collector*: the same parse with the collector as it is, after",
        "  `gc.freeze()` (frozen before each sample, unfrozen after) and disabled, in the",
        f"  benchmark process as it is and holding {growth.HELD_EVENTS} parsed full events; the workload",
        f"  says how many objects the collector tracks. Samples are {growth.GC_SAMPLE_FACTOR}x longer and start after",
        f"  {growth.WARM_UP_PARSES} untimed parses, so they see the collector's steady rhythm (see",
        "  'Bulk jobs and the garbage collector' below).",
        "- JSON-Schema rows validate the decoded dict against the core `OpenLineage.json`",
        "  and every facet against the schema its `_schemaURL` names, all `$ref`s resolved",
        "  from the local `spec/` copy; formats are annotations (the 2020-12 default).",
        "  olsdk offers no JSON-Schema validator, so its typed parse is shown for scale.",
        "- Start-up rows (`bench/startup.py`, also `python -m bench.startup`): every sample is a",
        f"  fresh interpreter (`python -c`), {s.startup_rounds} per contender, interleaved, after one untimed",
        "  run each; the time is the process's CPU time (interpreter start-up included) until its",
        "  snippet's work is done: an import, or the first event on disk (a client with a file",
        "  transport and one START RunEvent; *pydantic, one model*: the least a pydantic-based",
        "  SDK pays, one model class defined, built and written as a line). `import olsdk` loads",
        "  the exceptions only; the models, readers and client load when first asked for.",
        "- HTTP rows: one local `ThreadingHTTPServer` subprocess (`bench/server.py`),",
        "  keep-alive, empty 200 replies. Each contender is a client built once and fed",
        "  the same pre-built minimal event: `olsdk.client.OpenLineageClient` with the",
        "  http transport (single: one POST per event; batch: `batch: {max_events: 100}`,",
        "  clock stopped when `flush()` returns, i.e. all delivered) and the official",
        "  `OpenLineageClient(transport=HttpTransport(HttpConfig(url=...))).emit`. The",
        "  sink's count is checked after every round.",
        "- Memory: NDJSON of full events (distinct run ids) generated in a temporary",
        "  directory, validated line by line with `olsdk.parse_event` in a subprocess;",
        "  RSS sampled from /proc/self/status at every tenth of the file; the peak is the",
        "  kernel's VmHWM reset after warm-up (first 1%). Flat means peak - warmed-up RSS",
        f"  <= {memory.FLAT_TOLERANCE_MB:g} MB. Use `--ndjson-gb 1` for a 1 GB file.",
    ]
    mem = results.memory
    if mem is not None:
        lines += [
            f"- Memory run: {mem['bytes'] / 2**20:,.0f} MiB, {mem['events']:,} events in"
            f" {mem['seconds']:.1f} s; RSS (MB) at each tenth: "
            + ", ".join(f"{mb:.1f}" for _, mb in mem["samples"])
            + f"; peak while streaming {mem['peak_rss_mb']:.1f} MB"
            + ("" if mem["peak_is_streaming_only"] else " (process peak, incl. imports)")
            + f"; process peak including imports {mem['process_peak_rss_mb']:.1f} MB.",
        ]
    return "\n".join(lines) + "\n"


def write_doc(path: Path, generated: str) -> None:
    kept = ""
    if path.exists():
        old = path.read_text()
        at = old.find("\n" + HAND_WRITTEN)
        if at >= 0:
            kept = old[at + 1 :]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(generated + ("\n" + kept if kept else ""))


def parse_args(argv: list[str] | None) -> tuple[Settings, Path | None, str]:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smoke run: seconds, not minutes")
    parser.add_argument("--rounds", type=int, help="rounds per micro-benchmark (default 7)")
    parser.add_argument("--sample-ms", type=float, help="length of one sample in ms (default 100)")
    parser.add_argument("--http-events", type=int, help="events per HTTP round (default 10000)")
    parser.add_argument("--http-rounds", type=int, help="HTTP rounds (default 3)")
    parser.add_argument("--ndjson-gb", type=float, help="size of the NDJSON file for the memory row (default 0.25)")
    parser.add_argument("--startup-rounds", type=int, help="fresh processes per start-up contender (default 11)")
    parser.add_argument(
        "--only",
        help=f"comma-separated subset of {','.join(GROUPS)}",
    )
    parser.add_argument(
        "--out",
        type=Path,
        help=f"markdown file to write (default {DOC.relative_to(ROOT)}; quick mode: none)",
    )
    args = parser.parse_args(argv)
    s = Settings()
    if args.quick:
        s = Settings(
            rounds=3,
            sample_seconds=0.01,
            http_events=200,
            http_rounds=2,
            ndjson_bytes=4 * 1024 * 1024,
            startup_rounds=2,
            quick=True,
        )
    if args.rounds:
        s.rounds = args.rounds
    if args.sample_ms:
        s.sample_seconds = args.sample_ms / 1000
    if args.http_events:
        s.http_events = args.http_events
    if args.http_rounds:
        s.http_rounds = args.http_rounds
    if args.ndjson_gb:
        s.ndjson_bytes = int(args.ndjson_gb * 1024**3)
    if args.startup_rounds:
        s.startup_rounds = args.startup_rounds
    if args.only:
        chosen = tuple(x.strip() for x in args.only.split(",") if x.strip())
        unknown = set(chosen) - set(GROUPS)
        if unknown:
            parser.error(f"--only: unknown {sorted(unknown)}; choose from {GROUPS}")
        s.only = chosen
    out = args.out if args.out else (None if args.quick else DOC)
    command = "python -m bench" + (" " + " ".join(argv if argv is not None else sys.argv[1:]))
    return s, out, command.strip()


def main(argv: list[str] | None = None) -> int:
    settings, out, command = parse_args(argv)
    info = machine()
    results = run(settings)
    rows = table_rows(results)
    print(text_table(rows))
    print()
    print("\n".join(_targets_summary(results)))
    print(f"\n{len(rows)} rows in {results.seconds:.0f} s")
    if out is not None:
        write_doc(out, markdown(results, info, command))
        print(f"wrote {out}")
    return 0
