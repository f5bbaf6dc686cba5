"""The documentation site's sources: `make docs` builds mkdocs.yml strictly (CI runs it
after `make lint`), the command-line page shows every command's help, and every public
module has an API page."""

from __future__ import annotations

import importlib.util
import re
from types import ModuleType

import yaml

from tests.docs.snippets import ROOT
from tests.support.api_doc import PUBLIC_MODULES

CLI_PAGE = ROOT / "docs" / "reference" / "cli.md"


def hooks() -> ModuleType:
    spec = importlib.util.spec_from_file_location("olsdk_docs_hooks", ROOT / "docs" / "_hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_make_docs_builds_strictly_and_ci_runs_it_after_lint() -> None:
    recipe = (ROOT / "Makefile").read_text(encoding="utf-8").split("\ndocs:", 1)[1].split("\n\n", 1)[0]
    assert "mkdocs build --strict" in recipe
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    steps = [line.removeprefix("step ") for line in lines if line.removeprefix("step ").startswith("make")]
    assert steps.index("make docs") == steps.index("make lint") + 1
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config["strict"] is True and config["docs_dir"] == "docs"
    offline = {"search", "autorefs", "mkdocstrings"}
    assert {next(iter(p)) if isinstance(p, dict) else p for p in config["plugins"]} <= offline


def test_the_cli_page_shows_every_command() -> None:
    from olsdk._integrations._cli import COMMANDS

    markers = re.findall(r"<!-- olsdk-help:\s*([\w -]*?)\s*-->", CLI_PAGE.read_text(encoding="utf-8"))
    shown = {marker.split()[0] for marker in markers if marker != "olsdk"}
    assert shown == set(COMMANDS)
    rendered = hooks().on_page_markdown(CLI_PAGE.read_text(encoding="utf-8"))
    assert "<!-- olsdk-help" not in rendered
    for marker in markers:
        usage = "usage: olsdk" if marker == "olsdk" else f"usage: olsdk {marker}"
        assert usage in rendered, marker


def test_every_public_module_has_an_api_page() -> None:
    pages = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "docs" / "reference" / "api").glob("*.md"))
    documented = set(re.findall(r"^::: ([\w.]+)$", pages, flags=re.M))
    assert documented == set(PUBLIC_MODULES)
