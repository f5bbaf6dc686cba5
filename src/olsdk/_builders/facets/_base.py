"""Base classes for custom facets, and registration.

    class MyCompanyStatisticsRunFacet(
        CustomRunFacet,
        prefix="myCompany",
        schema_base_url="https://schemas.example.com/olfacets",
        version="1-0-0",
    ):
        rows: int

Defining the class checks its name (`_naming`), derives its key (`myCompany_statistics`)
and its schema URL (`<base>/<version>/<ClassName>.json#/$defs/<ClassName>`), and
registers it, so that parsed events carry it typed under its key.

Class keywords (pydantic passes keywords that are not `ConfigDict` keys on to
`__init_subclass__`, and to the hook it calls once the class is made):

- `prefix`, `schema_base_url`, `version`: inherited from the base class when not given,
  so a company-wide abstract base can fix them once;
- `key`: an explicit key instead of the derived one (the only way to override it);
- `schema_url`: an explicit schema URL, `<file URL>#/$defs/<ClassName>`;
- `abstract=True`: an intermediate base: no name check, no key, not registered, cannot be
  instantiated.

A subclass of a concrete custom facet is a new facet: its own name, key and schema URL;
only `prefix`, `schema_base_url` and `version` carry over.

What the JSON holds: every field set explicitly (by the caller or by the parsed JSON),
even when its value equals the field's default (`checksPassed=True` with a default of
True is written); a field left unset is left out, and so is a field set to None.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from pydantic import BaseModel, SerializationInfo, SerializerFunctionWrapHandler, model_serializer
from pydantic_core import PydanticUndefined

from olsdk._builders.facets import _naming
from olsdk._foundation import _registry
from olsdk._foundation._registry import FacetRegistry
from olsdk._models import (
    BaseFacet,
    DatasetFacet,
    InputDatasetFacet,
    JobFacet,
    OutputDatasetFacet,
    RunFacet,
)
from olsdk._models._runtime import built

_OPTIONS: Final = frozenset({"prefix", "schema_base_url", "version", "key", "schema_url", "abstract"})


def entity_of(facet_class: type[BaseModel]) -> str:
    """The entity kind a facet class attaches to (`run`, `job`, `dataset`, ...)."""
    return _registry.entity_of(facet_class)


class _CustomFacet:
    """Behaviour shared by the five custom facet bases (a mixin ahead of the spec base).

    Dumps write every value set explicitly, even one equal to its default; only fields
    left unset (or set to None) are left out.
    """

    __olsdk_facet_entity__: ClassVar[str] = ""
    __olsdk_facet_key__: ClassVar[str | None] = None
    __olsdk_prefix__: ClassVar[str | None] = None
    __olsdk_schema_base_url__: ClassVar[str | None] = None
    __olsdk_version__: ClassVar[str | None] = None
    __olsdk_abstract__: ClassVar[bool] = True

    def __init_subclass__(
        cls,
        *,
        prefix: str | None = None,
        schema_base_url: str | None = None,
        version: str | None = None,
        key: str | None = None,
        schema_url: str | None = None,
        abstract: bool = False,
        **kwargs: Any,
    ) -> None:
        # Runs inside type.__new__, before pydantic builds the fields: check everything
        # here so a bad class fails fast. Registration waits for the finished class.
        if kwargs:
            unknown = ", ".join(sorted(kwargs))
            raise TypeError(
                f"{cls.__name__}: unknown class keyword(s) {unknown}; a custom facet takes "
                f"{', '.join(sorted(_OPTIONS))} (and pydantic's ConfigDict keys)"
            )
        super().__init_subclass__()
        cls.__olsdk_facet_entity__ = entity_of(cls)  # type: ignore[arg-type]
        if prefix is not None:
            cls.__olsdk_prefix__ = _naming.check_prefix(prefix)
        if schema_base_url is not None:
            cls.__olsdk_schema_base_url__ = _naming.check_base_url(schema_base_url)
        if version is not None:
            cls.__olsdk_version__ = _naming.check_version(version)
        cls.__olsdk_abstract__ = abstract
        if abstract:
            if key is not None or schema_url is not None:
                raise TypeError(f"{cls.__name__}: an abstract facet base takes no key or schema_url")
            cls.__olsdk_facet_key__ = None
            cls.__olsdk_schema_url__ = None  # type: ignore[attr-defined]
            return
        entity = cls.__olsdk_facet_entity__
        if cls.__olsdk_prefix__ is None:
            raise TypeError(
                f"custom facet class {cls.__name__!r} has no prefix: pass prefix='yourProject' "
                f"(camelCase, named after the project defining the facet) to the class, or to "
                f"an abstract base it derives from"
            )
        name = _naming.split_class_name(cls.__name__, cls.__olsdk_prefix__, entity)
        cls.__olsdk_facet_key__ = (
            _naming.check_key(key) if key is not None else _naming.facet_key(cls.__olsdk_prefix__, name)
        )
        cls.__olsdk_schema_url__ = cls._own_schema_url(schema_url)  # type: ignore[attr-defined]

    @classmethod
    def _own_schema_url(cls, schema_url: str | None) -> str:
        """The explicit `schema_url`, or `<schema_base_url>/<version>/<ClassName>.json#/$defs/<ClassName>`."""
        if schema_url is not None:
            return _naming.check_schema_url(schema_url, cls.__name__)
        missing = [
            option
            for option, value in (
                ("schema_base_url", cls.__olsdk_schema_base_url__),
                ("version", cls.__olsdk_version__),
            )
            if value is None
        ]
        if missing:
            raise TypeError(
                f"custom facet class {cls.__name__!r} needs {' and '.join(missing)} to "
                "build its immutable schema URL <schema_base_url>/<version>/"
                f"{cls.__name__}.json#/$defs/{cls.__name__} (or an explicit schema_url=)"
            )
        return _naming.schema_url(str(cls.__olsdk_schema_base_url__), str(cls.__olsdk_version__), cls.__name__)

    @classmethod
    def __olsdk_class_made__(cls, **kwargs: Any) -> None:
        # Called once pydantic has made the model class, with the same keywords.
        if not cls.__olsdk_abstract__ and cls.__olsdk_facet_key__ is not None:
            facet_class: type[BaseModel] = cls  # type: ignore[assignment]
            # Built now, unlike the generated classes (built on first use): a field pydantic
            # cannot handle is an error where the facet is defined, and then not registered.
            built(facet_class)
            if _generated_from(cls) is None:
                _registry.DEFAULT.register(cls.__olsdk_facet_entity__, cls.__olsdk_facet_key__, facet_class)

    def __init__(self, /, **data: Any) -> None:
        if type(self).__olsdk_abstract__:
            raise TypeError(
                f"{type(self).__name__} is an abstract facet base: define a subclass named "
                "<Prefix><Name><Entity>Facet and instantiate that"
            )
        super().__init__(**data)

    @model_serializer(mode="wrap")
    def _write_set_values(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        # Dumps leave out values equal to their field's default (`exclude_defaults`): for
        # the spec's fields that default is None, "not sent". A custom field's other
        # default (`checksPassed: bool = True`) is a value the caller may set on purpose,
        # and then it is data: every explicitly set value is written back in here.
        out = handler(self)
        if not info.exclude_defaults or not isinstance(out, dict):
            return out
        fields = type(self).model_fields  # type: ignore[attr-defined]
        again = {
            name
            for name in self.model_fields_set  # type: ignore[attr-defined]
            if name in fields
            and fields[name].default not in (None, PydanticUndefined)
            and (fields[name].serialization_alias or fields[name].alias or name) not in out
            and name not in (info.exclude or ())
            and (info.include is None or name in info.include)
        }
        if again:
            # A dump without exclude_defaults: this serializer passes it through unchanged.
            dump = self.model_dump  # type: ignore[attr-defined]
            out.update(dump(mode=info.mode, include=again, by_alias=info.by_alias, warnings=False))
        return out


def _generated_from(cls: type[_CustomFacet]) -> type[BaseModel] | None:
    """The model class generated from this facet's exported schema, if these models hold one.

    Models generated with `codegen generate --extra-facets` from a producer's exported
    schemas hold a class for each of its facets, under the facet's key and with its schema
    URL: the same facet. Importing the producer's module then is no key conflict: its
    class is not registered (the generated class parses the key), and its instances are
    attached and written as any facet.
    """
    key = cls.__olsdk_facet_key__
    generated = _registry.spec_facet(cls.__olsdk_facet_entity__, key) if key is not None else None
    url = getattr(generated, "__olsdk_schema_url__", None)
    return generated if url is not None and url == getattr(cls, "__olsdk_schema_url__", None) else None


class CustomRunFacet(_CustomFacet, RunFacet, abstract=True):
    """Base of custom run facets: `class <Prefix><Name>RunFacet(CustomRunFacet, prefix=...)`."""


class CustomJobFacet(_CustomFacet, JobFacet, abstract=True):
    """Base of custom job facets: `class <Prefix><Name>JobFacet(CustomJobFacet, prefix=...)`."""


class CustomDatasetFacet(_CustomFacet, DatasetFacet, abstract=True):
    """Base of custom dataset facets: `<Prefix><Name>DatasetFacet`."""


class CustomInputDatasetFacet(_CustomFacet, InputDatasetFacet, abstract=True):
    """Base of custom input dataset facets: `<Prefix><Name>InputDatasetFacet`."""


class CustomOutputDatasetFacet(_CustomFacet, OutputDatasetFacet, abstract=True):
    """Base of custom output dataset facets: `<Prefix><Name>OutputDatasetFacet`."""


def is_custom(facet_class: type[Any]) -> bool:
    """Whether a class is a concrete custom facet (a non-abstract `Custom...Facet` subclass)."""
    return (
        isinstance(facet_class, type) and issubclass(facet_class, _CustomFacet) and not facet_class.__olsdk_abstract__
    )


def register_facet(
    facet_class: type[BaseFacet],
    *,
    key: str | None = None,
    entity: str | None = None,
    schema_url: str | None = None,
    registry: FacetRegistry | None = None,
) -> type[BaseFacet]:
    """Register a facet class made elsewhere so that events parse `key` into it.

    For classes that are not `Custom...Facet` subclasses: generated ones, hand-written
    `RunFacet` subclasses, or keys outside the naming convention (the Spark agent's
    `spark.exception`). `entity` defaults to the kind of the class's spec base; `key` is
    required unless the class is a custom facet (which registers itself on definition:
    this re-registers it after `unregister_facet`). `schema_url` sets the URL new
    instances get for `_schemaURL` when the class has none. `registry`: where to register
    it (default: the default registry, which readers given no registry use). Returns
    the class.

    A key that another class already holds for that entity raises `FacetKeyConflict`.
    """
    if schema_url is not None:
        _naming.check_schema_url(schema_url, facet_class.__name__)
        own = vars(facet_class).get("__olsdk_schema_url__")
        if own not in (None, schema_url):
            raise TypeError(f"{facet_class.__name__} already has schema URL {own!r}")
    (registry or _registry.DEFAULT).register_facet(facet_class, key=key, entity=entity)
    if schema_url is not None:
        facet_class.__olsdk_schema_url__ = schema_url
    return facet_class


def unregister_facet(facet_class: type[BaseFacet], *, registry: FacetRegistry | None = None) -> None:
    """Remove every registration of `facet_class` (custom registrations only) from
    `registry` (default: the default registry)."""
    (registry or _registry.DEFAULT).unregister_facet(facet_class)


def key_of(facet_class: type[BaseModel]) -> str:
    """The JSON key a facet class is carried under (custom, registered or spec facet;
    registered in any facet registry: the key is the class's, whichever registry reads it)."""
    if is_custom(facet_class):
        key: str = facet_class.__olsdk_facet_key__  # type: ignore[attr-defined]
        return key
    entity = entity_of(facet_class)
    keys = sorted(_registry.keys_of(facet_class, entity))
    if len(keys) != 1:
        why = "is not registered" if not keys else f"is registered under several keys ({keys})"
        raise LookupError(
            f"{facet_class.__name__} {why}; register it with "
            f"olsdk.facets.register_facet({facet_class.__name__}, key=...)"
        )
    return keys[0]
