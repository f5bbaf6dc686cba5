"""`olsdk validate`: files, folders, stdin, text and JSON reports, --lenient, exit codes,
and the progress bar (only when standard error is a terminal: a real pty here)."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from olsdk._integrations._cli import main
from tests.corpus.events import CORPUS

VALID = [s for s in CORPUS if s.problems == ()]
INVALID = [s for s in CORPUS if s.problems]
UNUSABLE = [s for s in CORPUS if s.problems is None]


def write_ndjson(path: Path, samples: list[object]) -> Path:
    path.write_text("".join(json.dumps(s.document) + "\n" for s in samples))  # type: ignore[attr-defined]
    return path


def test_valid_files_exit_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_ndjson(tmp_path / "a.ndjson", VALID)
    assert main(["validate", str(tmp_path / "a.ndjson")]) == 0
    out = capsys.readouterr().out
    assert f"{len(VALID)} events: {len(VALID)} valid, 0 invalid" in out


def test_problems_are_printed_as_file_line_path_rule(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_ndjson(tmp_path / "events.ndjson", [*VALID[:2], *INVALID])
    assert main(["validate", str(path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    for number, sample in enumerate(INVALID, start=3):
        assert sample.problems
        for expected in sample.problems:
            assert any(line.startswith(f"{path}:{number}: {expected}: ") for line in lines), (expected, lines)
    assert f"{2 + len(INVALID)} events: 2 valid, {len(INVALID)} invalid" in lines
    assert any("required field missing" in line and line.split()[0].isdigit() for line in lines)  # by rule
    assert any(line.startswith("https://github.com/apache/airflow") for line in lines)  # by producer


def test_folders_json_documents_and_stdin(tmp_path: Path) -> None:
    folder = tmp_path / "collected"
    (folder / "deep").mkdir(parents=True)
    write_ndjson(folder / "deep" / "a.ndjson", VALID[:2])
    (folder / "b.json").write_text(json.dumps([INVALID[0].document, VALID[0].document], indent=2))
    (folder / "notes.txt").write_text("not events")
    result = subprocess.run(
        [sys.executable, "-m", "olsdk._integrations._cli", "validate", "--format", "json", str(folder), "-"],
        input=json.dumps(VALID[1].document) + "\n\n" + json.dumps(INVALID[1].document) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 1, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    summary = records[-1]["summary"]
    assert (summary["events"], summary["invalid"]) == (6, 2)
    assert [r["location"] for r in records[:-1]] == [f"{folder / 'b.json'}[0]", "<stdin>:3"]
    assert records[0]["problems"][0]["path"] == INVALID[0].problems[0]  # type: ignore[index]
    assert result.stderr == ""  # no progress bar when standard error is not a terminal


def test_lenient_counts_readable_and_exits_one_only_for_unreadable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    readable = write_ndjson(tmp_path / "readable.ndjson", [*VALID, *INVALID])
    assert main(["validate", "--lenient", "--quiet", str(readable)]) == 0
    assert f"leniently: {len(VALID) + len(INVALID)} readable ({len(INVALID)} of them with problems), 0 unreadable" in (
        capsys.readouterr().out
    )
    both = write_ndjson(tmp_path / "both.ndjson", [*INVALID, *UNUSABLE])
    assert main(["validate", "--lenient", "--format", "json", str(both)]) == 1
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert records[-1]["summary"]["unreadable"] == len(UNUSABLE)
    assert [r["readable_leniently"] for r in records[:-1]] == [True] * len(INVALID) + [False] * len(UNUSABLE)


def test_a_missing_path_is_exit_two(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(tmp_path / "nope.ndjson")]) == 2
    assert "no such file or folder" in capsys.readouterr().err


def test_progress_bar_on_a_terminal(tmp_path: Path) -> None:
    path = write_ndjson(tmp_path / "many.ndjson", VALID * 300)
    leader, follower = pty.openpty()
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "olsdk._integrations._cli", "validate", "--quiet", str(path)],
            stdout=subprocess.PIPE,
            stderr=follower,
            env={**os.environ, "COLUMNS": "100"},
        )
        os.close(follower)
        stderr = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                break
            if not chunk:
                break
            stderr += chunk
        stdout, _ = process.communicate(timeout=120)
    finally:
        os.close(leader)
    assert process.returncode == 0
    assert b"events" in stderr and b"%" in stderr  # the bar was drawn...
    assert b"events" in stdout and b"%]" not in stdout  # ...on standard error only


@pytest.mark.parametrize("content", ["", "   \n\t\n", "\n"], ids=["empty", "whitespace", "newline"])
@pytest.mark.parametrize("suffix", [".json", ".ndjson"])
def test_an_empty_file_is_a_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, suffix: str
) -> None:
    path = tmp_path / f"events{suffix}"
    path.write_text(content)
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}: (event): empty: no JSON in it" in out
    assert "1 events: 0 valid, 1 invalid" in out


def test_empty_standard_input_is_a_problem() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "olsdk._integrations._cli", "validate", "--format", "json", "-"],
        input="\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 1, result.stderr
    first = json.loads(result.stdout.splitlines()[0])
    assert first["location"] == "<stdin>"
    assert first["problems"][0]["rule"].startswith("empty: ")


def spark_details_event() -> dict[str, object]:
    # Valid against the spec (an unknown run facet is checked as a RunFacet), but the Java
    # agent's facet class, when registered, wants applicationId as a string.
    event = json.loads(json.dumps(VALID[0].document))
    event["run"]["facets"]["spark_applicationDetails"] = {
        "_producer": "https://github.com/OpenLineage/OpenLineage/tree/1.40.0/integration/spark",
        "_schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunFacet",
        "applicationId": 12345,
    }
    return event


def test_validate_imports_no_integration_so_its_verdict_is_validate_events(tmp_path: Path) -> None:
    # `olsdk validate` in a fresh process: the spec alone, as olsdk.validate_event in a process
    # that registered nothing; the Spark integration (which registers the agent's facets) and
    # the client stay unimported.
    path = tmp_path / "spark.ndjson"
    path.write_text(json.dumps(spark_details_event()) + "\n")
    probe = (
        "import sys, olsdk; from olsdk._integrations._cli import main; "
        "rc = main(['validate', '--quiet', sys.argv[1]]); "
        "print(rc, olsdk.validate_event(open(sys.argv[1]).read()), "
        "sorted(m for m in sys.modules if m.startswith("
        "('olsdk.spark', 'olsdk._integrations.spark', 'olsdk.client', 'olsdk._delivery.client', 'pyspark'))))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe, str(path)], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "0 [] []"


def test_facets_option_imports_custom_facet_classes_that_then_check_their_keys(tmp_path: Path) -> None:
    path = tmp_path / "spark.ndjson"
    path.write_text(json.dumps(spark_details_event()) + "\n")

    def olsdk_validate(*args: str) -> subprocess.CompletedProcess[str]:
        # A fresh process each: registration happens when a module is first imported.
        command = [sys.executable, "-m", "olsdk._integrations._cli", "validate", *args, str(path)]
        return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)

    assert olsdk_validate().returncode == 0
    registered = olsdk_validate("--facets", "olsdk.spark.agent_facets")
    assert registered.returncode == 1, registered.stderr
    assert f"{path}:1: run.facets.spark_applicationDetails.applicationId: must be string" in registered.stdout
    missing = olsdk_validate("--facets", "no_such_module_here")
    assert missing.returncode == 2
    assert "--facets no_such_module_here" in missing.stderr


ACME_FACETS = """
from olsdk.facets import CustomRunFacet


class AcmeChecksRunFacet(CustomRunFacet, prefix="acme", schema_base_url="https://acme.example/facets", version="1-0-0"):
    passed: bool
"""


def acme_event() -> dict[str, object]:
    event = json.loads(json.dumps(VALID[0].document))
    event["run"]["facets"] = {
        "acme_checks": {
            "_producer": "https://acme.example/producer",
            "_schemaURL": "https://acme.example/facets/1-0-0/AcmeChecksRunFacet.json#/$defs/AcmeChecksRunFacet",
            "passed": "yes",  # valid as a RunFacet; the class wants a boolean
        }
    }
    return event


def olsdk_command(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`olsdk ARGS` run in `folder` as the installed `olsdk` script runs: a fresh process
    whose module search path does not start with the current folder (`python -P`)."""
    command = [sys.executable, "-P", "-c", "import sys; from olsdk._integrations._cli import main; sys.exit(main())"]
    return subprocess.run([*command, *args], cwd=folder, capture_output=True, text=True, timeout=120, check=False)


def test_facets_imports_a_module_from_the_current_folder(tmp_path: Path) -> None:
    (tmp_path / "acme_facets.py").write_text(ACME_FACETS)
    (tmp_path / "events.ndjson").write_text(json.dumps(acme_event()) + "\n")
    result = olsdk_command(tmp_path, "validate", "--facets", "acme_facets", "events.ndjson")
    assert result.returncode == 1, result.stderr
    assert "events.ndjson:1: run.facets.acme_checks.passed: " in result.stdout
    # As `olsdk facets export` imports it.
    exported = olsdk_command(tmp_path, "facets", "export", "acme_facets", "--out", "schemas")
    assert exported.returncode == 0, exported.stderr
    # A .py file works too.
    by_path = olsdk_command(tmp_path, "validate", "--facets", "acme_facets.py", "events.ndjson")
    assert by_path.returncode == 1, by_path.stderr


def test_without_facets_validate_names_the_custom_keys_no_class_checks(tmp_path: Path) -> None:
    (tmp_path / "events.ndjson").write_text(json.dumps(acme_event()) + "\n" + json.dumps(VALID[0].document) + "\n")
    result = olsdk_command(tmp_path, "validate", "events.ndjson")
    assert result.returncode == 0, result.stderr  # valid as the spec's RunFacet
    hint = result.stdout.split("hint: ", 1)[1]
    assert "acme_checks (run)" in hint and "--facets MODULE" in hint
    as_json = olsdk_command(tmp_path, "validate", "--format", "json", "events.ndjson")
    assert json.loads(as_json.stdout.splitlines()[-1])["summary"]["unchecked_facet_keys"]["acme_checks (run)"] == 1
    # With the module that defines the class, nothing is left unchecked.
    (tmp_path / "acme_facets.py").write_text(ACME_FACETS.replace("passed: bool", "passed: str"))
    checked = olsdk_command(tmp_path, "validate", "--facets", "acme_facets", "events.ndjson")
    assert checked.returncode == 0, checked.stdout
    assert "acme_checks" not in checked.stdout
