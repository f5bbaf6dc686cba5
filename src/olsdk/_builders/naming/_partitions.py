"""Partition trimming: the Java agent's ``DatasetReducer`` trimmers (A5.6).

Spark writes partitioned data under paths like ``/events/year=2023`` or
``/logs/2024/01/31``; the agent names the dataset after the table directory by
cutting such trailing partition segments off, repeatedly, until none is left. Each
trimmer only applies when the name has at least two path segments.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable

__all__ = ["DATASET_NAME_TRIMMERS", "trim_partitions"]

_DIGITS = re.compile(r"[0-9]+")
# yyyy-MM-dd, dd.MM.yyyy, yyyyMMdd, each mapped to (year, month, day) group order.
_DATE_PATTERNS: tuple[tuple[re.Pattern[str], tuple[int, int, int]], ...] = (
    (re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})"), (1, 2, 3)),
    (re.compile(r"([0-9]{2})\.([0-9]{2})\.([0-9]{4})"), (3, 2, 1)),
    (re.compile(r"([0-9]{4})([0-9]{2})([0-9]{2})"), (1, 2, 3)),
)
_YEAR_MONTH = (re.compile(r"^([0-9]{4})([0-9]{2})$"), re.compile(r"^([0-9]{4})-([0-9]{2})$"))


def _segments(name: str) -> list[str]:
    return name.removeprefix("/").split("/")


def _has_multiple_directories(name: str) -> bool:
    return "/" in name and len(_segments(name)) > 1


def _last(name: str) -> str:
    return name.rsplit("/", 1)[-1]


def _drop_last(name: str, count: int = 1) -> str:
    return name.rsplit("/", count)[0]


def _is_date(year: str, month: str, day: str) -> bool:
    try:
        dt.date(int(year), int(month), int(day))
    except ValueError:
        return False
    return True


def _is_year_month(year: str, month: str) -> bool:
    return 1 <= int(month) <= 12 and int(year) >= 1


def _date_segment(name: str) -> int:
    """``.../2023-01-31``, ``.../31.01.2023``, ``.../20230131T120000Z``: a date, optionally
    with a time made of digits, ``T``, ``Z``, ``:``, ``.``, ``-`` and blanks."""
    if not _has_multiple_directories(name):
        return 0
    last = _last(name)
    for pattern, order in _DATE_PATTERNS:
        for match in pattern.finditer(last):
            if not _is_date(*(match.group(i) for i in order)):
                continue
            residue = last.replace(match.group(0), "", 1).replace("T", "", 1).replace("Z", "", 1)
            residue = _DIGITS.sub("", re.sub(r"[\s:.\-]", "", residue))
            return 1 if not residue else 0
    return 0


def _key_value_segment(name: str) -> int:
    """``.../year=2023``: a last segment with exactly one ``=``."""
    if not _has_multiple_directories(name):
        return 0
    return 1 if _last(name).count("=") == 1 else 0


def _year_month_segment(name: str) -> int:
    """``.../202301`` or ``.../2023-01``."""
    if not _has_multiple_directories(name):
        return 0
    last = _last(name)
    for pattern in _YEAR_MONTH:
        match = pattern.match(last)
        if match and _is_year_month(*match.groups()):
            return 1
    return 0


def _multi_directory_date(name: str) -> int:
    """``.../2023/01`` (two segments) or ``.../2023/01/31`` (three segments)."""
    segments = _segments(name)
    if len(segments) >= 3:
        year_month = "".join(segments[-2:])
        if re.fullmatch(r"[0-9]{6}", year_month) and _is_year_month(year_month[:4], year_month[4:]):
            return 2
    if len(segments) >= 4:
        date = "".join(segments[-3:])
        if re.fullmatch(r"[0-9]{8}", date) and _is_date(date[:4], date[4:6], date[6:]):
            return 3
    return 0


# Each returns how many trailing segments to cut (0: does not apply).
_TRIMMERS: tuple[Callable[[str], int], ...] = (
    _date_segment,
    _key_value_segment,
    _multi_directory_date,
    _year_month_segment,
)


def trim_partitions(name: str) -> str:
    """Cut trailing partition segments off a path-like dataset name.

    >>> trim_partitions("/data/events/year=2023/month=01")
    '/data/events'
    >>> trim_partitions("warehouse/logs/2024/01/31")
    'warehouse/logs'
    """
    changed = True
    while changed:
        changed = False
        for trimmer in _TRIMMERS:
            count = trimmer(name)
            if count:
                name = _drop_last(name, count)
                changed = True
                break
    return name


# -- one-step trimmers with the official Python client's semantics -------------------------
# The official client's dataset reducer (``dataset.reducing_enabled``) applies these, in
# this order, pass after pass; trailing slashes are ignored the way it ignores them.


def _parts(name: str) -> list[str]:
    return [part for part in name.split("/") if part]


def _cut(name: str, count: int) -> str:
    stripped = name.rstrip("/")
    if "/" not in stripped:
        return name
    for _ in range(count):
        if "/" not in stripped:
            break
        stripped = stripped[: stripped.rfind("/")]
    return stripped


def _last_part(name: str) -> str:
    return name.rstrip("/").rsplit("/", 1)[-1] if "/" in name else name


def _parses(text: str, fmt: str) -> bool:
    try:
        dt.datetime.strptime(text, fmt)
    except ValueError:
        return False
    return True


def key_value_trimmer(name: str) -> str:
    """``/data/table/day=2024-01-01`` -> ``/data/table``: a last segment with one ``=``."""
    if len(_parts(name)) < 2 or _last_part(name).count("=") != 1:
        return name
    return _cut(name, 1)


_DATE_FORMATS = (
    ("%Y-%m-%d", re.compile(r"\d{4}-\d{2}-\d{2}")),
    ("%d.%m.%Y", re.compile(r"\d{2}\.\d{2}\.\d{4}")),
    ("%Y%m%d", re.compile(r"\d{8}")),
)
_DATE_NOISE = re.compile(r"[TZ\s:.\-\d]*")


def date_trimmer(name: str) -> str:
    """``/tmp/20250722T0901Z`` -> ``/tmp``: a last segment that is a date, with time noise."""
    if len(_parts(name)) < 2:
        return name
    segment = _last_part(name)
    for fmt, pattern in _DATE_FORMATS:
        for found in pattern.findall(segment):
            if _parses(found, fmt) and not _DATE_NOISE.sub("", segment.replace(found, "", 1)):
                return _cut(name, 1)
    return name


def multi_dir_date_trimmer(name: str) -> str:
    """``/logs/2024/01/31`` -> ``/logs``, ``/logs/2024/01`` -> ``/logs``."""
    parts = name.strip("/").split("/")
    if len(parts) == 3 and _parses("/".join(parts[-2:]), "%Y/%m"):
        return _cut(name, 2)
    if len(parts) >= 4:
        if _parses("/".join(parts[-3:]), "%Y/%m/%d"):
            return _cut(name, 3)
        if _parses("/".join(parts[-2:]), "%Y/%m"):
            return _cut(name, 2)
    return name


def year_month_trimmer(name: str) -> str:
    """``/data/202401`` or ``/data/2024-01`` -> ``/data``."""
    if len(_parts(name)) < 2:
        return name
    last = _last_part(name)
    for pattern, fmt in ((r"\d{6}", "%Y%m"), (r"\d{4}-\d{2}", "%Y-%m")):
        if re.fullmatch(pattern, last) and _parses(last, fmt):
            return _cut(name, 1)
    return name


#: the official client's built-in trimmers by class name, in the order it applies them
DATASET_NAME_TRIMMERS: dict[str, Callable[[str], str]] = {
    "KeyValueTrimmer": key_value_trimmer,
    "DateTrimmer": date_trimmer,
    "MultiDirDateTrimmer": multi_dir_date_trimmer,
    "YearMonthTrimmer": year_month_trimmer,
}
