"""Validation that means it: `iolab validate` exits 1 when an expectation fails (--warn-only: 0),
validation runs inside a Jupyter kernel, and a study is validated on its own rows only."""

from __future__ import annotations

import shutil

import pytest

from iolab import batch, cli, db
from tests.conftest import ROOT, corpus, q

SHARED = "louwrentius__fio-plot__fio31_d3s4610_randread-1-1.json"  # = data/samples' fio randread-1-1.json


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """A database with one sample in a unit no suite accepts."""
    path = tmp_path_factory.mktemp("planted") / "bad.duckdb"
    con = db.open_db(path)
    batch.ingest_paths(con, [corpus("iometer/sqlserverio__iometeroutput.csv")])
    run_id = q(con, "SELECT min(run_id) FROM runs")[0][0]
    con.execute(
        f"INSERT INTO samples (run_id, scope, metric, value, unit) VALUES ({run_id}, 'all', 'x', 1, 'furlongs')"
    )
    con.close()
    return path


def test_a_failed_expectation_exits_1_unless_warn_only(planted, capsys):
    assert cli.main(["validate", "--db", str(planted)]) == cli.EXIT_REJECTED == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "failed measurements: expect_column_values_to_be_in_set" in out and "furlongs" in out
    assert cli.main(["validate", "--db", str(planted), "--warn-only"]) == 0
    assert q(db.connect(planted, read_only=True), "SELECT count(DISTINCT run_id) FROM validation_results") == [(2,)]


def test_validate_never_creates_a_database(tmp_path, capsys):
    missing = tmp_path / "typo.duckdb"
    assert cli.main(["validate", "--db", str(missing)]) == 2
    assert not missing.exists() and "No database at" in capsys.readouterr().err


def test_validation_runs_inside_a_jupyter_kernel(planted):
    """In a kernel DuckDB refuses `SET enable_progress_bar` without ipywidgets (not installed here):
    every suite then failed ("required package 'ipywidgets' is missing")."""
    from jupyter_client.manager import start_new_kernel

    code = (
        "import duckdb\nfrom iolab.validation import run\n"
        f"con = duckdb.connect({str(planted)!r}, read_only=True)\n"
        "rows = run.validate(con, store=False)\n"
        "print(sorted({(r['suite'], r['expectation']) for r in rows if not r['success']}))\n"
    )
    km, kc = start_new_kernel(kernel_name="python3", cwd=str(ROOT))
    try:
        msg_id = kc.execute(code)
        out, errors = [], []
        while True:
            m = kc.get_iopub_msg(timeout=120)
            if m["parent_header"].get("msg_id") != msg_id:
                continue
            if m["msg_type"] == "stream":
                out.append(m["content"]["text"])
            elif m["msg_type"] == "error":
                errors.append(m["content"]["evalue"])
            elif m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
                break
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    assert not errors, errors
    # only the planted unit fails; no suite failed for want of ipywidgets
    assert "".join(out).strip() == "[('measurements', 'expect_column_values_to_be_in_set')]"


def test_a_study_is_validated_on_its_own_rows(tmp_path):
    """A file placed in two studies has its rows in each study's measurements; each study's
    validation counts its own rows, not the rows of both places."""
    from iolab.reports.validation import all_results

    data = tmp_path / "data"
    shutil.copytree(ROOT / "data" / "samples" / "fio-intel-d3-s4610-qd-sweep", data / "fio")
    (data / "other").mkdir()
    shutil.copy(ROOT / "tests" / "corpus" / "fio-json" / SHARED, data / "other" / SHARED)
    (data / "other" / "iolab.toml").write_text('study = "other"\nsystem = "another host"\n')
    con = db.open_db(tmp_path / "x.duckdb")
    rep = batch.ingest_paths(con, [data])
    assert len(rep.by_status("placed")) == 1  # the shared file: stored once, placed in both studies
    results = all_results(con, ["other", "fio-intel-d3-s4610-qd-sweep"])
    for study, rows in results.items():
        (n,) = q(con, "SELECT count(*) FROM measurements WHERE study = ?", [study])[0]
        validated = {r["rows_validated"] for r in rows if r["suite"] == "measurements"}
        assert validated == {n}, study
    con.close()
