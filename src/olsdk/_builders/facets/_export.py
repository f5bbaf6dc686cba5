"""Publish custom facets: one JSON Schema file per facet plus a producer registry file.

`export_schemas(source, out_dir)` writes, like a producer folder of the spec's registry
(`spec/registry/<producer>/`):

    out_dir/registry.json                 {"producer": {"produced_facets": [...], "root_doc_URL": ...}}
    out_dir/facets/<ClassName>.json       one facet file each (see `_schema`)

The output is deterministic (keys sorted, two-space indent, one trailing newline), so it
can be committed and diffed; files already in `out_dir` that it does not write are left
alone. The folder is also valid input for `python -m codegen generate --extra-facets`.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from pydantic import BaseModel

from olsdk._builders.facets._base import is_custom, key_of
from olsdk._builders.facets._schema import facet_schema, schema_url_of, split_schema_url
from olsdk._models import BaseFacet, _spec

FacetSource = ModuleType | str | Iterable[type[BaseModel]]
"""A module (or its dotted name) whose facet classes to export, or the classes themselves."""


def dumps(document: Any) -> str:
    """The stable text of a JSON document: sorted keys, two-space indent, final newline."""
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def facet_classes(source: FacetSource) -> list[type[BaseModel]]:
    """The facet classes to export, sorted by class name.

    From a module: the concrete custom facets defined in it (not merely imported), and any
    other facet class defined in it that is registered under a key.
    """
    if isinstance(source, str):
        source = importlib.import_module(source)
    if isinstance(source, ModuleType):
        found: list[type[BaseModel]] = []
        for value in vars(source).values():
            if (
                isinstance(value, type)
                and issubclass(value, BaseFacet)
                and value.__module__ == source.__name__
                and all(value is not e.base for e in _spec.ENTITIES)
                and _exportable(value)
            ):
                found.append(value)
        if not found:
            raise ValueError(f"module {source.__name__} defines no custom facet classes to export")
        classes = found
    else:
        classes = list(source)
        for cls in classes:
            if not (isinstance(cls, type) and issubclass(cls, BaseFacet)):
                raise TypeError(f"export: {cls!r} is not a facet class")
    names: dict[str, type[BaseModel]] = {}
    for cls in classes:
        other = names.setdefault(cls.__name__, cls)
        if other is not cls:
            raise ValueError(
                f"export: two facet classes are named {cls.__name__} ({other.__module__} and "
                f"{cls.__module__}); their schema files would collide"
            )
    return sorted(set(classes), key=lambda c: c.__name__)


def _exportable(cls: type[BaseModel]) -> bool:
    if is_custom(cls):
        return True
    if getattr(cls, "__olsdk_abstract__", False):
        return False
    try:
        key_of(cls)
        schema_url_of(cls)
    except (LookupError, TypeError):
        return False
    return True


def _prefix(cls: type[BaseModel]) -> str | None:
    prefix = getattr(cls, "__olsdk_prefix__", None) if is_custom(cls) else None
    if isinstance(prefix, str):
        return prefix
    key = key_of(cls)
    return key.split("_", 1)[0] if "_" in key else None


def _base_url(cls: type[BaseModel]) -> str:
    file_id, _ = split_schema_url(schema_url_of(cls), cls.__name__)
    return file_id.rsplit("/", 2)[0]  # <base>/<version>/<File>.json -> <base>


def _one(values: set[str | None], what: str, option: str) -> str:
    if len(values) == 1 and None not in values:
        return str(next(iter(values)))
    shown = ", ".join(sorted(str(v) for v in values))
    raise ValueError(f"export: the facets do not share one {what} ({shown}); pass {option}")


#: how errors name the options (the command line passes its own spelling)
_API_OPTIONS = {"name": "name=...", "root_doc_url": "root_doc_url=..."}


def registry_document(
    classes: Iterable[type[BaseModel]],
    *,
    name: str | None = None,
    root_doc_url: str | None = None,
    _options: Mapping[str, str] = _API_OPTIONS,
) -> dict[str, Any]:
    """The producer `registry.json` for facet classes, in the format of the spec's registry.

    `name` is the producer's path in the registry (`gcp:dataproc`); it defaults to the
    facets' common prefix. `root_doc_url` is the producer's documentation; it defaults to
    the facets' common schema base URL.
    """
    classes = list(classes)
    if name is None:
        name = _one({_prefix(c) for c in classes}, "prefix", _options["name"])
    if root_doc_url is None:
        root_doc_url = _one({_base_url(c) for c in classes}, "schema base URL", _options["root_doc_url"])
    return {
        "producer": {
            "root_doc_URL": root_doc_url,
            "produced_facets": sorted(f"ol:{name}:{c.__name__}.json" for c in classes),
        }
    }


def export_schemas(
    source: FacetSource,
    out_dir: str | Path,
    *,
    name: str | None = None,
    root_doc_url: str | None = None,
    _options: Mapping[str, str] = _API_OPTIONS,
) -> list[Path]:
    """Write the schema file of every facet in `source`, and `registry.json`, to `out_dir`.

    Returns the paths written, sorted. See `registry_document` for `name` and
    `root_doc_url`. Facets of several prefixes without a `name` are exported per
    prefix: `out_dir/<prefix>/facets/<ClassName>.json` and `out_dir/<prefix>/registry.json`
    (one producer each, as in the spec's registry); facets of one prefix, or given a
    `name`, go to `out_dir/facets/` and `out_dir/registry.json`.
    """
    classes = facet_classes(source)
    groups: dict[Path, list[type[BaseModel]]] = {}
    prefixes = {_prefix(c) for c in classes}
    if name is None and len(prefixes) > 1 and None not in prefixes:
        for cls in classes:
            groups.setdefault(Path(str(_prefix(cls))), []).append(cls)
    else:
        groups[Path()] = classes
    documents: dict[Path, Any] = {}
    for folder, members in groups.items():
        documents.update({folder / "facets" / f"{c.__name__}.json": facet_schema(c) for c in members})
        documents[folder / "registry.json"] = registry_document(
            members, name=name, root_doc_url=root_doc_url, _options=_options
        )
    out = Path(out_dir)
    written = []
    for relative, document in sorted(documents.items()):
        path = out / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dumps(document), encoding="utf-8", newline="\n")
        written.append(path)
    return written
