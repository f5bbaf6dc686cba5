"""The page in a real headless chromium, opened from disk.

Each test checks: no JavaScript exception or console error, no network request
other than the file itself, the names of the log's jobs and datasets in the
rendered page, and a screenshot that is not blank. Set OLSDK_SCREENSHOTS=DIR to keep
the screenshots.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from olsdk._integrations._graph._model import build_graph
from olsdk._integrations._graph._page import write_page
from olsdk._integrations._graph._read import read_events
from tests.graph.chromium import Chromium, pixel_variance
from tests.graph.events import BAD_LINES, large_log, write_ndjson
from tests.graph.pages import NASTY, nasty_graph


def page_of(log: Path, out: Path, title: str = "test lineage") -> tuple[Path, Any]:
    graph = build_graph(read_events([str(log)]))
    return write_page(graph, out, title=title, sources=[str(log)]), graph


def check_clean(browser: Chromium, page: Path) -> None:
    assert browser.errors() == []
    assert browser.requests() == [page.resolve().as_uri()]


def keep(browser: Chromium, name: str) -> bytes:
    png = browser.screenshot()
    folder = os.environ.get("OLSDK_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        (Path(folder) / name).write_bytes(png)
    return png


def panel_text(browser: Chromium) -> str:
    return str(browser.evaluate("document.getElementById('panel').textContent"))


def test_blank_screenshot_has_no_variance(chromium: Chromium, tmp_path: Path) -> None:
    # the measure used below must be able to tell a blank page
    blank = tmp_path / "blank.html"
    blank.write_text("<!doctype html><html><body style='background:#fff'></body></html>")
    chromium.open(blank, ready="document.readyState === 'complete'")
    assert pixel_variance(chromium.screenshot(scale=0.25)) == 0


def test_pipeline_page_renders_every_name(chromium: Chromium, pipeline_log: Path, tmp_path: Path) -> None:
    page, graph = page_of(pipeline_log, tmp_path / "lineage.html")
    chromium.open(page)
    drawn = set(chromium.evaluate("window.olsdkGraph.labelsDrawn"))
    names = {j.name for j in graph.jobs} | {d.name for d in graph.datasets}
    assert len(names) == 15
    assert names <= drawn  # drawn on the canvas as text, at the initial fit
    keep(chromium, "pipeline.png")
    assert pixel_variance(chromium.screenshot(scale=0.25)) > 100
    unreadable = chromium.evaluate("document.getElementById('unreadable-chip').textContent")
    assert f"{len(BAD_LINES)} unreadable" in unreadable
    overview = panel_text(chromium)
    for _, reason in BAD_LINES:
        assert reason in overview
    check_clean(chromium, page)


def test_selecting_a_failed_job_shows_its_runs_and_error(
    chromium: Chromium, pipeline_log: Path, tmp_path: Path
) -> None:
    page, _ = page_of(pipeline_log, tmp_path / "lineage.html")
    chromium.open(page)
    chromium.evaluate("olsdkGraph.select(olsdkGraph.find('marts.revenue_by_country'))")
    text = panel_text(chromium)
    assert "Failed" in text and "01900000-0000-7000-8000-000000000301" in text
    assert 'division by zero in "revenue" <column> & friends' in text  # as text, not markup
    assert "namespace" in text and "etl" in text
    assert "analytics.staging.orders" in text  # reads
    lineage = chromium.evaluate("olsdkGraph.lineage()")  # highlighted: the rest is faded
    assert {"analytics.staging.orders", "ingest.orders", "raw/orders.json", "raw/customers.csv"} <= set(lineage["up"])
    assert {"analytics.marts.revenue_by_country", "dashboards.refresh", "exports/revenue.csv"} <= set(lineage["down"])
    assert "features.customer_embeddings" not in lineage["up"] + lineage["down"]
    keep(chromium, "pipeline-failed-job.png")
    check_clean(chromium, page)


def test_column_lineage_of_a_field(chromium: Chromium, pipeline_log: Path, tmp_path: Path) -> None:
    page, _ = page_of(pipeline_log, tmp_path / "lineage.html")
    chromium.open(page)
    chromium.evaluate("olsdkGraph.select(olsdkGraph.find('analytics.marts.revenue_by_country'))")
    fields = chromium.evaluate("[...document.querySelectorAll('#panel .field .fname')].map(e => e.textContent)")
    assert fields == ["country", "revenue"]
    chromium.evaluate(
        "[...document.querySelectorAll('#panel .field')].find(e => e.textContent.startsWith('revenue')).click()"
    )
    tree = chromium.evaluate("[...document.querySelectorAll('#panel .tree li')].map(e => e.textContent)")
    # revenue <- staging.orders.amount <- raw/orders.json.amount (transitively)
    assert any("analytics.staging.orders" in t and ".amount" in t for t in tree)
    assert any("raw/orders.json" in t for t in tree)
    keep(chromium, "pipeline-field.png")
    check_clean(chromium, page)


def test_search_finds_and_selects(chromium: Chromium, pipeline_log: Path, tmp_path: Path) -> None:
    page, _ = page_of(pipeline_log, tmp_path / "lineage.html")
    chromium.open(page)
    chromium.evaluate(
        "(() => { const s = document.getElementById('search'); s.focus(); s.value = 'REVENUE';"
        " s.dispatchEvent(new Event('input')); })()"
    )
    results = chromium.evaluate(
        "[...document.querySelectorAll('#results li')].map(e => [e.querySelector('.kind').textContent,"
        " e.querySelector('.name').textContent])"
    )
    assert {name for kind, name in results if kind != "field"} == {
        "marts.revenue_by_country",
        "analytics.marts.revenue_by_country",
        "export.revenue_csv",
        "exports/revenue.csv",
    }
    assert [name for kind, name in results if kind == "field"] == ["revenue"]  # fields are searched too
    chromium.evaluate("document.getElementById('search').dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter'}))")
    assert "Dataset" in panel_text(chromium) or "Job" in panel_text(chromium)
    check_clean(chromium, page)


def test_hostile_names_stay_text(chromium: Chromium, tmp_path: Path) -> None:
    page = write_page(nasty_graph(), tmp_path / "nasty.html", title=NASTY[0])
    chromium.open(page)
    assert chromium.evaluate("window.__pwned === undefined")
    assert chromium.evaluate("document.querySelectorAll('script').length") == 2
    assert chromium.evaluate("document.querySelectorAll('img').length") == 0
    assert chromium.evaluate("document.title") == NASTY[0]
    names = chromium.evaluate("JSON.parse(document.getElementById('olsdk-data').textContent).nodes.map(n => n.n)")
    for name in NASTY:
        assert f"job {name}" in names
        chromium.evaluate(f"olsdkGraph.select(olsdkGraph.find({json.dumps('job ' + name)}))")
        assert f"error {name}" in panel_text(chromium)
    assert chromium.evaluate("window.__pwned === undefined")
    check_clean(chromium, page)


def test_a_5000_node_page_renders(chromium: Chromium, tmp_path: Path) -> None:
    log = write_ndjson(tmp_path / "large.ndjson", large_log(5000))
    page, graph = page_of(log, tmp_path / "large.html")
    nodes = len(graph.jobs) + len(graph.datasets)
    assert nodes >= 4900
    chromium.open(page)
    assert chromium.evaluate("olsdkGraph.nodeCount") == nodes
    names = set(chromium.evaluate("JSON.parse(document.getElementById('olsdk-data').textContent).nodes.map(n => n.n)"))
    assert names == {j.name for j in graph.jobs} | {d.name for d in graph.datasets}
    keep(chromium, "large.png")
    assert pixel_variance(chromium.screenshot(scale=0.25)) > 100
    # zoomed in on one node, its neighbourhood is drawn with labels
    chromium.evaluate(f"olsdkGraph.select(olsdkGraph.find({json.dumps(graph.jobs[0].name)}))")
    chromium.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert graph.jobs[0].name in chromium.evaluate("olsdkGraph.labelsDrawn")
    keep(chromium, "large-zoomed.png")
    check_clean(chromium, page)
