"""Is there a Java that PySpark can start? Asked before a local SparkSession is made.

PySpark starts its JVM with the `java` that Spark's launch script picks: `$JAVA_HOME/bin/java`
when `JAVA_HOME` is set, else the first `java` on `PATH`. Without one (or with one older than
Spark 4 needs), PySpark fails with a bare `JAVA_GATEWAY_EXITED`; `java_problem` says what is
wrong and how to fix it instead. Standard library only: nothing of Spark is imported.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Mapping

__all__ = ["MIN_JAVA", "java_problem", "java_version"]

MIN_JAVA = 17  # Spark 4 runs on Java 17 or newer

HOW_TO_INSTALL = (
    f"install Java {MIN_JAVA} (Debian/Ubuntu: sudo apt-get install openjdk-{MIN_JAVA}-jre-headless; "
    f"macOS: brew install openjdk@{MIN_JAVA}), or set JAVA_HOME to the folder of a Java {MIN_JAVA} "
    "or newer installation (the one holding bin/java)"
)

# `openjdk version "17.0.15" 2025-04-15`, `java version "1.8.0_402"`, `openjdk version "25" ...`
_VERSION = re.compile(r'version "(?P<version>[^"]+)"')


def java_version(java: str) -> int | None:
    """The major version of the `java` executable at `java` (8 for `1.8.0_x`), or None."""
    try:
        done = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    found = _VERSION.search(done.stderr + done.stdout)
    if found is None:
        return None
    parts = found["version"].split(".")
    major = parts[1] if parts[0] == "1" and len(parts) > 1 else parts[0]
    digits = re.match(r"\d+", major)
    return int(digits[0]) if digits else None


def _find_java(environ: Mapping[str, str]) -> tuple[str | None, str]:
    """(the java Spark would start, where it comes from), or (None, why there is none)."""
    home = environ.get("JAVA_HOME")
    if home:
        java = os.path.join(home, "bin", "java")
        if os.path.isfile(java) and os.access(java, os.X_OK):
            return java, f"JAVA_HOME={home}"
        return None, f"JAVA_HOME is set to {home}, which has no bin/java"
    on_path = shutil.which("java", path=environ.get("PATH", ""))
    if on_path is None:
        return None, "no java was found (JAVA_HOME is not set and no java is on PATH)"
    return on_path, "PATH"


def java_problem(environ: Mapping[str, str] | None = None) -> str | None:
    """What keeps Spark from starting its JVM, with how to fix it; None when Java is fine."""
    environ = os.environ if environ is None else environ
    java, origin = _find_java(environ)
    if java is None:
        return f"Spark needs Java {MIN_JAVA} or newer: {origin}; {HOW_TO_INSTALL}"
    version = java_version(java)
    if version is None:
        return (
            f"Spark needs Java {MIN_JAVA} or newer: {java} (from {origin}) does not say its version; {HOW_TO_INSTALL}"
        )
    if version < MIN_JAVA:
        return f"Spark needs Java {MIN_JAVA} or newer: {java} (from {origin}) is Java {version}; {HOW_TO_INSTALL}"
    return None
