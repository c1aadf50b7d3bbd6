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
.PHONY: help setup hooks demo ingest validate reports reports-pdf check-reports lab lint test golden fuzz bench bench-lake lake clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | expand -t 16

$(BIN)/.installed: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev,lake]'
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
	$(BIN)/iolab report --db $(DB) --out reports --format pdf

check-reports: setup ## screenshot every report in headless Chromium (installs Debian's chromium if missing)
	command -v chromium >/dev/null || (apt-get update -q && apt-get install -y -q chromium)
	$(BIN)/python -m ingest.reports.check --db $(DB) reports

lab: setup ## JupyterLab at the repository root (notebooks/, data/, reports/), the demo database ready
	test -f $(DB) || $(MAKE) --no-print-directory demo
	IOLAB_ROOT=$(CURDIR) JUPYTER_CONFIG_PATH=$(CURDIR)/.jupyter $(BIN)/jupyter lab --allow-root --no-browser --ServerApp.ip=127.0.0.1 \
		--ServerApp.root_dir=$(CURDIR) --ServerApp.default_url=/lab/tree/notebooks

lint: setup ## ruff check, ruff format --check, mypy (ingest/, validation/): config in pyproject.toml
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: setup lint ## lint, then the test suite (slow tests included; installs Debian's Java 17 and fio when missing: Spark's JVM for tests/test_lake.py, the real fio for tests/test_fio_real.py)
	command -v java >/dev/null || (apt-get update -q && apt-get install -y -q openjdk-17-jre-headless)
	command -v fio >/dev/null || (apt-get update -q && apt-get install -y -q fio)
	$(BIN)/pytest

golden: setup ## rewrite tests/golden/ (what each real corpus file yields); review the diff before committing
	$(BIN)/python -m tests.golden

fuzz: setup ## long pollution run over every corpus file, the attack trees (tests/fuzz_attacks.py), then 200 random histories of a data folder (tests/test_mirror.py)
	$(BIN)/python -m tests.fuzz --cases 1000
	IOLAB_MIRROR_EXAMPLES=200 $(BIN)/pytest -q -p no:cacheprovider tests/test_mirror.py -k TestMirror

bench: setup ## every figure against its floor in the same run, with verdicts; then the scaling table (SCALE=0.1: minutes)
	$(BIN)/python -m tests.bench
	$(BIN)/python -m tests.bench_views
	$(BIN)/python -m tests.bench_iometer
	$(BIN)/python -m tests.bench_scaling --scale $(SCALE)

lake: setup ## export $(DB) to the Parquet lake $(LAKE) and compute every view there with Spark (local)
	$(BIN)/iolab lake export --db $(DB) --to $(LAKE)
	$(BIN)/iolab lake views --engine spark --lake $(LAKE)

bench-lake: setup ## a generated lab (RUNS esxtop runs, LAB_MB MB) exported; on a Spark standalone cluster started here: its views against Spark's plain scan, then the lake's own SQL by spark-sql against iolab's path, each view equal to DuckDB's
	$(BIN)/python -m tests.bench --lake --lab-mb $(LAB_MB) --runs $(RUNS)

clean: ## remove the database and the rendered reports (raw data stays)
	rm -rf $(DB) $(DB).wal $(DB).points $(LAKE) reports
