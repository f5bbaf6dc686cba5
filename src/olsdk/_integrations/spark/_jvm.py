"""Talking to Spark's JVM objects through py4j, and the ``olsdk.spark`` logger.

Plans are read in the JVM itself (``OlsdkLineageBridge.java``); the few py4j calls left in
Python (session facts, registering the listener) go through ``call``, which turns
"no such member" or a JVM exception into None: a Spark version without an accessor
costs a fact, never the caller.
"""

from __future__ import annotations

import logging
from typing import Any

__all__ = ["call", "log"]

log = logging.getLogger("olsdk.spark")


def call(obj: Any, name: str, *args: Any) -> Any | None:
    """``obj.name(*args)``, or None when the JVM object has no such member or it throws."""
    if obj is None:
        return None
    try:
        return getattr(obj, name)(*args)
    except Exception:  # py4j raises Py4JError / Py4JJavaError / AttributeError
        return None
