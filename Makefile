# iolab: `make` lists the targets. Everything runs in .venv, built from pyproject.toml.
SHELL := /bin/bash
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
DB ?= data/iolab.duckdb
SAMPLES := data/samples

.DEFAULT_GOAL := help
.PHONY: help setup demo ingest validate reports check-reports lab test golden fuzz bench clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | expand -t 16

$(BIN)/.installed: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

setup: $(BIN)/.installed ## create .venv with every dependency (pyproject.toml)

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

check-reports: setup ## screenshot every report in headless Chromium (installs Debian's chromium if missing)
	command -v chromium >/dev/null || (apt-get update -q && apt-get install -y -q chromium)
	$(BIN)/python -m ingest.reports.check reports

lab: setup ## JupyterLab at the repository root (notebooks/, data/, reports/), the demo database ready
	test -f $(DB) || $(MAKE) --no-print-directory demo
	IOLAB_ROOT=$(CURDIR) $(BIN)/jupyter lab --allow-root --no-browser --ServerApp.ip=127.0.0.1 \
		--ServerApp.root_dir=$(CURDIR) --ServerApp.default_url=/lab/tree/notebooks

test: setup ## run the test suite
	$(BIN)/pytest

golden: setup ## rewrite tests/golden/ (what each real corpus file yields); review the diff before committing
	$(BIN)/python -m tests.golden

fuzz: setup ## long pollution run over every corpus file: prints outcome counts per format
	$(BIN)/python -m tests.fuzz --cases 1000

bench: setup ## ingest, query, report and start-up figures, each against its own floor in the same run
	$(BIN)/python -m tests.bench
	$(BIN)/python -m tests.bench_views

clean: ## remove the database and the rendered reports (raw data stays)
	rm -rf $(DB) $(DB).wal $(DB).points reports
