"""Where the hand-written layer names generated classes, and where it asks first.

`scan(src)` walks every hand-written module of the package (`src/olsdk`, without
`_generated/`) and finds:

- **uses**: a generated class named directly: imported from `olsdk.models`,
  `olsdk._models._generated.models` or `olsdk` (outside `if TYPE_CHECKING:`), read as an
  attribute of an alias of those modules (`m.TagsJobFacet`), read with `getattr` on
  one, or written as a string equal to a class name that is not an argument of the
  helper below;
- **guards**: the asks of `olsdk._models._release` (`spec_class`, `spec_field`, `has_class`,
  `has_field`) with the class (and field) named as string literals, and the `feature=`
  text that says what is left out without it.

A use is fine when every release has the class (`tests/support/spec_history.py` knows
which); anything else must go through a guard. `tests/models/test_release_guards.py`
holds the layer to that, and `docs/explanation/spec-versions.md` lists the guards a release lacks.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "olsdk"

MODEL_MODULES = frozenset({"olsdk.models", "olsdk._models", "olsdk._models._generated.models"})
GUARD_FUNCTIONS = frozenset({"spec_class", "spec_field", "has_class", "has_field"})


@dataclass(frozen=True, order=True)
class Use:
    """A generated name used without asking: `path:line`, how, and the name."""

    path: str
    line: int
    how: str  # import | attribute | getattr | string
    name: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.how} {self.name}"


@dataclass(frozen=True, order=True)
class Guard:
    """An ask of `olsdk._models._release`: the class (and field), and what is left out without it."""

    name: str  # a class, or `Class.field`
    feature: str  # "" for has_class/has_field, which leave the consequence to the caller
    path: str
    line: int
    function: str  # spec_class | spec_field | has_class | has_field

    @property
    def class_name(self) -> str:
        return self.name.partition(".")[0]

    @property
    def field(self) -> str | None:
        return self.name.partition(".")[2] or None


# The helper itself, where every ask lands; and the generated package.
SKIPPED = ("olsdk/_models/_release.py",)


def _modules(src: Path) -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(src.rglob("*.py")):
        rel = path.relative_to(src.parent).as_posix()
        if "/_generated/" in f"/{rel}" or rel in SKIPPED:
            continue
        yield rel, ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _type_checking_nodes(tree: ast.Module) -> set[int]:
    """ids of the nodes inside `if TYPE_CHECKING:` blocks (annotations only, never run)."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else test.attr if isinstance(test, ast.Attribute) else None
            if name == "TYPE_CHECKING":
                for child in node.body:
                    inside.update(id(sub) for sub in ast.walk(child))
    return inside


def _model_aliases(tree: ast.Module) -> set[str]:
    """Names a module binds to the generated models module (`import olsdk.models as m`)."""
    aliases: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODEL_MODULES and alias.asname:
                    aliases.add(alias.asname)
        elif isinstance(node, ast.ImportFrom) and node.module in ("olsdk", "olsdk._models._generated"):
            for alias in node.names:
                if alias.name in ("models", "_models"):
                    aliases.add(alias.asname or alias.name)
    return aliases


def _called(node: ast.Call) -> str | None:
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _guard(node: ast.Call, rel: str) -> Guard | None:
    if _called(node) not in GUARD_FUNCTIONS:
        return None
    literals = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    function = str(_called(node))
    if len(literals) != len(node.args) or not literals:
        return Guard("<not a literal>", "", rel, node.lineno, function)
    feature = next(
        (k.value.value for k in node.keywords if k.arg == "feature" and isinstance(k.value, ast.Constant)), ""
    )
    return Guard(".".join(literals[:2]), str(feature), rel, node.lineno, function)


def scan(class_names: frozenset[str], src: Path = PACKAGE) -> tuple[list[Use], list[Guard]]:
    """Every use of a name in `class_names` and every guard, in the modules under `src`."""
    uses: list[Use] = []
    guards: list[Guard] = []
    for rel, tree in _modules(src):
        hidden = _type_checking_nodes(tree)
        aliases = _model_aliases(tree)
        guarded_literals: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and (guard := _guard(node, rel)) is not None:
                guards.append(guard)
                guarded_literals.update(id(a) for a in node.args)
            elif isinstance(node, ast.Call) and _called(node) == "cast" and node.args:
                guarded_literals.add(id(node.args[0]))  # `cast("JobTypeJobFacet", ...)`: a type, not a use
        for node in ast.walk(tree):
            if id(node) in hidden:
                continue
            if isinstance(node, ast.ImportFrom) and node.module in (*MODEL_MODULES, "olsdk"):
                uses += [Use(rel, node.lineno, "import", a.name) for a in node.names if a.name in class_names]
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
                if node.attr in class_names:
                    uses.append(Use(rel, node.lineno, "attribute", node.attr))
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr")
                and node.args
                and isinstance(node.args[0], ast.Name)
                and node.args[0].id in aliases
            ):
                uses.append(
                    Use(rel, node.lineno, node.func.id, ast.unparse(node.args[1]) if len(node.args) > 1 else "")
                )
            elif isinstance(node, ast.Constant) and node.value in class_names and id(node) not in guarded_literals:
                uses.append(Use(rel, node.lineno, "string", str(node.value)))
    return sorted(uses), sorted(guards)
