"""Real processes for fault tests: scripts in a child interpreter, the CLI, a small disk.

Every child is bounded (a timeout) and stopped by PID if it outlives it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def child_env(home: Path, **extra: str) -> dict[str, str]:
    """The test process's environment without OpenLineage variables, HOME set to ``home``."""
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("OPENLINEAGE")}
    path = os.pathsep.join(p for p in (os.environ.get("PYTHONPATH"), str(ROOT)) if p)  # the same olsdk as ours
    env.update(HOME=str(home), XDG_STATE_HOME=str(home / "state"), PYTHONPATH=path, **extra)
    return env


def start_script(script: str, home: Path, *, stdin: bool = False, **env: str) -> subprocess.Popen[str]:
    """Start ``script`` (dedented) in a new interpreter, cwd and HOME ``home``."""
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(script)],
        cwd=home,
        env=child_env(home, **env),
        text=True,
        stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


@dataclass
class Finished:
    returncode: int
    stdout: str
    stderr: str


def finish(proc: subprocess.Popen[str], input: str | None = None, timeout: float = 120) -> Finished:
    """Wait for ``proc`` (killed by PID after ``timeout`` seconds)."""
    try:
        out, err = proc.communicate(input, timeout=timeout)
    except subprocess.TimeoutExpired:
        os.kill(proc.pid, signal.SIGKILL)
        out, err = proc.communicate(timeout=30)
        return Finished(-signal.SIGKILL, out, err + f"\n[killed after {timeout}s]")
    return Finished(proc.returncode, out, err)


def run_script(script: str, home: Path, input: str | None = None, timeout: float = 120, **env: str) -> Finished:
    return finish(start_script(script, home, stdin=input is not None, **env), input, timeout)


def start_cli(*args: str, home: Path, **env: str) -> subprocess.Popen[str]:
    """``olsdk ARGS`` in a child process (the installed entry point's code)."""
    code = "import sys; from olsdk._integrations._cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        cwd=home,
        env=child_env(home, **env),
        text=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def run_cli(*args: str, home: Path, timeout: float = 120, **env: str) -> Finished:
    return finish(start_cli(*args, home=home, **env), timeout=timeout)


@contextlib.contextmanager
def small_filesystem(where: Path, size: str = "1m") -> Iterator[Path | None]:
    """A tmpfs of ``size`` mounted at ``where`` (needs root), or None when none can be mounted.

    Callers fall back to ``RLIMIT_FSIZE`` in a child process when this yields None
    (``OLSDK_TESTS_NO_MOUNT=1`` forces that, to test the fallback where mounting works).
    """
    where.mkdir(parents=True, exist_ok=True)
    if os.environ.get("OLSDK_TESTS_NO_MOUNT") == "1":
        yield None
        return
    try:
        mounted = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(where)],
            capture_output=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        yield None
        return
    if mounted.returncode != 0:
        yield None
        return
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True, timeout=30)


def script_value(value: Any) -> str:
    """``value`` as Python source for a child script."""
    return repr(value)
