"""How the suite is cut (tests/support/selection.py and the Makefile): what `make test-fast`
leaves out, the markers added from what a test uses, the benchmark smoke tests on demand,
the tests of a missing extra skipped outside CI and failing under it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs.test_makefile import make

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow  # child pytest runs: make test, not make test-fast


def pytest_run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def collected(*args: str) -> list[str]:
    done = pytest_run("--collect-only", *args)
    assert done.returncode in (0, 5), done.stdout + done.stderr  # 5: nothing collected
    return [line for line in done.stdout.splitlines() if "::" in line]


def test_make_test_fast_builds_no_airflow_or_dbt_environment_and_leaves_the_slow_ones_out() -> None:
    done = make("-n", "-o", ".venv/.installed", "test-fast")
    assert done.returncode == 0, done.stdout + done.stderr
    assert ".venv-airflow" not in done.stdout and ".venv-dbt" not in done.stdout
    command = done.stdout.strip().splitlines()[-1]
    for marker in ("spark", "airflow", "dbt", "browser", "postgres", "slow"):
        assert f"not {marker}" in command
    assert "--hypothesis-profile=fast" in command


def test_browser_and_postgres_markers_follow_the_fixtures() -> None:
    browser = collected("-m", "browser", "tests/graph/test_browser.py", "tests/graph/test_model.py")
    assert browser and all(line.startswith("tests/graph/test_browser.py::") for line in browser)
    postgres = collected("-m", "postgres", "tests/serve/test_ingest.py")
    assert postgres and all("postgresql" in line for line in postgres)
    assert not collected("-m", "postgres", "tests/serve/test_ingest.py", "-k", "sqlite")


def test_the_release_runs_take_the_modules_that_ask_the_release_helpers() -> None:
    files = {line.split("::")[0] for line in collected("-m", "spec_release", "tests/naming", "tests/models")}
    assert files == {"tests/naming/test_parent.py", "tests/models/test_release_smoke.py"}


def test_the_benchmark_smoke_tests_run_only_when_asked_for() -> None:
    only_bench = "--ignore-glob=tests/[!b]*"  # `tests` collected, every folder but tests/bench ignored
    assert not collected("tests", only_bench)
    asked = collected("tests", only_bench, "-m", "bench")
    assert asked and all(line.startswith("tests/bench/") for line in asked)
    assert collected("tests/bench/test_bench_rows.py")  # a path inside tests/bench asks too
    assert not collected("tests/bench/test_bench_rows.py", "-m", "not bench")


def test_a_missing_extra_skips_outside_ci_and_fails_under_it(tmp_path: Path) -> None:
    # confluent_kafka made unimportable in the child (and in its children) by a sitecustomize
    (tmp_path / "sitecustomize.py").write_text(
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'confluent_kafka':\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, Block())\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tmp_path), env.get("PYTHONPATH")]))
    outside = pytest_run("-rs", "tests/transports/test_kafka.py", "-m", "kafka", env=env)
    assert outside.returncode == 0, outside.stdout + outside.stderr
    assert "needs the kafka extra (no module confluent_kafka): pip install -e '.[kafka]'" in outside.stdout
    assert "3 skipped" in outside.stdout
    under_ci = pytest_run("tests/transports/test_kafka.py", "-m", "kafka", env={**env, "CI": "1"})
    assert under_ci.returncode == 1 and "3 failed" in under_ci.stdout, under_ci.stdout


def test_two_workers_keep_the_tests_of_a_module_or_document_on_one_worker() -> None:
    # a document's blocks share one namespace (the later ones fail with NameError when split)
    ran = pytest_run("-vv", "-n", "2", "--dist", "loadgroup", "docs/explanation/benchmarks.md", "tests/test_shape.py")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    workers: dict[str, set[str]] = {}
    for line in ran.stdout.splitlines():
        if line.startswith("[gw") and "PASSED" in line:
            worker, nodeid = line.split()[0], line.split()[-1]
            workers.setdefault(nodeid.split("::")[0], set()).add(worker)
    assert set(workers) == {"docs/explanation/benchmarks.md", "tests/test_shape.py"}
    assert all(len(on) == 1 for on in workers.values()), workers
    dry = make("-n", "-o", ".venv/.installed", "-o", "spec", "test")
    assert re.search(r" -n \d+ --dist loadgroup\b", dry.stdout.strip().splitlines()[-1]), dry.stdout + dry.stderr
