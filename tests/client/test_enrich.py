"""Enrichment keys applied as the official client applies them: the same event and
configuration through both clients give the same facets."""

from __future__ import annotations

import json
import logging
import subprocess
from pathlib import Path
from typing import Any

import pytest

from olsdk import models
from olsdk.client import OpenLineageClient
from olsdk.naming import DATASET_NAME_TRIMMERS
from tests.support.official import normalised, official_env, official_run_event, to_json
from tests.support.overlay import forget_release_warnings, needs, release_has


def both(config: dict[str, Any], events: list[Any], tmp_path: Path) -> tuple[list[Any], list[Any]]:
    """Send ``events`` through both clients configured with ``config``; what each wrote."""
    from openlineage.client import OpenLineageClient as Official

    results = []
    tmp_path.mkdir(parents=True, exist_ok=True)
    for side in ("official", "olsdk"):
        out = tmp_path / f"{side}.ndjson"
        full = {**config, "transport": {"type": "file", "log_file_path": str(out), "append": True}}
        if side == "official":
            client: Any = Official(config=full)
            for event in events:
                client.emit(event)
        else:
            with OpenLineageClient(config=full, spool=False) as ours:
                for event in events:
                    ours.emit(to_json(event))
        results.append([without_version_tag(normalised(line)) for line in out.read_text().splitlines()])
    return results[0], results[1]


def without_version_tag(event: dict[str, Any]) -> dict[str, Any]:
    """Drop the official client's own version tag (olsdk adds none, on purpose)."""
    tags = event.get("run", {}).get("facets", {}).get("tags")
    if tags:
        tags["tags"] = [t for t in tags["tags"] if t["key"] != "openlineage_client_version"]
        if not tags["tags"]:
            del event["run"]["facets"]["tags"]
            if not event["run"]["facets"]:
                del event["run"]["facets"]
    return event


@pytest.fixture
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, restore_environ: None) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    official_env(monkeypatch, work, {})
    for key in ("GITHUB_REF", "CI_MERGE_REQUEST_IID", "BITBUCKET_PR_ID"):
        monkeypatch.delenv(key, raising=False)
    return work


@needs("EnvironmentVariablesRunFacet")
def test_environment_variables(clean_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from openlineage.client.facet_v2 import environment_variables_run as ev

    monkeypatch.setenv("TEAM", "data")
    monkeypatch.setenv("STAGE", "from-env")
    given = ev.EnvironmentVariablesRunFacet(environmentVariables=[ev.EnvironmentVariable(name="STAGE", value="given")])
    events = [official_run_event("a"), official_run_event("b", run_facets={"environmentVariables": given})]
    config = {"facets": {"environment_variables": ["TEAM", "STAGE", "NOT_SET"]}}
    official, ours = both(config, events, tmp_path)
    assert ours == official
    assert ours[1]["run"]["facets"]["environmentVariables"]["environmentVariables"] == [
        {"name": "STAGE", "value": "given"},
        {"name": "TEAM", "value": "data"},
    ]


@needs("TagsJobFacet", "TagsRunFacet")
def test_tags_merge_case_insensitively(clean_env: Path, tmp_path: Path) -> None:
    from openlineage.client.event_v2 import Job, JobEvent
    from openlineage.client.facet_v2 import tags_job

    job_tags = tags_job.TagsJobFacet(
        tags=[tags_job.TagsJobFacetFields("PII", "true", "INTEGRATION"), tags_job.TagsJobFacetFields("owner", "x")]
    )
    job_event = JobEvent(
        eventTime="2024-07-01T12:00:00+00:00",
        job=Job(namespace="tests", name="j", facets={"tags": job_tags}),
        producer="https://example.com/tests",
    )
    events = [official_run_event("a"), official_run_event("b", job_facets={"tags": job_tags}), job_event]
    config = {"tags": {"job": {"pii": "false", "team": "data"}, "run": {"env": "prod"}}}
    official, ours = both(config, events, tmp_path)
    assert ours == official
    tags = ours[1]["job"]["facets"]["tags"]["tags"]
    assert tags == [
        {"key": "owner", "value": "x"},
        {"key": "PII", "value": "false", "source": "USER"},  # the event's spelling of the key
        {"key": "team", "value": "data", "source": "USER"},
    ]
    assert ours[0]["run"]["facets"]["tags"]["tags"] == [{"key": "env", "value": "prod", "source": "USER"}]


ENRICHMENT_FACETS = {  # guarded class -> (entity, facet key) it is sent under
    "EnvironmentVariablesRunFacet": ("run", "environmentVariables"),
    "TagsJobFacet": ("job", "tags"),
    "TagsRunFacet": ("run", "tags"),
}


def test_enrichment_the_models_cannot_carry_is_left_out_with_one_warning(
    clean_env: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every enrichment key on whichever release the models come from: each facet the models
    have is sent; each they lack is left out and warned about once, naming release and class."""
    forget_release_warnings(monkeypatch)
    caplog.set_level(logging.WARNING, logger="olsdk._delivery.client._enrich")
    out = tmp_path / "events.ndjson"
    config = {
        "transport": {"type": "file", "log_file_path": str(out), "append": True},
        "facets": {"environment_variables": ["TEAM"]},
        "tags": {"job": {"team": "data"}, "run": {"env": "prod"}},
    }
    with OpenLineageClient(config=config, spool=False, environ={"TEAM": "data"}, error_policy="raise") as client:
        for name in ("a", "b", "c"):
            client.emit(to_json(official_run_event(name)))
    events = [json.loads(line) for line in out.read_text().splitlines()]
    assert [e["job"]["name"] for e in events] == ["a", "b", "c"]
    warnings = [r.getMessage() for r in caplog.records if r.name == "olsdk._delivery.client._enrich"]
    for name, (entity, key) in ENRICHMENT_FACETS.items():
        sent = [key in (e[entity].get("facets") or {}) for e in events]
        about = [w for w in warnings if f"have no {name};" in w]
        if release_has(name):
            assert sent == [True, True, True] and about == [], (name, about)
        else:
            assert sent == [False, False, False], name
            [warning] = about
            assert f"(spec {models.SPEC_RELEASE})" in warning and "left out" in warning


def git(repo: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@x"}
    done = subprocess.run(
        ["git", *args], cwd=repo, env={**env, "PATH": "/usr/bin:/bin"}, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.parametrize("layout", ["loose", "packed"])
def test_source_code_location_from_git_and_ci(
    layout: str, clean_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git(clean_env, "init", "-q", "-b", "feature/x")
    (clean_env / "f.txt").write_text("x")
    git(clean_env, "add", "f.txt")
    git(clean_env, "commit", "-q", "-m", "one")
    git(clean_env, "tag", "-a", "v1.2.0", "-m", "release")
    git(clean_env, "remote", "add", "origin", "git@github.com:acme/pipelines.git")
    if layout == "packed":
        git(clean_env, "pack-refs", "--all")
    nested = clean_env / "dags" / "deep"
    nested.mkdir(parents=True)
    monkeypatch.chdir(nested)
    monkeypatch.setenv("GITHUB_REF", "refs/pull/42/merge")
    config = {"facets": {"source_code_location": {"disabled": False}}}
    official, ours = both(config, [official_run_event("a")], tmp_path)
    assert ours == official
    facet = ours[0]["job"]["facets"]["sourceCodeLocation"]
    assert facet["branch"] == "feature/x" and facet["pullRequestNumber"] == "42"
    assert facet["version"] == git(clean_env, "rev-parse", "HEAD")
    assert facet["url"] == facet["repoUrl"] == "git@github.com:acme/pipelines.git"
    # keys given in the configuration win over git
    config = {"facets": {"source_code_location": {"disabled": False, "repo_url": "https://x/r", "branch": "main"}}}
    official, ours = both(config, [official_run_event("a")], tmp_path / "again")
    assert ours == official and ours[0]["job"]["facets"]["sourceCodeLocation"]["branch"] == "main"


def test_source_code_location_is_off_by_default(clean_env: Path, tmp_path: Path) -> None:
    official, ours = both({}, [official_run_event("a")], tmp_path)
    assert ours == official and "facets" not in ours[0]["job"]


def dataset(side: str, name: str, **facets: Any) -> Any:
    from openlineage.client.event_v2 import InputDataset, OutputDataset

    cls = InputDataset if side == "in" else OutputDataset
    return cls(namespace="s3://bucket", name=name, facets=facets or {})


SUBSET_FACETS = release_has("InputSubsetInputDatasetFacet")


def assert_same_reduction(ours: list[Any], official: list[Any]) -> None:
    """Equal events; with a release before the subset facets (1.38.0; `make test-spec-1.30.0`),
    equal dataset names and no subset facet (the spec has none to record the locations in)."""
    if SUBSET_FACETS:
        assert ours == official
        return
    for side, facets_key in (("inputs", "inputFacets"), ("outputs", "outputFacets")):
        assert [d["name"] for d in ours[0][side]] == [d["name"] for d in official[0][side]]
        assert all("subset" not in (d.get(facets_key) or {}) for d in ours[0][side])


def test_dataset_reducing(clean_env: Path, tmp_path: Path) -> None:
    from openlineage.client.facet_v2 import column_lineage_dataset as cl
    from openlineage.client.facet_v2 import schema_dataset

    schema = schema_dataset.SchemaDatasetFacet(fields=[schema_dataset.SchemaDatasetFacetFields(name="id")])
    lineage = cl.ColumnLineageDatasetFacet(
        fields={
            "id": cl.Fields(
                inputFields=[cl.InputField(namespace="s3://bucket", name="/raw/events/dt=2024-01-01", field="id")]
            )
        }
    )
    inputs = [
        dataset("in", "/raw/events/dt=2024-01-01"),
        dataset("in", "/raw/events/dt=2024-01-02"),
        dataset("in", "/raw/events/dt=2024-01-03", schema=schema),  # other facets: not merged
        dataset("in", "/logs/2024/01/31/"),
        dataset("in", "/logs/2024/02/01"),
        dataset("in", "/orders/v3"),
        dataset("in", "/plain/table"),
    ]
    outputs = [dataset("out", "/curated/daily/20240131", columnLineage=lineage)]
    event = official_run_event("reduce", inputs=inputs, outputs=outputs)
    config: dict[str, Any] = {
        "dataset": {
            "reducing_enabled": True,
            "extra_trimmers": "tests.support.official.VersionSuffixTrimmer",
        }
    }
    official, ours = both(config, [event], tmp_path)
    names = [d["name"] for d in ours[0]["inputs"]]
    assert names == ["/raw/events", "/raw/events", "/logs", "/orders", "/plain/table"]
    assert_same_reduction(ours, official)
    if SUBSET_FACETS:
        assert ours[0]["inputs"][0]["inputFacets"]["subset"]["inputCondition"] == {
            "type": "location",
            "locations": ["/raw/events/dt=2024-01-01", "/raw/events/dt=2024-01-02"],
        }
    assert ours[0]["outputs"][0]["facets"]["columnLineage"]["fields"]["id"]["inputFields"][0]["name"] == "/raw/events"
    disabled = {
        "dataset": {
            "reducing_enabled": True,
            "disabled_trimmers": [
                "openlineage.client.dataset.trimmers.KeyValueTrimmer",
                "openlineage.client.dataset.trimmers.DateTrimmer",
            ],
        }
    }
    official, ours = both(disabled, [event], tmp_path / "disabled")
    assert_same_reduction(ours, official)
    assert ours[0]["inputs"][0]["name"] == "/raw/events/dt=2024-01-01"


NAMES = [
    "/data/events/year=2024/month=01/day=31",
    "/data/events/dt=2024-01-01/",
    "data/a=1/b=2=3",
    "/tmp/20250722T0901Z",
    "/tmp/2025-07-22T09:01:00.000Z",
    "/tmp/31.12.2024",
    "/tmp/20251399",
    "/20250721",
    "/logs/2024/01",
    "/logs/2024/1",
    "/a/b/2024/01/31",
    "/a/b/2023/2024/01",
    "2024/01/31",
    "/data/202401",
    "/data/2024-01",
    "/data/2024-13",
    "/x/report_20240101",
    "/x/v2",
    "",
    "/",
    "table",
]


@pytest.mark.parametrize("name", NAMES)
def test_each_trimmer_step_equals_the_official_one(name: str) -> None:
    from openlineage.client.dataset import trimmers

    for class_name, step in DATASET_NAME_TRIMMERS.items():
        assert step(name) == getattr(trimmers, class_name)().trim(name), class_name


@needs("EnvironmentVariablesRunFacet", "TagsJobFacet")
def test_enrichment_applies_to_model_events_too(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from olsdk.models import Job, Run, RunEvent
    from olsdk.transports import CallbackTransport

    sent: list[Any] = []
    monkeypatch.setenv("TEAM", "data")
    config = {"facets": {"environment_variables": ["TEAM"]}, "tags": {"job": {"k": "v"}}}
    client = OpenLineageClient(CallbackTransport(sent.append), config=config, spool=False)
    client.emit(
        RunEvent(
            eventType="START", run=Run(runId="0190e5c6-5d4a-7b1e-8c3f-1a2b3c4d5e6f"), job=Job(namespace="n", name="j")
        )
    )
    event = json.loads(sent[0].body)
    assert event["run"]["facets"]["environmentVariables"]["environmentVariables"] == [{"name": "TEAM", "value": "data"}]
    assert event["job"]["facets"]["tags"]["tags"] == [{"key": "k", "value": "v", "source": "USER"}]
    import olsdk

    olsdk.parse_event(sent[0].body)  # still a valid event
