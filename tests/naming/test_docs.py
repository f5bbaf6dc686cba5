"""docs/how-to/naming.md has a row per builder, each with what the builder emits."""

import re
from pathlib import Path

from olsdk.naming import BUILDERS

DOC = Path(__file__).resolve().parents[2] / "docs" / "how-to" / "naming.md"


def test_every_builder_has_a_doc_row_and_every_row_a_builder() -> None:
    rows = re.findall(r"^\| [^|]+\(`(\w+)`\) \|", DOC.read_text(), flags=re.MULTILINE)
    assert sorted(rows) == sorted(BUILDERS)


def test_every_doc_row_example_is_what_the_builder_emits() -> None:
    from tests.naming.naming_examples import WORKED_EXAMPLES

    text = DOC.read_text()
    for store, (kwargs, _, _, uri) in WORKED_EXAMPLES.items():
        row = next(line for line in text.splitlines() if f"(`{store}`)" in line)
        assert BUILDERS[store](**kwargs).uri == uri
        assert f"`{uri}`" in row, store
