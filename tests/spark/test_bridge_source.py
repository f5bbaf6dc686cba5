"""The Spark listener's Java source: shipped as package data, compiled by Spark's own Janino.

No SparkSession here: Java's single-file launcher runs ``tests/spark/java/JaninoCook.java``,
which cooks ``OlsdkLineageBridge.java`` with Janino's ``SimpleCompiler`` against the pinned
pyspark's jars, as ``olsdk._integrations.spark._bridge`` does in the driver. A syntax or type error in
the Java fails here, in seconds, without running a Spark job.
"""

from __future__ import annotations

import shutil
import subprocess
from importlib import resources
from pathlib import Path

import pytest

from olsdk._integrations.spark import _bridge_source

pytestmark = pytest.mark.spark

pyspark = pytest.importorskip("pyspark")
JAVA = shutil.which("java")
LAUNCHER = Path(__file__).parent / "java" / "JaninoCook.java"
SPARK_JARS = Path(pyspark.__file__).parent / "jars"


def cook(source_file: Path) -> subprocess.CompletedProcess[str]:
    assert JAVA is not None
    return subprocess.run(
        [JAVA, "-cp", f"{SPARK_JARS}/*", str(LAUNCHER), str(source_file), _bridge_source.CLASS_NAME],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def shipped_file() -> Path:
    resource = resources.files("olsdk._integrations.spark").joinpath(_bridge_source.FILE_NAME)
    assert resource.is_file(), f"{_bridge_source.FILE_NAME} is not in the olsdk._integrations.spark package"
    return Path(str(resource))


def test_the_source_is_read_from_the_java_file_shipped_in_the_package() -> None:
    text = shipped_file().read_text(encoding="utf-8")
    assert _bridge_source.source() == text
    assert f"public class {_bridge_source.CLASS_NAME} extends SparkListener" in text


@pytest.mark.skipif(JAVA is None, reason="needs Java 17+")
def test_janino_as_spark_ships_it_compiles_the_listener() -> None:
    assert any(SPARK_JARS.glob("janino-*.jar")), f"no Janino in {SPARK_JARS}"
    result = cook(shipped_file())
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == f"compiled {_bridge_source.CLASS_NAME}"


@pytest.mark.skipif(JAVA is None, reason="needs Java 17+")
def test_a_type_error_in_the_java_fails_the_compile(tmp_path: Path) -> None:
    # The check above can fail: the same source with a field of an unknown type is refused.
    broken = _bridge_source.source().replace(
        "private Object sink;", "private Object sink;\n    private NoSuchType x;", 1
    )
    assert broken != _bridge_source.source()
    source_file = tmp_path / _bridge_source.FILE_NAME
    source_file.write_text(broken, encoding="utf-8")
    result = cook(source_file)
    assert result.returncode == 1
    assert 'Cannot determine simple type name "NoSuchType"' in result.stdout
