"""The spec's string formats as exact regular expressions: uuid, uri, date-time.

One pattern per format, written so that three engines read it the same way: pydantic-core
(Rust `regex`, the strict parser's per-field check), jsonschema-rs (the bulk validator
behind `validate_event`) and Python's `re` (the lenient reader and construction). So no
look-around, no back-references, `[0-9]` instead of `\\d` (Unicode digits in Rust), and
both ends anchored.

- **uuid** (RFC 9562 / 4122 string form): 8-4-4-4-12 hexadecimal digits, either case.
- **uri** (RFC 3986 `URI`): a scheme, `:`, then a hierarchical part, an optional query
  and fragment, every character from the RFC's sets (percent-encoded otherwise), IPv6 and
  IPvFuture literals in brackets. `file:/tmp/x` and `urn:x` are URIs; `file` and
  `bigquery` (the Spark agent's `dataSource.uri`) and anything with a space are not.
- **date-time** (RFC 3339 `date-time`): a real calendar date (months, days of the month,
  29 February in leap years only), hour 00-23, minute 00-59, second 00-59, optional
  fraction, and `Z` or an offset within +-23:59; `T` and `Z` in either case. Second 60
  is a leap second, the last second of a UTC day: only where the time less the offset
  is 23:59 (`23:59:60Z`, `15:59:60-08:00`; not `12:30:60Z`), as RFC 3339 section 5.7
  and the JSON-Schema-Test-Suite have it. A pattern cannot say that in a few lines (the
  offset and the local time must add up), so the leap-second pattern matches second 60
  at any time and `is_leap_second` checks the minute; the engines run that check only
  for the rare value with second 60.
"""

from __future__ import annotations

import functools
import re
from typing import Final

__all__ = [
    "DATETIME_LEAP_PATTERN",
    "DATETIME_NO_LEAP_PATTERN",
    "DATETIME_PATTERN",
    "FORMAT_PATTERNS",
    "FORMAT_RULES",
    "URI_PATTERN",
    "UUID_PATTERN",
    "exact_datetime_pattern",
    "is_leap_second",
    "matches",
    "misplaced_leap_second",
]

_HEX = "[0-9A-Fa-f]"

UUID_PATTERN: Final = rf"^{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}$"


def _uri_pattern() -> str:
    unreserved = r"A-Za-z0-9\-._~"
    sub_delims = r"!$&'()*+,;="
    pct = f"%{_HEX}{_HEX}"
    pchar = f"(?:[{unreserved}{sub_delims}:@]|{pct})"
    segment = f"{pchar}*"
    segment_nz = f"{pchar}+"
    h16 = f"{_HEX}{{1,4}}"
    octet = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])"
    ipv4 = rf"{octet}\.{octet}\.{octet}\.{octet}"
    ls32 = f"(?:{h16}:{h16}|{ipv4})"
    # RFC 3986 section 3.2.2, the nine forms of IPv6address.
    ipv6 = "|".join(
        [
            f"(?:{h16}:){{6}}{ls32}",
            f"::(?:{h16}:){{5}}{ls32}",
            f"(?:{h16})?::(?:{h16}:){{4}}{ls32}",
            f"(?:(?:{h16}:){{0,1}}{h16})?::(?:{h16}:){{3}}{ls32}",
            f"(?:(?:{h16}:){{0,2}}{h16})?::(?:{h16}:){{2}}{ls32}",
            f"(?:(?:{h16}:){{0,3}}{h16})?::{h16}:{ls32}",
            f"(?:(?:{h16}:){{0,4}}{h16})?::{ls32}",
            f"(?:(?:{h16}:){{0,5}}{h16})?::{h16}",
            f"(?:(?:{h16}:){{0,6}}{h16})?::",
        ]
    )
    ipv_future = rf"[Vv]{_HEX}+\.[{unreserved}{sub_delims}:]+"
    ip_literal = rf"\[(?:{ipv6}|{ipv_future})\]"
    # IPv4address is a special case of reg-name, so reg-name covers it.
    reg_name = f"(?:[{unreserved}{sub_delims}]|{pct})*"
    userinfo = f"(?:[{unreserved}{sub_delims}:]|{pct})*"
    authority = f"(?:{userinfo}@)?(?:{ip_literal}|{reg_name})(?::[0-9]*)?"
    hier_part = "|".join(
        [
            f"//{authority}(?:/{segment})*",  # "//" authority path-abempty
            f"/(?:{segment_nz}(?:/{segment})*)?",  # path-absolute
            f"{segment_nz}(?:/{segment})*",  # path-rootless
            "",  # path-empty
        ]
    )
    query = f"(?:{pchar}|[/?])*"
    return f"^[A-Za-z][A-Za-z0-9+\\-.]*:(?:{hier_part})(?:\\?{query})?(?:#{query})?$"


URI_PATTERN: Final = _uri_pattern()


def _datetime_pattern(second: str) -> str:
    day_31 = "(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])"
    day_30 = "(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)"
    day_28 = "02-(?:0[1-9]|1[0-9]|2[0-8])"
    # Leap years: divisible by 4 and not by 100, or divisible by 400.
    leap_year = "(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)"
    date = f"(?:[0-9]{{4}}-(?:{day_31}|{day_30}|{day_28})|{leap_year}-02-29)"
    time = f"(?:[01][0-9]|2[0-3]):[0-5][0-9]:{second}(?:\\.[0-9]+)?"
    offset = "(?:[Zz]|[+\\-](?:[01][0-9]|2[0-3]):[0-5][0-9])"
    return f"^{date}[Tt]{time}{offset}$"


DATETIME_PATTERN: Final = _datetime_pattern("(?:[0-5][0-9]|60)")
"""RFC 3339's grammar: second 60 at any time (`is_leap_second` then checks the minute)."""
DATETIME_NO_LEAP_PATTERN: Final = _datetime_pattern("[0-5][0-9]")
"""Every date-time but a leap second: what the engines check first."""
DATETIME_LEAP_PATTERN: Final = _datetime_pattern("60")
"""The grammar with second 60: a leap second if `is_leap_second` says so."""

_LEAP_TIME = re.compile(r"[Tt]([0-9]{2}):([0-9]{2}):60(?:\.[0-9]+)?(?:[Zz]|([+-])([0-9]{2}):([0-9]{2}))\Z")


def is_leap_second(value: str) -> bool:
    """Whether `value`, a date-time with second 60, is at 23:59:60 UTC (the offset taken off)."""
    found = _LEAP_TIME.search(value)
    if found is None:
        return False
    hour, minute = int(found[1]), int(found[2])
    offset = 0
    if found[3] is not None:
        offset = (int(found[4]) * 60 + int(found[5])) * (1 if found[3] == "+" else -1)
    return (hour * 60 + minute - offset) % 1440 == 23 * 60 + 59


FORMAT_PATTERNS: Final = {"uuid": UUID_PATTERN, "uri": URI_PATTERN, "date-time": DATETIME_PATTERN}
"""JSON Schema format name -> its exact pattern."""

FORMAT_RULES: Final = {
    UUID_PATTERN: "not a UUID (8-4-4-4-12 hexadecimal digits)",
    URI_PATTERN: "not an absolute URI (RFC 3986: a scheme, ':', then no spaces or characters outside the URI set)",
    DATETIME_PATTERN: (
        "not an RFC 3339 date-time (a real date and time with a time zone offset, e.g. 2024-05-01T10:00:00Z)"
    ),
}
"""Pattern -> the rule a user reads when a value breaks it."""


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    """`pattern` (one of the format patterns) compiled, once it is first needed: the
    models check formats with pydantic-core, so most processes never need these."""
    if pattern not in FORMAT_RULES and pattern != DATETIME_NO_LEAP_PATTERN:
        raise KeyError(pattern)
    return re.compile(pattern.removesuffix("$") + r"\Z")


@functools.cache
def exact_datetime_pattern() -> str:
    """The date-time pattern with the leap-second rule in it: second 60 only where the
    local time less the offset is 23:59. A regex cannot add, so every local time is
    listed with the two offsets that make it 23:59 UTC (1,440 alternatives, 54 KB): for
    jsonschema-rs, which then checks leap seconds without calling Python (any Python
    callback costs it a third more on every event); compiled once, when the validator is
    built. pydantic-core and Python check `DATETIME_NO_LEAP_PATTERN`, then `is_leap_second`."""
    fraction = "(?:\\.[0-9]+)?"
    end_of_day = 23 * 60 + 59
    by_hour: dict[int, list[str]] = {}
    for local in range(24 * 60):
        ahead = (local - end_of_day) % 1440  # the offset "+hh:mm" that makes `local` 23:59 UTC
        behind = (end_of_day - local) % 1440  # ... and "-hh:mm"
        offsets = [f"\\+{ahead // 60:02d}:{ahead % 60:02d}", f"-{behind // 60:02d}:{behind % 60:02d}"]
        if local == end_of_day:
            offsets.append("[Zz]")
        by_hour.setdefault(local // 60, []).append(f"{local % 60:02d}:60{fraction}(?:{'|'.join(offsets)})")
    leap = "|".join(f"{hour:02d}:(?:{'|'.join(times)})" for hour, times in by_hour.items())
    date, _, rest = DATETIME_NO_LEAP_PATTERN.removeprefix("^").partition("[Tt]")
    return f"^{date}[Tt](?:{rest.removesuffix('$')}|{leap})$"


def misplaced_leap_second(value: object) -> bool:
    """Whether `value` is a date-time by the grammar but for a second 60 that is not
    23:59:60 UTC (what `DATETIME_PATTERN` lets by); False for anything else."""
    return (
        isinstance(value, str)
        and ":60" in value
        and _compiled(DATETIME_PATTERN).match(value) is not None
        and not is_leap_second(value)
    )


def matches(pattern: str, value: object) -> bool:
    """Whether `value` is a string of the format `pattern` names (one of the format
    patterns; a date-time with second 60 must be a leap second)."""
    if not isinstance(value, str) or _compiled(pattern).match(value) is None:
        return False
    if pattern != DATETIME_PATTERN or _compiled(DATETIME_NO_LEAP_PATTERN).match(value) is not None:
        return True
    return is_leap_second(value)
