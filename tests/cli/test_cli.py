"""The command line's front (`olsdk._cli`, `python -m olsdk`): what every command shares."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.processes import child_env


def python_m_olsdk(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "olsdk", *args],
        cwd=home,
        env=child_env(home),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_python_m_olsdk_is_the_olsdk_command(tmp_path: Path) -> None:
    done = python_m_olsdk("--help", home=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: olsdk ")
    for command in ("config", "replay", "send", "graph", "inspect", "validate", "facets", "spark"):
        assert command in done.stdout
    version = python_m_olsdk("--version", home=tmp_path)
    assert version.returncode == 0 and version.stdout.startswith("olsdk 0.1.0"), version.stdout + version.stderr


def test_python_m_olsdk_passes_the_exit_status_on(tmp_path: Path) -> None:
    done = python_m_olsdk("inspect", str(tmp_path / "missing.ndjson"), home=tmp_path)
    assert done.returncode == 2
    assert "missing.ndjson: no such file or folder" in done.stderr
