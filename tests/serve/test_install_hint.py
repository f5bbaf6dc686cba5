"""Without the serve extra, ``olsdk serve`` says how to install it for the olsdk in use.

``pip install 'olsdk[serve]'`` works only for an olsdk from an index: for a wheel the
command names the wheel, for a clone its folder, and the extra's packages are listed
(they install wherever olsdk came from). Distributions are real ``.dist-info`` folders
read by importlib.metadata; the command is a real child process with uvicorn hidden.
"""

from __future__ import annotations

import json
import sys
import tomllib
from importlib.metadata import Distribution
from pathlib import Path

import pytest

from olsdk._integrations.serve._cli import install_hint
from tests.support.processes import ROOT, child_env

SERVE_EXTRA = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["serve"]


def installed(tmp_path: Path, direct_url: dict[str, object] | None) -> Distribution:
    """An installed olsdk's metadata folder, as pip writes it (with direct_url.json when not from an index)."""
    info = tmp_path / "site-packages" / "olsdk-0.1.0.dist-info"
    info.mkdir(parents=True)
    requires = "".join(f'Requires-Dist: {p}; extra == "serve"\n' for p in SERVE_EXTRA)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.3\nName: olsdk\nVersion: 0.1.0\nRequires-Dist: pydantic>=2\n{requires}"
    )
    if direct_url is not None:
        (info / "direct_url.json").write_text(json.dumps(direct_url))
    return Distribution.at(info)


@pytest.mark.parametrize(
    ("direct_url", "command"),
    [
        (None, "pip install 'olsdk[serve]'"),
        (
            {"url": "file:///home/me/dl/olsdk-0.1.0-py3-none-any.whl", "archive_info": {}},
            "pip install '/home/me/dl/olsdk-0.1.0-py3-none-any.whl[serve]'",
        ),
        (
            {"url": "file:///home/me/src/olsdk", "dir_info": {"editable": True}},
            "pip install -e '/home/me/src/olsdk[serve]'",
        ),
        ({"url": "file:///home/me/src/olsdk", "dir_info": {}}, "pip install '/home/me/src/olsdk[serve]'"),
        (
            {"url": "https://github.com/example/olsdk", "vcs_info": {"vcs": "git", "commit_id": "0" * 40}},
            "pip install 'olsdk[serve] @ git+https://github.com/example/olsdk'",
        ),
    ],
    ids=["index", "wheel", "editable-clone", "clone", "git"],
)
def test_the_hint_names_where_olsdk_came_from(
    tmp_path: Path, direct_url: dict[str, object] | None, command: str
) -> None:
    hint = install_hint(installed(tmp_path, direct_url))
    assert hint.startswith(command + " (or the extra's packages: pip install ")
    for package in SERVE_EXTRA:  # as pip writes them: the same names, specifiers in its order
        assert f"'{package.split('>')[0].split('<')[0]}" in hint


def test_serve_without_the_extra_says_how_to_install_it_for_this_tree(tmp_path: Path) -> None:
    import subprocess

    code = (
        "import sys; sys.modules['uvicorn'] = None\n"  # the extra not installed
        "from olsdk._integrations._cli import main; sys.exit(main(['serve', '--port', '0']))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=child_env(tmp_path), capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 2
    source = Path(install_hint.__code__.co_filename).resolve().parents[4]  # the tree these tests run
    assert f"olsdk serve: error: uvicorn is not installed: pip install -e '{source}[serve]'" in done.stderr
    assert "'uvicorn>=0.30,<1'" in done.stderr
    assert (source / "pyproject.toml").is_file()
