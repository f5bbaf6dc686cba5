"""The ``olsdk`` command line.

Subcommands live in the modules listed in :data:`COMMAND_MODULES`; each exposes
``register(subparsers)`` that adds its parsers and sets ``handler`` (a function
``(args) -> int``) with ``parser.set_defaults(handler=...)``. To add a command
group (``facets export``, ``spec``), write such a module and list it here.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

__all__ = ["COMMAND_MODULES", "build_parser", "main"]

COMMAND_MODULES: tuple[str, ...] = (
    "olsdk.client._commands",
    "olsdk.client._replay_cli",
    "olsdk.facets._cli",
    "olsdk._graph._cli",
    "olsdk._validate_cli",
    "olsdk.spark._cli",
    "olsdk.serve._cli",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="olsdk", description="A typed Python SDK for OpenLineage")
    from olsdk._version import VersionAction  # olsdk and spec snapshot versions

    parser.add_argument("--version", action=VersionAction)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:  # a group given without its subcommand, e.g. `olsdk config`
        parser.parse_args([*(argv if argv is not None else sys.argv[1:]), "--help"])
        return 2
    try:
        result: int = handler(args)
        sys.stdout.flush()
    except BrokenPipeError:
        # `olsdk inspect big.ndjson | head`: the reader left; no traceback, and none at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return result


if __name__ == "__main__":
    sys.exit(main())
