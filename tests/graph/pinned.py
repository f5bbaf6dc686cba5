"""Pinned outputs of the graph code: the graph and the page data of a fixed event log.

`cases/<name>.json` holds what the code made of `pinned_log()` when the file was
written; the tests compare, so that a refactoring that changes a coordinate, an
order or a count fails. After a deliberate change, rewrite the files and review
their diff before committing it:

    .venv/bin/python -m tests.graph.pinned

CI never rewrites them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from olsdk._integrations._graph._model import LineageGraph, build_graph
from olsdk._integrations._graph._page import page_data
from olsdk._integrations._graph._read import read_lines
from tests.graph.events import BAD_LINES, large_log, pipeline_events

__all__ = ["CASES", "pinned_graph", "pinned_outputs", "read_case"]

CASES = Path(__file__).resolve().parent / "cases"


def pinned_graph() -> LineageGraph:
    """The test pipeline, a small generated log, and the unusable lines, read leniently."""
    events = [*pipeline_events(), *large_log(60, seed=5)]
    lines = [json.dumps(event) for event in events] + [line for line, _ in BAD_LINES]
    return build_graph(read_lines("pinned", [line.encode("utf-8") for line in lines]))


def pinned_outputs() -> dict[str, Any]:
    """Case name -> the JSON data it pins."""
    graph = pinned_graph()
    page = page_data(graph, title="pinned", sources=["pinned.ndjson"], generated="2024-03-01T06:00:00.000000Z")
    return {"graph": graph.to_dict(), "page": page}


def read_case(name: str) -> Any:
    return json.loads((CASES / f"{name}.json").read_text(encoding="utf-8"))


if __name__ == "__main__":
    for name, data in pinned_outputs().items():
        (CASES / f"{name}.json").write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {CASES / name}.json")
