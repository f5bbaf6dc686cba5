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
- `FacetContainer`: the typed facet maps (`RunFacets`, `DatasetFacets`, ...). Keys the
  spec defines are typed fields; any other key is kept under its own name, as the
  registered custom facet class for that key when there is one, else as plain data.
  A facet sent as `{"_deleted": true}` becomes a `DeletedFacet` whatever its key.

The uri, uuid and date-time formats are plain `str` checked by a pattern in
pydantic-core: the wire string survives a round trip unchanged (pydantic's `AnyUrl`
rewrites URLs) and the check costs far less than building `UUID`/`datetime` objects.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import ItemsView, Iterator, Mapping
from typing import Annotated, Any, ClassVar

from pydantic import (
    BaseModel,
    ConfigDict,
    StringConstraints,
)
from pydantic import ValidationError as PydanticValidationError

from olsdk import _registry

UUID_PATTERN = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
URI_PATTERN = r"^[A-Za-z][A-Za-z0-9+.\-]*:[^\s]*$"
DATETIME_PATTERN = (
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+\-][0-9]{2}:[0-9]{2})$"
)

UUIDStr = Annotated[str, StringConstraints(pattern=UUID_PATTERN)]
"""A UUID in its canonical 8-4-4-4-12 hex form, kept as the string that was sent."""
URIStr = Annotated[str, StringConstraints(pattern=URI_PATTERN)]
"""An absolute URI (a scheme, a colon, no white space), kept as the string that was sent."""
DateTimeStr = Annotated[str, StringConstraints(pattern=DATETIME_PATTERN)]
"""An RFC 3339 date-time with a time zone offset, kept as the string that was sent."""

FILLED_ON_CONSTRUCTION: Any = None
"""What type checkers see as the default of the fields the runtime fills in at
construction (`_producer`, `_schemaURL`, `producer`, `schemaURL`, `eventTime`); at run
time those fields stay required for parsing."""

# Pattern -> the rule a user reads in an error message.
PATTERN_RULES = {
    UUID_PATTERN: "not a UUID",
    URI_PATTERN: "not an absolute URI",
    DATETIME_PATTERN: "not an RFC 3339 date-time with a time zone offset",
}

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


class OLModel(BaseModel):
    """Base of every generated model: JSON names in and out, unknown fields kept."""

    model_config = ConfigDict(
        extra="allow",
        validate_by_alias=True,
        validate_by_name=True,
        serialize_by_alias=True,
        protected_namespaces=(),
    )

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of this model: JSON names, unset fields left out."""
        return self.model_dump(mode="json", exclude_unset=True)

    def to_json(self) -> str:
        """Compact JSON with JSON names and unset fields left out."""
        return self.model_dump_json(exclude_unset=True)


class FacetModel(OLModel):
    """Base of `BaseFacet`: construction fills `_producer` and `_schemaURL`."""

    # Set by the generated metadata for every facet class: its versioned schema URL.
    __olsdk_schema_url__: ClassVar[str | None] = None

    def __init__(self, /, **data: Any) -> None:
        if "_producer" not in data and "producer" not in data:
            data["_producer"] = _producer
        if "_schemaURL" not in data and "schemaURL" not in data:
            url = type(self).__olsdk_schema_url__
            if url is not None:
                data["_schemaURL"] = url
        super().__init__(**data)

    # Tell pydantic this __init__ is for Python callers only: without the flag it
    # would also call it while validating parsed JSON, which would fill in what the
    # spec requires the sender to send (and cost a Python call per facet).
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]


class EventModel(OLModel):
    """Base of `BaseEvent`: construction fills `producer`, `schemaURL`, `eventTime`."""

    # Set by the generated metadata: the core spec's `$id`.
    __olsdk_core_id__: ClassVar[str] = ""

    def __init__(self, /, **data: Any) -> None:
        data.setdefault("producer", _producer)
        if "schemaURL" not in data:
            data["schemaURL"] = f"{type(self).__olsdk_core_id__}#/$defs/{type(self).__name__}"
        event_time = data.get("eventTime")
        if event_time is None:
            data["eventTime"] = utc_now()
        elif isinstance(event_time, _dt.datetime):
            if event_time.tzinfo is None:
                raise ValueError("eventTime: a datetime needs a time zone (the spec requires an offset)")
            data["eventTime"] = event_time.isoformat()
        super().__init__(**data)

    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]  # see FacetModel


class DeletedFacet(OLModel):
    """A facet sent as `{"_producer": ..., "_schemaURL": ..., "_deleted": true}`."""

    producer: Annotated[str, StringConstraints(pattern=URI_PATTERN)] | None = None
    schemaURL: Annotated[str, StringConstraints(pattern=URI_PATTERN)] | None = None
    deleted: bool = True

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
        super().__init__(**data)

    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]  # see FacetModel


def _is_deletion(value: Any) -> bool:
    return type(value) is dict and value.get("_deleted") is True


class FacetContainer(OLModel):
    """A typed facet map: spec keys are fields, every other key is kept by name.

    Validation itself stays in pydantic-core (a Python validator here would make
    pydantic turn every container's JSON into Python objects first, about half the
    parse time); what needs Python happens after it, only for the keys the spec does
    not define: `adopt_extras` turns deletion markers into `DeletedFacet` and
    registered keys into their classes. `olsdk.parse_event` and `__init__` call it.
    """

    # Set by the generated metadata: which entity's facets this container holds, and
    # the JSON keys of its typed fields.
    __olsdk_entity__: ClassVar[str] = ""
    __olsdk_keys__: ClassVar[frozenset[str]] = frozenset()
    # The typed fields whose facet class can carry `_deleted` (job and dataset facets).
    __olsdk_deletable__: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, /, **data: Any) -> None:
        # A deletion marker under a typed key cannot be validated as that key's facet
        # class: keep it aside and store it as a `DeletedFacet` under the key.
        deletions: dict[str, Any] = {}
        for key in list(data):
            value = data[key]
            if _is_deletion(value) or isinstance(value, DeletedFacet):
                deletions[self._alias_of(key)] = data.pop(key)
        super().__init__(**data)
        if deletions:
            entity = type(self).__olsdk_entity__
            self._extra().update({key: _kept_facet(entity, key, value) for key, value in deletions.items()})
            self.__pydantic_fields_set__.update(deletions)

    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]  # see FacetModel

    @classmethod
    def _alias_of(cls, key: str) -> str:
        field = cls.model_fields.get(key)
        return (field.alias or key) if field is not None else key

    def _extra(self) -> dict[str, Any]:
        extra = self.__pydantic_extra__
        if extra is None:  # pragma: no cover - containers always allow extra keys
            raise TypeError(f"{type(self).__name__} must allow extra keys")
        return extra

    def model_post_init(self, context: Any, /) -> None:
        # Runs after pydantic-core has built the container, on every path (parsed
        # JSON, dicts, keyword arguments): a Python hook here, unlike a validator,
        # does not make pydantic turn the container's JSON into Python objects first.
        if self.__pydantic_extra__ or type(self).__olsdk_deletable__:
            problems = self.adopt_extras()
            if problems:
                key, rule = problems[0]
                raise ValueError(f"facet {key!r}: {rule}")

    def adopt_extras(self) -> list[tuple[str, str]]:
        """Type what pydantic-core left untyped; return (key, problem) pairs.

        Keys the spec does not define become their registered class, a `DeletedFacet`,
        or stay plain data after a check that they are facets. A spec facet that
        arrived as a deletion marker (the spec lets `SchemaDatasetFacet` be sent with
        only `_deleted: true`) moves to a `DeletedFacet` under its key as well.
        """
        cls = type(self)
        if cls.__olsdk_deletable__:
            values = self.__dict__
            for name in self.__pydantic_fields_set__ & cls.__olsdk_deletable__:
                if getattr(values[name], "deleted", None) is True:
                    self._move_deletion(name)
        extra = self.__pydantic_extra__
        if not extra:
            return []
        problems: list[tuple[str, str]] = []
        entity = cls.__olsdk_entity__
        for key, value in extra.items():
            try:
                extra[key] = _kept_facet(entity, key, value)
            except ValueError as exc:
                problems.append((key, str(exc)))
        return problems

    def _move_deletion(self, name: str) -> None:
        value = self.__dict__[name]
        marker = DeletedFacet.model_validate(value.model_dump(mode="json", exclude_unset=True))
        self.__pydantic_fields_set__.discard(name)
        object.__setattr__(self, name, None)
        key = type(self).__pydantic_fields__[name].alias or name
        self._extra()[key] = marker
        self.__pydantic_fields_set__.add(key)

    # Mapping-style access by JSON key, for keys that are not Python names
    # (`spark.exception`, `environment-properties`) and for generic code.
    def _field_name(self, key: str) -> str | None:
        for name, info in type(self).model_fields.items():
            if (info.alias or name) == key:
                return name
        return None

    def __getitem__(self, key: str) -> Any:
        extra = self.__pydantic_extra__ or {}
        if key in extra:
            return extra[key]
        name = self._field_name(key)
        if name is not None and name in self.__pydantic_fields_set__:
            value = getattr(self, name)
            if value is not None:
                return value
        raise KeyError(key)

    def __setitem__(self, key: str, value: Any) -> None:
        name = self._field_name(key)
        if name is not None and not _is_deletion(value) and not isinstance(value, DeletedFacet):
            setattr(self, name, value)
            return
        self._extra()[key] = _kept_facet(type(self).__olsdk_entity__, key, value)
        self.__pydantic_fields_set__.add(key)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key in self.as_mapping()

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def as_mapping(self) -> dict[str, Any]:
        """Every facet present, by JSON key: typed facets, custom facets, plain data."""
        out: dict[str, Any] = {}
        for name, info in type(self).model_fields.items():
            if name in self.__pydantic_fields_set__:
                value = getattr(self, name)
                if value is not None:
                    out[info.alias or name] = value
        out.update(self.__pydantic_extra__ or {})
        return out

    def keys(self) -> Iterator[str]:
        return iter(self.as_mapping())

    def items(self) -> ItemsView[str, Any]:
        return self.as_mapping().items()

    def __len__(self) -> int:
        return len(self.as_mapping())


def _kept_facet(entity: str, key: str, value: Any) -> Any:
    """What an unknown key's value becomes: a deletion, a registered class, or itself."""
    if isinstance(value, BaseModel):
        return value
    if _is_deletion(value):
        return DeletedFacet.model_validate(value)
    facet_class = _registry.lookup(entity, key)
    if facet_class is not None:
        try:
            return facet_class.model_validate(value, by_alias=True, by_name=False)
        except PydanticValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            raise ValueError(
                f"does not match its registered class {facet_class.__name__}: {where or '(facet)'}: {first['msg']}"
            ) from None
    if not isinstance(value, Mapping):
        raise ValueError(f"a facet must be a JSON object, got {type(value).__name__}")
    for required in ("_producer", "_schemaURL"):
        if not isinstance(value.get(required), str):
            raise ValueError(f"lacks {required!r}, which every facet must have (BaseFacet)")
    return value


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [model for arg in getattr(annotation, "__args__", ()) for model in _models_in(arg)]


def bind_metadata(
    *,
    core_id: str,
    schema_urls: Mapping[Any, str],
    containers: Mapping[Any, str],
    facet_keys: Mapping[tuple[str, str], type[BaseModel]],
) -> None:
    """Attach the generated metadata to the generated classes (called once at import)."""
    EventModel.__olsdk_core_id__ = core_id
    for facet_class, url in schema_urls.items():
        if not (isinstance(facet_class, type) and issubclass(facet_class, FacetModel)):
            raise TypeError(f"schema URL given for {facet_class!r}, which is not a facet class")
        facet_class.__olsdk_schema_url__ = url
    for container, entity in containers.items():
        if not (isinstance(container, type) and issubclass(container, FacetContainer)):
            raise TypeError(f"{container!r} is not a facet container class")
        container.__olsdk_entity__ = entity
        container.__olsdk_keys__ = frozenset((info.alias or name) for name, info in container.model_fields.items())
        container.__olsdk_deletable__ = frozenset(
            name
            for name, info in container.model_fields.items()
            if any("deleted" in model.model_fields for model in _models_in(info.annotation))
        )
    for (entity, key), keyed_class in facet_keys.items():
        _registry.register_spec_facet(entity, key, keyed_class)
