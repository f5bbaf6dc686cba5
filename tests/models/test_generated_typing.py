"""Users' code that builds and reads events type-checks under `mypy --strict`."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

USER_CODE = textwrap.dedent(
    """
    from olsdk import parse_event, to_json
    from olsdk.models import (
        DatasetFacets, InputDataset, Job, Run, RunEvent, RunFacets, EventType,
        SchemaDatasetFacet, SchemaDatasetFacetFields, SQLJobFacet, JobFacets,
    )

    event = RunEvent(
        eventType=EventType.START,
        run=Run(runId="0190d3a4-7b5c-7a3e-9f00-1234567890ab", facets=RunFacets()),
        job=Job(namespace="ns", name="job", facets=JobFacets(sql=SQLJobFacet(query="select 1"))),
        inputs=[InputDataset(namespace="ns", name="t", facets=DatasetFacets(
            schema=SchemaDatasetFacet(fields=[SchemaDatasetFacetFields(name="a", type="int")])))],
    )
    parsed = parse_event(to_json(event))
    if isinstance(parsed, RunEvent) and parsed.inputs and parsed.inputs[0].facets:
        schema = parsed.inputs[0].facets.schema
        names: list[str] = [f.name for f in schema.fields] if schema and schema.fields else []
    """
)

BAD_CODE = textwrap.dedent(
    """
    from olsdk.models import Job, SQLJobFacet
    Job(namespace="ns")
    SQLJobFacet(query=1)
    """
)


def run_mypy(tmp_path: Path, code: str) -> subprocess.CompletedProcess[str]:
    target = tmp_path / "user_code.py"
    target.write_text(code)
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--config-file", "/dev/null", str(target)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"MYPYPATH": f"{ROOT / 'src'}:{ROOT / 'generated'}", "PATH": "/usr/bin:/bin"},
        timeout=300,
    )


def test_building_and_reading_events_type_checks(tmp_path: Path) -> None:
    result = run_mypy(tmp_path, USER_CODE)
    assert result.returncode == 0, result.stdout + result.stderr


def test_type_checker_catches_missing_and_mistyped_fields(tmp_path: Path) -> None:
    result = run_mypy(tmp_path, BAD_CODE)
    assert result.returncode == 1
    assert 'Missing named argument "name"' in result.stdout
    assert 'Argument "query" to "SQLJobFacet" has incompatible type "int"' in result.stdout
