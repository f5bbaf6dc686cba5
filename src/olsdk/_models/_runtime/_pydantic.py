"""What olsdk relies on in pydantic beyond its public API, in one place.

Two kinds of things, each use with the reason no public API serves:

- private attributes of models and model classes (`__pydantic_validator__`,
  `__pydantic_fields_set__`, ...): the hot paths of parsing and building events, and the
  tolerant reader's repairs of a validated event; and of fields (`FieldInfo._attributes_set`),
  where the generated fields get their descriptions once their classes are made;
- core schemas as pydantic generates them: pydantic builds a core schema per class from
  its annotations; the functions here change it in place, before pydantic-core compiles it,
  so that validation accepts what JSON Schema accepts and no more: strict JSON types (an
  `integer` takes `3` and `3.0`, never `"3"` or `true`), no `null` for an optional field,
  only JSON values where the spec says nothing, `dependentRequired`, the `_deleted` field
  that makes a facet a deletion marker, and the facet maps held as one typed dict.
  The node types read here (`model`, `model-fields`, `default`, `nullable`, ...) are
  pydantic-core's (`pydantic_core.core_schema`); which of them pydantic generates for an
  annotation is pydantic's choice, and the first thing a new pydantic release may change.

Nothing else in olsdk names a `__pydantic_*__` attribute (tests/models/test_pydantic_internals.py
checks it); `make test-pydantic-latest` runs the tests that cover this module on the newest
pydantic release.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from contextvars import ContextVar
from typing import Annotated, Any, TypeVar, cast

from pydantic import AllowInfNan, BaseModel, Field, GetCoreSchemaHandler, Strict
from pydantic import ValidationError as PydanticValidationError
from pydantic.fields import FieldInfo
from pydantic_core import CoreSchema, SchemaSerializer
from pydantic_core import core_schema as cs
from typing_extensions import TypeAliasType

from olsdk._foundation._exceptions import OTHER_FORM, ValidationError

_F = TypeVar("_F", bound=Callable[..., Any])

# ---------------------------------------------------------------- private attributes


class ModelBase(BaseModel):
    """`BaseModel` calling `__olsdk_class_made__` once pydantic has made a subclass.

    pydantic's hook for that is `__pydantic_init_subclass__` (public and documented, but
    spelled like its private attributes: it is kept here so that the rest of olsdk names
    none of them). `__init_subclass__` runs too early: the fields are not collected yet.
    """

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls.__olsdk_class_made__(**kwargs)

    @classmethod
    def __olsdk_class_made__(cls, **kwargs: Any) -> None:
        """Called once the class and its fields exist (before it is built)."""


def python_callers_only(init: _F) -> _F:
    """Mark a model's `__init__` as pydantic marks `BaseModel.__init__`.

    Without the flag pydantic also calls an overridden `__init__` while validating parsed
    JSON, a Python call per object; olsdk's `__init__`s serve Python callers only (they
    fill in defaults that parsing must not). pydantic has no public switch for it.
    """
    init.__pydantic_base_init__ = True  # type: ignore[attr-defined]
    return init


def validator_of(cls: type[BaseModel]) -> Any:
    """The class's pydantic-core validator, once the class is built.

    `model_validate_json` is a Python frame and a keyword dict per call around it; the
    readers' fast path (a RunEvent straight from its JSON) calls it directly.
    """
    return cls.__pydantic_validator__


def construct(model: BaseModel, data: dict[str, Any]) -> None:
    """Validate `data` (keyword arguments) into `model`, a model built in Python.

    Python callers may use attribute names (`producer`) as well as JSON names
    (`_producer`), and `field=None` means "not sent": the spec has no nullable fields,
    so parsing refuses `null` (see `_exact`), while a Python caller may pass `None` for
    any optional field and gets it left out, as if not given. Problems are reported the
    way parsing reports them: `olsdk.ValidationError` with `<JSON path>: <rule>` lines.

    It validates into the instance as `BaseModel.__init__` does (`self_instance`), which
    no public API offers: the models' `__init__` call this directly, one Python frame
    per object (the cost that dominates building an event in Python), and take attribute
    and JSON names at once (`by_name=True`) without a configuration that would reach
    parsing too.
    """
    for value in data.values():
        # (`None in data.values()` would call each model value's `__eq__`.)
        if value is None:
            data = {key: value for key, value in data.items() if value is not None}
            break
    cls = type(model)
    try:
        # A class not built yet when first built in Python: its light validator (see
        # `light_validator`), until the first input it leaves to the full one.
        light = _FIRST.get(cls, _LIGHT_UNKNOWN)
        if light is _LIGHT_UNKNOWN:
            light = _FIRST[cls] = None if cls.__dict__.get("__pydantic_complete__") else light_validator(cls)
        if light is not None:
            try:
                light.validate_python(data, self_instance=model, by_name=True)
                return
            except NeedsFullSchema:
                _FIRST[cls] = None
        model.__pydantic_validator__.validate_python(data, self_instance=model, by_name=True)
    except PydanticValidationError as exc:
        raise ValidationError.from_pydantic(exc, title=f"invalid {cls.__name__}", model=cls) from None


def dump_json(model: BaseModel) -> bytes:
    """Compact JSON of a model, straight from its serializer.

    Defaults are left out rather than unset fields (the cheaper check, and the same
    output): every default of a generated field is None, which stands for "not sent",
    and the one other default a marker needs is filled on construction instead.
    (warnings=False: a leniently read event may keep a list item of the wrong type as sent.)
    The bytes pydantic-core writes, from its serializer: `model_dump_json` decodes them
    to `str` (which transports would encode again), through one more Python frame.
    """
    data: bytes = model.__pydantic_serializer__.to_json(model, exclude_defaults=True, warnings=False)
    return data


def dump_data(model: BaseModel) -> Any:
    """A model as JSON data (dicts, lists, text, numbers), as `dump_json` would write it: for a
    caller that changes the event as data before its one serialisation. From the serializer for
    the same reasons as `dump_json` (`model_dump` adds one more Python frame per call)."""
    return model.__pydantic_serializer__.to_python(model, mode="json", exclude_defaults=True, warnings=False)


def own_core_schema(cls: type[BaseModel]) -> CoreSchema | None:
    """The core schema a built class keeps (what pydantic's own schema hook returns for a
    class already built); no public API gives it."""
    existing = cls.__dict__.get("__pydantic_core_schema__")
    return cast("CoreSchema", existing) if isinstance(existing, dict) else None


def schema_made(cls: type[BaseModel], handler: GetCoreSchemaHandler) -> CoreSchema | None:
    """The schema of `cls` already made for what `handler` makes: its own once built, else,
    for a light schema, its light one if it has one (see `light_validator`)."""
    existing = own_core_schema(cls)
    if existing is None and building_light(handler):
        existing = _LIGHT_SCHEMAS.get(cls)
    return existing


def describe_field(info: FieldInfo, description: str | None, examples: list[object] | None) -> None:
    """Give a made class's field its description and examples, as ``Field(description=...,
    examples=...)`` in its annotation would have (the generated classes leave them out of
    their annotations: that halves what making a class costs). pydantic does the same for
    `use_attribute_docstrings`; `_attributes_set` is what it copies when a field is
    redeclared or merged, so the two stay alike."""
    for name, value in (("description", description), ("examples", examples)):
        if value is not None:
            setattr(info, name, value)
            info._attributes_set[name] = value


def fields_resolved(cls: type[BaseModel]) -> bool:
    """Whether every field annotation of `cls` is resolved; pydantic says so only through
    this flag (`model_fields` holds the unresolved ones too)."""
    return bool(cls.__pydantic_fields_complete__)


def without_extra_and_private(cls: type[BaseModel]) -> None:
    """Instances of `cls` are made by pydantic-core as root models (their one value in
    `__dict__`), which leaves the extra keys and private values unset; pydantic's methods
    read both. No public API says "this model has none"."""
    cls.__pydantic_extra__ = None
    cls.__pydantic_private__ = None


def restore(model: BaseModel, values: dict[str, Any], fields_set: set[str]) -> None:
    """Give an instance made with `__new__` (a copy, an unpickled map) its values and the
    set of fields sent, as unpickling does (`model_construct` would validate the class's
    fields, fill defaults and rebuild the dict; a facet map holds one dict)."""
    object.__setattr__(model, "__dict__", values)
    object.__setattr__(model, "__pydantic_fields_set__", fields_set)


def unset_field(model: BaseModel, name: str) -> None:
    """Take field `name` out of a validated model, as if it had not been sent (the
    tolerant reader's repairs): no public API unsets a field of an instance, and
    `model_construct(_fields_set=...)` would rebuild every model on the way to it."""
    model.__dict__.pop(name, None)
    model.__pydantic_fields_set__.discard(name)


def hold_extra(model: BaseModel, key: str, value: Any) -> bool:
    """Keep `value` under JSON `key` among the model's extra keys (False when it keeps
    none). `setattr` would take a key starting with `_` for a private attribute."""
    extra = model.__pydantic_extra__
    if extra is None:
        return False
    extra[key] = value
    return True


# ---------------------------------------------------------------- core schemas


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
    present |= set(model.model_extra or {})
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


# Scalar node types made strict in place; node types whose inner schemas are checked in
# turn (a list's items, a dict's keys and values, what a default or validator wraps).
_STRICT: dict[str, dict[str, bool]] = {
    "float": {"strict": True, "allow_inf_nan": False},
    "bool": {"strict": True},
    "str": {"strict": True},
}
_INNER: dict[str, tuple[str, ...]] = {
    "list": ("items_schema",),
    "set": ("items_schema",),
    "frozenset": ("items_schema",),
    "dict": ("keys_schema", "values_schema"),
    **{kind: ("schema",) for kind in ("default", "nullable", "function-after", "function-before", "function-wrap")},
}


def _exact_value(holder: Any, key: Any, json_value: CoreSchema, *, optional_field: bool = False) -> None:
    node = holder[key]
    kind = node.get("type")
    optional = kind == "default" and optional_field and node.get("default", ...) is None
    if optional and node["schema"].get("type") == "nullable":
        # An optional field: `None` stays its default ("not sent") but is no input.
        node["schema"] = node["schema"]["schema"]
    if kind == "any":
        holder[key] = json_value
    elif kind == "int":
        holder[key] = _integer(node)
    elif kind in ("union", "tagged-union"):
        _exact_choices(node, json_value)
    else:
        node.update(_STRICT.get(kind, {}))
        for part in _INNER.get(kind, ()):
            if part in node:
                _exact_value(node, part, json_value)


def _exact_choices(node: Any, json_value: CoreSchema) -> None:
    choices = node["choices"]
    if node["type"] == "tagged-union":
        for tag in choices:
            _exact_value(choices, tag, json_value)
        return
    for index, choice in enumerate(choices):
        if isinstance(choice, tuple):  # (schema, tag)
            pair = list(choice)
            _exact_value(pair, 0, json_value)
            choices[index] = (pair[0], pair[1])
        else:
            _exact_value(choices, index, json_value)


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


# ---------------------------------------------------------------- facet maps and records


def field_schemas(schema: Any, cls: type) -> dict[str, Any]:
    """Field name -> the field's node (`model-field`) in `cls`'s own schema."""
    inner = _model_node(schema, cls)["schema"]
    return dict(inner.get("fields", {})) if inner.get("type") == "model-fields" else {}


def without_default(field: Any) -> Any:
    """A field's value schema without the `default` node (None) pydantic puts around it."""
    schema = field["schema"]
    return schema["schema"] if schema.get("type") == "default" else schema


def hold_as_root_dict(schema: Any, cls: type, typed_dict: CoreSchema, *, post_init: str) -> None:
    """Make `cls`'s model node hold `typed_dict` as its root (in `__dict__["root"]`), with
    `post_init` the name of the class attribute pydantic-core calls on each instance."""
    node = _model_node(schema, cls)
    node["post_init"] = post_init
    node["schema"] = typed_dict
    node["root_model"] = True


def held_reference(schema: Any) -> tuple[str, str] | None:
    """(shape, reference) when a field's schema holds a referenced schema as one value, a
    list of them (`list`) or a map of them (`map`), optional or not."""
    node = schema
    while node.get("type") in ("default", "nullable"):
        node = node["schema"]
    shape = "one"
    if node.get("type") == "list":
        shape, node = "list", node["items_schema"]
    elif node.get("type") == "dict" and "values_schema" in node:
        shape, node = "map", node["values_schema"]
    ref = node.get("schema_ref") if node.get("type") == "definition-ref" else node.get("ref")
    return (shape, ref) if isinstance(ref, str) else None


def typed_dict_of(handler: GetCoreSchemaHandler, typed_dict: type) -> dict[str, Any]:
    """The `typed-dict` schema pydantic makes for a TypedDict, taken out of its
    definitions (a reference would cost a lookup per value) and without its own `ref`."""
    fields = dict(handler.resolve_ref_schema(handler.generate_schema(typed_dict)))
    fields.pop("ref", None)
    return fields


def with_nullable_optionals(typed_dict: Any) -> tuple[dict[str, Any], frozenset[str]]:
    """`typed_dict` whose optional keys also take None, and those keys."""
    fields = typed_dict["fields"]
    optional = frozenset(key for key, field in fields.items() if not field.get("required", True))
    nullable = {
        key: dict(field, schema=cs.nullable_schema(field["schema"])) if key in optional else field
        for key, field in fields.items()
    }
    return dict(typed_dict, fields=nullable), optional


# ---------------------------------------------------------------- light validators
#
# A facet map's schema holds every facet class the spec defines for its keys: validating
# a class that holds a map (`Run`, `RunEvent`) first makes the core schema of each of them
# (~100 classes for an event), although an event built in Python usually holds a few
# facets, or none. Until such a class is built, building an instance in Python uses its
# light validator instead: the same schema, except that each typed key of a map takes only
# an instance of its facet class as it is (what the full schema does with one) and leaves
# anything else to the full validator (`NeedsFullSchema`).


class NeedsFullSchema(Exception):
    """Raised by a light schema for a value only the full schema can validate. Not a
    `ValueError`: pydantic-core lets it through fields and unions instead of reporting it,
    and `construct` validates the whole input again with the full validator."""


# The schema generator making a light schema in this thread, if any.
_LIGHT_GENERATOR: ContextVar[Any] = ContextVar("olsdk_light_generator", default=None)
# Class -> its light validator, or None when it has none (it holds no facet map).
_LIGHT: dict[type, Any] = {}
# Class -> its light schema, which the light schemas of the classes holding it take as made.
_LIGHT_SCHEMAS: dict[type, CoreSchema] = {}
# Class -> the validator `construct` tries first: the light one, or None (the full one).
_FIRST: dict[type, Any] = {}
_LIGHT_UNKNOWN = object()
_holds_maps: Callable[[type], bool] | None = None


def use_light_schemas(holds_maps: Callable[[type], bool]) -> None:
    """Give classes for which `holds_maps` is true a light validator (see above)."""
    global _holds_maps
    _holds_maps = holds_maps


def building_light(handler: GetCoreSchemaHandler) -> bool:
    """Whether `handler` is making a light schema (a facet map then makes its light one).

    Compared by the generator behind the handler, not by a flag: a schema pydantic would
    build in full in the meantime (another class) must not come out light."""
    generator = _LIGHT_GENERATOR.get()
    return generator is not None and getattr(handler, "_generate_schema", None) is generator


def light_validator(cls: type[BaseModel]) -> Any:
    """The light validator of `cls` (made on first use), or None when it has none.

    pydantic builds one validator per class (`model_rebuild`, which sets the class's
    `__pydantic_validator__` and `__pydantic_serializer__`); no public API makes a second
    one from a schema of olsdk's own while the class stays unbuilt. The serializer of the
    light schema becomes the class's until the class is built: a facet map dumps each facet
    by its own class in both schemas, so both write the same output.
    """
    validator = _LIGHT.get(cls, _LIGHT_UNKNOWN)
    if validator is not _LIGHT_UNKNOWN:
        return validator
    validator = None
    made = _light_build(cls) if _holds_maps is not None and _holds_maps(cls) else None
    if made is not None:
        schema, validator, serializer = made
        _LIGHT_SCHEMAS[cls] = schema
        if not cls.__dict__.get("__pydantic_complete__"):
            cls.__pydantic_serializer__ = serializer
    _LIGHT[cls] = validator
    return validator


def _light_build(cls: type[BaseModel]) -> tuple[CoreSchema, Any, SchemaSerializer] | None:
    """`cls`'s light schema, validator and serializer, made as `model_rebuild` makes the full
    ones (from pydantic's schema generator, with its namespaces and plugins); None when they
    cannot be made: a class of your own naming what is not defined yet, or a pydantic whose
    internals differ. The class is then built in full, which says why, as without them."""
    try:
        from pydantic._internal import _config, _generate_schema, _model_construction, _namespace_utils
        from pydantic.plugin._schema_validator import create_schema_validator

        config = _config.ConfigWrapper(cls.model_config, check=False)
        parent = _model_construction.unpack_lenient_weakvaluedict(cls.__pydantic_parent_namespace__) or {}
        generator = _generate_schema.GenerateSchema(config, _namespace_utils.NsResolver(parent_namespace=parent))
        token = _LIGHT_GENERATOR.set(generator)
        try:
            schema = generator.clean_schema(generator.generate_schema(cls))
        finally:
            _LIGHT_GENERATOR.reset(token)
        core_config = config.core_config(title=cls.__name__)
        validator = create_schema_validator(
            schema, cls, cls.__module__, cls.__qualname__, "BaseModel", core_config, config.plugin_settings
        )
        return schema, validator, SchemaSerializer(schema, core_config)
    except Exception:  # (see above: the full build reports it)
        return None


def light_model_schema(cls: type[BaseModel], typed_dict: CoreSchema, *, post_init: str) -> CoreSchema:
    """The model node `hold_as_root_dict` makes of `cls`'s own, for a light schema (which
    does not generate the class's fields): the class's configuration and custom `__init__`
    flag as pydantic puts them there."""
    from pydantic._internal import _config

    config = _config.ConfigWrapper(cls.model_config, check=False).core_config(title=cls.__name__)
    return cs.model_schema(
        cls,
        typed_dict,
        custom_init=cls.__pydantic_custom_init__,
        root_model=True,
        post_init=post_init,
        config=config,
    )
