"""The repository's pytest root: README.md and docs/**/*.md are collected too, each code
block a test (tests/docs/snippets.py says how blocks run and how the markdown marks them)."""

from tests.docs.snippets import pytest_collect_file, pytest_collection_modifyitems

__all__ = ["pytest_collect_file", "pytest_collection_modifyitems"]
