"""RDD writes (``saveAsTextFile`` and friends): runs from the Python side.

An RDD save runs no SQL execution, so the JVM listener never hears of it. The
PySpark ``RDD.saveAs*`` methods are wrapped instead (once, when ``install()`` first
runs): START before the save, COMPLETE or FAIL (the exception re-raised) after it.
The output is the path saved to; the inputs are the files the RDD's lineage reads
(Hadoop input formats, DataFrame file scans), found by the JVM listener class.
RDD saves made by JVM code (Scala libraries) are not seen.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

from olsdk._integrations.spark._jvm import log

__all__ = ["patch_rdd_writes"]

_METHODS = ("saveAsTextFile", "saveAsPickleFile", "saveAsSequenceFile", "saveAsHadoopFile", "saveAsNewAPIHadoopFile")
_PATCHED = False
_LOCK = threading.Lock()


def _wrap(name: str, original: Callable[..., Any], lookup: Callable[[Any], Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def save(self: Any, path: str, *args: Any, **kwargs: Any) -> Any:
        handle = lookup(getattr(self, "ctx", None))
        run = handle.rdd_write_started(name, self, path) if handle is not None else None
        try:
            result = original(self, path, *args, **kwargs)
        except BaseException as error:
            if run is not None:
                handle.rdd_write_ended(run, error)
            raise
        if run is not None:
            handle.rdd_write_ended(run, None)
        return result

    return save


def patch_rdd_writes(lookup: Callable[[Any], Any]) -> None:
    """Wrap ``pyspark.RDD.saveAs*``; ``lookup(spark_context)`` gives the lineage handle or None."""
    global _PATCHED
    with _LOCK:
        if _PATCHED:
            return
        _PATCHED = True
    from pyspark import RDD

    for name in _METHODS:
        original = getattr(RDD, name, None)
        if original is None:
            log.debug("olsdk.spark: RDD.%s not found, not wrapped", name)
            continue
        setattr(RDD, name, _wrap(name, original, lookup))
