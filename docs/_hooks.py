"""MkDocs hook: the command-line reference shows each command's ``--help`` as the
installed ``olsdk`` prints it, so that page cannot drift from the parser.

``<!-- olsdk-help: COMMAND -->`` in a page becomes that command's help text (``olsdk``
alone for the top-level one); ``config show`` names a subcommand.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Any

# this checkout's olsdk, whatever the environment has installed
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

MARKER = re.compile(r"<!-- olsdk-help:\s*([\w -]*?)\s*-->")


def _subparser(parser: argparse.ArgumentParser, word: str) -> argparse.ArgumentParser:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and word in action.choices:
            chosen: argparse.ArgumentParser = action.choices[word]
            return chosen
    raise ValueError(f"olsdk-help: no command {word!r} under {parser.prog!r}")


def help_text(command: str) -> str:
    """``olsdk [COMMAND [SUBCOMMAND]] --help``, wrapped at 88 columns whatever the terminal."""
    from olsdk._integrations._cli import build_parser

    words = command.split()[1:] if command.startswith("olsdk") else command.split()
    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "88"
    try:
        parser = build_parser()
        for word in words:
            parser = _subparser(parser, word)
        return parser.format_help()
    finally:
        if saved is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = saved


def on_page_markdown(markdown: str, **_: Any) -> str:
    return MARKER.sub(lambda m: "```text\n" + help_text(m.group(1)).rstrip() + "\n```", markdown)
