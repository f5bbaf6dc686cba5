"""The HTML page as text: self-contained, user data escaped, data complete."""

from __future__ import annotations

import json
import re
from pathlib import Path

from olsdk._integrations._graph._model import build_graph
from olsdk._integrations._graph._page import render_page, script_json
from olsdk._integrations._graph._read import read_events
from tests.graph.pages import NASTY, embedded_data, nasty_graph
from tests.graph.pinned import pinned_outputs, read_case


def test_user_data_cannot_leave_the_json_block() -> None:
    page = render_page(nasty_graph(), title=NASTY[0])
    assert page.count("</script") == 2  # the data block's and the code's own
    assert page.count("<script") == 2
    assert "<img" not in page
    assert "<!--" not in page
    assert "@@" not in page.split('id="olsdk-data"')[0]  # every placeholder filled, none left in the head
    head = page.split("</title>")[0]
    assert "<title>&lt;/script&gt;&lt;script&gt;" in head


def test_user_data_survives_the_round_trip() -> None:
    graph = nasty_graph()
    data = embedded_data(render_page(graph, title="t"))
    names = {node["n"] for node in data["nodes"]}
    assert {f"job {n}" for n in NASTY} <= names
    assert {f"input {n}" for n in NASTY} <= names
    errors = {node["runs"][0][4] for node in data["nodes"] if node["k"] == "j"}
    assert errors == {f"error {n}" for n in NASTY}


def test_script_json_escapes_what_html_would_read() -> None:
    text = script_json({"a": "</script>&<!--\u2028\u2029"})
    assert not set(text) & set("<>&\u2028\u2029")
    assert json.loads(text) == {"a": "</script>&<!--\u2028\u2029"}


def test_the_page_loads_nothing_from_anywhere(pipeline_log: Path) -> None:
    page = render_page(build_graph(read_events([str(pipeline_log)])))
    code = page.split('<script id="olsdk-data"')[0] + page.split("</script>", 2)[2]  # everything but the data
    for attribute in re.findall(r"""(?:src|href|action|srcset|poster)\s*=\s*["']?([^"'\s>]*)""", code):
        assert attribute.startswith("data:"), attribute
    assert "@import" not in code and "url(" not in code
    assert "fetch(" not in code and "XMLHttpRequest" not in code and "WebSocket" not in code
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert csp is not None and "default-src 'none'" in csp.group(1)


def test_every_job_dataset_and_edge_is_in_the_data(pipeline_log: Path) -> None:
    graph = build_graph(read_events([str(pipeline_log)]))
    data = embedded_data(render_page(graph))
    nodes = data["nodes"]
    assert {(n["ns"], n["n"]) for n in nodes if n["k"] == "j"} == {(j.namespace, j.name) for j in graph.jobs}
    assert {(n["ns"], n["n"]) for n in nodes if n["k"] == "d"} == {(d.namespace, d.name) for d in graph.datasets}
    drawn = {(nodes[e[0]]["n"], nodes[e[1]]["n"]) for e in data["edges"]}
    expected = {
        (e.dataset_name, e.job_name) if e.direction == "input" else (e.job_name, e.dataset_name) for e in graph.edges
    }
    assert drawn == expected
    assert data["summary"]["unreadable"] == graph.unreadable
    revenue = next(n for n in nodes if n["n"] == "analytics.marts.revenue_by_country")
    upstream = {(row[0], nodes[row[1]]["n"], row[4]) for row in revenue["cl"]}
    assert ("revenue", "analytics.staging.orders", "amount") in upstream


def test_an_empty_log_gives_a_page(tmp_path: Path) -> None:
    page = render_page(build_graph([]))
    data = embedded_data(page)
    assert data["nodes"] == [] and data["edges"] == []


def test_the_page_data_of_a_fixed_log_is_pinned() -> None:
    """Nodes, positions, bends and counts of `tests/graph/cases/page.json` (see `pinned`)."""
    assert json.loads(json.dumps(pinned_outputs()["page"])) == read_case("page")


def test_parent_links_and_run_parents_are_in_the_data() -> None:
    from olsdk._integrations._graph._read import ReadItem
    from tests.graph.events import demo_events

    graph = build_graph(ReadItem(f"t:{i}", e) for i, e in enumerate(demo_events()))
    data = embedded_data(render_page(graph))
    nodes = data["nodes"]
    links = {(nodes[p[0]]["n"], nodes[p[1]]["n"]) for p in data["parents"]}
    assert links == {("olsdk_demo", link.child_name) for link in graph.parents} and len(links) == 3
    application = next(i for i, n in enumerate(nodes) if n["n"] == "olsdk_demo")
    for parent, child in data["parents"]:
        run = nodes[child]["runs"][0]
        assert run[6:] == [application, nodes[application]["runs"][0][0]]  # parent job id, parent run id
        assert nodes[child]["x"] > nodes[parent]["x"]  # laid out after its parent


def test_the_page_keeps_the_latest_errors_whole_and_shortens_older_ones() -> None:
    from olsdk._integrations._graph._page import FULL_ERRORS, SHORT_ERROR_CHARS
    from olsdk._integrations._graph._read import ReadItem
    from tests.graph.events import at, run_event

    long_error = "x" * (SHORT_ERROR_CHARS + 50)
    events = [run_event("FAIL", ("etl", "flaky"), f"r{n:03d}", at(n), error=long_error) for n in range(FULL_ERRORS + 2)]
    data = embedded_data(render_page(build_graph(ReadItem(f"t:{i}", e) for i, e in enumerate(events))))
    errors = [run[4] for run in data["nodes"][0]["runs"]]
    assert len(errors) == FULL_ERRORS + 2  # every run is in the history
    assert errors[:FULL_ERRORS] == [long_error] * FULL_ERRORS
    assert errors[FULL_ERRORS:] == ["x" * SHORT_ERROR_CHARS + "… (50 more characters)"] * 2
