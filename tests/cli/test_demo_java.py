"""`make demo` (`python -m examples.spark_demo`) without a usable Java: a clear error naming
Java 17 and how to install it, before Spark starts (not PySpark's JAVA_GATEWAY_EXITED)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from olsdk._integrations.spark._java import java_problem, java_version
from tests.support.processes import ROOT, child_env


def demo(home: Path, path: str, java_home: str | None) -> subprocess.CompletedProcess[str]:
    env = child_env(home, PATH=path)
    env.pop("JAVA_HOME", None)
    if java_home is not None:
        env["JAVA_HOME"] = java_home
    return subprocess.run(
        [sys.executable, "-m", "examples.spark_demo", "--output", str(home / "out")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def assert_clear_error(done: subprocess.CompletedProcess[str], home: Path, why: str) -> None:
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith(f"olsdk demo: Spark needs Java 17 or newer: {why}"), done.stderr
    assert "sudo apt-get install openjdk-17-jre-headless" in done.stderr
    assert "set JAVA_HOME to the folder of a Java 17 or newer installation" in done.stderr
    assert "JAVA_GATEWAY_EXITED" not in done.stdout + done.stderr and "Traceback" not in done.stderr
    assert not (home / "out").exists()  # stopped before generating anything or starting Spark


def test_no_java_on_path_and_no_java_home(tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    done = demo(tmp_path, str(empty), None)
    assert_clear_error(done, tmp_path, "no java was found (JAVA_HOME is not set and no java is on PATH)")


def test_java_home_without_java(tmp_path: Path) -> None:
    (tmp_path / "jdk").mkdir()
    done = demo(tmp_path, str(tmp_path), str(tmp_path / "jdk"))
    assert_clear_error(done, tmp_path, f"JAVA_HOME is set to {tmp_path / 'jdk'}, which has no bin/java")


def test_a_java_older_than_17(tmp_path: Path) -> None:
    # An executable that answers `-version` as Java 11 does (Java 11 is not installed here).
    java = tmp_path / "jdk11" / "bin" / "java"
    java.parent.mkdir(parents=True)
    java.write_text("#!/bin/sh\necho 'openjdk version \"11.0.22\" 2024-01-16' >&2\n")
    java.chmod(java.stat().st_mode | stat.S_IXUSR)
    done = demo(tmp_path, str(tmp_path), str(tmp_path / "jdk11"))
    assert_clear_error(done, tmp_path, f"{java} (from JAVA_HOME={tmp_path / 'jdk11'}) is Java 11")


def installed_javas() -> list[Path]:
    jvm = Path("/usr/lib/jvm")
    return sorted(p for p in jvm.glob("*") if (p / "bin" / "java").is_file()) if jvm.is_dir() else []


@pytest.mark.skipif(not installed_javas(), reason="no Java installed under /usr/lib/jvm")
def test_the_installed_javas_are_read_as_they_are() -> None:
    for home in installed_javas():
        version = java_version(str(home / "bin" / "java"))
        assert version is not None and version >= 8, home
        problem = java_problem({"JAVA_HOME": str(home), "PATH": os.defpath})
        assert (problem is None) == (version >= 17), (home, problem)
