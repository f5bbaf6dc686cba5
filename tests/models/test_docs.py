"""The model example of the first-events tutorial runs as written."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

TUTORIAL = Path(__file__).resolve().parents[2] / "docs" / "tutorials" / "first-events.md"


def test_models_example_runs_as_written() -> None:
    section = TUTORIAL.read_text().split("## Models", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code.group(1), "docs/tutorials/first-events.md", "exec"), {})
    assert out.getvalue() == "select 1\n"
