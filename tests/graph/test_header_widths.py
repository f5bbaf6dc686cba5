"""The page header at 1100, 1250 and 1400 px in a real headless chromium: nothing in it is
cut off or overlaps, however many chips a served page shows (spec problems, unreadable
events, failed runs, the live chip), and the graph area starts below it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from olsdk._integrations._graph._model import build_graph
from olsdk._integrations._graph._page import page_data, write_page
from olsdk._integrations._graph._read import ReadItem
from tests.graph.chromium import Chromium
from tests.graph.events import pipeline_events

# Every element of the header that must be seen whole: the brand, each summary chip, the
# live chip, the outline button and the search box (the title and subtitle may shorten
# themselves with an ellipsis: they carry their full text in a tooltip).
MEASURE = """(() => {
  const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const bar = document.getElementById('bar');
  const parts = [...bar.children].filter((e) => !e.hidden && e.id !== 'stats');
  const chips = [...document.querySelectorAll('#stats > *')];
  const stats = document.getElementById('stats');
  return {
    width: window.innerWidth,
    bar: box(bar),
    main: box(document.getElementById('main')),
    stats: box(stats),
    statsClipped: stats.scrollWidth > stats.clientWidth + 1 || stats.scrollHeight > stats.clientHeight + 1,
    items: [...parts, ...chips].map((e) => ({ name: (e.id + ' ' + e.textContent).trim(), box: box(e) })),
  };
})()"""


def served_page(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    """A page as `olsdk serve` shows it: a long title, many sources, every warning chip."""
    events = pipeline_events()
    graph = build_graph(ReadItem(f"t:{i}", e) for i, e in enumerate(events))
    sources = [f"/var/lib/lineage/{name}/events.ndjson" for name in ("orders", "customers", "warehouse")]
    page = write_page(
        graph, tmp_path / "served.html", title="olsdk serve: lineage of the data platform", sources=sources
    )
    data = page_data(graph)
    data["summary"]["specProblems"] = {"eventTime: not an RFC 3339 date-time": 1200, "run.runId: not a UUID": 34}
    data["summary"]["unreadable"] = {"not JSON": 12345}
    data["summary"]["runsByState"]["FAIL"] = 1500
    return page, data


def overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5


@pytest.mark.parametrize("width", [1100, 1250, 1400])
def test_the_header_wraps_instead_of_clipping(chromium: Chromium, tmp_path: Path, width: int) -> None:
    page, data = served_page(tmp_path)
    chromium.open(page)
    chromium.evaluate(f"olsdkLineage.update({json.dumps(data)})")
    chromium.evaluate(
        "(() => { const c = document.getElementById('live'); c.hidden = false;"
        " c.textContent = '\\u25cf live \\u00b7 10:42:17 PM'; })()"
    )
    chromium.send(
        "Emulation.setDeviceMetricsOverride", {"width": width, "height": 800, "deviceScaleFactor": 1, "mobile": False}
    )
    chromium.wait_for(f"window.innerWidth === {width}")
    chromium.evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    shown = chromium.evaluate(MEASURE)
    assert shown["width"] == width
    names = [item["name"] for item in shown["items"]]
    assert any("spec problems" in n for n in names) and any("unreadable" in n for n in names)
    assert not shown["statsClipped"], shown["stats"]
    for item in shown["items"]:
        left, top, right, bottom = item["box"]
        assert left >= -0.5 and right <= width + 0.5, item
        assert top >= shown["bar"][1] - 0.5 and bottom <= shown["bar"][3] + 0.5, item  # inside the header
    items = shown["items"]
    for i, a in enumerate(items):
        for b in items[i + 1 :]:
            assert not overlap(a["box"], b["box"]), (a, b)
    assert shown["main"][1] >= shown["bar"][3] - 0.5  # the graph area starts below the header
    assert shown["main"][3] <= 800 + 0.5
    assert chromium.errors() == []
