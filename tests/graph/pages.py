"""Helpers of the page tests: hostile names, and the data embedded in a written page."""

from __future__ import annotations

import json
import re
from typing import Any

from olsdk._integrations._graph._model import LineageGraph, build_graph
from olsdk._integrations._graph._read import ReadItem
from tests.graph.events import at, dataset, run_event

__all__ = ["NASTY", "embedded_data", "nasty_graph"]

NASTY = [
    "</script><script>window.__pwned = 1</script>",
    '<img src=x onerror="window.__pwned = 2">',
    "<!-- comment",
    "quotes ' \" and `ticks`",
    "&amp; &lt; entities",
    "line\u2028separator",
    "@@DATA@@ @@JS@@",
]


def nasty_graph() -> LineageGraph:
    events: list[dict[str, Any]] = []
    for i, name in enumerate(NASTY):
        events.append(
            run_event(
                "FAIL",
                (f"ns {name}", f"job {name}"),
                f"run-{i}",
                at(i),
                inputs=[dataset(f"in {name}", f"input {name}")],
                outputs=[dataset("out", f"output {name}")],
                error=f"error {name}",
            )
        )
    return build_graph(ReadItem(f"t:{i}", e) for i, e in enumerate(events))


def embedded_data(page: str) -> Any:
    match = re.search(r'<script id="olsdk-data" type="application/json">(.*?)</script>', page, re.S)
    assert match is not None
    return json.loads(match.group(1))
