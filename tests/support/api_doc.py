"""The public API as `docs/reference/api/index.md` lists it: each public module and its `__all__`.

`python -m tests.support.api_doc > docs/reference/api/index.md` rewrites the page from the code (the
first sentence of each name's docstring); `tests/api/test_exported_members.py` fails when
the page and the code disagree, so a change of the public API is always a visible one.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
API_DOC = ROOT / "docs" / "reference" / "api" / "index.md"

# Every module a user may import; everything else under olsdk is private (`_name`).
PUBLIC_MODULES = (
    "olsdk",
    "olsdk.models",
    "olsdk.facets",
    "olsdk.naming",
    "olsdk.client",
    "olsdk.transports",
    "olsdk.spark",
    "olsdk.spark.agent_facets",
    "olsdk.compat",
    "olsdk.serve",
)

INTRO = """# The public API

Everything a user imports comes from these modules; every other module under `olsdk`
is private (its name starts with `_`) and may change without notice. Each table lists
the module's `__all__`, checked by `tests/api/test_exported_members.py`; each module's
own page documents it from its docstrings. Regenerate this page after changing the
public API: `python -m tests.support.api_doc > docs/reference/api/index.md`.
"""


def load(name: str) -> ModuleType:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return importlib.import_module(name)


def _spec_facet(cls: type) -> str | None:
    """ "the dataset facet `catalog`" for a generated facet class the spec describes no further."""
    from olsdk import models
    from olsdk.facets import key_of

    if cls.__dict__.get("__doc__") or getattr(models, cls.__name__, None) is not cls:
        return None
    for base, entity in (
        (models.InputDatasetFacet, "input dataset"),
        (models.OutputDatasetFacet, "output dataset"),
        (models.DatasetFacet, "dataset"),
        (models.JobFacet, "job"),
        (models.RunFacet, "run"),
    ):
        if issubclass(cls, base) and cls is not base:
            try:
                return f"The {entity} facet `{key_of(cls)}`"
            except (TypeError, ValueError, LookupError):
                return None
    return None


def summary(obj: Any) -> str:
    if inspect.isclass(obj) and (facet := _spec_facet(obj)):
        return facet
    doc = inspect.getdoc(obj) if callable(obj) or inspect.isclass(obj) or inspect.ismodule(obj) else None
    first = (doc or "").strip().split("\n\n")[0].replace("\n", " ")
    sentence = re.split(r"(?<=\.)\s+(?=[A-Z])", first, maxsplit=1)[0]  # a table cell: the first sentence
    return sentence.replace("|", "\\|")


def render() -> str:
    parts = [INTRO]
    for module_name in PUBLIC_MODULES:
        module = load(module_name)
        parts.append(f"\n## `{module_name}`\n\n{summary(module)}\n\n| name | what it is |\n|---|---|")
        for name in module.__all__:
            parts.append(f"| `{name}` | {summary(getattr(module, name))} |")
    return "\n".join(parts) + "\n"


def documented() -> dict[str, list[str]]:
    """Module -> the names docs/reference/api/index.md lists for it, in order."""
    out: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in API_DOC.read_text(encoding="utf-8").splitlines():
        heading = re.match(r"^## `([\w.]+)`$", line)
        if heading:
            current = out.setdefault(heading.group(1), [])
        elif current is not None and (row := re.match(r"^\| `(\w+)` \|", line)):
            current.append(row.group(1))
    return out


if __name__ == "__main__":
    sys.stdout.write(render())
