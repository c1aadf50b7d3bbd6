# iolab: `make` lists the targets. Everything runs in .venv, built from pyproject.toml.
SHELL := /bin/bash
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
DB ?= data/iolab.duckdb
SAMPLES := data/samples
LAKE ?= lake
LAB_MB ?= 20
RUNS ?= 200
SCALE ?= 1

.DEFAULT_GOAL := help
.PHONY: help setup hooks demo ingest validate reports reports-pdf check-reports lab lint tools test test-slow test-lower test-wheel golden fuzz bench bench-lake lake clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | expand -t 16

$(BIN)/.installed: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev,lab,lake]'
	@# rfc3987-syntax, jsonschema's optional IRI checker (nbformat asks for jsonschema[format-nongpl]), builds
	@# ~35 Earley parsers whenever jsonschema is imported: 1.6 s in every kernel that imports Altair and in
	@# Great Expectations' import (jsonschema issue 1428). No schema here has an IRI; jsonschema skips that check
	$(BIN)/pip uninstall -q -y rfc3987-syntax
	touch $@

setup: $(BIN)/.installed ## create .venv with every dependency (pyproject.toml)
	@# byte-compile iolab's own modules (only those changed): where PYTHONDONTWRITEBYTECODE is set, every
	@# command would otherwise compile them from source again (0.2 s); pip does this for installed packages
	@$(BIN)/python -m compileall -q ingest

hooks: setup ## install the git pre-commit hooks (ruff, mypy; .pre-commit-config.yaml)
	$(BIN)/pre-commit install

demo: setup ## set up, ingest the bundled demo studies, validate, render the reports
	$(BIN)/iolab ingest $(SAMPLES) --db $(DB)
	$(BIN)/iolab validate --db $(DB)
	$(MAKE) --no-print-directory reports

ingest: setup ## ingest data/ (your own studies beside the samples) into $(DB)
	$(BIN)/iolab ingest data --db $(DB)

validate: setup ## run the Great Expectations suites, store and print the results
	$(BIN)/iolab validate --db $(DB)

reports: setup ## execute the notebooks per study and render reports/<study>/*.html + reports/index.html
	$(BIN)/iolab report --db $(DB) --out reports

reports-pdf: setup ## the reports and each study's print edition, reports/<study>/<study>.pdf (installs Debian's chromium if missing)
	command -v chromium >/dev/null || (apt-get update -q && apt-get install -y -q chromium)
	command -v strace >/dev/null || (apt-get update -q && apt-get install -y -q strace)
	$(BIN)/iolab report --db $(DB) --out reports --format pdf

check-reports: setup ## screenshot every report in headless Chromium (installs Debian's chromium if missing)
	command -v chromium >/dev/null || (apt-get update -q && apt-get install -y -q chromium)
	command -v strace >/dev/null || (apt-get update -q && apt-get install -y -q strace)
	$(BIN)/python -m iolab.cli.check_reports --db $(DB) reports

lab: setup ## JupyterLab at the repository root (notebooks/, data/, reports/), the demo database ready
	test -f $(DB) || $(MAKE) --no-print-directory demo
	IOLAB_ROOT=$(CURDIR) JUPYTER_CONFIG_PATH=$(CURDIR)/.jupyter $(BIN)/jupyter lab --allow-root --no-browser --ServerApp.ip=127.0.0.1 \
		--ServerApp.root_dir=$(CURDIR) --ServerApp.default_url=/lab/tree/notebooks

lint: setup ## ruff check, ruff format --check, mypy on the package iolab (ingest/, validation/; tools/typecheck.py): config in pyproject.toml
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python tools/typecheck.py

tools: ## Debian's tools the tests run for real, installed when missing: Java 17 (Spark), fio, zsh and fish (completion), chromium (pages, print, the lab), strace (the print edition's zero network attempts)
	command -v java >/dev/null || (apt-get update -q && apt-get install -y -q openjdk-17-jre-headless)
	command -v fio >/dev/null || (apt-get update -q && apt-get install -y -q fio)
	command -v zsh >/dev/null && command -v fish >/dev/null || (apt-get update -q && apt-get install -y -q zsh fish)
	command -v chromium >/dev/null || (apt-get update -q && apt-get install -y -q chromium)
	command -v strace >/dev/null || (apt-get update -q && apt-get install -y -q strace)

test: setup lint tools ## lint, then the test suite on both cores (pytest -n 2), all but the slow tests (make test-slow)
	$(BIN)/pytest -n 2 --dist loadfile -m "not slow"

test-slow: setup tools ## the slow tests: Spark clusters and spark-sql, JupyterLab driven in Chromium, harness runs, the mirror's histories
	$(BIN)/pytest -n 2 --dist loadfile -m slow

# `make test-lower`: every dependency at its lower bound (tests/lower_bounds.py pins pyproject's `>=`
# bounds), in a fresh venv under /tmp, from PyPI. Then the demo's ingest, validation and one study's
# report, and the tests below. Needs the network; not part of `make test`.
LOWER_STUDY ?= fio-intel-d3-s4610-qd-sweep
LOWER_TESTS ?= tests/test_environment.py tests/test_ingest.py tests/test_views.py tests/test_validation.py tests/test_cli.py tests/test_lab.py
test-lower: ## dependencies at their lower bounds (fresh venv, PyPI): demo ingest + validate + one study's report, and a subset of the tests
	@set -euo pipefail; tmp=$$(mktemp -d /tmp/iolab-lower.XXXXXX); trap 'rm -rf "$$tmp"' EXIT; \
	$(PY) tests/lower_bounds.py dev lab > $$tmp/constraints.txt; \
	$(PY) -m venv $$tmp/venv; \
	$$tmp/venv/bin/pip install -q --upgrade pip; \
	$$tmp/venv/bin/pip install -q -c $$tmp/constraints.txt '.[dev,lab]'; \
	$$tmp/venv/bin/pip uninstall -q -y rfc3987-syntax 2>/dev/null || true; \
	$$tmp/venv/bin/pip check; \
	$$tmp/venv/bin/pip list --format=freeze | grep -iE '^(duckdb|polars|pyarrow|pandas|numpy|great.expectations|altair|nbclient|ipykernel|jupytext|jupyterlab)=='; \
	$$tmp/venv/bin/iolab ingest $(SAMPLES) --db $$tmp/demo.duckdb; \
	$$tmp/venv/bin/iolab validate --db $$tmp/demo.duckdb; \
	$$tmp/venv/bin/iolab report --db $$tmp/demo.duckdb --out $$tmp/reports --study $(LOWER_STUDY); \
	test -s $$tmp/reports/$(LOWER_STUDY)/01-overview.html; \
	PYTHONPATH=$(CURDIR) $$tmp/venv/bin/python -m pytest -q -p no:cacheprovider $(LOWER_TESTS)

# `make test-wheel`: the built wheel in a fresh venv that already holds an older pandas and pyarrow
# (tests/wheel_install.py). Needs the network; not part of `make test`.
test-wheel: ## the wheel installed beside an older pandas and pyarrow (fresh venv, PyPI); the CLI without the lab extra
	$(PY) tests/wheel_install.py

golden: setup ## rewrite tests/golden/ (what each real corpus file yields); review the diff before committing
	$(BIN)/python -m tests.golden

fuzz: setup ## long pollution run over every corpus file, the attack trees (tests/fuzz_attacks.py), then 200 random histories of a data folder (tests/test_mirror.py)
	$(BIN)/python -m tests.fuzz --cases 1000
	IOLAB_MIRROR_EXAMPLES=200 $(BIN)/pytest -q -p no:cacheprovider tests/test_mirror.py -k TestMirror

bench: setup ## every figure against its floor in the same run, with verdicts; then the scaling table (SCALE=0.1: minutes)
	$(BIN)/python -m tests.bench
	$(BIN)/python -m tests.bench_views
	$(BIN)/python -m tests.bench_pages
	$(BIN)/python -m tests.bench_small_files
	$(BIN)/python -m tests.bench_iometer
	$(BIN)/python -m tests.bench_scaling --scale $(SCALE)

lake: setup ## export $(DB) to the Parquet lake $(LAKE) and compute every view there with Spark (local)
	$(BIN)/iolab lake export --db $(DB) --to $(LAKE)
	$(BIN)/iolab lake views --engine spark --lake $(LAKE)

bench-lake: setup ## a generated lab (RUNS esxtop runs, LAB_MB MB) exported; on a Spark standalone cluster started here: its views against Spark's plain scan, then the lake's own SQL by spark-sql against iolab's path, each view equal to DuckDB's
	$(BIN)/python -m tests.bench --lake --lab-mb $(LAB_MB) --runs $(RUNS)

clean: ## remove the database and the rendered reports (raw data stays)
	rm -rf $(DB) $(DB).wal $(DB).points $(LAKE) reports
