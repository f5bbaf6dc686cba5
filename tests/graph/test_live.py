"""Feeding the page live: `olsdkLineage.update(data)`, and a page served with `live_url`.

The server here is the standard library's, on 127.0.0.1 and a free port, sending the
page data as Server-Sent Events exactly as docs/how-to/graph.md describes; `olsdk serve`
does the same with its own store.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from olsdk._integrations._graph._model import LineageGraph, build_graph
from olsdk._integrations._graph._page import PAGE_DATA_VERSION, page_data, render_page, write_page
from olsdk._integrations._graph._read import ReadItem
from tests.graph.chromium import Chromium
from tests.graph.events import pipeline_events
from tests.graph.pages import embedded_data

LATE_JOBS = ("dashboards.refresh", "export.revenue_csv")


def graph_of(events: list[dict[str, Any]]) -> LineageGraph:
    return build_graph(ReadItem(f"t:{i}", e) for i, e in enumerate(events))


def early_and_all() -> tuple[LineageGraph, LineageGraph]:
    """The pipeline without its BI jobs (what the page opens with), and all of it."""
    events = pipeline_events()
    early = [e for e in events if e.get("job", {}).get("name") not in LATE_JOBS]
    return graph_of(early), graph_of(events)


def test_update_replaces_the_graph_and_keeps_the_selection(chromium: Chromium, tmp_path: Path) -> None:
    early, full = early_and_all()
    page = write_page(early, tmp_path / "early.html")
    chromium.open(page)
    assert chromium.evaluate("olsdkLineage.nodeCount") == len(early.jobs) + len(early.datasets)
    chromium.evaluate("olsdkLineage.select(olsdkLineage.find('analytics.marts.revenue_by_country'), 'revenue')")
    assert chromium.evaluate("olsdkLineage.lineage().down.length") == 1  # nothing reads the mart yet
    chromium.wait_for("document.documentElement.dataset.outline === 'ready'")
    chromium.evaluate("document.querySelector('#tree [tabindex=\"0\"]').focus()")  # the outline's selected row
    update = json.dumps(page_data(full, title="later"))
    chromium.evaluate(f"olsdkLineage.update({update})")
    focused = chromium.evaluate("document.activeElement.querySelector('.oname').textContent")
    assert focused == "analytics.marts.revenue_by_country"  # the outline was rebuilt, the focus kept
    assert set(LATE_JOBS) <= set(
        chromium.evaluate("[...document.querySelectorAll('#tree .oname')].map(e => e.textContent)")
    )
    assert chromium.evaluate("olsdkLineage.updates") == 1
    assert chromium.evaluate("olsdkLineage.nodeCount") == len(full.jobs) + len(full.datasets)
    assert chromium.evaluate("document.title") == "later"
    # the same dataset and field are still selected, now with their new readers downstream
    panel = chromium.evaluate("document.getElementById('panel').textContent")
    assert "analytics.marts.revenue_by_country" in panel and "Comes from" in panel
    assert set(LATE_JOBS) <= set(chromium.evaluate("olsdkLineage.lineage().down"))
    chromium.evaluate(
        "[...document.querySelectorAll('#panel button.field')].find(b => b.dataset.field === 'revenue').focus()"
    )
    chromium.evaluate(f"olsdkLineage.update({update})")
    assert chromium.evaluate("document.activeElement.dataset.field") == "revenue"  # focus kept in the details too
    assert chromium.errors() == []


def test_update_refuses_data_of_another_version(chromium: Chromium, tmp_path: Path) -> None:
    early, full = early_and_all()
    chromium.open(write_page(early, tmp_path / "early.html"))
    wrong = dict(page_data(full), v=PAGE_DATA_VERSION + 1)
    message = chromium.evaluate(
        f"(() => {{ try {{ olsdkLineage.update({json.dumps(wrong)}); }} catch (e) {{ return e.message; }} }})()"
    )
    assert f"expected page data of version {PAGE_DATA_VERSION}" in message
    assert chromium.evaluate("olsdkLineage.nodeCount") == len(early.jobs) + len(early.datasets)  # unchanged


def test_live_url_must_be_a_path_on_the_same_server() -> None:
    graph = graph_of(pipeline_events())
    for bad in ("http://elsewhere/stream", "//elsewhere/stream", "stream"):
        with pytest.raises(ValueError, match="live_url: must be a path"):
            render_page(graph, live_url=bad)


def test_a_static_page_has_no_live_part() -> None:
    page = render_page(graph_of(pipeline_events()))
    assert "EventSource" not in page and "connect-src" not in page
    live = render_page(graph_of(pipeline_events()), live_url="/events?x=</script>")
    assert "connect-src 'self'" in live and "EventSource" in live
    assert live.count("</script") == 3  # data, page code, live code: the URL cannot end a block
    assert embedded_data(live)["v"] == PAGE_DATA_VERSION


class _Feed:
    """A stdlib HTTP server: the page at /, its data stream at /stream (one snapshot, then another on `release`)."""

    def __init__(self, page: str, first: dict[str, Any], second: dict[str, Any]) -> None:
        self.release = threading.Event()
        self.stop = threading.Event()
        self.connections = 0
        feed = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                if self.path == "/":
                    body = page.encode("utf-8")
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html; charset=utf-8")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                elif self.path == "/stream":
                    feed.connections += 1
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Cache-Control", "no-store")
                    self.end_headers()
                    self._event(first)  # on every (re)connection: the whole graph as it is now
                    if feed.release.wait(30) and not feed.stop.is_set():
                        self._event(second)
                    feed.stop.wait(30)
                else:
                    self.send_error(404)

            def _event(self, data: dict[str, Any]) -> None:
                self.wfile.write(b"event: graph\ndata: " + json.dumps(data).encode("utf-8") + b"\n\n")
                self.wfile.flush()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"

    def close(self) -> None:
        self.stop.set()
        self.release.set()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(10)


@pytest.fixture
def feed() -> Iterator[_Feed]:
    early, full = early_and_all()
    page = render_page(early, title="live", live_url="/stream")
    server = _Feed(page, page_data(early, title="live"), page_data(full, title="live"))
    try:
        yield server
    finally:
        server.close()


def test_events_posted_after_the_page_opened_appear_without_a_reload(chromium: Chromium, feed: _Feed) -> None:
    early, full = early_and_all()
    chromium.open(feed.url)
    chromium.wait_for("olsdkLineage.updates >= 1")  # the snapshot sent on connection
    chromium.evaluate("window.__sameDocument = true")
    assert chromium.evaluate("olsdkLineage.nodeCount") == len(early.jobs) + len(early.datasets)
    assert chromium.evaluate("document.getElementById('live').textContent").startswith("\u25cf live")
    feed.release.set()  # the server now has more events: it sends the new graph
    chromium.wait_for(f"olsdkLineage.nodeCount === {len(full.jobs) + len(full.datasets)}")
    assert chromium.evaluate("window.__sameDocument") is True  # no reload
    assert chromium.evaluate("olsdkLineage.find('export.revenue_csv')") >= 0
    assert feed.connections == 1
    assert chromium.errors() == []


def test_the_builder_folds_events_incrementally() -> None:
    """A server keeps one GraphBuilder: `finish()` after each batch equals building from all events so far."""
    from olsdk._integrations._graph._model import GraphBuilder

    events = pipeline_events()
    builder = GraphBuilder()
    for i, event in enumerate(events[:6]):
        builder.add_item(ReadItem(f"t:{i}", event))
    assert builder.finish().to_dict() == graph_of(events[:6]).to_dict()
    for i, event in enumerate(events[6:], start=6):
        builder.add_item(ReadItem(f"t:{i}", event))
    assert builder.finish().to_dict() == graph_of(events).to_dict()


def test_the_docs_snippet_runs() -> None:
    """docs/how-to/graph.md, "Feeding the page live": its Python block, with one received event."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "how-to" / "graph.md").read_text(encoding="utf-8")
    section = text.split("## Feeding the page live", 1)[1].split("\n## ", 1)[0]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict[str, Any] = {"event": pipeline_events()[0]}
    exec(compile(code, "docs/how-to/graph.md", "exec"), namespace)
    assert "new EventSource" in namespace["html"] and '"/api/v1/stream"' in namespace["html"]
    assert {n["n"] for n in json.loads(namespace["payload"])["nodes"]} == {
        "ingest.orders",
        "raw/orders.json",
        "analytics.staging.orders",
    }
