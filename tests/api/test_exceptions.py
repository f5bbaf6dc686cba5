"""Public exceptions print the public path users import them from (`olsdk.ConfigError`),
not the private module that defines them (`olsdk._foundation._exceptions.ConfigError`)."""

from __future__ import annotations

import importlib
import pickle
import subprocess
import sys

import pytest

from tests.support.api_doc import PUBLIC_MODULES, load
from tests.support.selection import require_extras

require_extras("spark", "serve")  # collecting this module loads every public module


def exported_exceptions() -> list[tuple[str, str, type[BaseException]]]:
    found = []
    for module_name in PUBLIC_MODULES:
        module = load(module_name)
        for name in module.__all__:
            value = getattr(module, name)
            if isinstance(value, type) and issubclass(value, BaseException) and value.__module__.startswith("olsdk"):
                found.append((module_name, name, value))
    return found


def test_there_are_exported_exceptions() -> None:
    names = {name for _, name, _ in exported_exceptions()}
    assert {"OlsdkError", "ValidationError", "ConfigError", "DeliveryError", "FacetKeyConflict"} <= names
    assert "ReplayInProgress" in names


@pytest.mark.parametrize(("module_name", "name", "cls"), exported_exceptions(), ids=lambda v: str(v))
def test_an_exported_exception_names_a_public_module(module_name: str, name: str, cls: type[BaseException]) -> None:
    assert cls.__module__ in PUBLIC_MODULES, f"{module_name}.{name} prints as {cls.__module__}.{cls.__qualname__}"
    assert getattr(importlib.import_module(cls.__module__), cls.__qualname__) is cls


def test_a_traceback_prints_the_public_path() -> None:
    code = (
        "import olsdk\n"
        "from olsdk.client import load_config\n"
        "load_config({'transport': {'type': 'console', 'prety': True}}, environ={})\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("olsdk.ConfigError: transport.prety: unknown key; did you mean 'pretty'?"), done.stderr
    assert "olsdk._foundation._exceptions" not in done.stderr.splitlines()[-1]


def test_exceptions_still_pickle_and_repr_by_their_public_path() -> None:
    import olsdk
    from olsdk.client import ReplayInProgress

    error = olsdk.ValidationError([olsdk.Problem("run.runId", "not a UUID")])
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is olsdk.ValidationError and again.problems == error.problems
    assert repr(olsdk.ConfigError("x")) == "ConfigError('x')"
    assert f"{ReplayInProgress.__module__}.{ReplayInProgress.__qualname__}" == "olsdk.client.ReplayInProgress"
    assert pickle.loads(pickle.dumps(olsdk.DeliveryError("down"))).args == ("down",)
