"""Scratch copies of olsdk's models with one runtime feature changed, for experiments.

Nothing in `src/` or `generated/` is modified: `load(variant)` copies
`src/olsdk/_runtime.py` and `generated/olsdk_generated/{models,_meta}.py` (from the
working tree, or from the git revision in `SOURCE_REV`) into a temporary package,
applies text patches (each must match, else `PatchMismatch`), imports it and binds
the metadata the way `olsdk.models` does. The copy gets its own facet registry stub,
so it cannot disturb the real one.
"""

from __future__ import annotations

import importlib
import re
import shutil
import subprocess
import sys
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
RUNTIME = ROOT / "src" / "olsdk" / "_runtime.py"
GENERATED = ROOT / "generated" / "olsdk_generated"

Patch = tuple[str, str]

_REGISTRY_STUB = """
class _registry:  # scratch copy: no custom facets, no shared state
    @staticmethod
    def lookup(entity, key):
        return None

    @staticmethod
    def register_spec_facet(entity, key, facet_class):
        pass
"""

_TMP = Path(tempfile.mkdtemp(prefix="olsdk-variants-"))

# Read the sources at this git revision instead of the working tree (None: working tree).
SOURCE_REV: str | None = None
#: the revision the variants were written against (the runtime was one module then, and the
#: generated models lived in generated/); the working tree has neither path any more
LAST_SINGLE_FILE_RUNTIME = "15a4881"


class PatchMismatch(RuntimeError):
    """A variant's patch does not apply to this runtime (it has changed since)."""


def _read(path: Path) -> str:
    if SOURCE_REV is None:
        return path.read_text()
    rel = path.relative_to(ROOT).as_posix()
    return subprocess.run(
        ["git", "show", f"{SOURCE_REV}:{rel}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


@dataclass(frozen=True)
class Variant:
    name: str
    description: str
    runtime: tuple[Patch, ...] = ()
    models: tuple[Patch, ...] = ()


# the single-feature variants of the experiments (see bench/experiments.py)
NO_WRAP = Variant(
    "no_wrap",
    "FacetContainer without its wrap model validator (`_route_keys`)",
    runtime=(
        (
            '    @model_validator(mode="wrap")\n    @classmethod\n    def _route_keys',
            "    @classmethod\n    def _route_keys",
        ),
    ),
)
NO_PATTERN = Variant(
    "no_pattern",
    "uuid/uri/date-time as plain `str` (no regex)",
    runtime=(
        (
            "UUIDStr = Annotated[str, StringConstraints(pattern=UUID_PATTERN)]",
            "UUIDStr = str",
        ),
        ("URIStr = Annotated[str, StringConstraints(pattern=URI_PATTERN)]", "URIStr = str"),
        (
            "DateTimeStr = Annotated[str, StringConstraints(pattern=DATETIME_PATTERN)]",
            "DateTimeStr = str",
        ),
    ),
)
EXTRA_IGNORE = Variant(
    "extra_ignore",
    'extra="ignore" instead of "allow" (containers too: spec keys only)',
    runtime=(
        ('        extra="allow",\n        validate_by_alias', '        extra="ignore",\n        validate_by_alias'),
    ),
    models=(('extra="allow"', 'extra="ignore"'),),
)
NO_INIT = Variant(
    "no_init",
    "no `__init__` override in FacetModel/EventModel (callers pass every field)",
    runtime=(
        ("    def __init__(self, /, **data: Any) -> None:", "    def _unused_init(self, /, **data: Any) -> None:"),
        ("    __init__.__pydantic_base_init__", "    _unused_init.__pydantic_base_init__"),
    ),
)
AFTER_VALIDATOR = Variant(
    "after_validator",
    "containers route unknown keys in an `after` model validator instead of `wrap`"
    " (approximation: deletions under spec keys not handled)",
    runtime=(
        (
            '    @model_validator(mode="wrap")\n    @classmethod\n    def _route_keys',
            '    @model_validator(mode="after")\n'
            "    def _route_after(self):\n"
            "        extra = self.__pydantic_extra__\n"
            "        if extra:\n"
            "            for key, value in list(extra.items()):\n"
            "                extra[key] = _kept_facet(type(self).__olsdk_entity__, key, value)\n"
            "        return self\n\n"
            "    @classmethod\n    def _route_keys",
        ),
    ),
)
BASELINE = Variant("baseline", "an unchanged copy (sanity check: same as olsdk)")


def combine(name: str, description: str, *variants: Variant) -> Variant:
    runtime: tuple[Patch, ...] = ()
    models: tuple[Patch, ...] = ()
    for v in variants:
        runtime += v.runtime
        models += v.models
    return Variant(name, description, runtime, models)


def _patch(text: str, patches: tuple[Patch, ...], where: str) -> str:
    for old, new in patches:
        if old not in text:
            raise PatchMismatch(f"variant patch does not match {where}: {old[:60]!r}")
        text = text.replace(old, new)
    return text


_loaded: dict[str, ModuleType] = {}


def load(variant: Variant) -> ModuleType:
    """The variant's models module (has every generated class, `RunEvent` etc.)."""
    cache_key = f"{variant.name}@{SOURCE_REV}"
    if cache_key in _loaded:
        return _loaded[cache_key]
    package = "olsdk_variant_" + re.sub(r"\W", "_", f"{variant.name}_{SOURCE_REV or 'wt'}")
    folder = _TMP / package
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    runtime = _read(RUNTIME)
    runtime = runtime.replace("from olsdk import _registry\n", _REGISTRY_STUB)
    (folder / "_runtime.py").write_text(_patch(runtime, variant.runtime, "_runtime.py"))
    models = _read(GENERATED / "models.py")
    models = models.replace("from olsdk._runtime import", f"from {package}._runtime import")
    (folder / "models.py").write_text(_patch(models, variant.models, "models.py"))
    meta = _read(GENERATED / "_meta.py")
    meta = meta.replace("from olsdk_generated import models", f"from {package} import models")
    meta = meta.replace("from olsdk._runtime import", "from olsdk._models._runtime import")  # moved since
    (folder / "_meta.py").write_text(meta)
    (folder / "__init__.py").write_text("")
    if str(_TMP) not in sys.path:
        sys.path.insert(0, str(_TMP))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message='Field name "schema"', category=UserWarning)
        runtime_module = importlib.import_module(f"{package}._runtime")
        models_module = importlib.import_module(f"{package}.models")
        meta_module = importlib.import_module(f"{package}._meta")
    runtime_module.bind_metadata(
        core_id=meta_module.CORE_ID,
        schema_urls=meta_module.SCHEMA_URLS,
        containers=meta_module.CONTAINERS,
        facet_keys=meta_module.FACET_KEYS,
    )
    _loaded[cache_key] = models_module
    return models_module
