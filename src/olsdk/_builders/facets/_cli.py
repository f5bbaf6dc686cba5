"""`olsdk facets export MODULE [MODULE ...] --out DIR`: publish custom facet schemas.

`register(subparsers)` adds the `facets` command group to the `olsdk` command line
(`olsdk._integrations._cli` lists this module in its `COMMAND_MODULES`).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from pydantic import BaseModel

from olsdk._builders.facets._export import export_schemas, facet_classes


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add `facets export` to an argparse subparsers object."""
    facets = subparsers.add_parser("facets", help="custom facets: export their JSON Schemas")
    group = facets.add_subparsers(dest="facets_command", metavar="SUBCOMMAND")
    export = group.add_parser(
        "export",
        help="write one JSON Schema file per custom facet, and a producer registry.json",
        description=(
            "Import each MODULE (a dotted name or a .py file) and write the JSON Schema of "
            "every custom facet class it defines to DIR/facets/<ClassName>.json, plus "
            "DIR/registry.json; facets of several prefixes go to DIR/<prefix>/ each, unless "
            "--name names one producer for all. The current directory is importable, as "
            "with python -m."
        ),
    )
    export.add_argument("modules", nargs="+", metavar="MODULE", help="dotted module name, or a .py file")
    export.add_argument("--out", required=True, metavar="DIR", help="output folder")
    export.add_argument("--name", help="one producer path in the registry for all facets (default: one per prefix)")
    export.add_argument(
        "--root-doc-url",
        help="the producer's documentation URL (default: the facets' schema base URL)",
    )
    export.set_defaults(handler=run_export)


def import_module_or_file(source: str) -> ModuleType:
    """A module by dotted name, or a Python file by path; the current folder is importable
    (as with `python -m`)."""
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    path = Path(source)
    if source.endswith(".py") or path.is_file():
        if not path.is_file():
            raise ImportError(f"no such file: {source!r}")
        name = f"_olsdk_export_{path.stem}_{abs(hash(str(path.resolve())))}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {source!r} as Python")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # facet classes are looked up by module at export
        try:
            spec.loader.exec_module(module)
        except Exception as exc:
            del sys.modules[name]
            raise ImportError(f"cannot import {source!r}: {type(exc).__name__}: {exc}") from exc
        return module
    try:
        return importlib.import_module(source)
    except ImportError as exc:
        raise ImportError(f"cannot import module {source!r}: {exc}") from exc


def run_export(args: argparse.Namespace) -> int:
    classes: list[type[BaseModel]] = []
    try:
        for module in args.modules:
            classes.extend(facet_classes(import_module_or_file(module)))
        written = export_schemas(
            classes,
            args.out,
            name=args.name,
            root_doc_url=args.root_doc_url,
            _options={"name": "--name", "root_doc_url": "--root-doc-url"},
        )
    except (ImportError, TypeError, ValueError, LookupError) as exc:
        print(f"olsdk facets export: error: {exc}", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    return 0
