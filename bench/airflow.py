"""`python -m bench.airflow`: olsdk in a real Airflow DAG against the official file transport.

A real Airflow 3 with the OpenLineage provider (.venv-airflow; `make test` builds it) runs
`airflow dags test` of tests/airflow/dags/olsdk_lineage.py once per configuration, side
by side in one process tree, in the provider's default fork mode (or `--mode thread`):

* the official `file` transport: the reference events and wall time;
* olsdk `http` (through `olsdk.compat.OlsdkTransport`), receiver up;
* olsdk `http`, receiver down for the run, then `olsdk replay` with the receiver up;
* olsdk `http` with `batch: {max_events: 100}`, receiver up;
* olsdk `http`, receiver down, `retry: {total: 0}`, `timeout: 2`, then `olsdk replay`.

Per row: events lost against the reference (what the receiver never got, after the
replay where there is one), duplicates, the DAG's wall time and its ratio to the file
transport's in the same repeat (min-max over `--repeat`). The machine is shared: read the
ratios, not the digits.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.airflow.harness import AIRFLOW_VENV, Site, Sites, Tally, compat, file_events, tally
from tests.support.client_testkit import LineageServer


@dataclass
class Outcome:
    events: list[dict[str, Any]]
    seconds: float
    after: str = ""  # what finished the run (replay)


@dataclass
class Row:
    name: str
    run: Callable[[Site], Outcome]
    tallies: list[Tally] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    ratios: list[float] = field(default_factory=list)


def reference(site: Site) -> Outcome:
    path = site.root / "reference.ndjson"
    site.configure({"type": "file", "log_file_path": str(path), "append": True})
    done = site.dags_test()
    return Outcome(file_events(path), done.seconds)


def receiver_up(**http: Any) -> Callable[[Site], Outcome]:
    def measure(site: Site) -> Outcome:
        server = LineageServer()
        try:
            site.configure(compat({"type": "http", "url": server.url, **http}))
            done = site.dags_test()
        finally:
            server.stop()
        return Outcome(list(server.events), done.seconds)

    return measure


def receiver_down_then_replay(**http: Any) -> Callable[[Site], Outcome]:
    def measure(site: Site) -> Outcome:
        received, done, replayed = site.down_then_replay(**http)
        summary = [line for line in replayed.output.splitlines() if line.startswith(("delivered", "nothing"))]
        return Outcome(received, done.seconds, f"replay: {summary[-1] if summary else replayed.tail(300)}")

    return measure


ROWS = [
    ("olsdk http, receiver up", receiver_up()),
    ("olsdk http, receiver down for the run, then olsdk replay", receiver_down_then_replay()),
    ("batch: {max_events: 100}, receiver up", receiver_up(batch={"max_events": 100})),
    (
        "receiver down, retry: {total: 0}, timeout: 2, then olsdk replay",
        receiver_down_then_replay(retry={"total": 0}, timeout=2),
    ),
]


def span(values: list[float], unit: str = "x") -> str:
    low, high = min(values), max(values)
    return f"{low:.1f}{unit}" if f"{low:.1f}" == f"{high:.1f}" else f"{low:.1f}-{high:.1f}{unit}"


def count_span(values: list[int]) -> str:
    return str(values[0]) if min(values) == max(values) else f"{min(values)}-{max(values)}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.airflow", description=__doc__)
    parser.add_argument("--repeat", type=int, default=1, help="runs of every configuration (default 1)")
    parser.add_argument("--mode", choices=("fork", "thread"), default="fork", help="the provider's emission mode")
    args = parser.parse_args(argv)
    if not (AIRFLOW_VENV / "bin" / "airflow").exists():
        print(f"bench.airflow: no Airflow environment at {AIRFLOW_VENV} (make .venv-airflow/.installed)")
        return 0
    rows = [Row(name, measure) for name, measure in ROWS]
    references: list[Outcome] = []
    with tempfile.TemporaryDirectory(prefix="olsdk-bench-airflow-") as tmp:
        sites = Sites(Path(tmp))
        for repeat in range(args.repeat):
            ref = reference(sites.new(args.mode))
            references.append(ref)
            print(
                f"[{repeat + 1}/{args.repeat}] official file transport: {len(ref.events)} events, {ref.seconds:.1f} s"
            )
            for row in rows:
                outcome = row.run(sites.new(args.mode))
                result = tally(ref.events, outcome.events)
                row.tallies.append(result)
                row.seconds.append(outcome.seconds)
                row.ratios.append(outcome.seconds / ref.seconds)
                print(f"[{repeat + 1}/{args.repeat}] {row.name}: {result}, {outcome.seconds:.1f} s {outcome.after}")
                sys.stdout.flush()
    expected = len(references[0].events)
    print()
    print(f"Airflow 3 + OpenLineage provider, `airflow dags test` ({args.mode} mode), {expected} events per run")
    print()
    print("| configuration | events lost | duplicates | DAG wall time vs the official `file` transport |")
    print("|---|---:|---:|---:|")
    wall = span([r.seconds for r in references], " s")
    print(f"| official `file` transport | reference ({expected}) | - | 1.0x ({wall}) |")
    for row in rows:
        lost = count_span([t.lost for t in row.tallies])
        duplicates = count_span([t.duplicates for t in row.tallies])
        print(f"| {row.name} | {lost} of {expected} | {duplicates} | {span(row.ratios)} ({span(row.seconds, ' s')}) |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
