"""See the lineage: `olsdk graph` (one self-contained HTML page) and `olsdk inspect`.

Events are read leniently (`_read`), reduced to facts (`_facts`), folded into a
`LineageGraph` (`_model`), laid out in layers (`_layout`) and written as one page
(`_page`); `olsdk.spark.lineage_page` builds the same graph on Spark.
"""

from __future__ import annotations

from olsdk._integrations._graph._model import GraphBuilder, LineageGraph, build_graph
from olsdk._integrations._graph._page import PAGE_DATA_VERSION, page_data, render_page, write_page
from olsdk._integrations._graph._read import ReadItem, identity_problem, read_events

__all__ = [
    "PAGE_DATA_VERSION",
    "GraphBuilder",
    "LineageGraph",
    "ReadItem",
    "build_graph",
    "identity_problem",
    "page_data",
    "read_events",
    "render_page",
    "write_page",
]
