"""The README a newcomer follows: install lines that work, a typed-event snippet that
runs, and the "Coming from openlineage-python" table (docs/how-to)."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
MIGRATE = (ROOT / "docs" / "how-to" / "migrate-from-openlineage-python.md").read_text()
CONFIGURATION = (ROOT / "docs" / "reference" / "configuration.md").read_text()


def section(title: str, text: str = README) -> str:
    return text.split(f"# {title}\n", 1)[1].split("\n## ", 1)[0]


def test_every_install_line_names_a_wheel_or_a_checkout() -> None:
    lines = [line for line in README.splitlines() if "pip install" in line]
    assert lines
    for line in lines:
        for target in re.findall(r"pip install (?:-e )?['\"]?([^'\"\s`]+)", line):
            assert target.startswith(("dist/", ".")), f"not installable without a package index: {line}"


@pytest.mark.slow
def test_the_wheel_the_readme_names_is_what_make_dist_builds(tmp_path: Path) -> None:
    # olsdk's version with a local label naming the spec variant of the models, read by the build
    assert "version" in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dynamic"]
    from olsdk._models._generated import DIST_VERSION as version

    named = {n for n in re.findall(r"dist/(olsdk-[^'\"\s\[`]+\.whl)", README) if "<" not in n}
    assert named == {f"olsdk-{version}-py3-none-any.whl"}
    assert "pip wheel" in (ROOT / "Makefile").read_text().split("\ndist:", 1)[1].split("\n\n", 1)[0]
    build = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--wheel-dir", str(tmp_path / "dist"), str(ROOT)]
    built = subprocess.run(build, check=True, capture_output=True, text=True, timeout=300)
    # an SPDX license string and license-files: setuptools no longer warns on every build
    assert "project.license" not in built.stdout + built.stderr
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    assert wheel.name in named
    with zipfile.ZipFile(wheel) as archive:
        metadata = archive.read(f"olsdk-{version}.dist-info/METADATA").decode()
        assert f"olsdk-{version}.dist-info/licenses/LICENSE" in archive.namelist()
    assert "License-Expression: Apache-2.0" in metadata.splitlines()
    site = tmp_path / "site"
    install = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(wheel)]
    subprocess.run(install, check=True, capture_output=True, timeout=300)
    probe = (
        "import olsdk, olsdk.models, olsdk.client, olsdk.naming; print(olsdk.__file__, olsdk.models.SPEC_VERSION); "
        "from olsdk._integrations.spark import _bridge_source; "
        "print(_bridge_source.source().count('class OlsdkLineageBridge'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], env={"PYTHONPATH": str(site)}, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(str(site))  # the wheel's copy, generated models included
    assert done.stdout.splitlines()[1] == "1"  # the Spark listener's Java source is package data in the wheel


def test_getting_started_runs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    code = re.search(r"```python\n(.*?)```", section("A typed event"), re.S)
    assert code is not None
    exec(compile(code.group(1), "README.md", "exec"), {})
    printed = capsys.readouterr().out
    assert printed.count('"eventType"') == 3  # the START of step 1, the START and COMPLETE of step 2
    assert "shop.public.orders" in printed


def test_getting_started_comes_before_the_reference_table() -> None:
    # the reference table is on a page of its own, linked from the README
    assert README.index("## Install") < README.index("## A typed event") < README.index("reference/configuration.md")
    assert "| yml key |" not in README and "| yml key |" in CONFIGURATION


def test_coming_from_openlineage_python_names_the_differences() -> None:
    text = section("Coming from openlineage-python", MIGRATE)
    rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| topic")]
    assert len(rows) >= 15
    assert "`type: buffered`" in text and "olsdk.compat.OlsdkTransport" in text
