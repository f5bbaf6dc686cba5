"""Closing the loop: export -> `python -m codegen generate --extra-facets` -> export.

The generated package is always named `olsdk_generated`, so the one generated here is
imported in a subprocess with `PYTHONPATH` pointing at it (ahead of the installed one).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from olsdk.facets import export_schemas

from .conftest import ROOT

REEXPORT = textwrap.dedent(
    """
    import json, sys
    import olsdk_generated
    import olsdk
    import olsdk.models as m
    from olsdk.facets import export_schemas, key_of

    assert olsdk_generated.__file__.startswith(sys.argv[1]), olsdk_generated.__file__
    names = json.loads(sys.argv[3])
    classes = [getattr(m, name) for name in names]
    export_schemas(classes, sys.argv[2])

    # The generated classes are registered under their keys: events parse them typed.
    stats = m.MyCompanyStatisticsRunFacet(rows=3, columns=[{"name": "a", "nullCount": 1}])
    event = m.RunEvent(eventType="START", run=m.Run(runId="3b452093-782c-4ef2-9c0c-aafe2aa6f34d",
                       facets={"myCompany_statistics": stats}), job=m.Job(namespace="n", name="j"))
    parsed = olsdk.parse_event(olsdk.to_json(event))
    assert type(parsed.run.facets.myCompany_statistics) is m.MyCompanyStatisticsRunFacet
    print(json.dumps({name: key_of(getattr(m, name)) for name in names}))
    """
)


def _run(args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        args, cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def test_export_generate_export_is_a_fixed_point(sample: Any, tmp_path: Path) -> None:
    first = tmp_path / "first"
    written = export_schemas(sample, first)

    generated = tmp_path / "generated"
    _run([sys.executable, "-m", "codegen", "generate", "--extra-facets", str(first), "--out", str(generated)])
    assert (generated / "olsdk_generated" / "models.py").exists()

    second = tmp_path / "second"
    names = [cls.__name__ for cls in sample.FACETS]
    result = _run(
        [sys.executable, "-c", REEXPORT, str(generated), str(second), json.dumps(names)],
        PYTHONPATH=str(generated),
    )
    keys = json.loads(result.stdout.strip().splitlines()[-1])
    assert keys == {cls.__name__: cls.__olsdk_facet_key__ for cls in sample.FACETS}

    for path in written:
        relative = path.relative_to(first)
        assert (second / relative).read_text() == path.read_text(), relative
    assert sorted(p.relative_to(second) for p in second.rglob("*.json")) == sorted(
        p.relative_to(first) for p in written
    )
