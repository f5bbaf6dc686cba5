"""The lineage page at scale, for ``make bench``: build time, page size, time to render.

    python -m bench.graph [--nodes 5000] [--repeats 3]

Builds the page of a generated log of about ``--nodes`` jobs and datasets (the log the
browser tests use), then opens it from disk in headless chromium (``/usr/bin/chromium``)
and reads the page's own marks, measured from navigation start: its first drawn frame
(load-to-rendered) and the outline of every job and dataset complete in the DOM
(load-to-outline). Also times one full frame at the initial fit (every node and edge,
names placed at a readable size: the label pass is also reported alone) and zoomed in
on one node. Build times are the best of ``--repeats``; browser times the
median over ``--repeats`` fresh browsers (the first open of a file is part of the story).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from olsdk._integrations._graph._model import build_graph
from olsdk._integrations._graph._page import write_page
from olsdk._integrations._graph._read import read_events
from tests.graph.chromium import CHROMIUM, Chromium
from tests.graph.events import large_log, write_ndjson

__all__ = ["graph_page", "main"]

FRAME = (
    "(() => { const t = performance.now(); for (let i = 0; i < 10; i++) olsdkGraph.draw();"
    " return (performance.now() - t) / 10; })()"
)


def graph_page(nodes: int = 5000, repeats: int = 3) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        log = write_ndjson(Path(folder) / "events.ndjson", large_log(nodes))
        read_s, page_s = [], []
        for _ in range(repeats):
            started = time.perf_counter()
            graph = build_graph(read_events([str(log)]))
            built = time.perf_counter()
            page = write_page(graph, Path(folder) / "lineage.html", title="bench")
            read_s.append(built - started)
            page_s.append(time.perf_counter() - built)
        result: dict[str, Any] = {
            "nodes": len(graph.jobs) + len(graph.datasets),
            "edges": len(graph.edges),
            "events": sum(graph.events.values()),
            "log_mb": log.stat().st_size / 1e6,
            "read_and_build_s": min(read_s),
            "layout_and_write_s": min(page_s),
            "page_mb": page.stat().st_size / 1e6,
        }
        if not os.path.exists(CHROMIUM):
            result["browser"] = f"skipped: {CHROMIUM} missing"
            return result
        rendered, outline, full_frame, labels, zoomed_frame = [], [], [], [], []
        for _ in range(repeats):
            with Chromium() as browser:  # a fresh browser each time: no warm cache
                browser.open(page)
                rendered.append(float(browser.evaluate("olsdkGraph.renderedAt")))
                if browser.evaluate("document.getElementById('tree') !== null"):  # pages before the outline have none
                    browser.wait_for("document.documentElement.dataset.outline === 'ready'")
                    outline.append(float(browser.evaluate("olsdkGraph.outlineAt")))
                full_frame.append(float(browser.evaluate(FRAME)))
                labels.append(float(browser.evaluate("olsdkGraph.labelMs || 0")))
                browser.evaluate(f"olsdkGraph.select(olsdkGraph.find({graph.jobs[0].name!r}))")
                zoomed_frame.append(float(browser.evaluate(FRAME)))
                if browser.errors():
                    raise RuntimeError(f"the page reported errors: {browser.errors()}")
        result.update(
            {
                "load_to_rendered_ms": statistics.median(rendered),
                "load_to_outline_ms": statistics.median(outline) if outline else 0.0,
                "frame_full_view_ms": statistics.median(full_frame),
                "label_pass_ms": statistics.median(labels),
                "frame_zoomed_ms": statistics.median(zoomed_frame),
            }
        )
        return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.graph")
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    result = graph_page(args.nodes, args.repeats)
    for key, value in result.items():
        print(f"{key:>20}: {value:.3f}" if isinstance(value, float) else f"{key:>20}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
