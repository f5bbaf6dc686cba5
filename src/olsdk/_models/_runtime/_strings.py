"""The spec's string formats as field types: uuid, uri and date-time.

Each is a plain `str` checked by one of the exact patterns of `olsdk._foundation._formats` in
pydantic-core: the wire string survives a round trip unchanged (pydantic's `AnyUrl`
rewrites URLs) and the check costs far less than building `UUID`/`datetime` objects.
Built in Python, a uuid or date-time field also takes a `uuid.UUID` or an aware
`datetime` and stores its canonical string.
"""

from __future__ import annotations

import datetime as _dt
import uuid as _uuid
from typing import TYPE_CHECKING, Annotated, Any, Self, TypeAlias, overload

from pydantic import GetCoreSchemaHandler
from pydantic_core import CoreSchema, PydanticCustomError, SchemaValidator
from pydantic_core import core_schema as cs

from olsdk._foundation._formats import (
    DATETIME_LEAP_PATTERN,
    DATETIME_NO_LEAP_PATTERN,
    DATETIME_PATTERN,
    FORMAT_RULES,
    URI_PATTERN,
    UUID_PATTERN,
    is_leap_second,
)

__all__ = [
    "FILLED_ON_CONSTRUCTION",
    "NOT_SENT",
    "PATTERN_RULES",
    "PYTHON_FORMS",
    "DateTimeStr",
    "OptionalDateTimeStr",
    "OptionalUUIDStr",
    "URIStr",
    "UUIDStr",
    "is_uri",
]


class _Format:
    """`Annotated[str, _Format(pattern)]`: a string checked by one of the exact format
    patterns in pydantic-core (JSON and Python input alike); built in Python, a field of
    the uuid or date-time format also takes a `uuid.UUID` or an aware `datetime` and
    stores its canonical string."""

    def __init__(self, pattern: str, python_type: type | None = None) -> None:
        self.pattern = pattern
        self.python_type = python_type

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        checked = _checked_string(self.pattern)
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
                custom_error_message=FORMAT_RULES[self.pattern] + PYTHON_FORMS[self.python_type],
            ),
            serialization=cs.simple_ser_schema("str"),
        )

    def __repr__(self) -> str:
        return f"_Format({FORMAT_RULES[self.pattern]!r})"


def _checked_string(pattern: str) -> CoreSchema:
    if pattern != DATETIME_PATTERN:
        return cs.str_schema(pattern=pattern, strict=True)
    # A date-time: every one but a leap second by the first pattern, in Rust; second 60
    # only at 23:59:60 UTC, which takes the offset's arithmetic (`_formats.is_leap_second`).
    leap_second = cs.no_info_after_validator_function(
        _leap_second, cs.str_schema(pattern=DATETIME_LEAP_PATTERN, strict=True)
    )
    return cs.union_schema(
        [cs.str_schema(pattern=DATETIME_NO_LEAP_PATTERN, strict=True), leap_second],
        mode="left_to_right",
        custom_error_type="string_format",
        custom_error_message=FORMAT_RULES[DATETIME_PATTERN],
        # Its JSON Schema is one string of the date-time pattern (exported as `format: date-time`).
        metadata={"pydantic_js_functions": [lambda _schema, _handler: {"type": "string", "pattern": DATETIME_PATTERN}]},
    )


def _leap_second(value: str) -> str:
    if not is_leap_second(value):
        raise PydanticCustomError("string_format", FORMAT_RULES[DATETIME_PATTERN])
    return value


# What a Python caller may pass besides the string, as the error message says it (a
# problem of JSON text leaves it out: `olsdk._readers._strict`).
PYTHON_FORMS: dict[type, str] = {_uuid.UUID: ", or a uuid.UUID", _dt.datetime: ", or a datetime with a time zone"}


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


_URI_CHECK: SchemaValidator | None = None


def is_uri(value: str) -> bool:
    """Whether `value` is an absolute URI, by the rule a `URIStr` field checks (in
    pydantic-core: its engine compiles the pattern in a quarter of the time Python's
    `re` takes, which a fresh process pays once)."""
    global _URI_CHECK
    if _URI_CHECK is None:
        _URI_CHECK = SchemaValidator(cs.str_schema(pattern=URI_PATTERN, strict=True))
    return _URI_CHECK.isinstance_python(value)
