"""Small helpers for talking to Spark's JVM objects through py4j.

py4j objects are untyped, so everything here takes and returns ``Any``; the helpers
keep the Scala idioms (``Seq``, ``Option``, ``Map``) out of the plan-walking code.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

log = logging.getLogger("olsdk.spark")


def seq(value: Any) -> list[Any]:
    """A Scala ``Seq``/``Iterable`` as a Python list."""
    if value is None:
        return []
    out: list[Any] = []
    it = value.iterator()
    while it.hasNext():
        out.append(it.next())
    return out


def opt(value: Any) -> Any | None:
    """The content of a Scala ``Option``, or None."""
    if value is None:
        return None
    return value.get() if value.isDefined() else None


def call(obj: Any, name: str, *args: Any) -> Any | None:
    """``obj.name(*args)``, or None when the JVM object has no such member or it throws.

    Plan classes change between Spark versions; a missing accessor must degrade to
    "unknown", never break the caller.
    """
    if obj is None:
        return None
    try:
        return getattr(obj, name)(*args)
    except Exception:  # py4j raises Py4JError / Py4JJavaError / AttributeError
        return None


def smap_get(scala_map: Any, key: str) -> str | None:
    """``map.get(key)`` on a Scala Map (e.g. ``CaseInsensitiveMap``) as a Python str."""
    value = opt(call(scala_map, "get", key))
    return None if value is None else str(value)


def class_name(obj: Any) -> str:
    """The JVM simple class name of ``obj`` (``""`` when unknown)."""
    name = call(call(obj, "getClass"), "getSimpleName")
    return str(name) if name is not None else ""


def children(node: Any) -> Iterator[Any]:
    """The children of a Catalyst ``TreeNode``."""
    yield from seq(call(node, "children"))
