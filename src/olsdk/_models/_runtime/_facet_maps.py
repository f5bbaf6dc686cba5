"""The typed facet maps (`RunFacets`, `DatasetFacets`, ...) and the metadata bound to them.

A map holds only the keys sent (in `root`). Keys the spec defines are typed attributes;
any other key is kept under its own name, as the registered custom facet class for that
key when there is one, else as plain data. A facet sent as `{"_deleted": true}` becomes
a `DeletedFacet` whatever its key. `bind_metadata` attaches the generated metadata
(schema URLs, the entity table, the spec's facet keys) to the generated classes.
"""

from __future__ import annotations

import copy
import inspect
import sys
import warnings
from collections.abc import ItemsView, Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Self

from pydantic import BaseModel, GetCoreSchemaHandler
from pydantic import ValidationError as PydanticValidationError
from pydantic_core import CoreSchema
from pydantic_core import core_schema as cs

from olsdk._foundation import _registry
from olsdk._foundation._exceptions import OTHER_FORM, ValidationError
from olsdk._foundation._exceptions import models_in as _models_in
from olsdk._foundation._formats import URI_PATTERN
from olsdk._models._runtime import _pydantic
from olsdk._models._runtime._bases import (
    DeletedFacet,
    EventModel,
    FacetModel,
    OLModel,
    _construct,
    built,
    resolve_fields,
)
from olsdk._models._runtime._pydantic import _anything_but_true, _json_value, _not_a_marker
from olsdk._models._runtime._records import OLRecord

# A facet map keeps the spec's keys as its field names: `DatasetFacets.schema` shadows the
# deprecated `BaseModel.schema()` on purpose, which pydantic warns about whenever the class
# is made (however its module is imported).
warnings.filterwarnings(
    "ignore",
    message=r'Field name "schema" in "\w+" shadows an attribute in parent "FacetContainer"',
    category=UserWarning,
)


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
    if TYPE_CHECKING:  # declared for type checkers only: see `OLModel`
        __olsdk_entity__: ClassVar[str]
        __olsdk_keys__: ClassVar[frozenset[str]]
    __olsdk_entity__ = ""
    __olsdk_keys__ = frozenset()
    # What pydantic-core calls on every map it builds (`post_init` in its schema): `id`,
    # a C function that ignores its argument, while no custom facet is registered for
    # the entity; `_type_registered_facets` while one is (see `_custom_facets_changed`).
    if TYPE_CHECKING:
        __olsdk_post_init__: ClassVar[Any]
    __olsdk_post_init__ = id

    if TYPE_CHECKING:  # (a property for type checkers: no `root=` in `__init__`)

        @property
        def root(self) -> dict[str, Any]:
            """The facets present, by JSON key (the map's own dict)."""

    @_pydantic.python_callers_only  # see FacetModel
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

    @classmethod
    def __olsdk_class_made__(cls, **kwargs: Any) -> None:
        super().__olsdk_class_made__(**kwargs)
        # Each typed key reads from `root` (the field names are the spec's keys, see
        # `_facet_map_schema`), from the moment the class exists: before it is built too.
        for name in cls.model_fields:
            setattr(cls, name, _FacetAttribute(name))

    @classmethod
    def __get_pydantic_core_schema__(cls, source: type[BaseModel], handler: GetCoreSchemaHandler, /) -> CoreSchema:
        if _pydantic.building_light(handler) and _pydantic.schema_made(cls, handler) is None:
            return _light_map_schema(cls, handler)
        return super().__get_pydantic_core_schema__(source, handler)

    @classmethod
    def __olsdk_finish_schema__(cls, schema: Any, handler: GetCoreSchemaHandler, /) -> None:
        if "__olsdk_finish_schema__" not in cls.__dict__:  # the generated maps, not this base
            _facet_map_schema(schema, cls, handler)

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
        field = type(self).model_fields.get(name)
        self[(field.alias or name) if field is not None else name] = value

    def __delitem__(self, key: str) -> None:
        del self.root[key]

    def __contains__(self, key: object) -> bool:
        return key in self.root

    def get(self, key: str, default: Any = None) -> Any:
        return self.root.get(key, default)

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
        built(type(self))  # (copies and `model_construct` come here too)
        _pydantic.restore(self, {"root": state["root"]}, {"root"})

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


# pydantic-core builds a map as a root model (`root` in `__dict__`) and leaves its extra
# keys and private values unset; pydantic's methods read them.
_pydantic.without_extra_and_private(FacetContainer)


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
        custom_error_context={"error": "must be object (a facet is a JSON object)"},
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
    base = _entity_base_of(cls)
    json_value = _json_value(handler)
    marker = _marker_schema(base, json_value, handler)
    typed = _typed_keys(schema, cls, marker)
    # Only the keys sent: a typed dict, held as the model's `root` (see FacetContainer).
    extras = _other_keys(_facet_check(base, json_value), marker)
    typed_dict = cs.typed_dict_schema(typed, extra_behavior="allow", extras_schema=extras)
    _pydantic.hold_as_root_dict(schema, cls, typed_dict, post_init="__olsdk_post_init__")


def _light_map_schema(cls: type[BaseModel], handler: GetCoreSchemaHandler) -> CoreSchema:
    """A facet map's schema in a light validator (see `_pydantic.light_validator`): that of
    `_facet_map_schema`, except that each typed key takes only an instance of its facet
    class, as it is, and leaves any other value to the full schema. The facet classes'
    schemas are not made."""
    base = _entity_base_of(cls)
    json_value = _json_value(handler)
    typed = {
        name: cs.typed_dict_field(_facet_as_built(info.annotation), required=False)
        for name, info in cls.model_fields.items()
    }
    extras = _other_keys(_facet_check(base, json_value), _marker_schema(base, json_value, handler))
    typed_dict = cs.typed_dict_schema(typed, extra_behavior="allow", extras_schema=extras)
    return _pydantic.light_model_schema(cls, typed_dict, post_init="__olsdk_post_init__")


def _facet_as_built(annotation: Any) -> CoreSchema:
    """A typed key in a light schema: an instance of the key's facet class (or of a subclass)
    is kept as it is, as the class's schema keeps it (instances are not validated again, in
    pydantic-core); any other value, or any value of a class whose schema checks instances
    too (`dependentRequired`), needs the full schema."""
    classes = _models_in(annotation)
    facet_class = classes[0] if len(classes) == 1 and issubclass(classes[0], FacetModel) else None
    if facet_class is not None and facet_class.__name__ in getattr(
        sys.modules.get(facet_class.__module__), "DEPENDENT_REQUIRED", {}
    ):
        facet_class = None
    needs_full = cs.no_info_plain_validator_function(_needs_full)
    if facet_class is None:
        return cs.union_schema([needs_full], serialization=_by_value())
    return cs.union_schema(
        [cs.is_instance_schema(facet_class), needs_full], mode="left_to_right", serialization=_by_value()
    )


def _needs_full(value: Any) -> Any:
    raise _pydantic.NeedsFullSchema


# Class -> whether its schema holds a facet map (`_holds_maps`).
_HOLDS_MAPS: dict[type, bool] = {}


def _holds_maps(cls: type) -> bool:
    """Whether `cls` is a facet map or holds one in its fields (or theirs): only then does a
    light validator leave out anything (see `_pydantic.light_validator`)."""
    known = _HOLDS_MAPS.get(cls)
    if known is None:
        known = _HOLDS_MAPS[cls] = _reaches_map(cls, set())
    return known


def _reaches_map(cls: type, seen: set[type]) -> bool:
    if issubclass(cls, FacetContainer):
        return True
    if not issubclass(cls, BaseModel):
        return False
    seen.add(cls)
    return any(
        _reaches_map(held, seen)
        for info in cls.model_fields.values()
        for held in _models_in(info.annotation)
        if held not in seen
    )


_pydantic.use_light_schemas(_holds_maps)


# Each value is dumped by its own class (any-serialization): a union serializer would
# first try it against each member (and a marker or a leniently kept dict may sit anywhere).
def _by_value() -> cs.SerSchema:
    return cs.simple_ser_schema("any")


def _marker_schema(base: type[BaseModel] | None, json_value: CoreSchema, handler: GetCoreSchemaHandler) -> CoreSchema:
    """A deletion marker under any key, as a `DeletedFacet`. Its own errors are left out
    (`OTHER_FORM`): a marker that fails is not a facet either, and that alternative
    reports the same problems."""
    return cs.custom_error_schema(
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


def _typed_keys(schema: Any, cls: type[BaseModel], marker: CoreSchema) -> dict[str, cs.TypedDictField]:
    """The spec's keys of a map, each its facet class (or a marker where it may be deleted)."""
    typed: dict[str, cs.TypedDictField] = {}
    for name, field in _pydantic.field_schemas(schema, cls).items():
        key = field.get("validation_alias", name)
        if key != name:  # pragma: no cover - the generator keeps spec keys as field names
            raise TypeError(f"{cls.__name__}.{name}: a facet map's typed key must be its field name ({key!r})")
        facet = _pydantic.without_default(field)
        if any("deleted" in model.model_fields for model in _models_in(cls.model_fields[name].annotation)):
            facet = cs.union_schema([(facet, "Facet"), (marker, "DeletedFacet")], mode="left_to_right")
        typed[key] = cs.typed_dict_field(
            cs.union_schema([facet], serialization=_by_value()), required=False, metadata=field.get("metadata")
        )
    return typed


def _other_keys(check: CoreSchema, marker: CoreSchema) -> CoreSchema:
    """Keys the spec does not define: a facet (or a model built in Python), or a marker."""
    built = cs.custom_error_schema(cs.is_instance_schema(BaseModel), OTHER_FORM, custom_error_message="not a model")
    return cs.json_or_python_schema(
        json_schema=cs.union_schema([(check, "Facet"), (marker, "DeletedFacet")], mode="left_to_right"),
        python_schema=cs.union_schema(
            [(built, "Model"), (check, "Facet"), (marker, "DeletedFacet")],
            mode="left_to_right",
        ),
        serialization=_by_value(),
        # In JSON Schema a facet map's other keys stay "any value", as before.
        metadata={"pydantic_js_functions": [lambda _schema, _handler: {}]},
    )


# The validation context key under which the readers pass the facet registry they were
# given (`parse_event(data, registry=...)`); without it a map uses the default registry.
REGISTRY_CONTEXT = "olsdk_facet_registry"


def registry_context(registry: _registry.FacetRegistry | None) -> dict[str, Any] | None:
    """The validation context that makes facet maps use `registry` (None: the default)."""
    return None if registry is None or registry is _registry.DEFAULT else {REGISTRY_CONTEXT: registry}


def _type_registered_facets(self: FacetContainer, context: Any, /) -> None:
    """The post-init hook while a custom facet class is registered for the map's entity
    in some registry: the keys the reader's registry holds become their classes
    (pydantic-core has checked they hold facets)."""
    facets = self.root
    if not facets:
        return
    registry = context.get(REGISTRY_CONTEXT, _registry.DEFAULT) if type(context) is dict else _registry.DEFAULT
    entity = type(self).__olsdk_entity__
    for key, value in facets.items():
        if type(value) is not dict:
            continue  # a spec facet, a marker, or an object built in Python
        if registry.lookup(entity, key) is None:
            continue
        try:
            facets[key] = _kept_facet(entity, key, value, registry)
        except ValueError as exc:
            raise ValueError(f"facet {key!r}: {exc}") from None


# Entity -> its facet map classes (one each today), for `_custom_facets_changed`.
_CONTAINERS: dict[str, list[type[FacetContainer]]] = {}


def _custom_facets_changed(entity: str) -> None:
    hook = _type_registered_facets if _registry.any_custom(entity) else id
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
        base.model_validate(value)
    except PydanticValidationError as exc:
        problem = ValidationError.from_pydantic(exc, model=base).problems[0]
        if problem.rule == "required field missing":
            raise ValueError(f"lacks {problem.path!r}, which every facet must have ({base.__name__})") from None
        raise ValueError(f"{problem.path}: {problem.rule}" if problem.path else problem.rule) from None


def _kept_facet(entity: str, key: str, value: Any, registry: _registry.FacetRegistry = _registry.DEFAULT) -> Any:
    """What an unknown key's value becomes: a deletion, a registered class, or itself."""
    if isinstance(value, DeletedFacet):
        if value.schemaURL is None and entity in _ENTITY_BASES:
            # Built in Python: a marker names the schema of what it deletes, its entity's base facet.
            value.schemaURL = getattr(_ENTITY_BASES[entity], "__olsdk_schema_url__", None)  # (now a field set)
        return value
    if isinstance(value, BaseModel):
        return value
    if _is_deletion(value):
        # (The base facet refuses `_deleted: true`: that is what makes this a marker.)
        _check_base(entity, {k: v for k, v in value.items() if k != "_deleted"})
        return DeletedFacet.model_validate(value)
    facet_class = registry.lookup(entity, key)
    if facet_class is not None:
        try:
            return facet_class.model_validate(value)
        except PydanticValidationError as exc:
            first = ValidationError.from_pydantic(exc, model=facet_class).problems[0]
            raise ValueError(
                f"does not match the facet class registered for this key: {first.path or '(facet)'}: {first.rule}"
            ) from None
    if not isinstance(value, Mapping):
        raise ValueError("must be object (a facet is a JSON object)")
    _check_base(entity, value)
    return value


def _describe_fields(
    cls: type[OLRecord] | type[BaseModel],
    module: str,
    field_docs: Mapping[str, Mapping[str, tuple[str | None, list[object] | None]]],
) -> None:
    """Each field of `cls` gets the description and examples of the class that declares
    it (`cls` or a generated class above it): a record keeps them for its schema, a
    model's fields take them."""
    docs: dict[str, tuple[str | None, list[object] | None]] = {}
    for holder in reversed(cls.__mro__):  # the nearest declaration wins
        if holder.__module__ == module:
            table = field_docs.get(holder.__name__, {})
            docs.update((name, table.get(name, (None, None))) for name in inspect.get_annotations(holder))
    if issubclass(cls, OLRecord):
        type.__setattr__(cls, "__olsdk_field_docs__", docs)
        return
    for name, info in cls.model_fields.items():
        if name in docs:
            _pydantic.describe_field(info, *docs[name])


def bind_metadata(
    *,
    core_id: str,
    schema_urls: Mapping[Any, str],
    entities: Mapping[str, tuple[type[BaseModel], type[BaseModel], type[BaseModel], str]],
    facet_keys: Mapping[tuple[str, str], type[BaseModel]],
    module: str,
    field_docs: Mapping[str, Mapping[str, tuple[str | None, list[object] | None]]],
) -> None:
    """Attach the generated metadata to the generated classes of `module`, and finish
    them (called once, at the end of the generated module).

    `entities` is the generated entity table: entity -> (base facet, facet map class,
    the class holding the map, its field). The classes build their validators on first use
    (`defer_build`); what they can say without one is finished here: the fields that name
    classes defined further down the module, and the fields of the records (all a record
    made in Python needs to read the records it holds). `field_docs` (class -> field ->
    (description, examples)) is given to the fields once they are resolved: resolving a
    field makes it anew from its annotation.
    """
    classes = [cls for cls in vars(sys.modules[module]).values() if isinstance(cls, type) and cls.__module__ == module]
    for cls in classes:
        if issubclass(cls, OLRecord):
            cls.model_rebuild()
        elif issubclass(cls, BaseModel):
            resolve_fields(cls)
    for cls in classes:
        if issubclass(cls, OLRecord | BaseModel):
            _describe_fields(cls, module, field_docs)
    EventModel.__olsdk_core_id__ = core_id
    _registry.define_entities({entity: row[0] for entity, row in entities.items()})
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
