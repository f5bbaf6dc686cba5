"""Start-up rows: what a fresh process pays before olsdk does its first piece of work.

Every short-lived process pays it (Airflow forks one per task event), so each sample is
a new interpreter (`python -c <snippet>`) timed from its start until the snippet's work
is done: an import, or a first event emitted (a client with a file transport, one
START RunEvent, on disk when the snippet reports). The snippet reports its own CPU time
then (`time.process_time_ns`: the process's, interpreter start-up included) and the
monotonic clock, which Linux shares between processes, so the parent gets the wall time
from just before it started the child.

The rows use the CPU time, as the micro-benchmarks do: on a shared machine the wall
time also counts the moments other processes hold the CPU. The wall times of the same
samples are in the notes. `python -m bench.startup` runs these rows alone.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.timing import Series, interleave

# What each snippet reports when its work is done: CPU time, then the shared clock.
_REPORT = "import time as _t; print(_t.process_time_ns(), _t.monotonic_ns())"

RUN_ID = "0190d3a4-7b5c-7a3e-9f00-1234567890ab"
PRODUCER = "https://github.com/olsdk/olsdk/tree/main/bench"

SNIPPETS: dict[str, str] = {
    "python": "pass",
    "import pydantic": "import pydantic\nfrom pydantic import BaseModel",
    "import olsdk": "import olsdk",
    "import olsdk.models": "import olsdk.models",
    "olsdk": f"""
        import sys
        from olsdk import OpenLineageClient
        from olsdk.models import EventType, Job, Run, RunEvent

        folder = sys.argv[1]
        client = OpenLineageClient(
            config={{
                "transport": {{"type": "file", "log_file_path": folder + "/events.ndjson", "append": True}},
                "producer": "{PRODUCER}",
                "spool": {{"path": folder + "/spool.ndjson"}},
            }}
        )
        client.emit(
            RunEvent(
                eventType=EventType.START,
                run=Run(runId="{RUN_ID}"),
                job=Job(namespace="bench", name="startup"),
            )
        )
        client.flush()
    """,
    "pydantic, one model": """
        import sys
        from pydantic import BaseModel

        class Job(BaseModel):
            namespace: str
            name: str

        with open(sys.argv[1] + "/events.ndjson", "a") as out:
            out.write(Job(namespace="bench", name="startup").model_dump_json() + "\\n")
    """,
    "official client": f"""
        import datetime
        import sys
        from openlineage.client import OpenLineageClient
        from openlineage.client.event_v2 import Job, Run, RunEvent, RunState
        from openlineage.client.transport.file import FileConfig, FileTransport

        folder = sys.argv[1]
        client = OpenLineageClient(
            transport=FileTransport(FileConfig(log_file_path=folder + "/events.ndjson", append=True))
        )
        client.emit(
            RunEvent(
                eventType=RunState.START,
                eventTime=datetime.datetime.now(datetime.timezone.utc).isoformat(),
                run=Run(runId="{RUN_ID}"),
                job=Job(namespace="bench", name="startup"),
                producer="{PRODUCER}",
            )
        )
    """,
}
"""Contender -> the Python it runs (`sys.argv[1]` is an empty folder of its own)."""

IMPORT_REFERENCE = "import pydantic"
IMPORT_LIMIT_NS = 100_000_000
"""`import olsdk` within 0.1 s of importing pydantic itself."""
FIRST_EVENT_REFERENCE = "official client"
FIRST_EVENT_TARGET = 1.25
"""A fresh process to its first event in at most 0.8x the official client's time (the
row's ratio is the official client's time over olsdk's)."""


def script(contender: str) -> str:
    return textwrap.dedent(SNIPPETS[contender]).strip() + "\n" + _REPORT + "\n"


def _child_env() -> dict[str, str]:
    """The environment of a sample: this one, without warnings and with byte-code caching on.

    ``PYTHONDONTWRITEBYTECODE`` is left out so that the untimed warm-up process writes the
    caches every timed process then reads, as an installed package has them: with it set,
    every sample would compile olsdk's sources again while the installed official client
    loads its compiled files.
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONWARNINGS"] = "ignore"
    return env


def run_once(contender: str, folder: Path) -> tuple[int, int]:
    """One fresh process running `contender`'s snippet: (CPU ns, wall ns) until it reported."""
    folder.mkdir(parents=True, exist_ok=True)
    started = time.monotonic_ns()
    done = subprocess.run(
        [sys.executable, "-c", script(contender), str(folder)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=_child_env(),
    )
    if done.returncode != 0:
        raise RuntimeError(f"start-up snippet {contender!r} failed ({done.returncode}):\n{done.stderr}")
    cpu, clock = (int(x) for x in done.stdout.split()[-2:])
    return cpu, clock - started


@dataclass
class Probe:
    """One contender: each call of `measure` starts one process; keeps the wall times."""

    contender: str
    root: Path
    wall_ns: list[float] = field(default_factory=list)
    count: int = 0

    def measure(self) -> float:
        self.count += 1
        cpu, wall = run_once(self.contender, self.root / f"{self.contender.replace(' ', '_')}-{self.count}")
        self.wall_ns.append(wall)
        return cpu


@dataclass
class Group:
    title: str
    reference: str
    probes: dict[str, Probe]
    series: dict[str, Series] = field(default_factory=dict)


IMPORTS = ("import pydantic", "import olsdk", "import olsdk.models", "python")
FIRST_EVENT = ("olsdk", "official client", "pydantic, one model")


def measure(rounds: int) -> list[Group]:
    """Both row groups, each interleaved over `rounds` rounds after one untimed warm-up
    process per contender (byte-code caches written, files in the page cache)."""
    groups: list[Group] = []
    with tempfile.TemporaryDirectory(prefix="olsdk-startup-") as tmp:
        root = Path(tmp)
        for title, reference, names in (
            ("import, fresh process", IMPORT_REFERENCE, IMPORTS),
            ("first event, fresh process", FIRST_EVENT_REFERENCE, FIRST_EVENT),
        ):
            probes = {name: Probe(name, root) for name in names}
            for probe in probes.values():
                probe.measure()
                probe.wall_ns.clear()
            group = Group(title, reference, probes)
            group.series = interleave({n: p.measure for n, p in probes.items()}, reference, rounds)
            groups.append(group)
    return groups


def paired_difference_ns(series: Series, reference: Series) -> float:
    """Median over rounds of (contender - reference)."""
    return statistics.median(a - b for a, b in zip(series.samples_ns, reference.samples_ns, strict=True))


def wall_note(group: Group) -> str:
    parts = []
    for name, probe in group.probes.items():
        walls = probe.wall_ns
        parts.append(f"{name} {statistics.median(walls) / 1e6:.0f} ms ({min(walls) / 1e6:.0f}-{max(walls) / 1e6:.0f})")
    return "wall time, median (range): " + ", ".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.startup", description=__doc__)
    parser.add_argument("--rounds", type=int, default=11, help="fresh processes per contender (default 11)")
    args = parser.parse_args(argv)
    for group in measure(args.rounds):
        ref = group.series[group.reference]
        print(f"{group.title} (CPU time, {args.rounds} rounds; reference {group.reference})")
        for name, series in group.series.items():
            cpu = series.samples_ns
            print(
                f"  {name:22} {series.median_ns / 1e6:7.1f} ms ({min(cpu) / 1e6:.0f}-{max(cpu) / 1e6:.0f})"
                f"  {series.ratio:5.2f}x  {paired_difference_ns(series, ref) / 1e6:+7.1f} ms"
            )
        print("  " + wall_note(group))
    return 0


if __name__ == "__main__":
    sys.exit(main())
