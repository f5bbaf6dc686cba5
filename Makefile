# olsdk: one-command set-up, generation, tests, demo and benchmarks.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
DBT_VENV ?= .venv-dbt
AIRFLOW_VENV ?= .venv-airflow
PYDANTIC_LATEST_VENV ?= .venv-pydantic-latest

.PHONY: setup spec generate check-generated test test-fast test-bench test-spec lint format demo bench spec-upgrade dist clean docs
.PHONY: test-pydantic-latest

# .venv for everything; the dbt test's own environment only where tests need it.
setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[dev,spark,kafka,sql,fsspec,aws,gcp,serve]"
	touch $@

# dbt-core, dbt-duckdb and openlineage-dbt for tests/compat/test_dbt.py (a real dbt-ol run),
# in their own environment: dbt-core pins pathspec<0.13, the dev tools need pathspec>=1.
$(DBT_VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(DBT_VENV)
	$(DBT_VENV)/bin/python -m pip install -q --upgrade pip
	$(DBT_VENV)/bin/python -m pip install -q -e ".[dbt]"
	touch $@

# Apache Airflow 3 with the OpenLineage provider and olsdk for tests/airflow (`airflow dags test`
# of a DAG sending through olsdk.compat.OlsdkTransport), in their own environment: Airflow pins its
# own stack. tests/airflow/constraints.txt holds every other package at the versions tested
# (Airflow's own constraints files are on GitHub, out of reach here).
$(AIRFLOW_VENV)/.installed: pyproject.toml tests/airflow/constraints.txt
	$(PYTHON) -m venv $(AIRFLOW_VENV)
	$(AIRFLOW_VENV)/bin/python -m pip install -q --upgrade pip
	$(AIRFLOW_VENV)/bin/python -m pip install -q -e ".[airflow]" -c tests/airflow/constraints.txt
	touch $@

# A wheel in dist/ to install elsewhere: pip install 'dist/olsdk-<version>-py3-none-any.whl[spark]'
dist: setup
	rm -rf dist build
	$(PY) -m pip wheel -q --no-deps --wheel-dir dist .
	@ls dist/*.whl

# Check the committed snapshot in spec/ against spec/manifest.json (offline; never downloads).
spec: setup
	$(PY) -m codegen spec

generate: spec
	$(PY) -m codegen generate

check-generated: generate
	git diff --exit-code -- src/olsdk/_models/_generated/
	@test -z "$$(git status --porcelain -- src/olsdk/_models/_generated/)" || (git status --porcelain -- src/olsdk/_models/_generated/; echo "src/olsdk/_models/_generated/ has untracked files"; exit 1)

# Every hand-written Python folder; generated code is excluded in pyproject.toml.
PY_DIRS := src codegen tests bench examples conftest.py

lint: setup
	$(VENV)/bin/ruff format --check $(PY_DIRS)
	$(VENV)/bin/ruff check $(PY_DIRS)
	$(PY) -m tests.support.shape
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports --no-cache

# The documentation site (mkdocs.yml) into build/site/, offline; strict: a broken link or a
# missing reference fails.
docs: setup
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

format: setup
	$(VENV)/bin/ruff format $(PY_DIRS)
	$(VENV)/bin/ruff check --fix $(PY_DIRS)

# Test runs use WORKERS pytest-xdist processes; tests/support/selection.py keeps a module's
# tests, and every Spark, Airflow, dbt or PostgreSQL test, on one worker (`WORKERS=0`: one process).
# Three on two cores: the tests spend much of their time waiting on processes and sockets.
WORKERS ?= 3
XDIST := -n $(WORKERS) --dist loadgroup

# The whole suite but the benchmark smoke tests (make test-bench): what CI runs.
test: spec $(DBT_VENV)/.installed $(AIRFLOW_VENV)/.installed
	$(VENV)/bin/pytest -q $(XDIST)

# The quick loop while developing (a few minutes): no Spark (JVM), Airflow, dbt, chromium or
# PostgreSQL, none of the tests marked slow (killed processes, replays, concurrency, the wheel),
# and the slow property tests at a fifth of their examples (Hypothesis profile `fast`,
# tests/support/selection.py). Builds neither $(AIRFLOW_VENV) nor $(DBT_VENV).
FAST_MARKERS := not spark and not airflow and not dbt and not browser and not postgres and not slow
test-fast: spec
	$(VENV)/bin/pytest -q $(XDIST) -m "$(FAST_MARKERS)" --hypothesis-profile=fast

# The smoke tests of the benchmark harness (tests/bench), left out of `make test`.
test-bench: spec
	$(VENV)/bin/pytest -q $(XDIST) -m bench tests/bench

# The main job: an example PySpark pipeline in local[2] emitting lineage to
# demo-output/lineage.ndjson (or to $$OPENLINEAGE_URL when set).
demo: $(VENV)/.demo-installed
	$(PY) -m examples.spark_demo

# The demo needs the runtime and the spark extra only. A fresh clone gets just those in
# .venv; `make setup` (and so `make test`) later adds the development tools and the other
# extras to the same environment, so the two README commands share one pyspark instead of
# installing it twice. A .venv that `make setup` built already has everything.
$(VENV)/.demo-installed: pyproject.toml
	@if [ -f $(VENV)/.installed ] && [ $(VENV)/.installed -nt pyproject.toml ]; then \
		echo "$(VENV): set up by make setup, which includes the spark extra"; \
	else \
		$(PYTHON) -m venv $(VENV) && $(PY) -m pip install -q -e ".[spark]"; \
	fi
	touch $@

bench: setup spec
	$(PY) -m bench
	$(PY) -m bench.spark_listener --writes 5 --tasks 50
	$(PY) -m bench.graph
	$(PY) -m bench.reliability
	$(PY) -m bench.outbox
	$(PY) -m bench.validate
	$(PY) -m bench.serve
	@if [ -x $(AIRFLOW_VENV)/bin/airflow ]; then $(PY) -m bench.airflow; \
	else echo "bench.airflow skipped: no $(AIRFLOW_VENV) (make $(AIRFLOW_VENV)/.installed builds it)"; fi

# The tests whose outcome depends on the spec release of the models (marker spec_release:
# those that ask tests.support.overlay's release helpers, and the generate-and-parse smoke test
# tests/models/test_release_smoke.py) on models generated from another snapshot:
# `make test-spec-1.30.0` (a release in spec/releases/) or `make test-spec SNAPSHOT=<any spec
# folder>`. A copy of the package in build/spec-<name>/ goes first on PYTHONPATH; src/ and spec/
# stay untouched. Tests of what the release lacks are skipped, the reason naming release and
# class; SPEC_SPARK=no leaves out the Spark listener's.
SPEC_TESTS := tests/client tests/naming tests/facets tests/models/test_release_smoke.py
SPEC_SPARK_TESTS := tests/spark/test_listener.py
SPEC_SPARK ?= yes
test-spec-%: spec
	$(MAKE) --no-print-directory test-spec SNAPSHOT=spec/releases/$* SPEC_SPARK=$(SPEC_SPARK)

test-spec: spec
	@test -n "$(SNAPSHOT)" || { echo "make test-spec SNAPSHOT=<spec snapshot folder>, or make test-spec-<release> for spec/releases/<release>"; exit 2; }
	$(PY) -m tests.support.overlay --snapshot $(SNAPSHOT) --dest build/spec-$(notdir $(abspath $(SNAPSHOT)))
	PYTHONPATH=$(CURDIR)/build/spec-$(notdir $(abspath $(SNAPSHOT)))/src $(VENV)/bin/pytest -q $(XDIST) \
		-m spec_release $(SPEC_TESTS) $(if $(filter yes,$(SPEC_SPARK)),$(SPEC_SPARK_TESTS))

# The model, reader, facet and client tests on the newest pydantic release on the package
# index (the other targets use the version pyproject.toml resolves to in .venv): an
# environment of its own with olsdk's dev dependencies (and the kafka extra, which the client's
# configuration tests compare with the official client), pydantic upgraded at each run.
# A failure fails CI unless that release is listed in .ci/pydantic-known-bad.txt with the
# reason; the run prints the version it tested.
PYDANTIC_LATEST_TESTS := tests/models tests/validate tests/client tests/facets
$(PYDANTIC_LATEST_VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(PYDANTIC_LATEST_VENV)
	$(PYDANTIC_LATEST_VENV)/bin/python -m pip install -q --upgrade pip
	$(PYDANTIC_LATEST_VENV)/bin/python -m pip install -q -e ".[dev,kafka]"
	touch $@

# The quick selection (as make test-fast: no slow tests, a fifth of the property examples),
# and outside CI's rule that a missing extra fails: this environment has the kafka extra only.
test-pydantic-latest: $(PYDANTIC_LATEST_VENV)/.installed
	env -u CI .ci/pydantic-latest $(PYDANTIC_LATEST_VENV) $(XDIST) -m "not slow" --hypothesis-profile=fast $(PYDANTIC_LATEST_TESTS)

# Pin a new snapshot, regenerate, report: `make spec-upgrade SRC=folder` (a spec/ folder of
# an OpenLineage checkout) or `make spec-upgrade SRC=1.40.0` (a release tag, downloaded:
# the only target that uses the network).
spec-upgrade: setup
	@test -n "$(SRC)" || { echo "make spec-upgrade SRC=<snapshot folder or release tag>, e.g. SRC=spec/releases/1.30.0"; exit 2; }
	$(PY) -m codegen upgrade --src $(SRC)

# Back to the snapshot committed in git after a spec-upgrade: spec/ and the models as
# committed (`make spec-restore REF=<git revision>` for another commit; offline).
.PHONY: spec-restore
spec-restore: setup
	$(PY) -m codegen restore --ref $(or $(REF),HEAD)

clean:
	rm -rf $(VENV) $(DBT_VENV) $(AIRFLOW_VENV) $(PYDANTIC_LATEST_VENV) build dist demo-output .pytest_cache .mypy_cache .hypothesis
