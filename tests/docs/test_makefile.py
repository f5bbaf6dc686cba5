"""The README's make targets that the snippet collector does not run: `make spec-upgrade`
without SRC says how to call it, and `make demo` builds only what the demo needs."""

from __future__ import annotations

import os
import stat
import subprocess
import time
from pathlib import Path

from tests.docs.snippets import ROOT


def make(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    # a make of its own, also when the tests run under `make test` (whose MAKELEVEL and
    # MAKEFLAGS would make it a sub-make, `make[1]: ...`)
    env = {k: v for k, v in os.environ.items() if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")}
    return subprocess.run(
        ["make", "--no-print-directory", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_spec_upgrade_without_src_prints_its_usage_and_fails() -> None:
    # -o: whatever the state of .venv, this checks the message, not the set-up
    done = make("-o", ".venv/.installed", "spec-upgrade")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "make spec-upgrade SRC=<snapshot folder or release tag>, e.g. SRC=spec/releases/1.30.0" in done.stdout
    assert "--src: expected one argument" not in done.stdout + done.stderr


def fake_python(folder: Path, log: Path) -> Path:
    """A stand-in interpreter that logs its arguments; `-m venv DIR` makes DIR/bin/python a copy."""
    script = folder / "python3"
    script.write_text(
        "#!/bin/sh\n"
        f'echo "$0 $*" >> {log}\n'
        'if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then mkdir -p "$3/bin" && cp "$0" "$3/bin/python"; fi\n'
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


def test_demo_installs_the_runtime_and_spark_only_on_a_fresh_clone(tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    venv = tmp_path / "venv"
    python = fake_python(tmp_path, log)
    done = make(f"VENV={venv}", f"PYTHON={python}", f"{venv}/.demo-installed")
    assert done.returncode == 0, done.stdout + done.stderr
    calls = log.read_text().splitlines()
    assert calls[0].endswith(f"-m venv {venv}")
    installs = [c for c in calls if " -m pip install" in c]
    assert installs == [f"{venv}/bin/python -m pip install -q -e .[spark]"], calls
    assert (venv / ".demo-installed").exists()
    again = make(f"VENV={venv}", f"PYTHON={python}", f"{venv}/.demo-installed")
    assert again.stdout.startswith("make: '") and "is up to date" in again.stdout, again.stdout  # nothing redone


def test_demo_uses_the_development_environment_when_make_setup_built_it(tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / ".installed").touch()
    later = time.time() + 5  # newer than pyproject.toml, as after `make setup`
    os.utime(venv / ".installed", (later, later))
    done = make(f"VENV={venv}", f"PYTHON={fake_python(tmp_path, log)}", f"{venv}/.demo-installed")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "set up by make setup, which includes the spark extra" in done.stdout
    assert not log.exists()  # nothing created, nothing installed
