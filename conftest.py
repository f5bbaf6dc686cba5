"""The repository's pytest root: README.md and docs/**/*.md are collected too, each code
block a test (tests/docs/snippets.py says how blocks run and how the markdown marks them);
tests/support/selection.py marks tests by what they need, skips those of a missing extra
outside CI, keeps the benchmark smoke tests for when they are asked for, and holds the
Hypothesis profiles."""

from __future__ import annotations

import pytest

from tests.docs import snippets
from tests.support import selection

pytest_collect_file = snippets.pytest_collect_file


def pytest_configure(config: pytest.Config) -> None:
    selection.load_profile(config)


@pytest.hookimpl(tryfirst=True)  # before `-m` selects: the markers added here count
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    snippets.pytest_collection_modifyitems(items)
    selection.add_markers(items)
    selection.group_for_workers(items)
    selection.skip_missing_extras(items)
    selection.deselect_bench(config, items)
