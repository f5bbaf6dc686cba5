"""The Java source of olsdk's Spark listener (``OlsdkLineageBridge.java``), read as package data.

Spark ships Janino (the compiler behind its whole-stage code generation), so the source
needs no JDK and no jar: ``olsdk._integrations.spark._bridge`` compiles it once per JVM. It is a real
``.java`` file beside this module, so editors, formatters and ``javac`` see it as Java;
``tests/spark/test_bridge_source.py`` compiles it with Spark's own Janino.
"""

from __future__ import annotations

import functools
from importlib import resources

__all__ = ["CLASS_NAME", "FILE_NAME", "source"]

CLASS_NAME = "OlsdkLineageBridge"
FILE_NAME = f"{CLASS_NAME}.java"


@functools.cache
def source() -> str:
    """The listener's Java compilation unit, as shipped in the package."""
    return resources.files(__package__).joinpath(FILE_NAME).read_text(encoding="utf-8")
