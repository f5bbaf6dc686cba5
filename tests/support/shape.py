"""The function-length limit of the hand-written code, checked by `make lint`.

`python -m tests.support.shape` measures every function and method under the folders
`[tool.olsdk-shape] paths` of pyproject.toml names (generated code left out): from its
`def` line to its last line, docstring and comments included, decorators not. Each one
longer than `max-lines` is printed as `file:line name length` and fails the check, unless
`allow` lists it (`file:Qualified.name`); an allowed function that is back within the
limit fails too, so that its entry is deleted. Cyclomatic complexity is ruff's (C901).
"""

from __future__ import annotations

import argparse
import ast
import sys
import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SKIPPED_PARTS = frozenset({"_generated", "__pycache__"})


@dataclass(frozen=True)
class Function:
    path: str  # relative to the root, with `/`
    line: int
    name: str  # qualified: `Class.method`, `outer.inner`
    length: int

    @property
    def key(self) -> str:
        return f"{self.path}:{self.name}"

    def __str__(self) -> str:
        return f"{self.path}:{self.line} {self.name} {self.length}"


@dataclass(frozen=True)
class Settings:
    paths: tuple[str, ...]
    max_lines: int
    allow: frozenset[str]

    @classmethod
    def load(cls, root: Path = ROOT) -> Settings:
        table = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["olsdk-shape"]
        return cls(tuple(table["paths"]), int(table["max-lines"]), frozenset(table.get("allow", [])))


def _functions(tree: ast.AST, prefix: str = "") -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield f"{prefix}{node.name}", node
            yield from _functions(node, f"{prefix}{node.name}.")
        elif isinstance(node, ast.ClassDef):
            yield from _functions(node, f"{prefix}{node.name}.")
        else:
            yield from _functions(node, prefix)


def measure(root: Path, paths: Sequence[str]) -> list[Function]:
    """Every function under `paths` (folders or files, relative to `root`), with its length."""
    found: list[Function] = []
    for base in paths:
        start = root / base
        files = [start] if start.is_file() else sorted(start.rglob("*.py"))
        for path in files:
            if SKIPPED_PARTS.intersection(path.relative_to(root).parts):
                continue
            rel = path.relative_to(root).as_posix()
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=rel)
            for name, node in _functions(tree):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                found.append(Function(rel, node.lineno, name, length))
    return found


def problems(functions: Sequence[Function], settings: Settings) -> list[str]:
    """The lines to print: functions over the limit, then allowlist entries that are stale."""
    over = [f for f in functions if f.length > settings.max_lines]
    out = [f"{f} (over {settings.max_lines} lines)" for f in over if f.key not in settings.allow]
    known = {f.key for f in functions}
    still_over = {f.key for f in over}
    allowed = "allowed in pyproject.toml [tool.olsdk-shape]"
    for entry in sorted(settings.allow):
        if entry not in known:
            out.append(f"{entry}: {allowed} but no such function: delete the entry")
        elif entry not in still_over:
            out.append(f"{entry}: {allowed} but now within the limit: delete the entry")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.support.shape", description=__doc__)
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (with pyproject.toml)")
    args = parser.parse_args(argv)
    settings = Settings.load(args.root)
    found = problems(measure(args.root, settings.paths), settings)
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
