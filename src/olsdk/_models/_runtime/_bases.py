"""The model bases: what every generated class inherits when built in Python.

- `OLModel`: every generated class. Unknown fields are kept (the spec allows them
  unless it says `additionalProperties: false`), JSON names in and out; its schema hook
  applies the core-schema rewriting of `olsdk._models._runtime._pydantic` to each class.
- `FacetModel`: `BaseFacet`. Building a facet in Python fills `_producer` (from the
  configured producer) and `_schemaURL` (the facet's versioned schema URL); parsing
  JSON still requires both, as the spec does.
- `EventModel`: `BaseEvent`. Building an event fills `producer`, `schemaURL` and
  `eventTime` (now, UTC).
- `DeletedFacet`: a facet sent as `{"_producer": ..., "_schemaURL": ..., "_deleted": true}`.
"""

from __future__ import annotations

import datetime as _dt
import functools
import sys
from typing import TYPE_CHECKING, Any, ClassVar, Self

from pydantic import BaseModel, ConfigDict, GetCoreSchemaHandler, RootModel
from pydantic.errors import PydanticUndefinedAnnotation
from pydantic_core import CoreSchema
from pydantic_core import core_schema as cs

from olsdk._foundation._exceptions import Problem, ValidationError
from olsdk._models._runtime import _pydantic
from olsdk._models._runtime._pydantic import ModelBase, _check_dependent, _exact, _json_value, _refuse_markers
from olsdk._models._runtime._records import records_typed_on_first_read, type_on_first_read
from olsdk._models._runtime._strings import URIStr

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


# Building in Python and dumping, each straight from pydantic-core (see `_pydantic`).
_construct = _pydantic.construct
dump_json = _pydantic.dump_json


class OLModel(ModelBase):
    """Base of every generated model: JSON names in and out, unknown fields kept."""

    # The class attributes of the bases (`__olsdk_schema_url__`, ...) are declared for type
    # checkers only (`if TYPE_CHECKING:`): in this module an annotation is text, which pydantic
    # evaluates again for every subclass that inherits it (~100 as `olsdk.models` is made).

    model_config = ConfigDict(
        extra="allow",
        # Parsing takes JSON names only, set here rather than passed on every call (that
        # costs a few percent of a parse); building in Python takes both (`_construct`).
        validate_by_alias=True,
        validate_by_name=False,
        serialize_by_alias=True,
        protected_namespaces=(),
        # Each class builds its validator and serializer on first use, not at import: a
        # process pays for what it uses (`import olsdk.models` defines ~115 classes; one
        # START event needs three of them built). See `built` for the ways to an instance
        # that validate nothing.
        defer_build=True,
    )

    # For Python callers only: parsing does not call it (a Python call per object), and
    # reports its errors through `olsdk.parse_event` instead.
    @_pydantic.python_callers_only
    def __init__(self, /, **data: Any) -> None:
        _construct(self, data)

    @classmethod
    def __get_pydantic_core_schema__(cls, source: type[BaseModel], handler: GetCoreSchemaHandler, /) -> CoreSchema:
        # A class already built keeps its schema (what pydantic itself does).
        existing = _pydantic.schema_made(cls, handler)
        if existing is not None:
            return existing
        if cls in _FIELDS_ONLY:
            raise PydanticUndefinedAnnotation(cls.__name__, "its fields are resolved, its schema is built on first use")
        # Records parsed into this model stay dicts until first read (`olsdk._models._runtime`).
        with records_typed_on_first_read():
            schema = handler(source)
        type_on_first_read(cls, _pydantic.field_schemas(schema, cls))
        _exact(schema, cls, _json_value(handler))
        cls.__olsdk_finish_schema__(schema, handler)
        # JSON Schema `dependentRequired` (generated as a table in the class's module, which
        # is still being executed here): checked after the model is built, for those few classes.
        module = sys.modules.get(cls.__module__)
        dependent = getattr(module, "DEPENDENT_REQUIRED", {}).get(cls.__name__)
        if dependent:
            return cs.no_info_after_validator_function(functools.partial(_check_dependent, dependent), schema)
        return schema

    @classmethod
    def __olsdk_finish_schema__(cls, schema: Any, handler: GetCoreSchemaHandler, /) -> None:
        """What a kind of class changes in its own schema, in place, after the exact JSON
        types (facets and facet maps, see `FacetModel` and `FacetContainer`)."""

    @classmethod
    def model_construct(cls, _fields_set: set[str] | None = None, **values: Any) -> Self:
        built(cls)
        return super().model_construct(_fields_set, **values)

    def __setstate__(self, state: dict[Any, Any]) -> None:
        built(type(self))  # unpickled in a fresh process (a Spark worker)
        super().__setstate__(state)

    if not TYPE_CHECKING:  # for type checkers, a field is always there

        def __getattr__(self, name: str) -> Any:
            try:
                return super().__getattr__(name)  # extra keys, private attributes
            except AttributeError:
                # A required field a leniently read event did not send (see `_lenient`):
                # it is not in the model, so no dump writes it; reading it gives None.
                if name in type(self).model_fields:
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
    if TYPE_CHECKING:  # declared for type checkers only: see `OLModel`
        __olsdk_schema_url__: ClassVar[str | None]
    __olsdk_schema_url__ = None

    @classmethod
    def __olsdk_finish_schema__(cls, schema: Any, handler: GetCoreSchemaHandler, /) -> None:
        # A facet with a `_deleted` field refuses `true`: that makes it a deletion marker.
        if "deleted" in cls.model_fields:
            _refuse_markers(schema, cls)

    # For Python callers only (see OLModel): parsing must not fill in what the spec
    # requires the sender to send.
    @_pydantic.python_callers_only
    def __init__(self, /, **data: Any) -> None:
        if "_producer" not in data and "producer" not in data:
            data["_producer"] = _producer
        if "_schemaURL" not in data and "schemaURL" not in data:
            url = type(self).__olsdk_schema_url__
            if url is not None:
                data["_schemaURL"] = url
        _construct(self, data)


# Event class -> its schema URL (`<core $id>#/$defs/<class name>`), made once per class.
_EVENT_SCHEMA_URLS: dict[type, str] = {}


class EventModel(OLModel):
    """Base of `BaseEvent`: construction fills `producer`, `schemaURL`, `eventTime`."""

    # Set by the generated metadata: the core spec's `$id`.
    if TYPE_CHECKING:  # declared for type checkers only: see `OLModel`
        __olsdk_core_id__: ClassVar[str]
    __olsdk_core_id__ = ""

    @_pydantic.python_callers_only  # see FacetModel
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

    @_pydantic.python_callers_only  # see FacetModel
    def __init__(self, /, **data: Any) -> None:
        # Built in Python, a marker says what it is: `_deleted: true` and its producer.
        if "_deleted" not in data and "deleted" not in data:
            data["_deleted"] = True
        if "_producer" not in data and "producer" not in data:
            data["_producer"] = _producer
        _construct(self, data)


def _invalid(cls: type[BaseModel]) -> str:
    return f"invalid {cls.__name__}"


# Classes whose fields `resolve_fields` is resolving: their schema hook stops there.
_FIELDS_ONLY: set[type[BaseModel]] = set()


def resolve_fields(cls: type[BaseModel]) -> None:
    """Resolve the field annotations of `cls` that name classes defined after it in its
    module, without building it: `model_fields` then says what every field holds (the
    lenient reader, error paths and the Spark schema read it), as it does for the classes
    whose annotations resolved when they were defined.

    pydantic resolves the fields, then builds the schema (`model_rebuild`); the schema
    hook of an olsdk class stops it there. Should the fields still be unresolved (another
    pydantic), the class is built instead.
    """
    if _pydantic.fields_resolved(cls):
        return
    _FIELDS_ONLY.add(cls)
    try:
        cls.model_rebuild(raise_errors=False)
    finally:
        _FIELDS_ONLY.discard(cls)
    if not _pydantic.fields_resolved(cls):  # pragma: no cover - the pinned pydantic resolves them
        built(cls)


def built(cls: type[BaseModel]) -> None:
    """Build `cls` now if it has not been built yet.

    Validation and dumps build a class on first use (pydantic's deferred building).
    `model_construct` and unpickling make an instance without validating: they call this
    first, because building a class also installs what its instances read through (the
    attributes that type records on first read, see `olsdk._models._runtime._records`).
    """
    cls.model_rebuild(raise_errors=True)  # (returns at once when the class is built)


if TYPE_CHECKING:
    _RootBase = RootModel[Any]
else:
    # Unparametrised: `RootModel[X]` would make and build a class of its own at import.
    _RootBase = RootModel


class OLRootModel(_RootBase):
    """Base of the generated root models (the union of two classes: `LineageEntry`,
    `BaseSubsetDatasetFacet`, ...), each declaring its `root`; built on first use, as the
    other generated classes are."""

    model_config = ConfigDict(defer_build=True)
