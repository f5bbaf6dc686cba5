"""Records: the objects that repeat inside facets, as dicts with typed attributes.

A schema field, a column-lineage input field, a transformation: a full event holds
about 140 of them, most of what parsing, building and dumping it costs. As pydantic
models each needs a `__dict__` holding every field (absent ones as None), a set of the
fields sent and a dict of extra keys; as a dict holding only the keys sent, pydantic-core
builds one from JSON with its typed-dict validator and dumps it with its typed-dict
serializer: about a quarter cheaper to parse and 40% cheaper to dump than a model. (Parsed
into an olsdk model, a record stays the validated dict until the attribute holding it
is first read, see `_typed`: making the record's class from it would cost back most of
the parsing gain.)

`SchemaDatasetFacetFields(name="id", type="INT")` is such a dict (`field.name`,
`field["name"]` and `json.dumps(field)` all work), made by dict's C constructor: building
it runs no Python. It is checked where it is used, as a TypedDict would be: when a model
(or a record) holding it is built, by `model_validate`, and before its own dumps, exactly
as parsing checks it (strict JSON types, the spec's formats, extra keys as JSON values);
a problem names its path from the holder (`fields[3].name: must be string`). The holder
keeps a checked copy, with an optional field given as None left out, as the models do.
Checking records where they are held instead of in a Python constructor per record made
building a full event 20% cheaper (docs/explanation/benchmarks.md). A record is not a
`BaseModel`: `model_dump`, `model_dump_json`, `model_validate`, `model_copy`,
`model_fields`, `to_dict` and `to_json` are provided by name for code written against
the models.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import inspect
import operator
import typing
import warnings
from collections.abc import Iterator, Mapping
from types import MappingProxyType, UnionType
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, NotRequired, Self

from pydantic import ConfigDict, Field, GetCoreSchemaHandler, TypeAdapter, with_config
from pydantic import ValidationError as PydanticValidationError
from pydantic.errors import PydanticUndefinedAnnotation
from pydantic.fields import FieldInfo
from pydantic_core import CoreSchema, PydanticUndefined
from pydantic_core import core_schema as cs
from typing_extensions import TypedDict, dataclass_transform

from olsdk._foundation._exceptions import BUILT_TAG, OTHER_FORM, ValidationError
from olsdk._models._runtime._pydantic import (
    _exact_typed_dict,
    describe_field,
    held_reference,
    typed_dict_of,
    with_nullable_optionals,
)

__all__ = ["OLRecord"]


def _attribute(key: str, *, required: bool, deprecated: bool) -> property:
    # Reading is C code (a property over `itemgetter` / `dict.get`); setting None removes
    # an optional field, as "not sent" (a dump never writes `null` for it).
    def set_value(record: dict[str, Any], value: Any) -> None:
        if value is None and not required:
            record.pop(key, None)
        else:
            record[key] = value

    read: Any = operator.itemgetter(key) if required else operator.methodcaller("get", key)
    if deprecated:
        plain_read = read

        def read(record: dict[str, Any]) -> Any:
            warnings.warn(f"{key!r} is deprecated by the spec", DeprecationWarning, stacklevel=2)
            return plain_read(record)

    return property(read, set_value, doc=f"The record's {key!r}.")


def _typing_attribute(key: str, shape: str, record: type, *, required: bool) -> property:
    """The attribute of a record's key that holds records: types them on first read."""
    plain = _attribute(key, required=required, deprecated=False)

    def read(holder: dict[str, Any]) -> Any:
        return _typed_in(holder, key, holder.get(key), shape, record)

    return property(read, plain.fset, doc=plain.__doc__)


def _type_ref(cls: type, *, lazy: bool) -> str:
    kind = "olsdk-record-lazy" if lazy else "olsdk-record"
    return f"{kind}:{cls.__module__}.{cls.__qualname__}:{id(cls)}"


# (record class, lazy) pairs whose schema is being built: a record that holds its own
# kind (a schema field's nested `fields`) refers to the schema being built instead.
_building: set[tuple[type, bool]] = set()
# Reference of a lazy record schema -> its record class (`_held_records` reads them).
_lazy_refs: dict[str, type[OLRecord]] = {}
# Above zero while a holder that types its records on first read (an olsdk model, see
# `records_typed_on_first_read`) builds its schema.
_lazy_depth = 0


# -- records parsed from JSON: plain dicts until first read --------------------------------
#
# Turning the dict pydantic-core validated into the record's class costs a third of
# parsing the record (dict's constructor copies it). In olsdk's models and records the
# JSON path stops at the validated dict; the attribute that holds records gives them
# their class the first time it is read, in place (`_typed`), so `facet.fields[0].name`
# works as it reads, and dumps, equality and copies see dicts either way.


def _typed(value: Any, shape: str, record: type) -> Any:
    """`value` (a list of records, a map of them, or one) with its plain dicts made
    records, in place; the check is one `type()` call once that is done."""
    make = type.__call__
    if shape == "list":
        if type(value) is list and value and type(value[0]) is dict:
            for index, item in enumerate(value):
                if type(item) is dict:
                    value[index] = make(record, item)
    elif shape == "map":
        if type(value) is dict and value and type(next(iter(value.values()))) is dict:
            for key, item in value.items():
                if type(item) is dict:
                    value[key] = make(record, item)
    elif type(value) is dict:
        value = make(record, value)
    return value


def _typed_in(holder: dict[str, Any], key: str, value: Any, shape: str, record: type) -> Any:
    """`_typed(value)`, stored back under `key` of `holder` when it is a new object."""
    typed = _typed(value, shape, record)
    if typed is not value:
        holder[key] = typed
    return typed


class _LazyRecords:
    """The attribute of a model field that holds records: types them on first read.

    A data descriptor, so it is asked before the instance `__dict__` (where pydantic
    keeps the field's value, and writes it on assignment)."""

    __slots__ = ("name", "record", "shape")

    def __init__(self, name: str, shape: str, record: type) -> None:
        self.name, self.shape, self.record = name, shape, record

    def __get__(self, obj: Any, owner: type) -> Any:
        if obj is None:
            raise AttributeError(self.name)  # as for any field of a model class
        values = obj.__dict__
        try:
            value = values[self.name]
        except KeyError:
            return obj.__getattr__(self.name)  # kept as an extra key, or not sent (lenient)
        return _typed_in(values, self.name, value, self.shape, self.record)

    def __set__(self, obj: Any, value: Any) -> None:
        obj.__dict__[self.name] = value


def _held_records(schema: Any) -> tuple[str, type] | None:
    """(shape, record class) when a field's schema holds records the lazy way."""
    held = held_reference(schema)
    record = _lazy_refs.get(held[1]) if held is not None else None
    return (held[0], record) if held is not None and record is not None else None


def _held_in(hint: Any) -> tuple[str, type] | None:
    """(shape, record class) when a record's key is typed as a record, or a list or map
    of them, optional or not: the keys whose records parsing leaves as dicts (the shapes
    `_held_records` finds in a schema)."""
    hint = _unwrapped(hint, optional=True)
    shape = "one"
    if typing.get_origin(hint) is list:
        shape, hint = "list", typing.get_args(hint)[0]
    elif typing.get_origin(hint) is dict:
        shape, hint = "map", typing.get_args(hint)[1]
    hint = _unwrapped(hint, optional=False)
    return (shape, hint) if isinstance(hint, type) and issubclass(hint, OLRecord) else None


def _unwrapped(hint: Any, *, optional: bool) -> Any:
    """`hint` without `Annotated[...]` and `NotRequired[...]` (and, if `optional`, without
    `| None`)."""
    while True:
        if typing.get_origin(hint) in (typing.Annotated, NotRequired):
            hint = typing.get_args(hint)[0]
            continue
        args = typing.get_args(hint)
        if optional and type(None) in args and len(args) == 2 and typing.get_origin(hint) in (typing.Union, UnionType):
            hint = next(arg for arg in args if arg is not type(None))
            continue
        return hint


@contextlib.contextmanager
def records_typed_on_first_read() -> Iterator[None]:
    """While an olsdk model builds its schema: the records in it stay the dicts
    pydantic-core validated (the model's fields then read through `_LazyRecords`, see
    `type_on_first_read`)."""
    global _lazy_depth
    _lazy_depth += 1
    try:
        yield
    finally:
        _lazy_depth -= 1


def type_on_first_read(cls: type, fields: dict[str, Any]) -> None:
    """Give each field of `cls` that holds records (`fields`: name -> its schema's field
    node) an attribute that types them on first read."""
    for name, field in fields.items():
        held = _held_records(field["schema"])
        if held is not None:
            setattr(cls, name, _LazyRecords(name, *held))


class _RecordType(type):
    """The metaclass of records: `model_fields` on the class, as on a model.

    Calling a record class is dict's C constructor: `SchemaDatasetFacetFields(name="id")`
    runs no Python. The record is checked where it is used (see `OLRecord`).
    """

    if not TYPE_CHECKING:  # (type checkers see the fields as `__init__`'s keywords)

        @property
        def model_fields(cls) -> dict[str, FieldInfo]:
            """The record's fields as pydantic describes a model's (made on first use)."""
            return _field_infos(cls)


_adapters: dict[type, TypeAdapter[Any]] = {}


def _adapter(cls: type) -> TypeAdapter[Any]:
    adapter = _adapters.get(cls)
    if adapter is None:
        adapter = _adapters[cls] = TypeAdapter(cls)
    return adapter


def _deprecated(annotation: Any) -> bool:
    """Whether a record field's annotation marks it deprecated (`Field(deprecated=True)`),
    read from its metadata: the text of an `Annotated` costs a repr of every `FieldInfo`."""
    if isinstance(annotation, str):  # a forward reference, still text
        return "deprecated=True" in annotation
    return any(getattr(meta, "deprecated", None) is True for meta in getattr(annotation, "__metadata__", ()))


@dataclass_transform(kw_only_default=True, field_specifiers=(Field,))
class OLRecord(dict[str, Any], metaclass=_RecordType):
    """A record that repeats inside facets: a dict of its JSON keys, with typed attributes."""

    __slots__ = ()

    # As on the models: `extra` says what becomes of keys the spec does not define
    # ("allow": kept, the default; "forbid" where the spec says additionalProperties: false).
    # Declared for type checkers only: in this module an annotation is text, which
    # `_typed_dict` (`typing.get_type_hints`) would evaluate again for every record class.
    if TYPE_CHECKING:
        model_config: ClassVar[ConfigDict]
        __olsdk_fields__: ClassVar[tuple[str, ...]]
        __olsdk_required__: ClassVar[frozenset[str]]
        __olsdk_field_docs__: ClassVar[Mapping[str, tuple[str | None, list[object] | None]]]
    model_config = ConfigDict(extra="allow")
    # The record's field names (its JSON keys), in definition order, and the required ones.
    __olsdk_fields__ = ()
    __olsdk_required__ = frozenset()
    # Field -> (description, examples), for the schema (given by `bind_metadata`).
    __olsdk_field_docs__ = MappingProxyType({})

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = inspect.get_annotations(cls)
        required = set(cls.__olsdk_required__)
        for name in own:
            default = cls.__dict__.get(name, PydanticUndefined)
            if default is PydanticUndefined:
                required.add(name)
            else:
                required.discard(name)
            setattr(cls, name, _attribute(name, required=name in required, deprecated=_deprecated(own[name])))
        cls.__olsdk_fields__ = tuple(dict.fromkeys([*cls.__olsdk_fields__, *own]))
        cls.__olsdk_required__ = frozenset(required)

    # -- the schema pydantic-core builds records with ------------------------------------

    @classmethod
    def _typed_dict(cls) -> Any:
        """The record's fields as a TypedDict (made once): pydantic's schema for it has the
        field types, descriptions and examples, and the docstring, for JSON Schema too."""
        typed: Any = cls.__dict__.get("_olsdk_typed_dict")
        if typed is None:
            try:
                hints = typing.get_type_hints(cls, include_extras=True)
            except NameError as exc:
                raise PydanticUndefinedAnnotation.from_name_error(exc) from exc
            fields = {
                name: hints[name] if name in cls.__olsdk_required__ else NotRequired[hints[name]]
                for name in cls.__olsdk_fields__
            }
            for name, docs in cls.__olsdk_field_docs__.items():
                if name in fields and docs != (None, None):
                    described: FieldInfo = Field()
                    describe_field(described, *docs)
                    fields[name] = Annotated[fields[name], described]
            typed = typing.cast(Any, TypedDict)(cls.__name__, fields)
            typed.__doc__ = cls.__doc__
            typed.__module__ = cls.__module__
            typed = with_config(ConfigDict(extra=cls.model_config.get("extra", "allow")))(typed)
            type.__setattr__(cls, "_olsdk_typed_dict", typed)
        return typed

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler, /) -> CoreSchema:
        # Inside an olsdk model (or record), parsed JSON stays the validated dict until
        # first read (see `_typed`); elsewhere (a TypeAdapter, a user's own model) the
        # record is made at once.
        lazy = _lazy_depth > 0
        ref = _type_ref(cls, lazy=lazy)
        if (cls, lazy) in _building:
            return cs.definition_reference_schema(ref)
        _building.add((cls, lazy))
        try:
            # pydantic keeps a TypedDict's schema among its definitions: take it out of
            # there (a reference costs a lookup per record).
            fields = typed_dict_of(handler, cls._typed_dict())
        finally:
            _building.discard((cls, lazy))
        _exact_typed_dict(fields, handler)
        if lazy:
            _lazy_refs[ref] = cls
        # The validated dict becomes a record through dict's C constructor.
        make = functools.partial(type.__call__, cls)
        from_dict = cs.no_info_after_validator_function(make, fields)
        # Python input is a plain dict or a record built in Python, which dict's C
        # constructor made unchecked: it is checked here, where a model (or a record)
        # holds it. pydantic-core reads a dict subclass through the mapping protocol, at
        # twice the cost of a dict: `dict.copy` (C code, and cheaper than `dict()`) makes
        # it a plain dict first, once `a_dict` has made sure it is one.
        copied = cs.no_info_plain_validator_function(dict.copy)
        a_dict = cs.custom_error_schema(cs.is_instance_schema(dict), "dict_type")
        checked = cs.chain_schema([a_dict, copied, fields if lazy else from_dict])
        # A record built in Python may hold None for an optional field ("not sent", as a
        # model's keyword argument): left out. Tried second, so a record without one pays
        # nothing for it; a plain dict is refused `null` as JSON is (`OTHER_FORM`).
        nullable, optional = with_nullable_optionals(fields)
        drop = functools.partial(_without_none, None if lazy else make, optional)
        with_none = cs.chain_schema(
            [
                cs.custom_error_schema(cs.is_instance_schema(cls), OTHER_FORM, custom_error_message="not a record"),
                copied,
                cs.no_info_after_validator_function(drop, nullable),
            ]
        )
        return cs.json_or_python_schema(
            json_schema=fields if lazy else from_dict,
            # (Union tags are not part of an error's path; `ValidationError.from_pydantic`
            # keeps the second member's errors when both report on a record, see BUILT_TAG.)
            python_schema=cs.union_schema(
                [(checked, cls.__name__), (with_none, cls.__name__ + BUILT_TAG)], mode="left_to_right"
            ),
            ref=ref,
        )

    # -- what the models offer, by name ---------------------------------------------------

    if TYPE_CHECKING:
        model_fields: ClassVar[dict[str, FieldInfo]]
    else:

        def __getattr__(self, name: str) -> Any:
            # Extra keys read as attributes too, as on the models.
            if name.startswith("__"):
                raise AttributeError(name)
            try:
                return self[name]
            except KeyError:
                raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}") from None

    @classmethod
    def model_rebuild(cls, **_options: Any) -> bool:
        """Resolve the field annotations now, once the classes they name exist (`olsdk.models`
        calls this for every record at import), and give each key that holds records an
        attribute that types them on first read: no schema needs to be built for a record
        made in Python to read `field.fields[0].name`."""
        try:
            hints = typing.get_type_hints(cls)
        except NameError as exc:
            raise PydanticUndefinedAnnotation.from_name_error(exc) from exc
        for key in cls.__olsdk_fields__:
            held = _held_in(hints[key])
            if held is not None:
                setattr(cls, key, _typing_attribute(key, *held, required=key in cls.__olsdk_required__))
        return True

    @classmethod
    def model_validate(cls, data: Any) -> Self:
        return cls._validated(data, json=False)

    @classmethod
    def model_validate_json(cls, data: str | bytes | bytearray) -> Self:
        return cls._validated(data, json=True)

    @classmethod
    def _validated(cls, data: Any, *, json: bool) -> Self:
        validator = _adapter(cls).validator
        try:
            built: Self = validator.validate_json(data) if json else validator.validate_python(data)
        except PydanticValidationError as exc:
            # From Python, the record's own validator names the union member it tried (the class name).
            raise ValidationError.from_pydantic(
                exc, title=f"invalid {cls.__name__}", leading_tag=cls.__name__
            ) from None
        return built

    @classmethod
    def model_json_schema(cls) -> dict[str, Any]:
        return _adapter(cls).json_schema()

    # Dumps check the record first, as a model holding it would: a record built in
    # Python is not checked until then (None values "not sent" are left out).

    def model_dump(self, *, mode: Literal["json", "python"] = "python", **options: Any) -> dict[str, Any]:
        dumped: dict[str, Any] = _adapter(type(self)).dump_python(self.model_validate(self), mode=mode, **options)
        return dumped

    def model_dump_json(self, **options: Any) -> str:
        return _adapter(type(self)).dump_json(self.model_validate(self), **options).decode()

    def model_copy(self, *, deep: bool = False) -> Self:
        return copy.deepcopy(self) if deep else copy.copy(self)

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of this record (checked first)."""
        return self.model_dump(mode="json")

    def to_json(self) -> str:
        """Compact JSON of this record (checked first)."""
        return self.model_dump_json()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.items())})"

    def __copy__(self) -> Self:
        made = dict.__new__(type(self))
        dict.update(made, self)
        return made

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        made = dict.__new__(type(self))
        memo[id(self)] = made
        dict.update(made, copy.deepcopy(dict(self), memo))
        return made


_infos: dict[type, dict[str, FieldInfo]] = {}


def _field_infos(cls: type[OLRecord]) -> dict[str, FieldInfo]:
    """`model_fields` of a record class (resolved on first use: the annotations name
    classes the generated module defines further down)."""
    infos = _infos.get(cls)
    if infos is None:
        hints = typing.get_type_hints(cls, include_extras=True)
        infos = _infos[cls] = {
            name: FieldInfo.from_annotated_attribute(
                hints[name], PydanticUndefined if name in cls.__olsdk_required__ else None
            )
            for name in cls.__olsdk_fields__
        }
    return infos


def _without_none(make: Any, optional: frozenset[str], validated: dict[str, Any]) -> Any:
    """A record's validated dict without the optional fields a Python caller gave None
    for ("not sent"; an extra key keeps its JSON null), made a record (`make`) unless its
    holder types it on first read."""
    kept = {key: value for key, value in validated.items() if value is not None or key not in optional}
    return kept if make is None else make(kept)
