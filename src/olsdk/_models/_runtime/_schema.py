"""Core-schema rewriting: what makes the models' pydantic-core schemas exactly the spec's.

pydantic builds a core schema per class from its annotations; the functions here change
it in place, before pydantic-core compiles it, so that validation accepts what JSON
Schema accepts and no more: strict JSON types (an `integer` takes `3` and `3.0`, never
`"3"` or `true`), no `null` for an optional field, only JSON values where the spec says
nothing, `dependentRequired`, and the `_deleted` field that makes a facet a deletion
marker. Pure functions of a schema: no olsdk class is needed to run them.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, cast

from pydantic import AllowInfNan, BaseModel, Field, GetCoreSchemaHandler, Strict
from pydantic_core import CoreSchema
from pydantic_core import core_schema as cs
from typing_extensions import TypeAliasType

from olsdk._foundation._exceptions import OTHER_FORM


def _whole(value: float) -> int:
    """A whole float's integer: the number written where the reader kept it
    (`olsdk._readers._wire.WholeNumber.exact`: `1E+308` is 10**308), else the double's own."""
    if not math.isfinite(value) or not value.is_integer():
        raise ValueError("not a whole number")
    exact = getattr(value, "exact", None)
    return exact if isinstance(exact, int) else int(value)


# A JSON Schema "integer" is any number without a fraction (`1.0` and `1e2` count), and
# never a string or a boolean; pydantic's lax int would take "3" and 3.0 alike. From JSON
# text only an integer literal passes here: whether `1e2` or `1e-400` is an integer takes
# the digits written, which the reader's slow path has (`olsdk._readers._wire.decode_exact`); a
# Python float is the number it is, so a whole one is its exact integer.
def _integer(schema: dict[str, Any]) -> CoreSchema:
    bounds = {k: schema[k] for k in ("ge", "gt", "le", "lt", "multiple_of") if k in schema}
    exact = cs.int_schema(strict=True, **bounds)
    whole_float = cs.chain_schema(
        [
            cs.is_instance_schema(float),  # not a Decimal: one left by the reader is no integer
            cs.no_info_plain_validator_function(_whole),
            exact,
        ]
    )
    # Its JSON Schema stays what the spec says: an integer (with the same bounds).
    keywords = {"ge": "minimum", "gt": "exclusiveMinimum", "le": "maximum", "lt": "exclusiveMaximum"}
    json_schema = {"type": "integer", **{keywords.get(k, "multipleOf"): v for k, v in bounds.items()}}
    return cs.json_or_python_schema(
        json_schema=exact,
        python_schema=cs.union_schema([exact, whole_float], mode="left_to_right", custom_error_type="int_type"),
        metadata={"pydantic_js_functions": [lambda _schema, _handler: dict(json_schema)]},
    )


# Any JSON value, and only JSON: finite numbers (pydantic-core's JSON parser reads
# `NaN`/`Infinity`, which JSON does not have), strings, booleans, null, arrays and objects
# of them. Where the spec says nothing about a value (free-form objects, extra keys) this
# replaces `Any` (see `_exact`); it is dumped as `Any` is. Objects first: most of it.
JSONValue = TypeAliasType(
    "JSONValue",
    Annotated[
        "dict[Annotated[str, Strict()], JSONValue] | Annotated[str, Strict()] | list[JSONValue] "
        "| Annotated[int, Strict()] | Annotated[float, Strict(), AllowInfNan(False)] "
        "| Annotated[bool, Strict()] | None",
        Field(union_mode="left_to_right"),
    ],
)


def _json_value(handler: GetCoreSchemaHandler) -> CoreSchema:
    schema = dict(handler.generate_schema(JSONValue))
    schema["serialization"] = cs.simple_ser_schema("any")
    return cast("CoreSchema", schema)


def _check_dependent(dependent: dict[str, list[str]], model: BaseModel) -> BaseModel:
    present = {
        (info.alias or name) for name, info in type(model).model_fields.items() if name in model.model_fields_set
    }
    present |= set(model.__pydantic_extra__ or {})
    for key, needed in dependent.items():
        missing = [n for n in needed if n not in present]
        if key in present and missing:
            raise ValueError(f"{missing[0]!r} is required when {key!r} is present (dependentRequired)")
    return model


def _exact(schema: Any, cls: type, json_value: CoreSchema) -> None:
    """Make the fields of `cls`'s model schema accept what JSON Schema accepts, no more.

    pydantic's lax mode converts ("3" -> 3, 1 -> True, "1.5" -> 1.5) and an optional
    field typed `X | None` takes `null`; the spec's types do neither. In place: scalars
    become strict (integers as above, numbers finite), and an optional field's `None`
    stays its default without being accepted as input. Nested models are left to their
    own class (each builds its schema through this hook).
    """
    stack = [schema]
    while stack:
        node = stack.pop()
        kind = node.get("type")
        if kind == "model":
            if node.get("cls") is cls:
                stack.append(node["schema"])
            continue
        if kind == "definitions":
            stack.append(node["schema"])
            stack.extend(d for d in node["definitions"] if d.get("type") == "model" and d.get("cls") is cls)
            continue
        if kind in ("model-fields", "typed-dict", "dataclass-args"):
            fields = node["fields"].values() if isinstance(node["fields"], dict) else node["fields"]
            for field in fields:
                _exact_value(field, "schema", json_value, optional_field=True)
            allows_extra = getattr(cls, "model_config", {}).get("extra") == "allow"
            if kind == "model-fields" and allows_extra and "extras_schema" not in node:
                # A model held as an extra (a registered facet built in Python) stays that
                # object: the JSON-value schema would read it as an iterable of pairs.
                # In JSON Schema it stays "any value", as without this line.
                node["extras_schema"] = cs.union_schema(
                    [cs.is_instance_schema(BaseModel), json_value],
                    metadata={"pydantic_js_functions": [lambda _schema, _handler: {}]},
                )
            continue
        for key in ("schema", "python_schema"):
            if isinstance(node.get(key), dict):
                stack.append(node[key])


def _exact_value(holder: Any, key: Any, json_value: CoreSchema, *, optional_field: bool = False) -> None:
    node = holder[key]
    kind = node.get("type")
    if kind == "default" and optional_field and node.get("default", ...) is None:
        inner = node["schema"]
        if inner.get("type") == "nullable":
            node["schema"] = inner["schema"]
        _exact_value(node, "schema", json_value)
        return
    if kind == "any":
        holder[key] = json_value
    elif kind == "int":
        holder[key] = _integer(node)
    elif kind == "float":
        node["strict"] = True
        node["allow_inf_nan"] = False
    elif kind in ("bool", "str"):
        node["strict"] = True
    elif kind in ("list", "set", "frozenset"):
        if "items_schema" in node:
            _exact_value(node, "items_schema", json_value)
    elif kind == "dict":
        for part in ("keys_schema", "values_schema"):
            if part in node:
                _exact_value(node, part, json_value)
    elif kind == "union":
        for index, choice in enumerate(node["choices"]):
            if isinstance(choice, tuple):
                pair = list(choice)
                _exact_value(pair, 0, json_value)
                node["choices"][index] = (pair[0], pair[1])
            else:
                _exact_value(node["choices"], index, json_value)
    elif kind == "tagged-union":
        for tag in node["choices"]:
            _exact_value(node["choices"], tag, json_value)
    elif kind in ("default", "nullable", "function-after", "function-before", "function-wrap") and "schema" in node:
        _exact_value(node, "schema", json_value)


def _exact_typed_dict(schema: Any, handler: GetCoreSchemaHandler) -> None:
    """`_exact` for a record's typed dict (`olsdk._models._runtime`): strict JSON types, an
    optional field takes no `null` (it is left out instead), extra keys are JSON values."""
    json_value = _json_value(handler)
    stack = [schema]
    while stack:
        node = stack.pop()
        kind = node.get("type")
        if kind == "definitions":
            stack.append(node["schema"])
            stack.extend(node["definitions"])
            continue
        if kind != "typed-dict":
            continue
        for field in node["fields"].values():
            if not field.get("required", True) and field["schema"].get("type") == "nullable":
                field["schema"] = field["schema"]["schema"]
            _exact_value(field, "schema", json_value)
        if node.get("extra_behavior") == "allow":
            # In JSON Schema extra keys stay "any value", as on the models (see `_exact`).
            node["extras_schema"] = cs.union_schema(
                [json_value], metadata={"pydantic_js_functions": [lambda _schema, _handler: {}]}
            )


def _model_node(schema: Any, cls: type) -> Any:
    """The `model` node of `cls` in its own schema (at the top or among the definitions)."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if node.get("type") == "model" and node.get("cls") is cls:
            return node
        if node.get("type") == "definitions":
            stack.append(node["schema"])
            stack.extend(node["definitions"])
        elif isinstance(node.get("schema"), dict):
            stack.append(node["schema"])
    raise TypeError(f"no model schema for {cls.__name__}")  # pragma: no cover - pydantic always makes one


_MARKER_RULE = "a facet sent with `_deleted: true` is a deletion marker (olsdk.models.DeletedFacet)"


def _not_a_marker() -> CoreSchema:
    """`_deleted` of a facet: absent or false. A facet sent with `"_deleted": true` is a
    deletion marker, which facet maps hold as a `DeletedFacet` (the alternative tried
    after the facet class: most facets are not markers and pass on the first try)."""
    false = cs.custom_error_schema(
        cs.literal_schema([False]),
        OTHER_FORM,
        custom_error_message=_MARKER_RULE,
    )
    return cs.chain_schema(
        [cs.bool_schema(strict=True), false],
        # Its JSON Schema stays the spec's: a boolean.
        metadata={"pydantic_js_functions": [lambda _schema, _handler: {"type": "boolean"}]},
    )


def _anything_but_true(json_value: CoreSchema) -> CoreSchema:
    """Any JSON value except `true` (which makes a facet a deletion marker)."""
    return cs.custom_error_schema(
        cs.union_schema(
            [
                cs.literal_schema([False]),
                cs.str_schema(strict=True),
                cs.int_schema(strict=True),
                cs.float_schema(strict=True, allow_inf_nan=False),
                cs.none_schema(),
                cs.list_schema(json_value),
                cs.dict_schema(cs.str_schema(strict=True), json_value),
            ],
            mode="left_to_right",
        ),
        OTHER_FORM,
        custom_error_message=_MARKER_RULE,
    )


def _refuse_markers(schema: Any, cls: type[BaseModel]) -> None:
    field = _model_node(schema, cls)["schema"]["fields"]["deleted"]
    holder = field["schema"]  # `default` (None) around the boolean
    if holder.get("type") == "default":
        holder["schema"] = _not_a_marker()
