"""Fixtures of the graph tests: event logs on disk, and a real headless chromium.

Browser tests skip when Debian's chromium is missing, except under CI (env var CI
set), where they fail: CI must run them (`.ci/run` installs chromium).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.graph.chromium import CHROMIUM, Chromium
from tests.graph.events import BAD_LINES, pipeline_events, write_ndjson


@pytest.fixture
def pipeline_log(tmp_path: Path) -> Path:
    """The test pipeline as NDJSON, followed by the lines that are not usable events."""
    return write_ndjson(tmp_path / "events" / "pipeline.ndjson", pipeline_events(), [line for line, _ in BAD_LINES])


@pytest.fixture
def chromium() -> Iterator[Chromium]:
    if not os.path.exists(CHROMIUM):
        message = f"{CHROMIUM} is missing (apt-get install chromium)"
        if os.environ.get("CI"):
            pytest.fail(f"{message}: CI must run the browser tests")
        pytest.skip(message)
    browser = Chromium()
    try:
        yield browser
    finally:
        browser.close()  # stops its process group by id
