"""The function-length check of `make lint` (tests/support/shape.py), on small trees of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.shape import ROOT, Settings, main, measure, problems


def _tree(tmp_path: Path, allow: list[str], source: str) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(source)
    (tmp_path / "pkg" / "_generated").mkdir()
    (tmp_path / "pkg" / "_generated" / "models.py").write_text(_function("generated", 80))
    entries = ", ".join(f'"{entry}"' for entry in allow)
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.olsdk-shape]\npaths = ["pkg"]\nmax-lines = 5\nallow = [{entries}]\n'
    )
    return tmp_path


def _function(name: str, lines: int, indent: str = "") -> str:
    body = "".join(f"{indent}    x = {i}\n" for i in range(lines - 1))
    return f"{indent}def {name}():\n{body}"


def test_a_function_over_the_limit_is_printed_with_file_line_name_and_length(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = "import os\n\n\nclass Box:\n" + _function("fits", 5, "    ") + _function("long", 6, "    ")
    root = _tree(tmp_path, [], source)
    assert main(["--root", str(root)]) == 1
    assert capsys.readouterr().out.splitlines() == ["pkg/mod.py:10 Box.long 6 (over 5 lines)"]


def test_nested_functions_count_on_their_own_and_generated_code_is_left_out(tmp_path: Path) -> None:
    source = "def outer():\n    def inner():\n        return 1\n    return inner\n"
    functions = measure(_tree(tmp_path, [], source), ["pkg"])
    assert [(f.name, f.line, f.length) for f in functions] == [("outer", 1, 4), ("outer.inner", 2, 2)]


def test_an_allowed_function_passes_and_a_stale_entry_fails(tmp_path: Path) -> None:
    root = _tree(tmp_path, ["pkg/mod.py:long"], _function("long", 9))
    settings = Settings.load(root)
    assert problems(measure(root, settings.paths), settings) == []
    (root / "pkg" / "mod.py").write_text(_function("long", 5))
    assert problems(measure(root, settings.paths), settings) == [
        "pkg/mod.py:long: allowed in pyproject.toml [tool.olsdk-shape] but now within the limit: delete the entry"
    ]
    (root / "pkg" / "mod.py").write_text(_function("renamed", 9))
    assert problems(measure(root, settings.paths), settings) == [
        "pkg/mod.py:1 renamed 9 (over 5 lines)",
        "pkg/mod.py:long: allowed in pyproject.toml [tool.olsdk-shape] but no such function: delete the entry",
    ]


def test_the_repository_keeps_the_limit() -> None:
    assert main(["--root", str(ROOT)]) == 0
