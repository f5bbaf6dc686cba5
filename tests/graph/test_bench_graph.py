"""Smoke test of `python -m bench.graph`: every row is there (no timing assertions)."""

from __future__ import annotations

from bench.graph import graph_page
from tests.graph.chromium import Chromium


def test_bench_rows(chromium: Chromium) -> None:
    chromium.close()  # the fixture only guarantees chromium is installed; the bench starts its own
    result = graph_page(nodes=200, repeats=1)
    assert result["nodes"] >= 190 and result["edges"] > result["nodes"] // 2
    assert result["page_mb"] > 0
    for key in (
        "read_and_build_s",
        "layout_and_write_s",
        "load_to_rendered_ms",
        "load_to_outline_ms",
        "frame_full_view_ms",
    ):
        assert result[key] > 0, key
