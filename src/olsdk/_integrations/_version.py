"""What `olsdk --version` prints: the olsdk version and the spec snapshot of its models.

The generated package records the snapshot it was generated from (`SPEC_VERSION`, the
core spec's `$id`; `SPEC_RELEASE`; `MANIFEST_SHA256`, a digest of `spec/manifest.json`'s
files); reading them does not import the models.

Wiring into an argparse command line:
`parser.add_argument("--version", action=VersionAction)`; anywhere else:
`print(version_text())`. Also `python -m olsdk._integrations._version`.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _dist_version
from typing import Any, NoReturn

_SPEC_VERSION_RE = re.compile(r"/(\d+-\d+-\d+)/OpenLineage\.json")


def olsdk_version() -> str:
    try:
        return _dist_version("olsdk")
    except PackageNotFoundError:  # running from a source tree without installing
        from olsdk import __version__

        return __version__


def spec_info() -> dict[str, str]:
    """The snapshot the models were generated from: version, core `$id`, release, digest."""
    generated = importlib.import_module("olsdk._models._generated")  # constants only, no models
    core_id = str(generated.SPEC_VERSION)
    match = _SPEC_VERSION_RE.search(core_id)
    return {
        "spec_version": match[1] if match else core_id,
        "core_id": core_id,
        "release": str(generated.SPEC_RELEASE),
        "manifest_sha256": str(generated.MANIFEST_SHA256),
    }


def version_text() -> str:
    """Three lines: olsdk's version, the spec version, the snapshot and manifest digest."""
    info = spec_info()
    return (
        f"olsdk {olsdk_version()}\n"
        f"OpenLineage spec {info['spec_version']} ({info['core_id']})\n"
        f"snapshot: {info['release']}, manifest sha256 {info['manifest_sha256']}"
    )


class VersionAction(argparse.Action):
    """`--version` for an argparse parser: prints `version_text()` as is, exits 0.

    (argparse's own `action="version"` re-wraps the text into one paragraph.)
    """

    def __init__(
        self,
        option_strings: Sequence[str],
        dest: str = argparse.SUPPRESS,
        default: Any = argparse.SUPPRESS,
        help: str | None = "print the olsdk version and the spec snapshot of its models, then exit",
    ) -> None:
        super().__init__(option_strings=option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> NoReturn:
        sys.stdout.write(version_text() + "\n")  # like argparse's own version action
        parser.exit()


if __name__ == "__main__":
    print(version_text())
