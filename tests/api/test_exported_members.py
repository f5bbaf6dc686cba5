"""The public API: what each public module exports, and that nothing else is public."""

from __future__ import annotations

import pkgutil
import types
from pathlib import Path

import pytest

import olsdk
from tests.support.api_doc import PUBLIC_MODULES, documented, load
from tests.support.processes import run_script


@pytest.mark.parametrize("module_name", PUBLIC_MODULES)
def test_all_names_exist_once(module_name: str) -> None:
    module = load(module_name)
    exported = list(module.__all__)
    assert len(exported) == len(set(exported)), f"{module_name}.__all__ repeats a name"
    missing = [name for name in exported if not hasattr(module, name)]
    assert not missing, f"{module_name}.__all__ names what the module lacks: {missing}"


@pytest.mark.parametrize("module_name", PUBLIC_MODULES)
def test_every_public_olsdk_object_is_exported(module_name: str) -> None:
    """A public-looking name that olsdk defines is in `__all__` (or another public module's)."""
    module = load(module_name)
    elsewhere = {
        id(getattr(other, name))
        for other_name in PUBLIC_MODULES
        if other_name != module_name
        for other in [load(other_name)]
        for name in other.__all__
    }
    leaked = sorted(
        name
        for name, value in vars(module).items()
        if name.isidentifier()
        and not name.startswith("_")
        and name not in module.__all__
        and id(value) not in elsewhere
        and not isinstance(value, types.ModuleType)
        and str(getattr(value, "__module__", "")).startswith("olsdk")
    )
    assert not leaked, f"{module_name} has public names outside __all__: {leaked}"


def test_docs_api_lists_exactly_the_public_api() -> None:
    listed = documented()
    assert list(listed) == list(PUBLIC_MODULES)
    for module_name in PUBLIC_MODULES:
        assert listed[module_name] == list(load(module_name).__all__), (
            f"docs/reference/api/index.md is out of date for {module_name}: run "
            "`python -m tests.support.api_doc > docs/reference/api/index.md`"
        )


def test_every_other_module_is_private() -> None:
    public = set(PUBLIC_MODULES)
    offenders = []
    for info in pkgutil.walk_packages(olsdk.__path__, "olsdk."):
        if info.name in public:
            continue
        parts = info.name.split(".")[1:]
        if not any(part.startswith("_") for part in parts):
            offenders.append(info.name)
    assert not offenders, f"implementation modules must be private (_name): {offenders}"


def test_import_olsdk_loads_the_rest_when_first_asked_for(tmp_path: Path) -> None:
    """`import olsdk` is the exceptions; each other name imports its module on first use."""
    script = """
        import sys
        import olsdk
        loaded = lambda: sorted(m for m in sys.modules if m.startswith("olsdk"))
        print(loaded())
        olsdk.RunEvent
        events, client = "olsdk._readers._events", "olsdk._delivery.client"
        print("olsdk.models" in sys.modules, events in sys.modules, client in sys.modules)
        olsdk.parse_event
        lenient = "olsdk._readers._lenient"
        print(events in sys.modules, lenient in sys.modules, "olsdk._delivery.client" in sys.modules)
        print(olsdk.OpenLineageClient.__module__, olsdk.models.RunEvent is olsdk.RunEvent)
    """
    done = run_script(script, tmp_path)
    assert done.returncode == 0, done.stderr
    first, models, readers, client = done.stdout.splitlines()
    assert first == "['olsdk', 'olsdk._foundation', 'olsdk._foundation._exceptions', 'olsdk._foundation._formats']"
    assert models == "True False False"
    assert readers == "True False False"
    assert client == "olsdk._delivery.client._client True"
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = olsdk.nothing  # type: ignore[attr-defined]
