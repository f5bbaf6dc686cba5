"""`olsdk._integrations._version`: the version text names the generated snapshot; `olsdk --version` prints it."""

from __future__ import annotations

import subprocess
import sys

from olsdk._integrations._version import version_text
from olsdk._models import _generated


def test_version_text_names_the_generated_snapshot() -> None:
    text = version_text()
    assert _generated.SPEC_VERSION in text and _generated.MANIFEST_SHA256 in text
    assert text.splitlines()[0].startswith("olsdk ")


def test_olsdk_version_flag() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "olsdk._integrations._cli", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == version_text()
