"""Events written against another version of the spec than the models were generated from.

`parse_event` accepts such events whenever they are compatible: every generated class
keeps fields it does not know (unless the spec closes the class), and facet maps keep
keys they do not know. What it does not do is say so. `check_event` does: it walks the
event JSON alongside the models and returns one note per difference it can see, e.g.

- `schemaURL names OpenLineage 2-0-1, models are 2-0-2`
- `run.facets.parent: _schemaURL names ParentRunFacet 1-1-0, models are 1-2-0`
- `inputs[0].facets.schema.fields[0].foo: not a field of SchemaDatasetFacetFields in
  SchemaDatasetFacet 1-2-0 (kept as extra data)`
- `inputs[0].facets.catalog: not a dataset facet of these models (OpenLineage 2-0-2,
  snapshot 1.30.0); its _schemaURL names CatalogDatasetFacet 1-1-0 (kept as plain data)`
- `run.facets.spark_version: custom run facet, not in OpenLineage 2-0-2 and no class
  registered for it (kept as plain data)`

`parse_event_checked` parses and checks in one call; when parsing fails, the notes are
attached to the raised error (`add_note`), so a failure caused by a version mismatch
says so. Neither changes what `parse_event` accepts.
"""

from __future__ import annotations

import json
import re
import types
import typing
from collections.abc import Mapping
from typing import Any, Union

from pydantic import BaseModel, RootModel

from olsdk import _models as models
from olsdk._foundation import _registry
from olsdk._models._runtime import FacetContainer, FacetModel, OLRecord
from olsdk._readers._events import Event, parse_event

__all__ = ["check_event", "parse_event_checked", "spec_versions"]

_CORE_RE = re.compile(r"/(\d+-\d+-\d+)/OpenLineage\.json")
_FACET_RE = re.compile(r"/(\d+-\d+-\d+)/([^/#]+)\.json(?:#/\$defs/(\w+))?")


def _core_version(url: str) -> str | None:
    match = _CORE_RE.search(url)
    return match[1] if match else None


def _facet_ref(url: str) -> tuple[str, str, str] | None:
    """(version, file stem, def name) of a facet `_schemaURL`, or None."""
    match = _FACET_RE.search(url)
    if match is None:
        return None
    return match[1], match[2], match[3] or match[2]


def spec_versions() -> dict[str, str]:
    """The spec the models were generated from: core version, core `$id`, snapshot name."""
    return {
        "core_version": _core_version(models.SPEC_VERSION) or models.SPEC_VERSION,
        "core_id": models.SPEC_VERSION,
        "release": models.SPEC_RELEASE,
    }


def _unwrap(annotation: Any) -> list[Any]:
    """The member types of an annotation: Annotated and unions flattened, None dropped."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _unwrap(typing.get_args(annotation)[0])
    if origin is Union or origin is types.UnionType:
        return [m for arg in typing.get_args(annotation) for m in _unwrap(arg)]
    if annotation is type(None):
        return []
    return [annotation]


def _model_members(annotation: Any) -> list[type[BaseModel]]:
    out: list[type[BaseModel]] = []
    for member in _unwrap(annotation):
        if isinstance(member, type) and issubclass(member, RootModel):
            out += _model_members(member.model_fields["root"].annotation)
        elif isinstance(member, type) and issubclass(member, BaseModel | OLRecord):  # (records: `model_fields` too)
            out.append(typing.cast(type[BaseModel], member))
    return out


def _known_keys(cls: type[BaseModel]) -> set[str]:
    keys: set[str] = set()
    for name, info in cls.model_fields.items():
        keys.add(name)
        if info.alias:
            keys.add(info.alias)
    return keys


def _field_for(cls: type[BaseModel], key: str) -> Any:
    for name, info in cls.model_fields.items():
        if key in (name, info.alias):
            return info.annotation
    return None


class _Checker:
    def __init__(self) -> None:
        info = spec_versions()
        self.core = f"OpenLineage {info['core_version']}"
        self.snapshot = info["release"]
        self.notes: list[str] = []

    def note(self, text: str) -> None:
        self.notes.append(text)

    # -- values --------------------------------------------------------------------

    def value(self, value: Any, annotation: Any, path: str, where: str) -> None:
        if isinstance(value, list):
            for member in _unwrap(annotation):
                if typing.get_origin(member) is list:
                    (item,) = typing.get_args(member) or (Any,)
                    for i, element in enumerate(value):
                        self.value(element, item, f"{path}[{i}]", where)
                    return
            return
        if not isinstance(value, Mapping):
            return
        candidates = _model_members(annotation)
        if candidates:
            # A union of classes (oneOf): check against the closest member.
            best = min(candidates, key=lambda c: len(set(value) - _known_keys(c)))
            self.model(value, best, path, where)
            return
        for member in _unwrap(annotation):
            if typing.get_origin(member) is dict:
                args = typing.get_args(member)
                item = args[1] if len(args) == 2 else Any
                for key, element in value.items():
                    self.value(element, item, f"{path}.{key}", where)
                return

    def model(self, data: Mapping[str, Any], cls: type[BaseModel], path: str, where: str) -> None:
        if issubclass(cls, FacetContainer):
            self.container(data, cls, path)
            return
        if issubclass(cls, FacetModel) and path:
            where = self.facet_version(data, cls, path, where)
        known = _known_keys(cls)
        closed = cls.model_config.get("extra") == "forbid"
        for key, value in data.items():
            sub = f"{path}.{key}" if path else key
            if key not in known:
                fate = "rejected: this class allows no extra fields" if closed else "kept as extra data"
                self.note(f"{sub}: not a field of {cls.__name__} in {where} ({fate})")
                continue
            self.value(value, _field_for(cls, key), sub, where)

    # -- facets --------------------------------------------------------------------

    def facet_version(self, data: Mapping[str, Any], cls: type[BaseModel], path: str, where: str) -> str:
        """Note a facet whose `_schemaURL` names another version; return its label."""
        mine_url = getattr(cls, "__olsdk_schema_url__", None)
        mine = _facet_ref(mine_url) if isinstance(mine_url, str) else None
        if mine is None:
            return where
        label = f"{mine[2]} {mine[0]}"
        theirs_url = data.get("_schemaURL", data.get("schemaURL"))
        theirs = _facet_ref(theirs_url) if isinstance(theirs_url, str) else None
        if theirs is None:
            return label
        if (theirs[1], theirs[2]) != (mine[1], mine[2]):
            self.note(
                f"{path}: _schemaURL names {theirs[2]} {theirs[0]}, but the models read this key as {mine[2]} {mine[0]}"
            )
        elif theirs[0] != mine[0]:
            self.note(f"{path}: _schemaURL names {theirs[2]} {theirs[0]}, models are {mine[0]}")
        return label

    def container(self, data: Mapping[str, Any], cls: type[FacetContainer], path: str) -> None:
        entity = cls.__olsdk_entity__
        known = _known_keys(cls)
        for key, value in data.items():
            sub = f"{path}.{key}"
            if isinstance(value, Mapping) and value.get("_deleted") is True:
                continue
            if key in known:
                self.value(value, _field_for(cls, key), sub, self.core)
                continue
            custom = _registry.DEFAULT.lookup(entity, key)
            if custom is not None:
                if isinstance(value, Mapping):
                    self.model(value, custom, sub, f"custom facet {custom.__name__}")
                continue
            url = value.get("_schemaURL") if isinstance(value, Mapping) else None
            ref = _facet_ref(url) if isinstance(url, str) else None
            if ref is not None and "openlineage.io/spec/" in str(url):
                self.note(
                    f"{sub}: not a {entity} facet of these models ({self.core}, snapshot "
                    f"{self.snapshot}); its _schemaURL names {ref[2]} {ref[0]} (kept as plain data)"
                )
            else:
                self.note(
                    f"{sub}: custom {entity} facet, not in {self.core} and no class registered "
                    f"for it (kept as plain data)"
                )

    # -- events --------------------------------------------------------------------

    def event(self, data: Mapping[str, Any]) -> None:
        cls: type[BaseModel]
        if "run" in data:
            cls = models.RunEvent
        elif "dataset" in data:
            cls = models.DatasetEvent
        elif "job" in data:
            cls = models.JobEvent
        else:
            return  # not an event: parse_event says why
        url = data.get("schemaURL")
        if isinstance(url, str):
            theirs = _core_version(url)
            mine = spec_versions()["core_version"]
            if theirs is None:
                self.note(f"schemaURL {url!r} names no OpenLineage spec version; models are {mine}")
            elif theirs != mine:
                self.note(f"schemaURL names OpenLineage {theirs}, models are {mine}")
        self.model(data, cls, "", self.core)


def _decode(data: str | bytes | bytearray | Mapping[str, Any]) -> Any:
    if isinstance(data, str | bytes | bytearray):
        return json.loads(data)
    return data


def check_event(data: str | bytes | bytearray | Mapping[str, Any]) -> list[str]:
    """Notes on what in an event this version of the models does not know (or reads
    as another version): `[]` when the event matches the models' spec version."""
    decoded = _decode(data)
    if not isinstance(decoded, Mapping):
        return []
    checker = _Checker()
    checker.event(decoded)
    return checker.notes


def parse_event_checked(data: str | bytes | bytearray | Mapping[str, Any]) -> tuple[Event, list[str]]:
    """`parse_event` plus `check_event`; a parse error carries the notes (`add_note`)."""
    try:
        decoded = _decode(data)
    except ValueError:
        return parse_event(data), []  # parse_event raises its own error for invalid JSON
    notes = check_event(decoded) if isinstance(decoded, Mapping) else []
    try:
        event = parse_event(decoded if isinstance(decoded, Mapping) else data)
    except ValueError as exc:
        for text in notes:
            exc.add_note(f"spec version: {text}")
        raise
    return event, notes
