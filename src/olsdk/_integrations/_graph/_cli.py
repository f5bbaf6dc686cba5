"""`olsdk graph` and `olsdk inspect` (`olsdk._integrations._cli` lists this module in `COMMAND_MODULES`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from olsdk._foundation._exceptions import OlsdkError
from olsdk._foundation._progress import Progress
from olsdk._integrations._graph._inspect import inspect_data, inspect_text, plural
from olsdk._integrations._graph._model import LineageGraph, build_graph
from olsdk._integrations._graph._page import write_page
from olsdk._integrations._graph._read import STDIN, read_events, source_paths

__all__ = ["register", "run_graph", "run_inspect"]

SOURCES_HELP = "NDJSON files, files of one JSON event or list of events, folders of .json/.ndjson files, or - for stdin"


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add `graph` and `inspect` to an argparse subparsers object."""
    graph = subparsers.add_parser(
        "graph",
        help="write collected events as one self-contained HTML lineage page",
        description=(
            "Read OpenLineage events leniently (every event with a usable run id, job or dataset name "
            "counts; the others are counted and shown on the page) and write one HTML file that opens "
            "from disk with no network: datasets and jobs laid out left to right, run states, run "
            "history, column lineage, search, zoom and pan."
        ),
    )
    graph.add_argument("sources", nargs="+", metavar="PATH", help=SOURCES_HELP)
    graph.add_argument("-o", "--output", default="lineage.html", metavar="OUT.html", help="default: lineage.html")
    graph.add_argument("--title", default=None, help="the page title (default: the source's name)")
    graph.set_defaults(handler=run_graph)

    inspect = subparsers.add_parser(
        "inspect",
        help="summarise collected events in the terminal",
        description=(
            "Jobs, datasets, runs by state, failed runs with their error messages, edges, producers and "
            "facet keys of OpenLineage events (read leniently, like olsdk graph)."
        ),
    )
    inspect.add_argument("sources", nargs="+", metavar="PATH", help=SOURCES_HELP)
    inspect.add_argument("--format", choices=("text", "json"), default="text")
    inspect.add_argument("--limit", type=int, default=50, help="rows per list in text output (default: 50)")
    inspect.set_defaults(handler=run_inspect)


def _read(command: str, sources: list[str], progress: Progress) -> LineageGraph | None:
    """The graph of `sources`; a progress line on a terminal while the events are read."""
    try:
        paths = source_paths(sources)
        progress.total = 0 if STDIN in paths else sum(p.stat().st_size for p in paths if isinstance(p, Path))
        graph = build_graph(progress.count(read_events(sources, on_bytes=progress.advance)))
    except (OlsdkError, OSError) as exc:
        progress.close()
        print(f"olsdk {command}: error: {exc}", file=sys.stderr)
        return None
    return graph


def _default_title(sources: list[str]) -> str:
    if len(sources) == 1:
        return "Lineage from stdin" if sources[0] == "-" else f"Lineage of {sources[0]}"
    return f"Lineage of {len(sources)} sources"


def run_graph(args: argparse.Namespace) -> int:
    progress = Progress(0)
    graph = _read("graph", args.sources, progress)
    if graph is None:
        return 2
    progress.stage(f"laying out {plural(len(graph.jobs) + len(graph.datasets), 'node')} and writing {args.output}")
    try:
        path = write_page(graph, args.output, title=args.title or _default_title(args.sources), sources=args.sources)
    except OSError as exc:
        progress.close()
        print(f"olsdk graph: error: {args.output}: {exc}", file=sys.stderr)
        return 2
    progress.close()
    events = sum(graph.events.values())
    print(
        f"{path}  ({plural(len(graph.jobs), 'job')}, {plural(len(graph.datasets), 'dataset')}, "
        f"{plural(len(graph.edges), 'edge')} from {plural(events, 'event')}; {graph.unreadable_total} not readable)"
    )
    if graph.unreadable_total:
        what = plural(graph.unreadable_total, "event")
        print(f"olsdk graph: {what} not readable: see olsdk inspect", file=sys.stderr)
    return 0


def run_inspect(args: argparse.Namespace) -> int:
    progress = Progress(0)
    graph = _read("inspect", args.sources, progress)
    progress.close()
    if graph is None:
        return 2
    if args.format == "json":
        json.dump(inspect_data(graph, args.sources), sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(inspect_text(graph, args.sources, limit=max(1, args.limit)))
    return 0
