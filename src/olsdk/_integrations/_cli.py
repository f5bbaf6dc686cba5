"""The ``olsdk`` command line.

Subcommands live in the modules :data:`COMMANDS` names; each module exposes
``register(subparsers)`` that adds its parsers and sets ``handler`` (a function
``(args) -> int``) with ``parser.set_defaults(handler=...)``. To add a command, write
such a module and list its commands here.

A command imports only its own module: ``olsdk validate`` never imports the Spark
integration nor the client; ``olsdk --help`` imports them all to list them.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

__all__ = ["COMMANDS", "COMMAND_MODULES", "build_parser", "main"]

COMMANDS: dict[str, str] = {
    "config": "olsdk._integrations._config_cli",
    "replay": "olsdk._integrations._replay_cli",
    "send": "olsdk._integrations._replay_cli",
    "facets": "olsdk._builders.facets._cli",
    "graph": "olsdk._integrations._graph._cli",
    "inspect": "olsdk._integrations._graph._cli",
    "validate": "olsdk._integrations._validate_cli",
    "spark": "olsdk._integrations.spark._cli",
    "serve": "olsdk._integrations.serve._cli",
}
"""Command name -> the module that registers it."""

COMMAND_MODULES: tuple[str, ...] = tuple(dict.fromkeys(COMMANDS.values()))


def _command_of(argv: Sequence[str]) -> str | None:
    """The command `argv` names (its first word that is no option), if it is one."""
    for word in argv:
        if word == "--":
            return None
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; with `command`, only that command's module is imported."""
    parser = argparse.ArgumentParser(prog="olsdk", description="A typed Python SDK for OpenLineage")
    from olsdk._integrations._version import VersionAction  # olsdk and spec snapshot versions

    parser.add_argument("--version", action=VersionAction)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    modules = (COMMANDS[command],) if command is not None else COMMAND_MODULES
    for name in modules:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = list(argv if argv is not None else sys.argv[1:])
    parser = build_parser(_command_of(words))
    args = parser.parse_args(words)
    handler = getattr(args, "handler", None)
    if handler is None:  # a group given without its subcommand, e.g. `olsdk config`
        parser.parse_args([*words, "--help"])
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
