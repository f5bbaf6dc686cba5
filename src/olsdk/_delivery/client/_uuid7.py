"""UUIDv7 (RFC 9562): time-ordered run ids. Python 3.11's ``uuid`` has none.

Layout: 48 bits of Unix time in milliseconds, version 7, a 12-bit counter
(``rand_a``, RFC 9562 section 6.2 method 1) that keeps ids made within one
millisecond increasing, the variant, and 62 random bits. Ids from one process are
strictly increasing even if the wall clock steps back.

``uuid7(instant=...)`` makes an id for another moment (a scheduled run's logical
date); :func:`static_uuid7` makes the same id every time for the same moment and
data, bit for bit the official client's ``generate_static_uuid``, so a run id that
Airflow's OpenLineage provider computed can be computed again here.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
import uuid
from datetime import UTC, datetime

__all__ = ["static_uuid7", "uuid7", "uuid7_time_ms"]

_lock = threading.Lock()
_last_ms = 0
_counter = 0
_COUNTER_MAX = 0xFFF
_MS_MASK = 0xFFFF_FFFF_FFFF


def _layout(ms: int, low80: int) -> uuid.UUID:
    """48 bits of milliseconds, then ``low80`` with the version and variant bits set."""
    value = (ms & _MS_MASK) << 80 | (low80 & ((1 << 80) - 1))
    value = (value & ~(0xF << 76)) | 0x7 << 76  # version 7
    value = (value & ~(0b11 << 62)) | 0b10 << 62  # RFC 9562 variant
    return uuid.UUID(int=value)


def _instant_ms(instant: datetime) -> int:
    if instant.tzinfo is None:
        raise ValueError(f"instant: needs a time zone (a naive datetime is ambiguous), got {instant!r}")
    return int(instant.timestamp() * 1000)


def uuid7(instant: datetime | None = None) -> uuid.UUID:
    """A new UUIDv7 for now (strictly increasing within the process), or for ``instant``.

    With ``instant`` (a time-zone-aware datetime) the id carries that moment and random
    bits, like the official ``generate_new_uuid(instant)``: ids for increasing instants
    increase, ids for one instant differ.
    """
    if instant is not None:
        return _layout(_instant_ms(instant), secrets.randbits(80))
    global _last_ms, _counter
    with _lock:
        now = time.time_ns() // 1_000_000
        if now > _last_ms:
            _last_ms = now
            _counter = secrets.randbits(11)  # top bit clear: room to count up within this ms
        else:  # same millisecond, or the clock went back: keep counting from the last id
            _counter += 1
            if _counter > _COUNTER_MAX:
                _last_ms += 1
                _counter = 0
        ms, counter = _last_ms, _counter
    return _layout(ms, counter << 64 | secrets.randbits(62))


def static_uuid7(instant: datetime, data: bytes | str) -> uuid.UUID:
    """The same UUIDv7 for the same ``instant`` and ``data``, every time.

    Equal to the official client's ``generate_static_uuid(instant, data)``: the time
    bits are the instant's milliseconds, the other 74 bits the start of
    ``sha1(instant in UTC, ISO 8601) + data``. Text ``data`` is encoded as UTF-8.
    """
    utc = instant.astimezone(UTC) if instant.tzinfo is not None else None
    if utc is None:
        raise ValueError(f"instant: needs a time zone (a naive datetime is ambiguous), got {instant!r}")
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    digest = hashlib.sha1(utc.isoformat().encode("utf-8") + raw, usedforsecurity=False).digest()
    node = int.from_bytes(digest, "big") >> 84  # the first 76 bits of the 160
    return _layout(int(utc.timestamp() * 1000), node)


def uuid7_time_ms(value: uuid.UUID | str) -> int:
    """The Unix time in milliseconds a UUIDv7 carries."""
    return (uuid.UUID(str(value)).int >> 80) & _MS_MASK
