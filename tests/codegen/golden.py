"""Golden cases of the generator: one small snapshot per staging feature.

`cases/<feature>/schema.json` is the core file of a tiny snapshot (it becomes
`OpenLineage.json`); other `.json` files of the folder join the snapshot as they lie
(a facet file, a file another one refers to). `cases/<feature>/expected.py` is what
the generator makes of it: the models module, as `codegen.render.models_source` writes
it. A change to the generator then fails the one small case it touches.

After a deliberate change to the generator, rewrite the expected files and review
their diff before committing it:

    .venv/bin/python -m tests.codegen.golden            # every case
    .venv/bin/python -m tests.codegen.golden enums refs  # some

CI never rewrites them: the tests only compare.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from codegen.manifest import scan_snapshot
from codegen.render import models_source
from codegen.stage import StagedSpec, stage

CASES = Path(__file__).resolve().parent / "cases"


def case_names() -> list[str]:
    return sorted(p.name for p in CASES.iterdir() if (p / "schema.json").is_file())


def stage_case(name: str) -> StagedSpec:
    source = CASES / name
    with tempfile.TemporaryDirectory() as tmp:
        snapshot = Path(tmp)
        for path in source.rglob("*.json"):
            rel = path.relative_to(source)
            target = snapshot / ("OpenLineage.json" if rel.as_posix() == "schema.json" else rel)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
        manifest = scan_snapshot(snapshot, release=f"golden-{name}", upstream_commit="golden")
        return stage(snapshot, manifest)


def generate_case(name: str) -> str:
    return models_source(stage_case(name), f"golden-{name}")


def main(argv: list[str]) -> int:
    for name in argv or case_names():
        expected = CASES / name / "expected.py"
        text = generate_case(name)
        changed = not expected.exists() or expected.read_text(encoding="utf-8") != text
        expected.write_text(text, encoding="utf-8")
        print(f"{expected.relative_to(CASES.parent)}: {'rewritten' if changed else 'unchanged'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
