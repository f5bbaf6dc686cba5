"""Users' code type-checks with olsdk: mypy --strict and basedpyright, in two installs.

The code checked is `user_code.py` (building a RunEvent, reading `run.facets.parent`,
`olsdk.parse_event`, a custom facet) and the README's two examples (models, custom
facet), taken from README.md as they stand. Each checker runs against:

- the dev venv, where olsdk is an editable install (`make setup`): what a contributor's
  editor sees;
- a wheel of the project (`pip wheel`) installed into a fresh virtual environment: what
  a user's editor sees. Its dependencies (pydantic, ...) come from the dev venv through
  a `.pth` line, so nothing is downloaded; the olsdk it finds is the wheel's.

Both checkers also run over code with known mistakes, to show they see the real types
(a checker that saw every model as `Any` would pass any code).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
USER_CODE = HERE / "user_code.py"
README = ROOT / "README.md"
VENV_BIN = Path(sys.executable).parent

BAD_CODE = """\
from olsdk.models import Job, Run, RunFacets, SQLJobFacet

Job(namespace="ns")
SQLJobFacet(query=1)
facets = RunFacets()
run_id: int = Run(runId="0190d3a4-7b5c-7a3e-9f00-1234567890ab").runId
parent_name: int | None = facets.parent.job.name if facets.parent else None
from olsdk import OpenLineageClient
client = OpenLineageClient()
client.emit(Run(runId="0190d3a4-7b5c-7a3e-9f00-1234567890ab"))
client.emit(42)
client.emit([{"eventType": "START"}])
"""
BAD_LINES = [3, 4, 6, 7, 10, 11, 12]  # one mistake on each (emit takes events, not a Run, a number, a list)


def readme_example(heading: str) -> str:
    section = README.read_text(encoding="utf-8").split(f"\n## {heading}\n", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None, f"README.md section {heading!r} has no python example"
    return code.group(1)


def checker_env() -> dict[str, str]:
    # Nothing from the test run (PYTHONPATH, MYPYPATH) may point the checkers at src/.
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/tmp")}


def run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, env=checker_env(), capture_output=True, text=True, timeout=600, check=False)


def write_sources(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    files = {
        "user_code.py": USER_CODE.read_text(encoding="utf-8"),
        "readme_models.py": readme_example("A typed event"),
        "readme_custom_facet.py": readme_example("A custom facet"),
    }
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return [folder / name for name in files]


def mypy(python: Path, files: list[Path], cwd: Path) -> subprocess.CompletedProcess[str]:
    config = cwd / "mypy.ini"
    config.write_text("[mypy]\nstrict = True\n", encoding="utf-8")
    return run(
        [
            str(VENV_BIN / "python"),
            "-m",
            "mypy",
            "--config-file",
            str(config),
            "--python-executable",
            str(python),
            "--cache-dir",
            str(cwd / ".mypy_cache"),
            "--no-error-summary",
            *map(str, files),
        ],
        cwd,
    )


def basedpyright(python: Path, files: list[Path], cwd: Path) -> dict[str, Any]:
    # basedpyright's own default rule set ("recommended": every rule on), less two rules
    # about the user's style rather than olsdk's types: `reportUnusedCallResult` (the README
    # calls `export_schemas(...)` for its files) and `reportAny` (a facet read by a key the
    # spec does not define is whatever was registered or sent: `Any`, as JSON data is).
    config = {"typeCheckingMode": "recommended", "reportUnusedCallResult": False, "reportAny": False}
    (cwd / "pyrightconfig.json").write_text(json.dumps(config), encoding="utf-8")
    result = run(
        [str(VENV_BIN / "basedpyright"), "--pythonpath", str(python), "--outputjson", *map(str, files)],
        cwd,
    )
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def olsdk_location(python: Path, cwd: Path) -> Path:
    found = run([str(python), "-c", "import olsdk; print(olsdk.__file__)"], cwd)
    assert found.returncode == 0, found.stderr
    return Path(found.stdout.strip()).parent


@pytest.fixture(scope="module")
def dev_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    python = VENV_BIN / "python"
    location = olsdk_location(python, tmp_path_factory.mktemp("dev"))
    assert location == ROOT / "src" / "olsdk", f"the dev venv's olsdk is {location}, not the editable install"
    return python


@pytest.fixture(scope="module")
def wheel_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the project's wheel installed; its dependencies from the dev venv."""
    folder = tmp_path_factory.mktemp("wheel")
    # Built from a copy of what the wheel is made of: a build in the worktree would leave
    # build/ and egg-info behind.
    project = folder / "project"
    shutil.copytree(ROOT / "src", project / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copyfile(ROOT / name, project / name)
    built = run(
        [str(VENV_BIN / "python"), "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(folder / "dist"), str(project)],
        folder,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = (folder / "dist").glob("olsdk-*.whl")
    venv = folder / "venv"
    made = run([sys.executable, "-m", "venv", "--without-pip", str(venv)], folder)
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    installed = run(
        [str(VENV_BIN / "python"), "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", str(wheel)],
        folder,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    site = run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], folder)
    (Path(site.stdout.strip()) / "olsdk_test_dependencies.pth").write_text(
        sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8"
    )
    location = olsdk_location(python, folder)
    assert location == Path(site.stdout.strip()) / "olsdk", f"the wheel venv's olsdk is {location}"
    return python


@pytest.fixture(params=["dev", "wheel"])
def python(request: pytest.FixtureRequest) -> Path:
    fixture: Path = request.getfixturevalue(f"{request.param}_python")
    return fixture


def test_user_code_runs_as_written(tmp_path: Path) -> None:
    result = run([sys.executable, str(USER_CODE)], tmp_path)
    assert result.returncode == 0 and result.stdout == "ok\n", result.stdout + result.stderr


def test_mypy_strict_passes_user_code_and_readme_examples(python: Path, tmp_path: Path) -> None:
    result = mypy(python, write_sources(tmp_path / "snippets"), tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_basedpyright_passes_user_code_and_readme_examples(python: Path, tmp_path: Path) -> None:
    report = basedpyright(python, write_sources(tmp_path / "snippets"), tmp_path)
    problems = [d for d in report["generalDiagnostics"] if d["severity"] in ("error", "warning")]
    assert problems == [], json.dumps(problems, indent=1)
    assert report["summary"]["filesAnalyzed"] == 3


def test_mypy_sees_the_real_types(python: Path, tmp_path: Path) -> None:
    source = tmp_path / "bad_code.py"
    source.write_text(BAD_CODE, encoding="utf-8")
    result = mypy(python, [source], tmp_path)
    lines = sorted({int(line.split(":")[1]) for line in result.stdout.splitlines() if ": error:" in line})
    assert lines == BAD_LINES, result.stdout + result.stderr
    assert 'Missing named argument "name" for "Job"' in result.stdout
    assert 'Argument "query" to "SQLJobFacet" has incompatible type "int"' in result.stdout
    assert 'Argument 1 to "emit" of "OpenLineageClient" has incompatible type "Run"' in result.stdout


def test_basedpyright_sees_the_real_types(python: Path, tmp_path: Path) -> None:
    source = tmp_path / "bad_code.py"
    source.write_text(BAD_CODE, encoding="utf-8")
    report = basedpyright(python, [source], tmp_path)
    errors = [d for d in report["generalDiagnostics"] if d["severity"] == "error"]
    assert sorted({d["range"]["start"]["line"] + 1 for d in errors}) == BAD_LINES, json.dumps(errors, indent=1)
    assert not any("Unknown" in d["message"] for d in report["generalDiagnostics"])
    emits = [d["message"] for d in errors if d["range"]["start"]["line"] + 1 in (10, 11, 12)]
    assert len(emits) == 3 and all('"emit"' in m or "EventInput" in m for m in emits), emits
