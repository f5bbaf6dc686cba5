"""The README a newcomer follows: install lines that work, a getting-started snippet
that runs, and the "Coming from openlineage-python" table."""

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


def section(title: str) -> str:
    return README.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_every_install_line_names_a_wheel_or_a_checkout() -> None:
    lines = [line for line in README.splitlines() if "pip install" in line]
    assert lines
    for line in lines:
        for target in re.findall(r"pip install (?:-e )?['\"]?([^'\"\s`]+)", line):
            assert target.startswith(("dist/", ".")), f"not installable without a package index: {line}"


@pytest.mark.slow
def test_the_wheel_the_readme_names_is_what_make_dist_builds(tmp_path: Path) -> None:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
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
        metadata = archive.read("olsdk-0.1.0.dist-info/METADATA").decode()
        assert "olsdk-0.1.0.dist-info/licenses/LICENSE" in archive.namelist()
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
    code = re.search(r"```python\n(.*?)```", section("Getting started"), re.S)
    assert code is not None
    exec(compile(code.group(1), "README.md", "exec"), {})
    printed = capsys.readouterr().out
    assert printed.count('"eventType"') == 3  # the START of step 1, the START and COMPLETE of step 2
    assert "shop.public.orders" in printed


def test_getting_started_comes_before_the_reference_table() -> None:
    assert README.index("## Install") < README.index("## Getting started") < README.index("| yml key |")


def test_coming_from_openlineage_python_names_the_differences() -> None:
    text = section("Coming from openlineage-python")
    rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| topic")]
    assert len(rows) >= 15
    assert "`type: buffered`" in text and "olsdk.compat.OlsdkTransport" in text
