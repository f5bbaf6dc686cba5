"""Progress of a long command on a terminal: one line on standard error, redrawn a few
times a second, and nothing at all when standard error is not a terminal (a pipe, a file,
CI), so that output meant for programs stays clean. `olsdk validate`, `olsdk graph` and
`olsdk inspect` use it.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator
from typing import TextIO, TypeVar

__all__ = ["Progress"]

T = TypeVar("T")

_REDRAW_EVERY = 0.2  # seconds
_CHECK_EVERY = 256  # items between clock reads
_WIDTH = 30  # characters of the bar


class Progress:
    """Bytes read out of ``total`` (0: unknown, e.g. stdin), items seen, their rate, and
    the current stage (``"laying out 4,986 nodes"``)."""

    def __init__(self, total: int, what: str = "events", stream: TextIO | None = None) -> None:
        out = sys.stderr if stream is None else stream
        self.stream: TextIO | None = out if out.isatty() else None
        self.total = total
        self.what = what
        self.done = 0
        self.items = 0
        self.started = time.monotonic()
        self.shown_at = 0.0
        self.drawn = 0  # characters of the last line drawn

    @property
    def live(self) -> bool:
        return self.stream is not None

    def advance(self, size: int) -> None:
        self.done += size

    def count(self, items: Iterable[T]) -> Iterator[T]:
        """``items`` unchanged, counted and drawn on the way."""
        for item in items:
            self.items += 1
            if self.stream is not None and self.items % _CHECK_EVERY == 0:
                now = time.monotonic()
                if now - self.shown_at >= _REDRAW_EVERY:
                    self.shown_at = now
                    self._draw(self._reading(now))
            yield item

    def stage(self, text: str) -> None:
        """Say what the command does now (a step with no count of its own)."""
        if self.stream is not None:
            self._draw(f"{self.items:,} {self.what} read; {text} ...")

    def close(self) -> None:
        """Clear the line: what stays on the terminal is the command's own output."""
        if self.stream is not None and self.drawn:
            self.stream.write("\r" + " " * self.drawn + "\r")
            self.stream.flush()
            self.drawn = 0

    def _reading(self, now: float) -> str:
        rate = self.items / max(now - self.started, 1e-9)
        counted = f"{self.items:,} {self.what}  {rate:,.0f}/s"
        if not self.total:
            return counted
        share = min(self.done / self.total, 1.0)
        return f"[{'#' * int(share * _WIDTH):<{_WIDTH}}] {share:6.1%}  {counted}"

    def _draw(self, line: str) -> None:
        assert self.stream is not None
        padding = " " * max(self.drawn - len(line), 0)
        self.stream.write(f"\r{line}{padding}")
        self.stream.flush()
        self.drawn = len(line)
