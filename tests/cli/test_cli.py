"""The command line's front (`olsdk._integrations._cli`, `python -m olsdk`): what every command shares."""

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


COMMANDS = [
    ["config"],
    ["config", "show"],
    ["replay"],
    ["send"],
    ["facets"],
    ["facets", "export"],
    ["graph"],
    ["inspect"],
    ["validate"],
    ["spark"],
    ["spark", "run"],
]


def test_every_command_has_its_own_help_in_plain_text(tmp_path: Path) -> None:
    from olsdk._integrations._cli import build_parser

    parser = build_parser()
    descriptions: dict[str, str] = {}
    for command in COMMANDS:
        text = _help_of(parser, command)
        assert text.startswith(f"usage: olsdk {' '.join(command)}"), text[:80]
        assert "``" not in text, f"olsdk {' '.join(command)} --help shows reST markup"
        descriptions[" ".join(command)] = text.split("\n\n", 2)[1] if text.count("\n\n") > 1 else ""
    # the description of one command is not another's (send showed replay's docstring)
    described = [d for d in descriptions.values() if d]
    assert len(described) == len(set(described))
    for command in ("send", "replay", "inspect", "graph", "config show", "facets export"):
        assert "`" not in _help_of(parser, command.split()), command


def _help_of(parser: object, command: list[str]) -> str:
    import contextlib
    import io

    import pytest

    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        parser.parse_args([*command, "--help"])  # type: ignore[attr-defined]
    return out.getvalue()


def test_a_reader_that_stops_early_gets_no_traceback(tmp_path: Path) -> None:
    from tests.graph.events import large_log, write_ndjson

    log = write_ndjson(tmp_path / "big.ndjson", large_log(2000))
    # `true` has gone before olsdk has read the file: its first write finds the pipe closed
    done = subprocess.run(
        ["bash", "-c", f"set -o pipefail; {sys.executable} -m olsdk inspect --limit 100000 {log} | true"],
        cwd=tmp_path,
        env=child_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr
    assert done.returncode == 1  # olsdk's own status: its output was cut short
