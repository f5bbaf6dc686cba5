"""Interleaved timing: contenders take turns, several rounds, medians of everything.

On shared machines the absolute numbers drift with whatever else runs; what stays
meaningful is how contenders compare when measured side by side. So each round times
every contender once (in a rotating order, so none is always first or last), and the
ratio reported for a contender is the median of its per-round ratios to the reference.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

Measure = Callable[[], float]
"""Takes one sample and returns nanoseconds per operation."""


def loop_measure(fn: Callable[[], object], iterations: int, clock: Callable[[], int] = time.perf_counter_ns) -> Measure:
    """A sample = `iterations` calls of `fn` timed with `clock` (wall time by default;
    `time.thread_time_ns` counts only this thread's CPU time, which shrugs off most of
    the noise of other processes on a shared machine)."""
    rng = range(iterations)

    def measure() -> float:
        t0 = clock()
        for _ in rng:
            fn()
        return (clock() - t0) / iterations

    return measure


def calibrate(fn: Callable[[], object], sample_seconds: float) -> int:
    """How many calls of `fn` take about `sample_seconds` (at least 1)."""
    fn()  # warm up: imports, caches, schema compilation
    n = 1
    while True:
        t0 = time.perf_counter_ns()
        for _ in range(n):
            fn()
        elapsed = (time.perf_counter_ns() - t0) / 1e9
        if elapsed >= sample_seconds / 4 or n >= 1 << 24:
            per_call = elapsed / n
            return max(1, round(sample_seconds / per_call))
        n *= 4 if elapsed < sample_seconds / 40 else 2


@dataclass
class Series:
    name: str
    samples_ns: list[float] = field(default_factory=list)
    ratios: list[float] = field(default_factory=list)  # speed vs the reference, per round

    @property
    def median_ns(self) -> float:
        return statistics.median(self.samples_ns)

    @property
    def ratio(self) -> float:
        return statistics.median(self.ratios) if self.ratios else float("nan")

    @property
    def spread(self) -> float:
        """Relative spread of the samples: (max - min) / median."""
        if len(self.samples_ns) < 2:
            return 0.0
        return (max(self.samples_ns) - min(self.samples_ns)) / self.median_ns


def interleave(measures: dict[str, Measure], reference: str, rounds: int) -> dict[str, Series]:
    """Run `rounds` rounds; in each, every contender takes one sample, order rotating."""
    names = list(measures)
    series = {name: Series(name) for name in names}
    for r in range(rounds):
        order = names[r % len(names) :] + names[: r % len(names)]
        this_round: dict[str, float] = {}
        for name in order:
            gc.collect()
            this_round[name] = measures[name]()
        for name in names:
            series[name].samples_ns.append(this_round[name])
            series[name].ratios.append(this_round[reference] / this_round[name])
    return series
