"""``StructType`` -> ``SchemaDatasetFacet``, in pure Python (no JVM needed).

The Java agent writes ``DataType.typeName()`` of the JVM for each field, nesting struct
fields, map ``key``/``value`` and array ``_element`` as sub-fields. PySpark's own
``typeName()`` differs from the JVM's for parameterised types (``decimal`` vs
``decimal(10,2)``, ``daytimeinterval`` vs ``interval day to second``); the JSON form of
an atomic type is exactly the JVM's ``typeName`` (the JVM defines ``jsonValue`` as
``typeName``), so that is what we use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pyspark.sql.types import ArrayType, DataType, MapType, StructField, StructType

from olsdk._models import SchemaDatasetFacet

if TYPE_CHECKING:
    from olsdk._models import SchemaDatasetFacetFields

__all__ = ["jvm_type_name", "schema_facet", "schema_fields"]


def jvm_type_name(data_type: DataType) -> str:
    """The name the JVM's ``DataType.typeName()`` gives ``data_type``."""
    if isinstance(data_type, StructType):
        return "struct"
    if isinstance(data_type, MapType):
        return "map"
    if isinstance(data_type, ArrayType):
        return "array"
    value: Any = data_type.jsonValue()
    # A user-defined type serialises to a dict; its typeName is the best we have.
    return value if isinstance(value, str) else data_type.typeName()


# Fields are built as JSON data and typed by the facet: the class of a field is named
# `SchemaDatasetFacetFields` from spec 1.12.0 on and `SchemaDatasetFacetField` before.
def _field(name: str, data_type: DataType, description: str | None) -> dict[str, Any]:
    nested = _nested(data_type)
    field: dict[str, Any] = {"name": name, "type": jvm_type_name(data_type)}
    if description:
        field["description"] = description
    if nested is not None:
        field["fields"] = nested
    return field


def _nested(data_type: DataType) -> list[dict[str, Any]] | None:
    if isinstance(data_type, StructType):
        return _fields(data_type)
    if isinstance(data_type, MapType):
        return [
            _field("key", data_type.keyType, None),
            _field("value", data_type.valueType, None),
        ]
    if isinstance(data_type, ArrayType):
        return [_field("_element", data_type.elementType, None)]
    return None


def _comment(field: StructField) -> str | None:
    comment = (field.metadata or {}).get("comment")
    return str(comment) if comment else None


def _fields(struct_type: StructType) -> list[dict[str, Any]]:
    return [_field(f.name, f.dataType, _comment(f)) for f in struct_type.fields]


def schema_fields(struct_type: StructType) -> list[SchemaDatasetFacetFields]:
    """The ``fields`` list of a schema facet for ``struct_type``."""
    return list(schema_facet(struct_type).fields or [])


def schema_facet(struct_type: StructType) -> SchemaDatasetFacet:
    """A ``SchemaDatasetFacet`` for a PySpark ``StructType``, named as the Java agent names it.

    >>> from pyspark.sql.types import DecimalType, StructField, StructType
    >>> schema_facet(StructType([StructField("price", DecimalType(10, 2))])).fields[0].type
    'decimal(10,2)'
    """
    if not isinstance(struct_type, StructType):
        raise TypeError(f"schema_facet: struct_type must be a pyspark StructType, got {type(struct_type).__name__}")
    fields: dict[str, Any] = {"fields": _fields(struct_type)}  # JSON data the constructor types
    return SchemaDatasetFacet(**fields)
