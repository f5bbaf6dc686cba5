"""Runtime behaviour the generated models inherit.

The generator (codegen/) emits one pydantic class per spec definition; the classes at
the roots of its hierarchy subclass the bases defined here:

- `OLModel`: every generated class. Unknown fields are kept (the spec allows them
  unless it says `additionalProperties: false`), JSON names in and out.
- `FacetModel`: `BaseFacet`. Building a facet in Python fills `_producer` (from the
  configured producer) and `_schemaURL` (the facet's versioned schema URL); parsing
  JSON still requires both, as the spec does.
- `EventModel`: `BaseEvent`. Building an event fills `producer`, `schemaURL` and
  `eventTime` (now, UTC).
- `FacetContainer`: the typed facet maps (`RunFacets`, `DatasetFacets`, ...), holding
  only the keys sent (in `root`). Keys the spec defines are typed attributes; any other
  key is kept under its own name, as the registered custom facet class for that key
  when there is one, else as plain data. A facet sent as `{"_deleted": true}` becomes a
  `DeletedFacet` whatever its key.

The uri, uuid and date-time formats are plain `str` checked by a pattern in
pydantic-core: the wire string survives a round trip unchanged (pydantic's `AnyUrl`
rewrites URLs) and the check costs far less than building `UUID`/`datetime` objects.
"""

from __future__ import annotations

import copy
import datetime as _dt
import functools
import sys
import uuid as _uuid
from collections.abc import ItemsView, Iterator, Mapping
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Self, TypeAlias, cast, overload

from pydantic import AllowInfNan, BaseModel, ConfigDict, Field, GetCoreSchemaHandler, Strict
from pydantic import ValidationError as PydanticValidationError
from pydantic_core import CoreSchema, PydanticCustomError
from pydantic_core import core_schema as cs
from typing_extensions import TypeAliasType

from olsdk import _exceptions, _registry
from olsdk._exceptions import Problem, ValidationError
from olsdk._formats import DATETIME_PATTERN as DATETIME_PATTERN
from olsdk._formats import FORMAT_RULES
from olsdk._formats import URI_PATTERN as URI_PATTERN
from olsdk._formats import UUID_PATTERN as UUID_PATTERN
from olsdk._records import OLRecord, records_typed_on_first_read, type_on_first_read

# -------------------------------------------------------------- checked string formats


class _Format:
    """`Annotated[str, _Format(pattern)]`: a string checked by one of the exact format
    patterns in pydantic-core (JSON and Python input alike); built in Python, a field of
    the uuid or date-time format also takes a `uuid.UUID` or an aware `datetime` and
    stores its canonical string."""

    def __init__(self, pattern: str, python_type: type | None = None) -> None:
        self.pattern = pattern
        self.python_type = python_type

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        checked = cs.str_schema(pattern=self.pattern, strict=True)
        if self.python_type is None:
            return checked
        convert = _from_uuid if self.python_type is _uuid.UUID else _from_datetime
        from_object = cs.no_info_after_validator_function(convert, cs.is_instance_schema(self.python_type))
        return cs.json_or_python_schema(
            json_schema=checked,
            python_schema=cs.union_schema(
                [checked, cs.chain_schema([from_object, checked])],
                mode="left_to_right",
                custom_error_type="string_format",
                custom_error_message=FORMAT_RULES[self.pattern] + _PYTHON_FORMS[self.python_type],
            ),
            serialization=cs.simple_ser_schema("str"),
        )

    def __repr__(self) -> str:
        return f"_Format({FORMAT_RULES[self.pattern]!r})"


# What a Python caller may pass besides the string, as the error message says it.
_PYTHON_FORMS: dict[type, str] = {_uuid.UUID: ", or a uuid.UUID", _dt.datetime: ", or a datetime with a time zone"}


def _from_uuid(value: _uuid.UUID) -> str:
    return str(value)


def _from_datetime(value: _dt.datetime) -> str:
    if value.tzinfo is None or value.utcoffset() is None:
        raise PydanticCustomError(
            "datetime_naive", "a datetime needs a time zone (RFC 3339 requires an offset): {value}", {"value": value}
        )
    return value.isoformat()


if TYPE_CHECKING:
    # Type checkers see descriptors (PEP 681: a dataclass-like field whose type is a
    # descriptor takes its `__set__` type in `__init__`): `Run(runId=uuid7())` and
    # `eventTime=datetime.now(timezone.utc)` type-check, and reading gives the `str`.

    class _UUIDString:
        @overload
        def __get__(self, obj: None, owner: Any, /) -> Self: ...
        @overload
        def __get__(self, obj: object, owner: Any, /) -> str: ...
        def __get__(self, obj: object, owner: Any, /) -> str | Self: ...
        def __set__(self, obj: object, value: str | _uuid.UUID, /) -> None: ...

    class _OptionalUUIDString:
        @overload
        def __get__(self, obj: None, owner: Any, /) -> Self: ...
        @overload
        def __get__(self, obj: object, owner: Any, /) -> str | None: ...
        def __get__(self, obj: object, owner: Any, /) -> str | Self | None: ...
        def __set__(self, obj: object, value: str | _uuid.UUID | None, /) -> None: ...

    class _DateTimeString:
        @overload
        def __get__(self, obj: None, owner: Any, /) -> Self: ...
        @overload
        def __get__(self, obj: object, owner: Any, /) -> str: ...
        def __get__(self, obj: object, owner: Any, /) -> str | Self: ...
        def __set__(self, obj: object, value: str | _dt.datetime, /) -> None: ...

    class _OptionalDateTimeString:
        @overload
        def __get__(self, obj: None, owner: Any, /) -> Self: ...
        @overload
        def __get__(self, obj: object, owner: Any, /) -> str | None: ...
        def __get__(self, obj: object, owner: Any, /) -> str | Self | None: ...
        def __set__(self, obj: object, value: str | _dt.datetime | None, /) -> None: ...

else:
    _UUIDString = Annotated[str, _Format(UUID_PATTERN, _uuid.UUID)]
    _DateTimeString = Annotated[str, _Format(DATETIME_PATTERN, _dt.datetime)]
    _OptionalUUIDString = _UUIDString | None
    _OptionalDateTimeString = _DateTimeString | None


UUIDStr: TypeAlias = _UUIDString  # see below: a descriptor for type checkers, a checked `str` at run time
URIStr = Annotated[str, _Format(URI_PATTERN)]
"""An absolute URI (RFC 3986), kept as the string that was sent."""
DateTimeStr: TypeAlias = _DateTimeString
OptionalUUIDStr: TypeAlias = _OptionalUUIDString
OptionalDateTimeStr: TypeAlias = _OptionalDateTimeString

FILLED_ON_CONSTRUCTION: Any = None
"""What type checkers see as the default of the fields the runtime fills in at
construction (`_producer`, `_schemaURL`, `producer`, `schemaURL`, `eventTime`); at run
time those fields stay required for parsing."""

NOT_SENT: Any = None
"""The default of optional uuid and date-time fields: `None`, typed so that checkers
accept it for their descriptor types (`OptionalUUIDStr`, `OptionalDateTimeStr`)."""

# Pattern -> the rule a user reads in an error message.
PATTERN_RULES = FORMAT_RULES

_DEFAULT_PRODUCER = "https://github.com/olsdk/olsdk"
_producer = _DEFAULT_PRODUCER


def set_default_producer(producer: str) -> None:
    """Set the producer URI that new events and facets get when none is given."""
    global _producer
    if not isinstance(producer, str) or not producer:
        raise ValueError("producer: must be a non-empty URI string")
    _producer = producer


def get_default_producer() -> str:
    return _producer


def utc_now() -> str:
    """The current time as an RFC 3339 string with a UTC offset."""
    return _dt.datetime.now(_dt.UTC).isoformat()


# ------------------------------------------------- JSON Schema types in pydantic-core


# A JSON Schema "integer" is any number without a fraction (`1.0` and `1e2` count), and
# never a string or a boolean; pydantic's lax int would take "3" and 3.0 alike.
def _integer(schema: dict[str, Any]) -> CoreSchema:
    bounds = {k: schema[k] for k in ("ge", "gt", "le", "lt", "multiple_of") if k in schema}
    whole_float = cs.chain_schema(
        [cs.float_schema(strict=True, allow_inf_nan=False, multiple_of=1.0), cs.int_schema(**bounds)]
    )
    # Its JSON Schema stays what the spec says: an integer (with the same bounds).
    keywords = {"ge": "minimum", "gt": "exclusiveMinimum", "le": "maximum", "lt": "exclusiveMaximum"}
    json_schema = {"type": "integer", **{keywords.get(k, "multipleOf"): v for k, v in bounds.items()}}
    return cs.union_schema(
        [cs.int_schema(strict=True, **bounds), whole_float],
        mode="left_to_right",
        custom_error_type="int_type",
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
    """`_exact` for a record's typed dict (`olsdk._records`): strict JSON types, an
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


def dump_json(model: BaseModel) -> bytes:
    """Compact JSON of a model, straight from its serializer.

    Defaults are left out rather than unset fields (the cheaper check, and the same
    output): every default of a generated field is None, which stands for "not sent",
    and the one other default a marker needs is filled on construction instead.
    (warnings=False: a leniently read event may keep a list item of the wrong type as sent.)
    """
    return model.__pydantic_serializer__.to_json(model, exclude_defaults=True, warnings=False)


def _construct(model: BaseModel, data: dict[str, Any]) -> None:
    """Validate `data` (keyword arguments) into `model`, a model built in Python.

    Python callers may use attribute names (`producer`) as well as JSON names
    (`_producer`), and `field=None` means "not sent": the spec has no nullable fields,
    so parsing refuses `null` (see `_exact`), while a Python caller may pass `None` for
    any optional field and gets it left out, as if not given. Problems are reported the
    way parsing reports them: `olsdk.ValidationError` with `<JSON path>: <rule>` lines.
    The subclasses' `__init__` call this directly: one Python frame per object, the
    cost that dominates building an event in Python.
    """
    for value in data.values():
        # (`None in data.values()` would call each model value's `__eq__`.)
        if value is None:
            data = {key: value for key, value in data.items() if value is not None}
            break
    try:
        model.__pydantic_validator__.validate_python(data, self_instance=model, by_name=True)
    except PydanticValidationError as exc:
        raise ValidationError.from_pydantic(exc, title=_invalid(type(model)), model=type(model)) from None


class OLModel(BaseModel):
    """Base of every generated model: JSON names in and out, unknown fields kept."""

    # True on `FacetContainer` and `FacetModel` (defined below, so the schema hook
    # cannot name them here).
    __olsdk_facet_map__: ClassVar[bool] = False
    __olsdk_facet__: ClassVar[bool] = False

    model_config = ConfigDict(
        extra="allow",
        # Parsing takes JSON names only, set here rather than passed on every call (that
        # costs a few percent of a parse); building in Python takes both (`_construct`).
        validate_by_alias=True,
        validate_by_name=False,
        serialize_by_alias=True,
        protected_namespaces=(),
    )

    def __init__(self, /, **data: Any) -> None:
        _construct(self, data)

    # Tell pydantic this __init__ is for Python callers only: without the flag it would
    # also call it (and every subclass's) while validating parsed JSON, a Python call per
    # object; parsing reports its errors through `olsdk.parse_event` instead.
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

    @classmethod
    def __get_pydantic_core_schema__(cls, source: type[BaseModel], handler: GetCoreSchemaHandler, /) -> CoreSchema:
        # A class already built keeps its schema (what pydantic itself does).
        built = cls.__dict__.get("__pydantic_core_schema__")
        if isinstance(built, dict):
            return cast("CoreSchema", built)
        # Records parsed into this model stay dicts until first read (`olsdk._records`).
        with records_typed_on_first_read():
            schema = handler(source)
        type_on_first_read(cls, _model_node(schema, cls))
        _exact(schema, cls, _json_value(handler))
        if cls.__olsdk_facet_map__ and "__olsdk_facet_map__" not in cls.__dict__:  # the generated maps
            _facet_map_schema(schema, cls, handler)
        if cls.__olsdk_facet__ and "deleted" in cls.__pydantic_fields__:
            _refuse_markers(schema, cls)
        # JSON Schema `dependentRequired` (generated as a table in the class's module, which
        # is still being executed here): checked after the model is built, for those few classes.
        module = sys.modules.get(cls.__module__)
        dependent = getattr(module, "DEPENDENT_REQUIRED", {}).get(cls.__name__)
        if dependent:
            return cs.no_info_after_validator_function(functools.partial(_check_dependent, dependent), schema)
        return schema

    if not TYPE_CHECKING:  # for type checkers, a field is always there

        def __getattr__(self, name: str) -> Any:
            try:
                return super().__getattr__(name)  # extra keys, private attributes
            except AttributeError:
                # A required field a leniently read event did not send (see `_lenient`):
                # it is not in the model, so no dump writes it; reading it gives None.
                if name in type(self).__pydantic_fields__:
                    return None
                raise

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of this model: JSON names, unset fields left out."""
        return self.model_dump(mode="json", exclude_defaults=True)

    def to_json(self) -> str:
        """Compact JSON with JSON names and unset fields left out."""
        return dump_json(self).decode()


class FacetModel(OLModel):
    """Base of `BaseFacet`: construction fills `_producer` and `_schemaURL`."""

    # Set by the generated metadata for every facet class: its versioned schema URL.
    __olsdk_schema_url__: ClassVar[str | None] = None
    __olsdk_facet__: ClassVar[bool] = True

    def __init__(self, /, **data: Any) -> None:
        if "_producer" not in data and "producer" not in data:
            data["_producer"] = _producer
        if "_schemaURL" not in data and "schemaURL" not in data:
            url = type(self).__olsdk_schema_url__
            if url is not None:
                data["_schemaURL"] = url
        _construct(self, data)

    # For Python callers only (see OLModel): parsing must not fill in what the spec
    # requires the sender to send.
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]


# Event class -> its schema URL (`<core $id>#/$defs/<class name>`), made once per class.
_EVENT_SCHEMA_URLS: dict[type, str] = {}


class EventModel(OLModel):
    """Base of `BaseEvent`: construction fills `producer`, `schemaURL`, `eventTime`."""

    # Set by the generated metadata: the core spec's `$id`.
    __olsdk_core_id__: ClassVar[str] = ""

    def __init__(self, /, **data: Any) -> None:
        if "producer" not in data:
            data["producer"] = _producer
        if "schemaURL" not in data:
            cls = type(self)
            url = _EVENT_SCHEMA_URLS.get(cls)
            if url is None:
                url = _EVENT_SCHEMA_URLS[cls] = f"{cls.__olsdk_core_id__}#/$defs/{cls.__name__}"
            data["schemaURL"] = url
        event_time = data.get("eventTime")
        if event_time is None:
            data["eventTime"] = utc_now()
        elif isinstance(event_time, _dt.datetime):
            if event_time.tzinfo is None:
                problem = Problem("eventTime", "a datetime needs a time zone (the spec requires an offset)", event_time)
                raise ValidationError([problem], title=_invalid(type(self)))
            data["eventTime"] = event_time.isoformat()
        _construct(self, data)

    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]  # see FacetModel


class DeletedFacet(OLModel):
    """A facet sent as `{"_producer": ..., "_schemaURL": ..., "_deleted": true}`."""

    producer: URIStr | None = None
    schemaURL: URIStr | None = None
    # No default: dumps leave defaults out (see `dump_json`), and a marker must keep its
    # `_deleted: true`; `__init__` fills it.
    deleted: bool

    model_config = ConfigDict(
        # `_producer` etc. are the wire names; pydantic needs explicit aliases for them.
        alias_generator=lambda name: "_" + name,
    )

    def __init__(self, /, **data: Any) -> None:
        # Built in Python, a marker says what it is: `_deleted: true` and its producer.
        if "_deleted" not in data and "deleted" not in data:
            data["_deleted"] = True
        if "_producer" not in data and "producer" not in data:
            data["_producer"] = _producer
        _construct(self, data)

    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]  # see FacetModel


def _invalid(cls: type[BaseModel]) -> str:
    return f"invalid {cls.__name__}"


def _is_deletion(value: Any) -> bool:
    return type(value) is dict and value.get("_deleted") is True


class FacetContainer(OLModel):
    """A typed facet map: spec keys are typed attributes, every other key is kept by name.

    The facets live in one dict, `root`, holding only the keys sent (pydantic-core builds
    it with a typed-dict validator: a model would fill a `None` for each of the 10-15
    keys the spec defines, most of what an empty map costs). Validation happens in
    pydantic-core alone (see `_facet_map_schema`): a deletion marker becomes a
    `DeletedFacet` under any key, and any other key the spec does not define must hold a
    facet (an object with `_producer` and `_schemaURL`). Python runs only while a custom
    facet class is registered for the entity: the post-init hook then types the
    registered keys.
    """

    # Set by the generated metadata: which entity's facets this container holds, and
    # the JSON keys of its typed fields.
    __olsdk_entity__: ClassVar[str] = ""
    __olsdk_keys__: ClassVar[frozenset[str]] = frozenset()
    # What pydantic-core calls on every map it builds (`post_init` in its schema): `id`,
    # a C function that ignores its argument, while no custom facet is registered for
    # the entity; `_type_registered_facets` while one is (see `_custom_facets_changed`).
    __olsdk_post_init__: ClassVar[Any] = id
    __olsdk_facet_map__: ClassVar[bool] = True
    # pydantic-core builds a map as a root model (`root` in `__dict__`) and leaves these
    # two unset; pydantic's methods read them.
    __pydantic_extra__ = None
    __pydantic_private__ = None

    if TYPE_CHECKING:  # (a property for type checkers: no `root=` in `__init__`)

        @property
        def root(self) -> dict[str, Any]:
            """The facets present, by JSON key (the map's own dict)."""

    def __init__(self, /, **data: Any) -> None:
        # A deletion marker under a typed key cannot be validated as that key's facet
        # class: keep it aside and store it as a `DeletedFacet` under the key.
        deletions: dict[str, Any] = {}
        for key in list(data):
            value = data[key]
            if _is_deletion(value):
                # Built in Python, a marker given as a dict is filled in as `DeletedFacet()` is.
                deletions[self._alias_of(key)] = DeletedFacet(**data.pop(key))
            elif isinstance(value, DeletedFacet):
                deletions[self._alias_of(key)] = data.pop(key)
        _construct(self, data)
        entity = type(self).__olsdk_entity__
        for key, value in deletions.items():
            self.hold(key, _kept_facet(entity, key, value))

    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]  # see FacetModel

    @classmethod
    def _alias_of(cls, key: str) -> str:
        field = cls.model_fields.get(key)
        return (field.alias or key) if field is not None else key

    def hold(self, key: str, value: Any) -> None:
        """Keep `value` under `key` as it is (a deletion marker, or, reading leniently, a
        facet that fails its schema), even where the spec types that key."""
        self.root[key] = value

    # Mapping-style access by JSON key, for keys that are not Python names
    # (`spark.exception`, `environment-properties`) and for generic code.
    def __getitem__(self, key: str) -> Any:
        return self.root[key]

    def __setitem__(self, key: str, value: Any) -> None:
        if value is None:
            self.root.pop(key, None)  # "not sent"
            return
        if key in type(self).__olsdk_keys__ and not _is_deletion(value) and not isinstance(value, DeletedFacet):
            self.root[key] = value  # a typed facet, set as a model field is (not validated)
            return
        self.hold(key, _kept_facet(type(self).__olsdk_entity__, key, value))

    def __setattr__(self, name: str, value: Any) -> None:
        # Any public name is a facet key (a spec key's typed attribute, or a key the spec
        # does not define, checked as `facets[key] = value` checks it).
        if name.startswith("_"):
            super().__setattr__(name, value)
            return
        field = type(self).__pydantic_fields__.get(name)
        self[(field.alias or name) if field is not None else name] = value

    def __delitem__(self, key: str) -> None:
        del self.root[key]

    def __contains__(self, key: object) -> bool:
        return key in self.root

    def get(self, key: str, default: Any = None) -> Any:
        return self.root.get(key, default)

    def as_mapping(self) -> dict[str, Any]:
        """Every facet present, by JSON key: typed facets, custom facets, plain data."""
        return dict(self.root)

    def keys(self) -> Iterator[str]:
        return iter(self.root)

    def __iter__(self) -> Iterator[str]:  # type: ignore[override]
        # A facet map iterates like a mapping: its keys (`for key in facets`, as `keys()`
        # and `facets[key]`), not a model's (field, value) pairs.
        return iter(self.root)

    def items(self) -> ItemsView[str, Any]:
        return self.root.items()

    def __len__(self) -> int:
        return len(self.root)

    if not TYPE_CHECKING:  # (type checkers see the typed keys; others are not attributes)

        def __getattr__(self, name: str) -> Any:
            # A key the spec does not define reads as an attribute too, as a model's extra
            # field does (`facets.spark_version`).
            if name.startswith("__") or name == "root":
                raise AttributeError(name)  # not set yet (unpickling), or a protocol probe
            try:
                return self.__dict__["root"][name]
            except KeyError:
                raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}") from None

    # -- what pydantic's methods read from `__dict__` and the unset extra keys ----------

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return bool(self.root == other.root)

    def __repr_args__(self) -> Any:
        return iter(self.root.items())

    def __copy__(self) -> Self:
        return type(self)._holding(dict(self.root))

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Self:
        return type(self)._holding(copy.deepcopy(self.root, memo))

    def __getstate__(self) -> dict[Any, Any]:
        return {"root": self.root}

    def __setstate__(self, state: dict[Any, Any]) -> None:
        object.__setattr__(self, "__dict__", {"root": state["root"]})
        object.__setattr__(self, "__pydantic_fields_set__", {"root"})

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        copied = copy.deepcopy(self) if deep else copy.copy(self)
        for key, value in (update or {}).items():
            copied[type(self)._alias_of(key)] = value
        return copied

    @classmethod
    def model_construct(cls, _fields_set: set[str] | None = None, **values: Any) -> Self:
        """A map holding `values` (by attribute name or JSON key) as given, unvalidated."""
        return cls._holding({cls._alias_of(key): value for key, value in values.items() if value is not None})

    @classmethod
    def _holding(cls, root: dict[str, Any]) -> Self:
        made = cls.__new__(cls)
        made.__setstate__({"root": root})
        return made


class _FacetAttribute:
    """The attribute of a spec key on a facet map: the facet under that key, or None.
    (A data descriptor, so that pydantic's `__getattr__` is not asked first.)"""

    __slots__ = ("key",)

    def __init__(self, key: str) -> None:
        self.key = key

    def __get__(self, obj: Any, owner: type) -> Any:
        if obj is None:
            # On the class: what `BaseModel` has under the name (`schema`), as before.
            return getattr(BaseModel, self.key).__get__(None, owner) if hasattr(BaseModel, self.key) else self
        return obj.__dict__["root"].get(self.key)

    def __set__(self, obj: Any, value: Any) -> None:
        obj[self.key] = value


OTHER_FORM = _exceptions.OTHER_FORM
"""The error type of a facet that could have been a deletion marker and is not: the
errors of what it is say what is wrong, so `olsdk.ValidationError` leaves this one out."""


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


def _entity_base_of(container: type[BaseModel]) -> type[BaseModel] | None:
    """The spec base facet of a map's entity (`RunFacet`), found from its typed facets."""
    for info in container.model_fields.values():
        for facet_class in _models_in(info.annotation):
            for klass in facet_class.__mro__:
                parent = klass.__base__
                if parent is not None and parent.__base__ is FacetModel:
                    return klass
    return None


def _facet_check(base: type[BaseModel] | None, json_value: CoreSchema, *, marker: bool = False) -> CoreSchema:
    """A facet under a key the spec does not define, checked as the entity's base facet
    checks it (`_producer` and `_schemaURL` URIs) and kept as the JSON object it is.
    `_deleted`, when present, must be false (`true` makes it a deletion marker, checked
    with `marker=True`: the `DeletedFacet` it becomes checks `_deleted` itself)."""
    name = base.__name__ if base is not None else "BaseFacet"
    uri = cs.str_schema(pattern=URI_PATTERN, strict=True)

    def present(key: str) -> CoreSchema:
        fields = {key: cs.typed_dict_field(cs.any_schema())}
        return cs.custom_error_schema(
            cs.typed_dict_schema(fields, extra_behavior="allow"),
            "value_error",
            custom_error_context={"error": f"lacks {key!r}, which every facet must have ({name})"},
        )

    checked = {"_producer": cs.typed_dict_field(uri), "_schemaURL": cs.typed_dict_field(uri)}
    if not marker:
        # Where the base facet has no `_deleted` (run facets), any other value is an
        # unknown field's, as the spec has it: only `true` (a marker) is refused here.
        deletable = base is not None and "deleted" in base.model_fields
        checked["_deleted"] = cs.typed_dict_field(
            _not_a_marker() if deletable else _anything_but_true(json_value), required=False
        )
    as_object = cs.custom_error_schema(
        cs.dict_schema(),
        "value_error",
        custom_error_context={"error": "a facet must be a JSON object"},
    )
    return cs.chain_schema(
        [
            as_object,
            present("_producer"),
            present("_schemaURL"),
            cs.typed_dict_schema(checked, extra_behavior="allow", extras_schema=json_value),
        ]
    )


def _facet_map_schema(schema: Any, cls: type[BaseModel], handler: GetCoreSchemaHandler) -> None:
    """Make a facet map's schema do in pydantic-core what the spec asks of its keys.

    - every key: a deletion marker (`"_deleted": true`) becomes a `DeletedFacet`, the
      alternative tried second (facets refuse `_deleted: true`, see `_not_a_marker`;
      a union whose first alternative fails costs as much again as the facet, since
      pydantic-core turns the input into Python objects for the error);
    - keys the spec does not define: a facet of the entity, kept as its JSON object
      (a registered custom facet class or a model built in Python stays that object);
    - the post-init hook is `__olsdk_post_init__`, a C no-op until a custom facet is
      registered for the entity.
    """
    node = _model_node(schema, cls)
    node["post_init"] = "__olsdk_post_init__"
    base = _entity_base_of(cls)
    json_value = _json_value(handler)
    check = _facet_check(base, json_value)
    # The marker's own errors are left out (`OTHER_FORM`): a marker that fails is not
    # a facet either, and that alternative reports the same problems.
    marker = cs.custom_error_schema(
        cs.tagged_union_schema(
            {
                True: cs.chain_schema(
                    [_facet_check(base, json_value, marker=True), handler.generate_schema(DeletedFacet)]
                )
            },
            discriminator="_deleted",
        ),
        OTHER_FORM,
        custom_error_message="not a deletion marker",
    )
    built = cs.custom_error_schema(cs.is_instance_schema(BaseModel), OTHER_FORM, custom_error_message="not a model")
    # Each value is dumped by its own class (any-serialization): a union serializer would
    # first try it against each member.
    by_value = cs.simple_ser_schema("any")
    typed: dict[str, cs.TypedDictField] = {}
    for name, field in node["schema"]["fields"].items():
        key = field.get("validation_alias", name)
        if key != name:  # pragma: no cover - the generator keeps spec keys as field names
            raise TypeError(f"{cls.__name__}.{name}: a facet map's typed key must be its field name ({key!r})")
        facet = field["schema"]  # `default` (None) around the facet class
        if facet.get("type") == "default":
            facet = facet["schema"]
        annotation = cls.model_fields[name].annotation
        if any("deleted" in model.model_fields for model in _models_in(annotation)):
            facet = cs.union_schema([(facet, "Facet"), (marker, "DeletedFacet")], mode="left_to_right")
        # (Each value dumped by its own class: a marker or a leniently kept dict may sit here.)
        typed[key] = cs.typed_dict_field(
            cs.union_schema([facet], serialization=by_value), required=False, metadata=field.get("metadata")
        )
    unknown = cs.union_schema([(check, "Facet"), (marker, "DeletedFacet")], mode="left_to_right")
    extras = cs.json_or_python_schema(
        json_schema=unknown,
        python_schema=cs.union_schema(
            [(built, "Model"), (check, "Facet"), (marker, "DeletedFacet")],
            mode="left_to_right",
        ),
        serialization=by_value,
        # In JSON Schema a facet map's other keys stay "any value", as before.
        metadata={"pydantic_js_functions": [lambda _schema, _handler: {}]},
    )
    # Only the keys sent: a typed dict, held as the model's `root` (see FacetContainer).
    node["schema"] = cs.typed_dict_schema(typed, extra_behavior="allow", extras_schema=extras)
    node["root_model"] = True
    for key in typed:
        setattr(cls, key, _FacetAttribute(key))


def _type_registered_facets(self: FacetContainer, _context: Any, /) -> None:
    """The post-init hook while a custom facet class is registered for the map's entity:
    the keys registered become their classes (pydantic-core has checked they hold facets)."""
    facets = self.root
    if not facets:
        return
    entity = type(self).__olsdk_entity__
    for key, value in facets.items():
        if type(value) is not dict:
            continue  # a spec facet, a marker, or an object built in Python
        if _registry.lookup(entity, key) is None:
            continue
        try:
            facets[key] = _kept_facet(entity, key, value)
        except ValueError as exc:
            raise ValueError(f"facet {key!r}: {exc}") from None


# Entity -> its facet map classes (one each today), for `_custom_facets_changed`.
_CONTAINERS: dict[str, list[type[FacetContainer]]] = {}


def _custom_facets_changed(entity: str) -> None:
    hook = _type_registered_facets if _registry.has_custom(entity) else id
    for container in _CONTAINERS.get(entity, ()):
        container.__olsdk_post_init__ = hook


_registry.on_change(_custom_facets_changed)


# Entity -> its spec base facet class (`run` -> RunFacet), set by `bind_metadata`.
_ENTITY_BASES: dict[str, type[BaseModel]] = {}


def _check_base(entity: str, value: Any) -> None:
    """`ValueError` unless `value` is a valid facet of `entity` as the core schema says
    (`_producer` and `_schemaURL` URIs, `_deleted` a boolean where the base has it)."""
    base = _ENTITY_BASES.get(entity)
    if base is None:
        return
    try:
        base.__pydantic_validator__.validate_python(value)
    except PydanticValidationError as exc:
        problem = ValidationError.from_pydantic(exc, model=base).problems[0]
        if problem.rule == "required field missing":
            raise ValueError(f"lacks {problem.path!r}, which every facet must have ({base.__name__})") from None
        raise ValueError(f"{problem.path}: {problem.rule}" if problem.path else problem.rule) from None


def _kept_facet(entity: str, key: str, value: Any) -> Any:
    """What an unknown key's value becomes: a deletion, a registered class, or itself."""
    if isinstance(value, DeletedFacet):
        if value.schemaURL is None and entity in _ENTITY_BASES:
            # Built in Python: a marker names the schema of what it deletes, its entity's base facet.
            value.schemaURL = getattr(_ENTITY_BASES[entity], "__olsdk_schema_url__", None)
            value.__pydantic_fields_set__.add("schemaURL")
        return value
    if isinstance(value, BaseModel):
        return value
    if _is_deletion(value):
        # (The base facet refuses `_deleted: true`: that is what makes this a marker.)
        _check_base(entity, {k: v for k, v in value.items() if k != "_deleted"})
        return DeletedFacet.model_validate(value)
    facet_class = _registry.lookup(entity, key)
    if facet_class is not None:
        try:
            return facet_class.model_validate(value)
        except PydanticValidationError as exc:
            first = ValidationError.from_pydantic(exc, model=facet_class).problems[0]
            raise ValueError(
                f"does not match its registered class {facet_class.__name__}: {first.path or '(facet)'}: {first.rule}"
            ) from None
    if not isinstance(value, Mapping):
        raise ValueError(f"a facet must be a JSON object, got {type(value).__name__}")
    _check_base(entity, value)
    return value


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The generated classes in an annotation: models, and records (which have
    `model_fields` too, see `olsdk._records`)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel | OLRecord):
        return [cast("type[BaseModel]", annotation)]
    return [model for arg in getattr(annotation, "__args__", ()) for model in _models_in(arg)]


def bind_metadata(
    *,
    core_id: str,
    schema_urls: Mapping[Any, str],
    entities: Mapping[str, tuple[type[BaseModel], type[BaseModel], type[BaseModel], str]],
    facet_keys: Mapping[tuple[str, str], type[BaseModel]],
) -> None:
    """Attach the generated metadata to the generated classes (called once at import).

    `entities` is the generated entity table: entity -> (base facet, facet map class,
    the class holding the map, its field).
    """
    EventModel.__olsdk_core_id__ = core_id
    for facet_class, url in schema_urls.items():
        if not (isinstance(facet_class, type) and issubclass(facet_class, FacetModel)):
            raise TypeError(f"schema URL given for {facet_class!r}, which is not a facet class")
        facet_class.__olsdk_schema_url__ = url
    for entity, (base, container, _owner, _field) in entities.items():
        _ENTITY_BASES[entity] = base
        if not issubclass(container, FacetContainer):
            raise TypeError(f"{container!r} is not a facet container class")
        container.__olsdk_entity__ = entity
        if container not in _CONTAINERS.setdefault(entity, []):
            _CONTAINERS[entity].append(container)
        _custom_facets_changed(entity)
        container.__olsdk_keys__ = frozenset((info.alias or name) for name, info in container.model_fields.items())
    for (entity, key), keyed_class in facet_keys.items():
        _registry.register_spec_facet(entity, key, keyed_class)
