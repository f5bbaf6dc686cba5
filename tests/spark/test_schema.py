"""schema_facet in pure Python against the JVM's own DataType.typeName()."""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    ByteType,
    CalendarIntervalType,
    CharType,
    DateType,
    DayTimeIntervalType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    MapType,
    NullType,
    ShortType,
    StringType,
    StructField,
    StructType,
    TimestampNTZType,
    TimestampType,
    VarcharType,
    VariantType,
    YearMonthIntervalType,
)

from olsdk._integrations.spark._schema import schema_facet

pytestmark = pytest.mark.spark

EVERY_TYPE = StructType(
    [
        StructField("b", BooleanType()),
        StructField("i8", ByteType()),
        StructField("i16", ShortType()),
        StructField("i32", IntegerType(), metadata={"comment": "an int"}),
        StructField("i64", LongType()),
        StructField("f", FloatType()),
        StructField("d", DoubleType()),
        StructField("dec", DecimalType(10, 2)),
        StructField("s", StringType()),
        StructField("s_ci", StringType("UTF8_LCASE")),
        StructField("c", CharType(3)),
        StructField("vc", VarcharType(20)),
        StructField("bin", BinaryType()),
        StructField("day", DateType()),
        StructField("ts", TimestampType()),
        StructField("ts_ntz", TimestampNTZType()),
        StructField("dts", DayTimeIntervalType(0, 3)),
        StructField("dd", DayTimeIntervalType(0, 0)),
        StructField("ym", YearMonthIntervalType(0, 1)),
        StructField("cal", CalendarIntervalType()),
        StructField("nothing", NullType()),
        StructField("v", VariantType()),
        StructField(
            "nested",
            StructType(
                [
                    StructField("tags", ArrayType(StringType())),
                    StructField(
                        "attrs",
                        MapType(StringType(), ArrayType(StructType([StructField("x", DecimalType(5, 1))]))),
                    ),
                ]
            ),
            metadata={"comment": "a struct"},
        ),
    ]
)


def _jvm_fields(jtype: Any) -> list[dict[str, Any]]:
    """The agent's algorithm (PlanUtils.transformField) run on JVM DataTypes."""
    out = []
    for jfield in jtype.fields():
        comment = jfield.getComment()
        out.append(_jvm_field(jfield.name(), jfield.dataType(), comment.get() if comment.isDefined() else None))
    return out


def _jvm_field(name: str, jtype: Any, description: str | None) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": name, "type": jtype.typeName()}
    if description:
        entry["description"] = description
    kind = jtype.getClass().getSimpleName()
    if kind == "StructType":
        entry["fields"] = _jvm_fields(jtype)
    elif kind == "MapType":
        entry["fields"] = [
            _jvm_field("key", jtype.keyType(), None),
            _jvm_field("value", jtype.valueType(), None),
        ]
    elif kind == "ArrayType":
        entry["fields"] = [_jvm_field("_element", jtype.elementType(), None)]
    return entry


def test_every_type_matches_the_jvm(spark: Any) -> None:
    jtype = spark._jvm.org.apache.spark.sql.types.DataType.fromJson(EVERY_TYPE.json())
    expected = _jvm_fields(jtype)
    got = schema_facet(EVERY_TYPE).model_dump(mode="json", exclude_none=True)["fields"]
    assert got == expected
    by_name = {f["name"]: f["type"] for f in got}
    assert by_name["dec"] == "decimal(10,2)" and by_name["vc"] == "varchar(20)"
    assert by_name["dts"] == "interval day to second"


def test_schema_facet_rejects_non_struct() -> None:
    with pytest.raises(TypeError, match="StructType"):
        schema_facet(IntegerType())  # type: ignore[arg-type]
