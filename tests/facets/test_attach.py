"""attach(): one call, checked at run time and by mypy, never mutating its arguments."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

import olsdk
from olsdk.facets import attach
from olsdk.models import (
    InputDataset,
    Job,
    JobEvent,
    OutputDataset,
    Run,
    RunEvent,
    RunFacets,
    SQLJobFacet,
    StaticDataset,
)

RUN_ID = "3b452093-782c-4ef2-9c0c-aafe2aa6f34d"


def test_attach_to_run_returns_a_copy(sample: Any) -> None:
    kept = {"_producer": "https://x.org", "_schemaURL": "https://x.org/s.json"}
    run = Run(runId=RUN_ID, facets=RunFacets.model_validate({"other_x": kept}))
    before = run.to_json()
    facet = sample.MyCompanyStatisticsRunFacet(rows=3)

    attached = attach(run, facet)

    assert run.to_json() == before  # the caller's run and its container are unchanged
    assert attached is not run and attached.facets is not run.facets
    assert attached.facets is not None
    assert attached.facets["myCompany_statistics"] is facet  # the facet itself is shared
    assert attached.facets["other_x"] == kept


def test_attach_to_an_event_routes_run_and_job_facets(sample: Any) -> None:
    event = RunEvent(eventType="START", run=Run(runId=RUN_ID), job=Job(namespace="ns", name="j"))
    stats = sample.MyCompanyStatisticsRunFacet(rows=1)
    owner = sample.MyCompanyOwnerJobFacet(team="data")
    sql = SQLJobFacet(query="select 1")

    attached = attach(event, stats, owner, sql)

    assert event.run.facets is None and event.job.facets is None
    assert attached.run.facets is not None and attached.job.facets is not None
    assert attached.run.facets["myCompany_statistics"] is stats
    assert attached.job.facets["myCompany_owner"] is owner
    assert attached.job.facets.sql is sql  # a spec facet lands in its typed field
    assert olsdk.parse_event(olsdk.to_json(attached)) == attached


def test_attach_to_datasets(sample: Any) -> None:
    scan = sample.MyCompanyS3ScanInputDatasetFacet(objects=12)
    dataset = attach(InputDataset(namespace="s3://bucket", name="path"), scan)
    assert dataset.inputFacets is not None and dataset.inputFacets["myCompany_s3Scan"] is scan
    assert dataset.to_dict()["inputFacets"]["myCompany_s3Scan"]["objects"] == 12

    with pytest.raises(TypeError, match="an input dataset facet; an OutputDataset takes"):
        attach(OutputDataset(namespace="s3://bucket", name="path"), scan)  # type: ignore[call-overload]


def test_replacing_a_facet_with_the_same_key(sample: Any) -> None:
    run = attach(Run(runId=RUN_ID), sample.MyCompanyStatisticsRunFacet(rows=1))
    again = attach(run, sample.MyCompanyStatisticsRunFacet(rows=2))
    assert run.facets is not None and again.facets is not None
    assert run.facets["myCompany_statistics"].rows == 1
    assert again.facets["myCompany_statistics"].rows == 2
    assert len(again.facets) == 1


@pytest.mark.parametrize(
    ("make_target", "message"),
    [
        (lambda: Run(runId=RUN_ID), "is a job facet; a Run takes run facets"),
        (lambda: StaticDataset(namespace="n", name="d"), "a StaticDataset takes dataset facets"),
        (lambda: JobEvent(job=Job(namespace="n", name="j")), "is a run facet; a JobEvent takes job"),
    ],
)
def test_wrong_kind_is_a_type_error(sample: Any, make_target: Any, message: str) -> None:
    target = make_target()
    facet = (
        sample.MyCompanyOwnerJobFacet(team="t")
        if isinstance(target, Run)
        else sample.MyCompanyStatisticsRunFacet(rows=1)
    )
    with pytest.raises(TypeError, match=message):
        attach(target, facet)


def test_attach_refuses_non_facets() -> None:
    with pytest.raises(TypeError, match="not a facet"):
        attach(Run(runId=RUN_ID), {"_producer": "x"})  # type: ignore[call-overload]


def test_mypy_refuses_a_facet_of_the_wrong_kind(tmp_path: Path) -> None:
    mypy_api = pytest.importorskip("mypy.api")
    source = textwrap.dedent(
        """
        from olsdk.facets import CustomDatasetFacet, CustomRunFacet, attach
        from olsdk.models import InputDataset, Run

        class MyCoStatsRunFacet(
            CustomRunFacet, prefix="myCo", schema_base_url="https://x.org", version="1-0-0"
        ):
            rows: int

        class MyCoQualityDatasetFacet(
            CustomDatasetFacet, prefix="myCo", schema_base_url="https://x.org", version="1-0-0"
        ):
            score: float

        run = Run(runId="3b452093-782c-4ef2-9c0c-aafe2aa6f34d")
        dataset = InputDataset(namespace="n", name="d")
        good_run: Run = attach(run, MyCoStatsRunFacet(rows=1))
        good_dataset: InputDataset = attach(dataset, MyCoQualityDatasetFacet(score=1.0))
        bad_dataset = attach(dataset, MyCoStatsRunFacet(rows=1))
        bad_run = attach(run, MyCoQualityDatasetFacet(score=1.0))
        """
    )
    path = tmp_path / "attach_types.py"
    path.write_text(source)
    out, err, _status = mypy_api.run(
        ["--strict", "--no-error-summary", "--cache-dir", str(tmp_path / ".mypy_cache"), str(path)]
    )
    errors = [line for line in out.splitlines() if ": error:" in line]
    lines = source.splitlines()
    expected = [str(n) for n, line in enumerate(lines, 1) if line.startswith("bad_")]
    assert [line.split(":")[1] for line in errors] == expected, out + err
    assert all('No overload variant of "attach"' in line for line in errors)


def test_dump_of_attached_facets_is_plain_json(sample: Any) -> None:
    run = attach(Run(runId=RUN_ID), sample.MyCompanyStatisticsRunFacet(rows=5, ratio=0.5))
    facet = json.loads(run.to_json())["facets"]["myCompany_statistics"]
    assert facet["rows"] == 5 and facet["ratio"] == 0.5
    assert facet["_schemaURL"].endswith("#/$defs/MyCompanyStatisticsRunFacet")
