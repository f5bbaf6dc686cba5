"""naming._registry: BUILDERS holds one builder per data store, each with a worked example."""

import inspect
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from olsdk import naming
from olsdk.naming import BUILDERS, DatasetId
from tests.naming.naming_examples import WORKED_EXAMPLES


def test_every_store_of_the_issue_has_a_builder_and_a_worked_example() -> None:
    assert set(BUILDERS) == set(WORKED_EXAMPLES)
    assert len(BUILDERS) == 37


@pytest.mark.parametrize("store", sorted(WORKED_EXAMPLES))
def test_worked_example(store: str) -> None:
    kwargs, namespace, name, uri = WORKED_EXAMPLES[store]
    result = BUILDERS[store](**kwargs)
    assert result == DatasetId(namespace, name)
    assert result.uri == uri
    assert getattr(naming, store) is BUILDERS[store]


def test_builders_are_keyword_only() -> None:
    with pytest.raises(TypeError):
        naming.postgres("db", "shop", "public", "orders")  # type: ignore[misc]


@pytest.mark.parametrize("store", sorted(WORKED_EXAMPLES))
def test_every_required_part_is_checked_for_emptiness(store: str) -> None:
    kwargs, *_ = WORKED_EXAMPLES[store]
    for arg, value in kwargs.items():
        if not isinstance(value, str):
            continue
        with pytest.raises(ValueError, match=rf"{store}: {arg}\b.*must not be empty"):
            BUILDERS[store](**{**kwargs, arg: "  "})


def _valid_kwargs(store: str) -> dict[str, Any]:
    return dict(WORKED_EXAMPLES[store][0])


def _required_text_arguments(store: str) -> list[str]:
    parameters = inspect.signature(BUILDERS[store]).parameters.values()
    return [p.name for p in parameters if p.default is inspect.Parameter.empty and "port" not in p.name]


@pytest.mark.parametrize("store", sorted(BUILDERS))
@settings(max_examples=10, deadline=None)
@given(blank=st.text(alphabet=" \t\n\r", max_size=4), data=st.data())
def test_builders_reject_empty_parts(store: str, blank: str, data: st.DataObject) -> None:
    kwargs = _valid_kwargs(store)
    arg = data.draw(st.sampled_from(_required_text_arguments(store)))
    kwargs[arg] = blank
    with pytest.raises(ValueError, match=f"{store}: {arg}"):
        BUILDERS[store](**kwargs)
