"""The lineage page served by `olsdk serve`, in a real headless chromium, updated live.

Events posted by real producers after the page opened appear without a reload; the
page makes no request but to its own server; events stored with spec problems are
flagged in the data the page is fed.
"""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.graph.chromium import Chromium
from tests.serve.harness import ServeProcess, dumps, run_event

RUN_1 = "0190d3a4-7b5c-7a3e-9f00-0000000000c1"
RUN_2 = "0190d3a4-7b5c-7a3e-9f00-0000000000c2"


@pytest.fixture
def seeded(sqlite_served: ServeProcess) -> Iterator[ServeProcess]:
    event = run_event("seed_job", RUN_1, "COMPLETE", inputs=[("s3://raw", "seed_input")], outputs=[("pg", "seeded")])
    assert sqlite_served.post("/api/v1/lineage", dumps(event))[0] == 200
    yield sqlite_served


def names(browser: Chromium) -> set[str]:
    return set(browser.evaluate("olsdkLineage.data().nodes.map((n) => n.n)"))


def only_own_origin(browser: Chromium, url: str) -> None:
    origin = urllib.parse.urlsplit(url)
    for request in browser.requests():
        parts = urllib.parse.urlsplit(request)
        assert (parts.scheme, parts.netloc) == (origin.scheme, origin.netloc), request


def test_events_posted_after_the_page_opened_appear_without_a_reload(chromium: Chromium, seeded: ServeProcess) -> None:
    chromium.open(seeded.url + "/")
    chromium.wait_for("olsdkLineage.updates >= 1")  # the state sent when the feed connected
    assert names(chromium) == {"seed_job", "seed_input", "seeded"}
    chromium.evaluate("window.__sameDocument = true")

    official = run_event("late_job", RUN_2, "START", inputs=[("pg", "seeded")], outputs=[("pg", "late_output")])
    lenient = run_event("late_job", RUN_2, "FAIL", time="2024-07-01T13:00:00", outputs=[("pg", "late_output")])
    assert seeded.post("/api/v1/lineage/batch", dumps([official, lenient]))[0] == 200
    chromium.wait_for("olsdkLineage.data().nodes.some((n) => n.n === 'late_output')", timeout=30)
    assert chromium.evaluate("window.__sameDocument") is True  # no reload
    assert names(chromium) == {"seed_job", "seed_input", "seeded", "late_job", "late_output"}
    late = chromium.evaluate("JSON.stringify(olsdkLineage.data().nodes.find((n) => n.n === 'late_job'))")
    late_job = json.loads(late)
    assert late_job["st"] == "FAIL"
    assert late_job["pb"] == 1  # one event of it stored with spec problems
    summary = chromium.evaluate("JSON.stringify(olsdkLineage.data().summary)")
    assert "RFC 3339" in " ".join(json.loads(summary)["specProblems"])
    assert chromium.evaluate("document.getElementById('live').textContent").startswith("\u25cf live")
    assert chromium.errors() == []
    only_own_origin(chromium, seeded.url)


def test_the_page_reconnects_to_a_restarted_server(chromium: Chromium, tmp_path: Path, sqlite_db: str) -> None:
    first = ServeProcess(tmp_path, sqlite_db)
    try:
        first.post("/api/v1/lineage", dumps(run_event("before_restart", RUN_1)))
        chromium.open(first.url + "/")
        chromium.wait_for("olsdkLineage.updates >= 1")
        port = urllib.parse.urlsplit(first.url).port
    finally:
        first.stop()
    chromium.wait_for("document.getElementById('live').dataset.state !== 'open'", timeout=30)
    assert port is not None
    # the same port again, so the page's EventSource finds the server where it was
    with ServeProcess(tmp_path, sqlite_db, "--port", str(port)) as second:
        second.post("/api/v1/lineage", dumps(run_event("after_restart", RUN_2)))
        chromium.wait_for("olsdkLineage.data().nodes.some((n) => n.n === 'after_restart')", timeout=60)
        assert {"before_restart", "after_restart"} <= names(chromium)
