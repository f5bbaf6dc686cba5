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

- nested models are inlined (the generator hoists them back into classes); a model that
  contains itself cannot be inlined and is refused;
- `title`s are dropped, and so is `additionalProperties: true` (absent means the same);
- an optional field (not required) loses its `null` branch and a `default: null`:
  OpenLineage leaves a missing value out rather than sending `null` (so leave such a
  field unset rather than setting it to `None`; the generator types every optional
  field `X | None` in return);
- olsdk's checked strings (`UUIDStr`, `URIStr`, `DateTimeStr`) become the `format`s the
  spec uses (`uuid`, `uri`, `date-time`);
- `required` is sorted.

A custom facet that extends another custom facet is exported flat: every field it has
beyond the spec base, in one self-contained file.
"""

from __future__ import annotations

from typing import Any, Final

from pydantic import BaseModel

from olsdk._runtime import DATETIME_PATTERN, URI_PATTERN, UUID_PATTERN
from olsdk.facets._base import ENTITY_BASES, entity_of, key_of
from olsdk.models import SPEC_VERSION

SCHEMA_DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"

_FORMAT_OF_PATTERN: Final = {UUID_PATTERN: "uuid", URI_PATTERN: "uri", DATETIME_PATTERN: "date-time"}
# Keywords whose value is a schema, a list of schemas, or a map of name -> schema.
_SCHEMA: Final = frozenset(
    {"items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else",
     "unevaluatedItems", "unevaluatedProperties"}
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
            f"{class_name}: schema URL {url!r} does not point into a facet file's $defs "
            "(<file URL>#/$defs/<Name>)"
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
    base = ENTITY_BASES[entity]
    raw = facet_class.model_json_schema(by_alias=True, mode="validation")
    defs: dict[str, Any] = raw.get("$defs", {})
    base_names = {info.alias or name for name, info in base.model_fields.items()}
    required = set(raw.get("required", [])) - base_names
    own = {name: schema for name, schema in raw.get("properties", {}).items() if name not in base_names}
    body: dict[str, Any] = _clean(
        {"type": "object", "properties": own, "required": sorted(required)}, defs, ()
    )
    definition: dict[str, Any] = {
        "allOf": [{"$ref": f"{core_id}#/$defs/{base.__name__}"}, body],
        "type": "object",
    }
    if isinstance(raw.get("description"), str):
        definition["description"] = raw["description"]
    return {
        "$schema": SCHEMA_DIALECT,
        "$id": file_id,
        "$defs": {def_name: definition},
        "type": "object",
        "properties": {key: {"$ref": f"#/$defs/{def_name}"}},
    }


def _clean(node: Any, defs: dict[str, Any], stack: tuple[str, ...]) -> Any:
    """Normalise one schema node (see the module docstring)."""
    if isinstance(node, list):
        return [_clean(item, defs, stack) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        name = ref[len("#/$defs/") :]
        if name in stack:
            raise TypeError(
                f"{name} contains itself ({' -> '.join((*stack, name))}): a recursive model "
                "cannot be exported inline in a facet schema"
            )
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        return _clean({**defs[name], **siblings}, defs, (*stack, name))
    out: dict[str, Any] = {}
    for keyword, value in node.items():
        if keyword == "title" or (keyword == "additionalProperties" and value is True):
            continue
        if keyword in _SCHEMA:
            out[keyword] = _clean(value, defs, stack)
        elif keyword in _SCHEMA_LIST:
            out[keyword] = [_clean(item, defs, stack) for item in value]
        elif keyword in _SCHEMA_MAP:
            out[keyword] = {name: _clean(sub, defs, stack) for name, sub in value.items()}
        else:
            out[keyword] = value
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
