# olsdk: one-command set-up, generation, tests, demo and benchmarks.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
SPEC_SRC ?= $(if $(wildcard ../shared/openlineage-spec/current),../shared/openlineage-spec/current,)

.PHONY: setup spec generate check-generated test test-fast lint demo bench spec-upgrade clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[dev,spark,kafka,sql]"
	touch $@

# Fill spec/ from the manifest: a local folder when there is one, else the pinned URLs.
spec: setup
	$(PY) -m codegen spec $(if $(SPEC_SRC),--src $(SPEC_SRC),)

generate: spec
	$(PY) -m codegen generate

check-generated: generate
	git diff --exit-code -- generated/
	@test -z "$$(git status --porcelain -- generated/)" || (git status --porcelain -- generated/; echo "generated/ has untracked files"; exit 1)

lint: setup
	$(VENV)/bin/ruff check src codegen tests
	$(VENV)/bin/mypy

test: spec
	$(VENV)/bin/pytest -q

# The main job: an example PySpark pipeline in local[2] emitting lineage to
# demo-output/lineage.ndjson (or to $$OPENLINEAGE_URL when set).
demo: setup
	$(PY) -m olsdk.spark.demo

bench: setup spec
	$(PY) -m bench
	$(PY) -m olsdk.spark.bench --writes 5 --tasks 50

# Pin a new snapshot: refresh spec/manifest.json, copy the files, regenerate, report.
spec-upgrade: setup
	$(PY) -m codegen upgrade --src $(SPEC_SRC)

clean:
	rm -rf $(VENV) build dist demo-output .pytest_cache .mypy_cache .hypothesis
