"""One self-contained HTML page of a `LineageGraph`: layout done here, drawing in the page.

The page needs no network: its script, styles and data are inline, and a Content
Security Policy forbids every fetch. User data travels only inside a JSON block whose
``<``, ``>`` and ``&`` are escaped (so ``</script>`` in a name cannot end the block)
and reaches the DOM as text, never as markup.

The same page can be served live (``live_url``): it then also opens a Server-Sent
Events stream on its own server and redraws with each new page data it receives
(:func:`page_data`, the JSON the page embeds), through ``olsdkLineage.update``.
"""

from __future__ import annotations

import html
import json
import re
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from olsdk._integrations._graph._layout import NODE_HEIGHT, NODE_WIDTH, layered_layout
from olsdk._integrations._graph._model import DatasetKey, DatasetNode, JobKey, JobNode, LineageGraph

__all__ = ["PAGE_DATA_VERSION", "page_data", "render_page", "write_page"]

DEFAULT_TITLE = "Lineage"
PAGE_DATA_VERSION = 2  # the page's `VERSION`: `olsdkLineage.update` refuses data of another
_PLACEHOLDER = re.compile(r"@@(TITLE|CSS|JS|DATA|CONNECT|LIVE)@@")
# A long history of failures must not make the page huge: the latest runs' errors are kept whole,
# older ones shortened (the events hold them in full; `olsdk inspect` lists them).
FULL_ERRORS = 20
SHORT_ERROR_CHARS = 300
_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


@cache
def _asset(name: str) -> str:
    return resources.files("olsdk._integrations._graph").joinpath("assets", name).read_text(encoding="utf-8")


def page_data(
    graph: LineageGraph, *, title: str = DEFAULT_TITLE, sources: list[str] | None = None, generated: str | None = None
) -> dict[str, Any]:
    """What the page draws: nodes with positions, edges with bends, runs, fields, counts."""
    # Node ids are positions in `nodes`: datasets first, then jobs, both in graph order.
    dataset_index = {dataset.key: i for i, dataset in enumerate(graph.datasets)}
    job_index = {job.key: len(graph.datasets) + i for i, job in enumerate(graph.jobs)}
    nodes = [_dataset_node(dataset, dataset_index) for dataset in graph.datasets]
    nodes += [_job_node(job, job_index) for job in graph.jobs]
    # input: dataset -> job; output: job -> dataset
    pairs = [
        (dataset_index[e.dataset_key], job_index[e.job_key])
        if e.direction == "input"
        else (job_index[e.job_key], dataset_index[e.dataset_key])
        for e in graph.edges
    ]
    # parent job -> child job: laid out like data edges, so that a parent sits before its children
    links = [(job_index[link.parent_key], job_index[link.child_key]) for link in graph.parents]
    layout = layered_layout(len(nodes), pairs + links)
    for i, node in enumerate(nodes):
        node["x"], node["y"] = layout.x[i], layout.y[i]
    return {
        "v": PAGE_DATA_VERSION,
        "title": title,
        "generated": generated or datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.000000Z"),
        "sources": list(sources or []),
        "nodeSize": [NODE_WIDTH, NODE_HEIGHT],
        "size": [layout.width, layout.height],
        "nodes": nodes,
        "edges": [_drawn_edge(source, target, layout.bends.get(i)) for i, (source, target) in enumerate(pairs)],
        "parents": [
            _drawn_edge(parent, child, layout.bends.get(len(pairs) + i)) for i, (parent, child) in enumerate(links)
        ],
        "summary": {
            "events": dict(sorted(graph.events.items())),
            "unreadable": graph.unreadable,
            "notes": graph.notes,
            "runsByState": graph.runs_by_state,
            "producers": graph.producers,
            "facetKeys": graph.facet_keys,
        },
    }


def _dataset_node(dataset: DatasetNode, dataset_index: dict[DatasetKey, int]) -> dict[str, Any]:
    """A dataset, its fields and its column lineage (upstream node id -1: not in the graph)."""
    node: dict[str, Any] = {"k": "d", "ns": dataset.namespace, "n": dataset.name}
    if dataset.fields:
        node["f"] = [list(f) for f in dataset.fields]
    if dataset.columns:
        node["cl"] = [
            [
                c.field,
                dataset_index.get((c.upstream_namespace, c.upstream_name), -1),
                c.upstream_namespace,
                c.upstream_name,
                c.upstream_field,
                c.transformation,
            ]
            for c in dataset.columns
        ]
    return node


def _job_node(job: JobNode, job_index: dict[JobKey, int]) -> dict[str, Any]:
    """A job, its latest run's state, its run counts and its latest runs (with their parent run, if any)."""
    runs: list[list[Any]] = []
    for position, r in enumerate(job.runs):
        error = r.error
        if error is not None and position >= FULL_ERRORS and len(error) > SHORT_ERROR_CHARS:
            error = f"{error[:SHORT_ERROR_CHARS]}… ({len(error) - SHORT_ERROR_CHARS:,} more characters)"
        run: list[Any] = [r.run_id, r.state, r.start, r.last, error, r.events]
        if r.parent is not None:
            run += [job_index[r.parent[:2]], r.parent[2]]
        runs.append(run)
    return {
        "k": "j",
        "ns": job.namespace,
        "n": job.name,
        "st": job.state,
        "rt": job.runs_total,
        "sc": job.state_counts,
        "runs": runs,
    }


def _drawn_edge(source: int, target: int, bends: list[tuple[int, int]] | None) -> list[Any]:
    """[source, target], with the bend points as one flat [x, y, x, y, ...] list when it has any."""
    return [source, target, [c for point in bends for c in point]] if bends else [source, target]


def script_json(data: Any) -> str:
    """JSON that is safe inside a ``<script>`` element: no ``<``, ``>`` or ``&`` left."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return re.sub("[<>&\u2028\u2029]", lambda m: _JSON_ESCAPES[m.group(0)], text)


def render_page(
    graph: LineageGraph,
    *,
    title: str = DEFAULT_TITLE,
    sources: list[str] | None = None,
    generated: str | None = None,
    live_url: str | None = None,
) -> str:
    """The whole HTML page of `graph`, as text.

    `live_url`: a path on the server that serves the page (``/...``) where it reads a
    Server-Sent Events stream of new page data (events named ``graph``); the page's
    Content Security Policy then allows connections to its own origin, and only there.
    Without it the page makes no request at all.
    """
    data = page_data(graph, title=title, sources=sources, generated=generated)
    connect, live = "", ""
    if live_url is not None:
        if not isinstance(live_url, str) or not live_url.startswith("/") or live_url.startswith("//"):
            raise ValueError(
                f"live_url: must be a path on the page's own server, starting with one '/'; got {live_url!r}"
            )
        connect = "; connect-src 'self'"
        live = "\n<script>\n" + _asset("live.js").replace("@@URL@@", script_json(live_url)) + "</script>"
    parts = {
        "TITLE": html.escape(title),
        "CSS": _asset("page.css"),
        "JS": _asset("page.js"),
        "DATA": script_json(data),
        "CONNECT": connect,
        "LIVE": live,
    }
    # One pass, so that nothing substituted is ever scanned for placeholders again.
    return _PLACEHOLDER.sub(lambda m: parts[m.group(1)], _asset("page.html"))


def write_page(
    graph: LineageGraph, path: str | Path, *, title: str = DEFAULT_TITLE, sources: list[str] | None = None
) -> Path:
    """Write the page of `graph` to `path` (parent folders created); returns the path."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render_page(graph, title=title, sources=sources), encoding="utf-8")
    return target
