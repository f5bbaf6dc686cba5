"""`python -m bench.validate`: the validate-only path and `olsdk validate` on a big file.

Rows:
- `olsdk.validate_event` on the full (16 KB) and minimal workloads, interleaved with
  `orjson.loads` (the reference: decoding the same bytes without any check) and with
  strict `olsdk.parse_event` (builds the typed event). Target: 0.45x
  `orjson.loads` on the full event.
- `olsdk validate --quiet FILE` on a generated NDJSON file of at least `--gb` GB
  (default 1.0) in /tmp, run as its own process: events/s, MB/s and the process's peak
  resident memory (from `wait4`). The file mixes the full workload event with the real-
  shaped corpus events of tests/corpus (valid and invalid); it is deleted afterwards.

Prints a text table; `--quick` is a smoke run (small file, few rounds).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

import olsdk
from bench import cases
from bench.timing import calibrate, interleave, loop_measure

ROOT = Path(__file__).resolve().parent.parent
TARGET_FULL = 0.45


def micro(rounds: int, sample_seconds: float) -> list[list[str]]:
    rows: list[list[str]] = []
    for workload in ("full", "minimal"):
        wire = cases.prepare(workload).wire
        assert olsdk.validate_event(wire) == []
        functions = {
            "olsdk.validate_event": lambda w=wire: olsdk.validate_event(w),
            "olsdk.parse_event": lambda w=wire: olsdk.parse_event(w),
            "orjson.loads": lambda w=wire: orjson.loads(w),
        }
        measures = {name: loop_measure(fn, calibrate(fn, sample_seconds)) for name, fn in functions.items()}
        series = interleave(measures, "orjson.loads", rounds)
        for name, s in series.items():
            target = f">= {TARGET_FULL}x" if workload == "full" and name == "olsdk.validate_event" else ""
            result = ("met" if s.ratio >= TARGET_FULL else "MISSED") if target else ""
            rows.append(
                [
                    f"validate bytes, {workload}",
                    name,
                    f"{s.median_ns / 1000:.1f} µs",
                    f"{s.ratio:.2f}x orjson.loads",
                    f"{s.spread:.0%}",
                    target,
                    result,
                ]
            )
    return rows


def _corpus_lines() -> list[bytes]:
    sys.path.insert(0, str(ROOT))  # tests/corpus: real-shaped events
    from tests.corpus.events import CORPUS

    lines = [json.dumps(sample.document, separators=(",", ":")).encode() for sample in CORPUS]
    lines.append(cases.prepare("full").wire)
    return lines


def generate(path: Path, gigabytes: float) -> tuple[int, int]:
    """Write at least `gigabytes` GB of NDJSON events; return (events, bytes)."""
    lines = _corpus_lines()
    block = b"".join(line.rstrip(b"\n") + b"\n" for line in lines * 50)
    per_block = len(lines) * 50
    target = int(gigabytes * 1e9)
    written = events = 0
    with open(path, "wb") as out:
        while written < target:
            out.write(block)
            written += len(block)
            events += per_block
    return events, written


def big_file(gigabytes: float) -> list[list[str]]:
    with tempfile.TemporaryDirectory(prefix="olsdk-validate-bench-", dir="/tmp") as folder:
        path = Path(folder) / "events.ndjson"
        events, size = generate(path, gigabytes)
        started = time.perf_counter()
        process = subprocess.Popen(
            [sys.executable, "-m", "olsdk._integrations._cli", "validate", "--quiet", str(path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert process.stdout is not None
        report = process.stdout.read().decode()
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        process.stdout.close()
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise RuntimeError(f"olsdk validate failed: {report}")
    if f"{events:,} events" not in report:
        raise RuntimeError(f"olsdk validate counted other than {events:,} events: {report}")
    peak_mb = usage.ru_maxrss / 1024
    return [
        [
            f"olsdk validate, {size / 1e9:.2f} GB NDJSON",
            f"{events:,} events",
            f"{seconds:.1f} s",
            f"{events / seconds:,.0f} events/s, {size / 1e6 / seconds:.0f} MB/s",
            f"peak RSS {peak_mb:.0f} MB",
            "",
            "",
        ]
    ]


def table(rows: list[list[str]]) -> str:
    header = ["Benchmark", "Contender", "Median / time", "Speed", "Spread / memory", "Target", "Result"]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip() for r in [header, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.validate", description=__doc__)
    parser.add_argument("--gb", type=float, default=1.0, help="size of the generated NDJSON file (default 1.0)")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--quick", action="store_true", help="smoke run: 20 MB file, 3 short rounds")
    parser.add_argument("--skip-file", action="store_true", help="micro-benchmarks only")
    args = parser.parse_args(argv)
    rounds, sample = (3, 0.02) if args.quick else (args.rounds, 0.1)
    rows = micro(rounds, sample)
    if not args.skip_file:
        rows += big_file(0.02 if args.quick else args.gb)
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
