"""The hand-written layer at once on the imported models, in a child process
(`python -m tests.support.spec_smoke`): a client with every enrichment key runs a job under
a parent run with a root, and a custom facet is exported, attached and parsed back.

`make test-spec-<release>` runs it (with the rest of the `spec_release` tests) on models
generated from each release: the generate-and-parse smoke test of that release.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from olsdk.models import SPEC_RELEASE

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.spec_release


def test_the_layer_runs_and_parses_back_on_the_imported_models(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tests.support.spec_smoke", str(tmp_path / "work")],
        cwd=ROOT,  # the child inherits PYTHONPATH: the same models as this process
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["error"] is None
    assert report["release"] == SPEC_RELEASE
    assert report["events"]["client"] >= 4  # START and COMPLETE of the job and of its child run
    assert report["events"]["facets"] >= 1  # the schema files exported
