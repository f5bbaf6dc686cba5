"""The page for everyone: the outline in the DOM, the keyboard, search by field, names at "Fit".

Keys are pressed as a user presses them (trusted key events through the DevTools
protocol, to whatever has the focus), never by calling the page's functions.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from olsdk._integrations._graph._model import LineageGraph, build_graph
from olsdk._integrations._graph._page import write_page
from olsdk._integrations._graph._read import ReadItem, read_events
from tests.corpus.events import CORPUS
from tests.graph.chromium import Chromium
from tests.graph.events import demo_events, large_log, pipeline_events, warehouse_events, write_ndjson

OUTLINE_READY = "document.documentElement.dataset.outline === 'ready'"
# (kind, namespace, name, state word or "") of every node row of the outline, from the DOM alone
OUTLINE_ROWS = """[...document.querySelectorAll('#tree li.leaf')].map(li => {
  const label = (group) => li.closest(group).querySelector(':scope > .ohead .oname').textContent;
  return [label('li.level1'), label('li.level2'), li.querySelector('.oname').textContent,
          (li.querySelector('.ostate') || {textContent: ''}).textContent];
})"""
NEXT_FRAME = "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
STATE_WORDS = {"COMPLETE": "Complete", "FAIL": "Failed", "RUNNING": "Running", "ABORT": "Aborted", "OTHER": "Other"}


def graph_of(events: list[Any]) -> LineageGraph:
    return build_graph(ReadItem(f"t:{i}", e) for i, e in enumerate(events))


def open_page(chromium: Chromium, graph: LineageGraph, path: Path) -> None:
    chromium.open(write_page(graph, path, title="outline test"))
    chromium.wait_for(OUTLINE_READY)


def expected_rows(graph: LineageGraph) -> list[list[str]]:
    jobs = [["Jobs", j.namespace, j.name, STATE_WORDS[j.state] if j.state else "No runs"] for j in graph.jobs]
    return jobs + [["Datasets", d.namespace, d.name, ""] for d in graph.datasets]


def active(chromium: Chromium) -> Any:
    """What has the focus: tag, role, its name text, and data-field."""
    return chromium.evaluate(
        "(() => { const a = document.activeElement; return {tag: a.tagName, role: a.getAttribute('role'),"
        " name: (a.querySelector('.oname') || a).textContent, field: a.dataset.field || null,"
        " expanded: a.getAttribute('aria-expanded'), selected: a.getAttribute('aria-selected')}; })()"
    )


def test_every_job_and_dataset_of_real_events_is_in_the_outline(chromium: Chromium, tmp_path: Path) -> None:
    """The demo's own recorded events, the pipeline, and the corpus of real producers' shapes."""
    usable = [sample.document for sample in CORPUS if sample.problems is not None]
    graph = graph_of(demo_events() + pipeline_events() + usable)
    assert len(graph.jobs) >= 15 and len(graph.datasets) >= 15
    open_page(chromium, graph, tmp_path / "real.html")
    rows = chromium.evaluate(OUTLINE_ROWS)
    assert sorted(rows) == sorted(expected_rows(graph))  # name, namespace and latest state, nothing else
    # what a screen reader meets: a labelled tree, three levels, one tab stop; the canvas hidden from it
    assert chromium.evaluate("document.querySelector('[role=tree]').getAttribute('aria-labelledby')") == (
        "outline-heading"
    )
    levels = chromium.evaluate(
        "[...document.querySelectorAll('[role=treeitem]')].map(e => e.getAttribute('aria-level'))"
    )
    assert set(levels) == {"1", "2", "3"} and levels.count("3") == len(rows)
    assert chromium.evaluate("document.querySelectorAll('#tree [tabindex=\"0\"]').length") == 1
    assert chromium.evaluate("document.getElementById('canvas').getAttribute('aria-hidden')") == "true"
    assert chromium.evaluate("document.getElementById('minimap').getAttribute('aria-hidden')") == "true"
    # the groups are named by their own label, not by everything they hold
    group = chromium.evaluate(
        "(() => { const g = document.querySelector('li.level1');"
        " return document.getElementById(g.getAttribute('aria-labelledby')).textContent; })()"
    )
    assert group == f"Jobs {len(graph.jobs)}"
    assert chromium.errors() == []


def test_every_name_of_a_5000_node_page_is_in_the_outline(chromium: Chromium, tmp_path: Path) -> None:
    log = write_ndjson(tmp_path / "large.ndjson", large_log(5000))
    graph = build_graph(read_events([str(log)]))
    assert len(graph.jobs) + len(graph.datasets) >= 4900
    open_page(chromium, graph, tmp_path / "large.html")
    rows = chromium.evaluate(OUTLINE_ROWS)
    assert sorted(rows) == sorted(expected_rows(graph))
    # find-in-page reaches names far from the top of the outline
    for name in (graph.jobs[-1].name, graph.datasets[len(graph.datasets) // 2].name):
        assert chromium.evaluate(f"window.find({json.dumps(name)}, true, false, true)"), name
    assert chromium.errors() == []


def test_the_keyboard_reaches_a_dataset_and_opens_the_column_lineage_of_a_field(
    chromium: Chromium, tmp_path: Path
) -> None:
    open_page(chromium, graph_of(pipeline_events()), tmp_path / "pipeline.html")
    chromium.key("/")
    assert active(chromium)["tag"] == "INPUT"
    chromium.key("Tab")  # from the search box into the outline
    assert active(chromium) == {**active(chromium), "role": "treeitem", "name": "Jobs"}
    chromium.key("ArrowDown")
    chromium.key("ArrowDown")
    assert active(chromium)["name"] == "dashboards.refresh"  # Jobs > bi > dashboards.refresh
    chromium.key("ArrowLeft")
    assert active(chromium)["name"] == "bi"
    chromium.key("ArrowLeft")  # closes the group
    assert active(chromium)["expanded"] == "false"
    chromium.key("ArrowDown")
    assert active(chromium)["name"] == "etl"  # bi's jobs are skipped while it is closed
    chromium.type_text("analytics.m")  # typing jumps to the first name that starts so
    assert active(chromium)["name"] == "analytics.marts.revenue_by_country"
    chromium.key("Enter")  # selects it: its details, the focus on their heading
    assert active(chromium) == {**active(chromium), "tag": "H2", "name": "analytics.marts.revenue_by_country"}
    for _ in range(40):  # Tab through the details to the field
        if active(chromium)["field"] == "revenue":
            break
        chromium.key("Tab")
    assert active(chromium)["field"] == "revenue" and active(chromium)["expanded"] == "false"
    chromium.key("Enter")
    focused = active(chromium)
    assert (focused["field"], focused["expanded"]) == ("revenue", "true")  # the focus stays on the field
    lineage = chromium.evaluate("document.querySelector('.field-detail').textContent")
    assert "Comes from" in lineage and "analytics.staging.orders .amount" in lineage and "raw/orders.json" in lineage
    chromium.key("Escape")  # back to the outline, the selection kept
    back = active(chromium)
    assert (back["role"], back["name"], back["selected"]) == ("treeitem", "analytics.marts.revenue_by_country", "true")
    assert chromium.errors() == []


def test_search_finds_a_column_and_shows_where_it_comes_from(chromium: Chromium, tmp_path: Path) -> None:
    graph = graph_of(pipeline_events())
    open_page(chromium, graph, tmp_path / "pipeline.html")
    chromium.key("/")
    chromium.type_text("amount")
    options = chromium.evaluate(
        "[...document.querySelectorAll('#results [role=option]')].map(o => [o.querySelector('.kind').textContent,"
        " o.querySelector('.name').textContent, o.querySelector('.ns').textContent])"
    )
    assert options == [
        ["field", "amount", "analytics.staging.orders"],
        ["field", "amount", "raw/orders.json"],
    ]
    assert chromium.evaluate("document.getElementById('search').getAttribute('aria-expanded')") == "true"
    chromium.key("ArrowDown")
    assert chromium.evaluate("document.getElementById('search').getAttribute('aria-activedescendant')") == "result-1"
    chromium.key("ArrowUp")  # back to the staging table's field
    # the outline keeps the datasets that have the field, and says which field matched
    shown = chromium.evaluate(
        "[...document.querySelectorAll('#tree li.leaf')].filter(li => !li.hidden).map(li => li.textContent)"
    )
    assert sorted(shown) == ["analytics.staging.orders field amount", "raw/orders.json field amount"]
    assert chromium.evaluate("document.getElementById('outline-count').textContent") == "2 of 15 match"
    chromium.key("Enter")
    focused = active(chromium)
    assert (focused["field"], focused["expanded"]) == ("amount", "true")
    lineage = chromium.evaluate("document.querySelector('.field-detail').textContent")
    assert "raw/orders.json .amount" in lineage  # comes from
    assert "analytics.marts.revenue_by_country .revenue" in lineage  # used by
    assert chromium.evaluate("olsdkLineage.lineage().up").count("raw/orders.json") == 1
    assert chromium.errors() == []


def test_the_outline_follows_a_selection_made_elsewhere(chromium: Chromium, tmp_path: Path) -> None:
    open_page(chromium, graph_of(pipeline_events()), tmp_path / "pipeline.html")
    chromium.evaluate("olsdkLineage.select(olsdkLineage.find('ingest.orders'))")  # as a click on the canvas does
    selected = chromium.evaluate(
        "[...document.querySelectorAll('#tree [aria-selected=true]')].map(e => e.querySelector('.oname').textContent)"
    )
    assert selected == ["ingest.orders"]
    assert chromium.evaluate("document.querySelector('#tree [tabindex=\"0\"] .oname').textContent") == "ingest.orders"


def test_names_are_readable_at_fit_on_24_jobs_and_32_datasets(chromium: Chromium, tmp_path: Path) -> None:
    graph = graph_of(warehouse_events())
    assert (len(graph.jobs), len(graph.datasets)) == (24, 32)
    degree: dict[str, int] = {}
    for edge in graph.edges:
        for name in (edge.job_name, edge.dataset_name):
            degree[name] = degree.get(name, 0) + 1
    names = {j.name for j in graph.jobs} | {d.name for d in graph.datasets}
    open_page(chromium, graph, tmp_path / "warehouse.html")
    for how in ("opened", "Fit after zooming in"):
        view = chromium.evaluate("olsdkLineage.view")
        assert view["detailed"] is False  # boxes too small for their names: names drawn at a fixed size
        assert chromium.evaluate("olsdkLineage.labelPx") >= 11
        drawn = set(chromium.evaluate("olsdkLineage.labelsDrawn"))
        cut = set(chromium.evaluate("olsdkLineage.labelsCut"))
        assert drawn <= names
        connected = {name for name, count in degree.items() if count >= 3}
        assert connected and connected <= drawn, (how, connected - drawn)  # the most connected are all named
        assert len(drawn) >= 0.9 * len(names), (how, names - drawn)
        assert len(cut) <= 0.1 * len(names), (how, cut)  # and nearly all in full
        chromium.evaluate("document.activeElement.blur()")
        chromium.key("+")
        chromium.key("+")
        chromium.evaluate(NEXT_FRAME)
        assert chromium.evaluate("olsdkLineage.view.detailed") is True
        chromium.evaluate("document.getElementById('zoom-fit').click()")
        chromium.evaluate(NEXT_FRAME)
    assert chromium.errors() == []


def test_the_demo_application_is_linked_to_the_jobs_it_ran(chromium: Chromium, tmp_path: Path) -> None:
    graph = graph_of(demo_events())
    children = sorted(link.child_name for link in graph.parents)
    application_run = next(j for j in graph.jobs if j.name == "olsdk_demo").runs[0].run_id
    open_page(chromium, graph, tmp_path / "demo.html")
    assert chromium.evaluate("olsdkLineage.parentsDrawn") == 3  # drawn, at "Fit"
    chromium.key("/")
    chromium.key("Tab")
    chromium.type_text("olsdk_demo")
    assert active(chromium)["name"] == "olsdk_demo"
    chromium.key("Enter")
    panel = chromium.evaluate("document.getElementById('panel').textContent")
    assert "Child jobs (3)" in panel and all(name in panel for name in children)
    assert "started 3 runs" in panel
    lineage_shown = chromium.evaluate("olsdkLineage.lineage()")
    assert lineage_shown is not None
    for _ in range(10):  # Tab to the first child job, and go there
        chromium.key("Tab")
        if active(chromium)["name"] == children[0]:
            break
    chromium.key("Enter")
    panel = chromium.evaluate("document.getElementById('panel').textContent")
    assert active(chromium) == {**active(chromium), "tag": "H2", "name": children[0]}
    assert "Parent jobs (1)olsdk_demo" in panel
    assert f"parent run {application_run} of olsdk_demo" in panel
    assert chromium.errors() == []


def test_the_run_history_shows_every_run(chromium: Chromium, tmp_path: Path) -> None:
    from tests.graph.events import at, run_event

    states = ["COMPLETE", "COMPLETE", "FAIL", "COMPLETE", "ABORT"]
    events = []
    for n in range(75):
        run = f"01900000-0000-7000-8000-{n:012d}"
        events.append(run_event("START", ("etl", "nightly"), run, at(n * 60)))
        if n < 74:  # the latest is still running
            error = f"attempt {n} failed" if states[n % 5] == "FAIL" else None
            events.append(run_event(states[n % 5], ("etl", "nightly"), run, at(n * 60 + 4), error=error))
    open_page(chromium, graph_of(events), tmp_path / "history.html")
    chromium.evaluate("olsdkLineage.select(olsdkLineage.find('nightly'))")
    assert chromium.evaluate("document.getElementById('run-history').textContent") == "Run history (75 runs)"
    assert chromium.evaluate("document.querySelectorAll('#panel .strip span').length") == 75
    assert chromium.evaluate("document.querySelectorAll('#panel ol.runs > li').length") == 50  # then a button
    chromium.evaluate("document.querySelector('#panel button.more').focus()")
    chromium.key("Enter")
    runs = chromium.evaluate(
        "[...document.querySelectorAll('#panel ol.runs > li')].map(li => [li.querySelector('b').textContent,"
        " li.querySelector('.id').textContent, li.querySelector('.times').textContent,"
        " (li.querySelector('.error') || {textContent: null}).textContent])"
    )
    assert len(runs) == 75
    assert [r[1] for r in runs] == [f"01900000-0000-7000-8000-{n:012d}" for n in reversed(range(75))]  # latest first
    assert runs[0][0] == "Running" and runs[1][0] == "Complete"  # run 73: 73 % 5 == 3
    assert runs[-1][2].startswith("2024-03-01 06:00:00 UTC · took 4 min · 2 events")
    assert [r[3] for r in runs if r[0] == "Failed"] == [f"attempt {n} failed" for n in reversed(range(2, 74, 5))]
    assert chromium.errors() == []


def test_spec_problems_a_server_adds_are_shown(chromium: Chromium, tmp_path: Path) -> None:
    """`olsdk serve` adds `summary.specProblems`, `summary.specProblemsByProducer` and a job's `pb`
    (docs/how-to/graph.md)."""
    from olsdk._integrations._graph._page import page_data

    graph = graph_of(pipeline_events())
    open_page(chromium, graph, tmp_path / "pipeline.html")
    data = page_data(graph)
    data["summary"]["specProblems"] = {"eventTime: not an RFC 3339 date-time": 3, "run.runId: not a UUID": 1}
    data["summary"]["specProblemsByProducer"] = {"https://example.com/feature-store": {"run.runId: not a UUID": 1}}
    for node in data["nodes"]:
        if node["n"] == "ingest.orders":
            node["pb"] = 3
    chromium.evaluate(f"olsdkLineage.update({json.dumps(data)})")
    assert chromium.evaluate("document.getElementById('spec-chip').textContent") == "\u26a0 4 spec problems"
    overview = chromium.evaluate("document.getElementById('panel').textContent")
    assert "Stored with spec problems" in overview and "eventTime: not an RFC 3339 date-time3" in overview
    assert "https://example.com/feature-store1" in overview and "ingest.orders · 3 events" in overview
    flags = chromium.evaluate(
        "[...document.querySelectorAll('#tree .oflag')].map(f => f.closest('li').querySelector('.oname').textContent)"
    )
    assert flags == ["ingest.orders"]
    chromium.evaluate("olsdkLineage.select(olsdkLineage.find('ingest.orders'))")
    assert "3 events stored with problems" in chromium.evaluate("document.getElementById('panel').textContent")
    assert chromium.errors() == []


def test_a_second_page_in_the_same_browser_is_waited_for(chromium: Chromium, tmp_path: Path) -> None:
    """The harness itself: `open` waits for the new page's load, not the previous page's."""
    first = write_page(graph_of(pipeline_events()), tmp_path / "first.html", title="first")
    second = write_page(graph_of(warehouse_events()), tmp_path / "second.html", title="second")
    chromium.open(first)
    chromium.open(second)
    assert chromium.evaluate("document.title") == "second"
    assert chromium.evaluate("olsdkLineage.nodeCount") == 56
