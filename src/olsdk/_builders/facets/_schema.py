"""One facet class -> its JSON Schema file, in the spec's facet-file format.

    {
      "$schema": "https://json-schema.org/draft/2020-12/schema",
      "$id": "<schema URL without fragment>",
      "$defs": {"<ClassName>": {"allOf": [{"$ref": "<core $id>#/$defs/RunFacet"},
                                          {"type": "object", "properties": ..., "required": ...}],
                                "type": "object"}},
      "type": "object",
      "properties": {"<key>": {"$ref": "#/$defs/<ClassName>"}}
    }

The class's own fields (those its spec base facet does not have) come from pydantic's
JSON Schema, normalised so the file reads like the spec's and survives a trip through
the generator (`python -m codegen generate --extra-facets`) unchanged:

- nested models are inlined (the generator hoists them back into classes), except a
  model that contains itself (a tree of fields, say): it becomes a `$defs` entry of the
  file named `<ClassName><Model>`, as the spec's `SchemaDatasetFacetFields` is;
- `title`s are dropped, and so is `additionalProperties: true` or `{}` (absent means the same);
- an optional field (not required) loses its `null` branch and a `default: null`:
  OpenLineage leaves a missing value out rather than sending `null` (so leave such a
  field unset rather than setting it to `None`; the generator types every optional
  field `X | None` in return);
- a typed facet map (`RunFacets`, ...) becomes the spec's
  `{"type": "object", "additionalProperties": {"$ref": "<core>#/$defs/RunFacet"}}`;
- olsdk's checked strings (`UUIDStr`, `URIStr`, `DateTimeStr`) become the `format`s the
  spec uses (`uuid`, `uri`, `date-time`);
- `required` is sorted.

A custom facet that extends another custom facet is exported flat: every field it has
beyond the spec base, in one self-contained file.
"""

from __future__ import annotations

import inspect
from typing import Any, Final

from pydantic import BaseModel

from olsdk._builders.facets._base import entity_of, key_of
from olsdk._models import SPEC_VERSION, _spec
from olsdk._models._runtime import DATETIME_PATTERN, URI_PATTERN, UUID_PATTERN

SCHEMA_DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"

_FORMAT_OF_PATTERN: Final = {UUID_PATTERN: "uuid", URI_PATTERN: "uri", DATETIME_PATTERN: "date-time"}
# Keywords whose value is a schema, a list of schemas, or a map of name -> schema.
_SCHEMA: Final = frozenset(
    {
        "items",
        "additionalProperties",
        "not",
        "contains",
        "propertyNames",
        "if",
        "then",
        "else",
        "unevaluatedItems",
        "unevaluatedProperties",
    }
)
_SCHEMA_LIST: Final = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_SCHEMA_MAP: Final = frozenset({"properties", "patternProperties", "dependentSchemas"})


def schema_url_of(facet_class: type[BaseModel]) -> str:
    # The class's own URL: one inherited from its base points at the base's schema.
    url = vars(facet_class).get("__olsdk_schema_url__")
    if not isinstance(url, str):
        raise LookupError(
            f"{facet_class.__name__} has no schema URL: define it with schema_base_url= and "
            "version=, or register it with register_facet(..., schema_url=...)"
        )
    return url


def split_schema_url(url: str, class_name: str) -> tuple[str, str]:
    """`(file $id, def name)` of a schema URL `<file>#/$defs/<Name>`."""
    file_id, _, fragment = url.partition("#")
    if not fragment.startswith("/$defs/") or "/" in fragment[len("/$defs/") :]:
        raise ValueError(
            f"{class_name}: schema URL {url!r} does not point into a facet file's $defs (<file URL>#/$defs/<Name>)"
        )
    return file_id, fragment[len("/$defs/") :]


def facet_schema(facet_class: type[BaseModel], *, core_id: str = SPEC_VERSION) -> dict[str, Any]:
    """The JSON Schema file of one facet class, as a dict (see the module docstring)."""
    entity = entity_of(facet_class)
    key = key_of(facet_class)
    file_id, def_name = split_schema_url(schema_url_of(facet_class), facet_class.__name__)
    if def_name != facet_class.__name__:
        raise ValueError(
            f"{facet_class.__name__}: its schema URL names $defs/{def_name}; a published facet "
            "file names the class's own definition"
        )
    base = _spec.entity(entity).base
    raw = facet_class.model_json_schema(by_alias=True, mode="validation")
    defs: dict[str, Any] = raw.get("$defs", {})
    top = raw
    while isinstance(top.get("$ref"), str):  # pydantic refers to a model that others refer to
        top = defs[top["$ref"].removeprefix("#/$defs/")]
    base_names = {info.alias or name for name, info in base.model_fields.items()}
    required = set(top.get("required", [])) - base_names
    own = {name: schema for name, schema in top.get("properties", {}).items() if name not in base_names}
    normaliser = _Normaliser(defs, facet_class.__name__, core_id)
    body: dict[str, Any] = normaliser.clean({"type": "object", "properties": own, "required": sorted(required)}, ())
    definition: dict[str, Any] = {
        "allOf": [{"$ref": f"{core_id}#/$defs/{base.__name__}"}, body],
        "type": "object",
    }
    if isinstance(top.get("description"), str):
        definition["description"] = top["description"]
    return {
        "$schema": SCHEMA_DIALECT,
        "$id": file_id,
        "$defs": {def_name: definition, **normaliser.local_defs},
        "type": "object",
        "properties": {key: {"$ref": f"#/$defs/{def_name}"}},
    }


def _container_base(def_name: str, schema: dict[str, Any]) -> str | None:
    """The base facet whose typed facet map (`RunFacets`...) pydantic's def `def_name` is."""
    for entity in _spec.ENTITIES:
        container = entity.container
        if def_name == container.__name__ and schema.get("description") == inspect.cleandoc(container.__doc__ or ""):
            return entity.base.__name__
    return None


def _refs(node: Any) -> set[str]:
    if isinstance(node, dict):
        found = {node["$ref"].removeprefix("#/$defs/")} if isinstance(node.get("$ref"), str) else set()
        return found.union(*(_refs(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(_refs(v) for v in node))
    return set()


def _cyclic(defs: dict[str, Any]) -> set[str]:
    """The definitions that (directly or not) contain themselves; facet maps end a path."""
    defs = {name: schema for name, schema in defs.items() if _container_base(name, schema) is None}
    edges = {name: _refs(schema) & defs.keys() for name, schema in defs.items()}
    cyclic = set()
    for start in defs:
        seen: set[str] = set()
        todo = list(edges[start])
        while todo:
            name = todo.pop()
            if name == start:
                cyclic.add(start)
                break
            if name not in seen:
                seen.add(name)
                todo.extend(edges[name])
    return cyclic


class _Normaliser:
    """Normalises pydantic's schema of one facet class (see the module docstring).

    Nested models are inlined, except those that contain themselves: they go to the
    file's `$defs`, named after the facet class (`<ClassName><Model>`) so that generated
    class names stay unique across facet files.
    """

    def __init__(self, defs: dict[str, Any], owner: str, core_id: str) -> None:
        self.defs = defs
        self.owner = owner
        self.core_id = core_id
        self.cyclic = _cyclic(defs)
        self.local_defs: dict[str, Any] = {}

    def local_name(self, name: str) -> str:
        return name if name.startswith(self.owner) else self.owner + name

    def clean(self, node: Any, stack: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [self.clean(item, stack) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref.removeprefix("#/$defs/")
            base = _container_base(name, self.defs[name])
            if base is not None:  # a typed facet map: the spec's form, facets of one base
                facet_map = {"type": "object", "additionalProperties": {"$ref": f"{self.core_id}#/$defs/{base}"}}
                return {**facet_map, **self.clean(siblings, stack)}
            if name == self.owner or name in stack:
                raise TypeError(f"{self.owner}: a facet cannot contain itself ({name})")
            if name not in self.cyclic:
                return self.clean({**self.defs[name], **siblings}, (*stack, name))
            local = self.local_name(name)
            if local not in self.local_defs:
                self.local_defs[local] = {}  # placeholder: the definition refers to itself
                self.local_defs[local] = self.clean(self.defs[name], ())
            return {"$ref": f"#/$defs/{local}", **self.clean(siblings, stack)}
        out: dict[str, Any] = {}
        for keyword, value in node.items():
            if keyword == "title" or (keyword == "additionalProperties" and value in (True, {})):
                continue
            if keyword in _SCHEMA:
                out[keyword] = self.clean(value, stack)
            elif keyword in _SCHEMA_LIST:
                out[keyword] = [self.clean(item, stack) for item in value]
            elif keyword in _SCHEMA_MAP:
                out[keyword] = {name: self.clean(sub, stack) for name, sub in value.items()}
            else:
                out[keyword] = value
        return _finish(out)


def _finish(out: dict[str, Any]) -> dict[str, Any]:
    pattern = out.get("pattern")
    if out.get("type") == "string" and pattern in _FORMAT_OF_PATTERN:
        del out["pattern"]
        out["format"] = _FORMAT_OF_PATTERN[pattern]
    if isinstance(out.get("properties"), dict):
        required = set(out.get("required", []))
        out["properties"] = {
            name: sub if name in required else _optional(sub) for name, sub in out["properties"].items()
        }
        if "required" in out:
            if out["required"]:
                out["required"] = sorted(out["required"])
            else:
                del out["required"]
    return out


def _optional(schema: Any) -> Any:
    """An optional property's schema without its `null` branch and `default: null`."""
    if not isinstance(schema, dict):
        return schema
    if "default" in schema and schema["default"] is None:
        schema = {k: v for k, v in schema.items() if k != "default"}
    branches = schema.get("anyOf")
    if isinstance(branches, list) and {"type": "null"} in branches:
        kept = [b for b in branches if b != {"type": "null"}]
        rest = {k: v for k, v in schema.items() if k != "anyOf"}
        if len(kept) == 1 and isinstance(kept[0], dict):
            return {**kept[0], **rest}
        return {**rest, "anyOf": kept}
    return schema
