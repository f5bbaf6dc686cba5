"""`olsdk facets export MODULE [MODULE ...] --out DIR`: publish custom facet schemas.

`register(subparsers)` adds the `facets` command group to the `olsdk` command line
(`olsdk.cli` lists this module in its `COMMAND_MODULES`).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Any

from pydantic import BaseModel

from olsdk.facets._export import export_schemas, facet_classes


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add `facets export` to an argparse subparsers object."""
    facets = subparsers.add_parser("facets", help="custom facets: export their JSON Schemas")
    group = facets.add_subparsers(dest="facets_command", metavar="SUBCOMMAND")
    export = group.add_parser(
        "export",
        help="write one JSON Schema file per custom facet, and a producer registry.json",
        description=(
            "Import each MODULE and write the JSON Schema of every custom facet class it "
            "defines to DIR/facets/<ClassName>.json, plus DIR/registry.json. The current "
            "directory is importable, as with `python -m`."
        ),
    )
    export.add_argument("modules", nargs="+", metavar="MODULE", help="dotted module name")
    export.add_argument("--out", required=True, metavar="DIR", help="output folder")
    export.add_argument(
        "--name", help="the producer's path in the registry (default: the facets' prefix)"
    )
    export.add_argument(
        "--root-doc-url",
        help="the producer's documentation URL (default: the facets' schema base URL)",
    )
    export.set_defaults(handler=run_export)


def run_export(args: argparse.Namespace) -> int:
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    classes: list[type[BaseModel]] = []
    try:
        for module in args.modules:
            try:
                imported = importlib.import_module(module)
            except ImportError as exc:
                raise ImportError(f"cannot import module {module!r}: {exc}") from exc
            classes.extend(facet_classes(imported))
        written = export_schemas(
            classes, args.out, name=args.name, root_doc_url=args.root_doc_url
        )
    except (ImportError, TypeError, ValueError, LookupError) as exc:
        print(f"olsdk facets export: error: {exc}", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    return 0
