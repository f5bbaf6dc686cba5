"""UUIDv7 (RFC 9562): time-ordered run ids. Python 3.11's ``uuid`` has none.

Layout: 48 bits of Unix time in milliseconds, version 7, a 12-bit counter
(``rand_a``, RFC 9562 section 6.2 method 1) that keeps ids made within one
millisecond increasing, the variant, and 62 random bits. Ids from one process are
strictly increasing even if the wall clock steps back.
"""

from __future__ import annotations

import secrets
import threading
import time
import uuid

__all__ = ["uuid7", "uuid7_time_ms"]

_lock = threading.Lock()
_last_ms = 0
_counter = 0
_COUNTER_MAX = 0xFFF


def uuid7() -> uuid.UUID:
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
    value = (ms & 0xFFFF_FFFF_FFFF) << 80
    value |= 0x7 << 76 | counter << 64
    value |= 0b10 << 62 | secrets.randbits(62)
    return uuid.UUID(int=value)


def uuid7_time_ms(value: uuid.UUID | str) -> int:
    """The Unix time in milliseconds a UUIDv7 carries."""
    return (uuid.UUID(str(value)).int >> 80) & 0xFFFF_FFFF_FFFF
