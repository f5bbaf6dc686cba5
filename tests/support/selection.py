"""Which tests run where: markers from what a test needs, the optional extras, the benchmark smoke tests.

The root `conftest.py` hands these hooks to pytest. At collection:

- **markers from what a test uses**, so that `-m` can leave out the slow environments:
  `browser` on a test that takes the `chromium` fixture (a real headless chromium),
  `postgres` on one that takes `postgres` or runs on the `db` fixture's PostgreSQL store,
  `slow` on the typing tests of the wheel (built and installed into a fresh venv; other slow
  tests carry the marker themselves),
  `bench` on every test under tests/bench (the benchmark harness's smoke tests),
  `spec_release` on every test of a module that asks the release helpers of
  `tests.support.overlay` (`needs`, `release_has`, ...): what `make test-spec-<release>` runs.
- **optional extras**: a test marked with an extra (`serve`, `kafka`, `sql`, `fsspec`, `aws`,
  `gcp`, `spark`), or in a folder of `FOLDER_EXTRAS`, is skipped when the extra is not
  installed, naming the pip command, except under CI (env var `CI` set), where it runs and
  fails: CI must install every extra. A module that needs an extra to be collected at all
  calls `require_extras()` at its top.
- **the benchmark smoke tests run when asked for**: with `-m` naming `bench`, or a path under
  tests/bench on the command line (`make test-bench`); otherwise they are deselected.

- **one worker per group** under pytest-xdist (the Makefile's test targets run three
  workers with `--dist loadgroup`): a test module's tests stay together (its module fixtures
  are built once; a document's code blocks share one namespace and run in order), and the tests
  of one heavy environment share one worker: every Spark test one SparkSession, every Airflow
  test one `airflow dags test` campaign, every PostgreSQL test one throwaway cluster.

Hypothesis profiles (`ci` under CI, `fast` for `make test-fast`) are registered here too;
`examples(n)` is how a slow property test scales its example count by profile.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "tests" / "bench"

# marker -> the modules the extra of that name installs (pyproject.toml's optional-dependencies)
EXTRAS: dict[str, tuple[str, ...]] = {
    "spark": ("pyspark",),
    "kafka": ("confluent_kafka",),
    "sql": ("openlineage_sql",),
    "fsspec": ("fsspec",),
    "aws": ("boto3",),
    "gcp": ("google.cloud.datacatalog_lineage_v1",),
    "serve": ("starlette", "uvicorn", "sqlalchemy"),
}
# folders whose every test needs extras installed (no marker: `-m "not spark"` must keep the API
# tests, which import pyspark but start no JVM): olsdk serve's tests; the public API's, which load
# every public module (olsdk.spark and olsdk.serve among them)
FOLDER_EXTRAS: dict[str, tuple[str, ...]] = {
    "tests/serve": ("serve",),
    "tests/api": ("spark", "serve"),
}
# the helpers of tests.support.overlay whose answer depends on the release of the imported models
RELEASE_HELPERS = ("needs", "release_has", "parent_root_in_models")

# `ci` (loaded when the env var CI is set): the example counts the tests name, no deadline on a
# shared CI machine, the reproduction blob printed on failure. `fast` (make test-fast): a fifth
# of those counts, at least two, for the property tests that scale theirs with `examples()`.
settings.register_profile("ci", deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("fast", deadline=None, suppress_health_check=[HealthCheck.too_slow])
FAST_SHARE = 5


def load_profile(config: pytest.Config) -> None:
    """`ci` under CI unless `--hypothesis-profile` names another."""
    if os.environ.get("CI") and not config.getoption("hypothesis_profile", None):
        settings.load_profile("ci")


def examples(n: int) -> int:
    """`n` examples under the `ci` profile; a fifth of them (at least 2) under `fast`."""
    if settings.get_current_profile_name() == "fast":
        return max(2, n // FAST_SHARE)
    return n


def _missing(extra: str) -> str | None:
    for module in EXTRAS[extra]:
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:  # a parent package is missing
            found = False
        if not found:
            return module
    return None


def require_extras(*extras: str) -> None:
    """At a test module's top, for one that needs `extras` to be collected at all: outside CI,
    skip the module when one is missing (the markers act only once a module is collected)."""
    missing = [(extra, module) for extra in extras if (module := _missing(extra)) is not None]
    if missing and not os.environ.get("CI"):
        extra, module = missing[0]
        pytest.skip(
            f"needs the {extra} extra (no module {module}): pip install -e '.[{extra}]'", allow_module_level=True
        )


def _uses_release_helpers(item: pytest.Item) -> bool:
    from tests.support import overlay

    module = getattr(item, "module", None)
    return module is not None and any(getattr(module, name, None) is getattr(overlay, name) for name in RELEASE_HELPERS)


def _bench_asked(config: pytest.Config) -> bool:
    if "bench" in (config.option.markexpr or ""):
        return True
    for arg in config.args:
        path = (Path(config.invocation_params.dir) / arg.split("::")[0]).resolve()
        if path == BENCH or BENCH in path.parents:
            return True
    return False


def add_markers(items: list[pytest.Item]) -> None:
    """The markers that follow from a test's fixtures, place and imports (see the module docstring)."""
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        params = getattr(getattr(item, "callspec", None), "params", {})
        if "chromium" in fixtures:
            item.add_marker(pytest.mark.browser)
        if "postgres" in fixtures or params.get("db") == "postgresql":
            item.add_marker(pytest.mark.postgres)
        if "wheel_python" in fixtures or params.get("python") == "wheel":  # builds the wheel into a fresh venv
            item.add_marker(pytest.mark.slow)
        if item.path == BENCH or BENCH in item.path.parents:
            item.add_marker(pytest.mark.bench)
        if _uses_release_helpers(item):
            item.add_marker(pytest.mark.spec_release)


# the environments whose tests share one worker (session fixtures that start a JVM, a DAG run, a cluster)
SHARED_WORKER = ("spark", "airflow", "dbt", "postgres")


def group_for_workers(items: list[pytest.Item]) -> None:
    """The pytest-xdist group of each test (see the module docstring); `--dist loadgroup` reads it.
    A module or document with one test of a shared environment goes whole to that environment's
    worker: its module fixtures, or its code blocks' namespace, stay in one process."""
    groups: dict[str, str] = {}
    for item in items:
        path = item.nodeid.split("::")[0]
        shared = next((name for name in SHARED_WORKER if item.get_closest_marker(name) is not None), None)
        if shared is not None:
            groups.setdefault(path, shared)
    for item in items:
        path = item.nodeid.split("::")[0]
        item.add_marker(pytest.mark.xdist_group(groups.get(path, path)))


def skip_missing_extras(items: list[pytest.Item]) -> None:
    """Outside CI, skip the tests of an extra that is not installed (see the module docstring)."""
    if os.environ.get("CI"):
        return
    for item in items:
        in_folders = [
            e for folder, extras in FOLDER_EXTRAS.items() if ROOT / folder in item.path.parents for e in extras
        ]
        for extra in EXTRAS:
            if item.get_closest_marker(extra) is None and extra not in in_folders:
                continue
            module = _missing(extra)
            if module is not None:
                reason = f"needs the {extra} extra (no module {module}): pip install -e '.[{extra}]'"
                item.add_marker(pytest.mark.skip(reason=reason))
                break


def deselect_bench(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The benchmark smoke tests leave the run unless it asks for them."""
    if _bench_asked(config):
        return
    bench = [item for item in items if item.get_closest_marker("bench") is not None]
    if bench:
        config.hook.pytest_deselected(items=bench)
        items[:] = [item for item in items if item.get_closest_marker("bench") is None]
