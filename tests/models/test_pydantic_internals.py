"""pydantic's private attributes are named in one module only: `_models/_runtime/_pydantic.py`.

Everything else uses pydantic's public API, so that a pydantic release that changes its
internals breaks one module (which `make test-pydantic-latest` runs the tests of on the
newest release), not the whole code base.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "olsdk"
THE_MODULE = SRC / "_models" / "_runtime" / "_pydantic.py"
GENERATED = SRC / "_models" / "_generated"


def _lines_naming_private_attributes() -> list[str]:
    return [
        f"{path.relative_to(SRC)}:{number}: {line.strip()}"
        for path in sorted(SRC.rglob("*.py"))
        if GENERATED not in path.parents
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if "__pydantic_" in line
    ]


def test_only_the_pydantic_module_names_pydantic_private_attributes() -> None:
    found = _lines_naming_private_attributes()
    module = str(THE_MODULE.relative_to(SRC))
    assert [hit for hit in found if not hit.startswith(module + ":")] == []
    assert any(hit.startswith(module + ":") for hit in found)  # (the search finds them where they are)


def test_each_use_says_why_no_public_api_serves() -> None:
    # Every function or class of the module that names a private attribute has a docstring
    # (the reason), and the module says what it is for.
    tree = ast.parse(THE_MODULE.read_text(encoding="utf-8"))
    assert ast.get_docstring(tree)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and "__pydantic_" in ast.unparse(node):
            assert ast.get_docstring(node), f"{node.name}: say why no public API serves"
