"""Great Expectations suites: pass on good data, fail on planted bad rows; results stored."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from collections import Counter

import pandas as pd
import pytest

from iolab import batch, db
from iolab.validation import run
from tests.conftest import ROOT, corpus, q


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    path = tmp_path_factory.mktemp("v") / "v.duckdb"
    con = db.open_db(path)
    batch.ingest_paths(con, [ROOT / "data" / "samples"])
    rows = run.validate(con)
    yield con, rows, path
    con.close()


def failed(rows):
    return {(r["suite"], r["expectation"], r["kwargs"].get("column")) for r in rows if not r["success"]}


def test_suites_pass_on_the_demo_and_are_stored(good):
    con, rows, _ = good
    assert failed(rows) == set()
    assert {r["suite"] for r in rows} == {
        "source_files",
        "runs",
        "measurements",
        "iometer_results",
        "series_points",
        "store_files",
        "per_drive_iops",
        "profile_drives",
    }
    assert q(con, "SELECT count(*), bool_and(success) FROM validation_results") == [(len(rows), True)]


def test_frames_hold_what_duckdb_returns(good):
    """Through Arrow (text as categoricals) each suite's frame holds the values and types of
    DuckDB's own .df(): integers with NULLs stay integers, nothing becomes a float or a string."""
    con, _, _ = good

    def cell(v):  # a list column's cell is an array (compared as a tuple); NULL, NaN and NA are None
        if getattr(v, "ndim", 0) > 0:
            return tuple(v)
        return None if pd.isna(v) else v

    def values(col):
        return sorted((cell(v) for v in col.astype(object)), key=repr)

    for m in run.suites():
        want, got = con.execute(m.QUERY).df(), run.frame(con, m.QUERY)
        assert list(got.columns) == list(want.columns), m.SUITE
        for c in want.columns:
            assert str(got[c].dtype) in ("category", str(want[c].dtype)), (m.SUITE, c, got[c].dtype)
            assert values(got[c]) == values(want[c]), (m.SUITE, c)


def test_consistency_checks_are_not_vacuous(good):
    con, _, _ = good
    from iolab.validation import iometer_results, measurements

    m = run.frame(con, measurements.QUERY)
    assert m["rw_ratio"].notna().sum() > 500 and m["mbps_ratio"].notna().sum() > 100
    assert len(m) == q(con, "SELECT count(*) FROM measurements")[0][0]  # the group join keeps every row
    i = con.execute(iometer_results.QUERY).df()
    assert i["workers_ratio"].notna().sum() == 124 and i["targets_ratio"].notna().sum() == 124


def test_planted_bad_rows_fail(tmp_path):
    con = db.open_db(tmp_path / "bad.duckdb")
    batch.ingest_paths(
        con, [corpus("iometer/sqlserverio__iometeroutput.csv"), corpus("iometer/quarch__Iometer_insttestfile.csv")]
    )
    run_id = q(con, "SELECT min(run_id) FROM runs")[0][0]
    con.execute(f"""INSERT INTO samples (run_id, scope, metric, value, unit) VALUES
        ({run_id}, 'all', 'weird', 1, 'furlongs'),
        ({run_id}, 'all', 'avg_latency_ms', -3, 'ms'),
        ({run_id}, 'processor', 'cpu_util_pct', 150, '%')""")
    # a read IOPS that no longer adds up, a DISK row that no longer sums to its worker
    con.execute(
        f"UPDATE samples SET value = value + 7 WHERE run_id = {run_id} AND scope = 'all' AND metric = 'write_iops'"
    )
    con.execute("UPDATE iometer_results SET iops = iops * 2 WHERE row_type = 'DISK' AND block_no = 3 AND ts IS NULL")
    # two samples of one series at the same time stamp (Worker 1's 2nd interval row stamped as its 1st),
    # planted in the time-series store itself (each point carries its time)
    (store,) = (db.store_dir(con) / name for (name,) in q(con, "SELECT file_name FROM point_files"))
    planted = store.with_suffix(".planted")
    con.execute(f"""COPY (SELECT column_no, sample_no,
                             CASE WHEN sample_no = 4 THEN min(ts) OVER (PARTITION BY column_no) ELSE ts END AS ts, value
                         FROM read_parquet('{store}') ORDER BY column_no, sample_no) TO '{planted}' (FORMAT parquet)""")
    planted.replace(store)
    rows = run.validate(con)
    f = failed(rows)
    assert ("measurements", "expect_column_values_to_be_in_set", "unit") in f
    assert ("measurements", "expect_column_values_to_be_between", "rw_ratio") in f
    assert ("iometer_results", "expect_column_values_to_be_between", "targets_ratio") in f
    assert ("series_points", "expect_column_values_to_be_between", "step_ms") in f
    between = [
        r
        for r in rows
        if r["suite"] == "measurements"
        and not r["success"]
        and r["expectation"] == "expect_column_values_to_be_between"
        and r["kwargs"]["column"] == "value"
    ]
    conds = sorted(r["kwargs"]["row_condition"]["pass_through_filter"] for r in between)
    assert conds == ['unit == "%"', 'unit == "ms"']
    assert all(r["unexpected_count"] == 1 for r in between)
    stored = q(con, "SELECT count(*) FROM validation_results WHERE NOT success")[0][0]
    assert stored == len([r for r in rows if not r["success"]])
    con.close()


def test_cli_validate_exits_0_when_every_expectation_holds(good, capsys):
    _, _, path = good
    from iolab.cli import main

    assert main(["validate", "--db", str(path)]) == 0
    assert "expectations" in capsys.readouterr().out


def test_render_validation_runs_each_suite_once_with_each_studys_results(tmp_path, monkeypatch):
    """validate_groups (the render's validation) gives every study the results validating it alone
    gives: a suite met by all studies' rows together is met by each; one that is not is run per
    study; "unique" means unique within a study (the same file in two studies shares its runs)."""
    from iolab.reports.validation import tag_studies

    data = tmp_path / "data"
    for s in ("alpha", "beta"):
        (data / s).mkdir(parents=True)
        shutil.copy(corpus("iometer/sqlserverio__iometeroutput.csv"), data / s)  # same bytes: shared runs
    shutil.copy(corpus("iometer/quarch__Iometer_insttestfile.csv"), data / "alpha")
    con = db.open_db(tmp_path / "v.duckdb")
    batch.ingest_paths(con, [data])
    (run_id,) = q(
        con,
        "SELECT min(r.run_id) FROM runs r JOIN source_files f ON f.content_id = r.source_id "
        "WHERE f.path LIKE '%quarch%'",
    )[0]
    con.execute(
        f"INSERT INTO samples (run_id, scope, metric, value, unit) VALUES ({run_id}, 'all', 'w', 1, 'furlongs')"
    )
    studies = ["alpha", "beta"]
    checks = []
    real = run.Checker.check
    monkeypatch.setattr(run.Checker, "check", lambda self, *a: checks.append(a[0]) or real(self, *a))

    def key(rows):
        return sorted(
            (
                r["suite"],
                r["expectation"],
                json.dumps(r["kwargs"], sort_keys=True),
                r["success"],
                r["unexpected_count"],
                r["rows_validated"],
            )
            for r in rows
        )

    grouped = run.validate_groups(con, studies, tag_studies)
    runs = Counter(checks)  # GX runs per suite: measurements together, then per study; the others once
    assert runs.pop("measurements") == 3 and set(runs.values()) == {1} and "runs" in runs
    for s in studies:
        assert key(grouped[s]) == key(run.validate_groups(con, [s], tag_studies)[s])
        # each study's rows, and only its: the shared file's numbers once in each, not both places' in each
        (n,) = q(con, "SELECT count(*) FROM measurements WHERE study = ?", [s])[0]
        assert {r["rows_validated"] for r in grouped[s] if r["suite"] == "measurements"} == {n}
    assert len({r["rows_validated"] for s in studies for r in grouped[s] if r["suite"] == "measurements"}) == 2
    assert ("measurements", "expect_column_values_to_be_in_set", "unit") in failed(grouped["alpha"])
    # metric 'w' in 'furlongs' is not in metric_vocabulary either
    assert ("measurements", "expect_column_values_to_be_in_set", "in_vocabulary") in failed(grouped["alpha"])
    assert failed(grouped["beta"]) == set()
    con.close()

    # the pages' footers: the render's validation (read-only, while pages run) gives each study its
    # own verdict, the one a notebook in the lab computes for that study alone
    from iolab.reports import page, render
    from iolab.reports.tables import validation_html

    footers = render.validate(tmp_path / "v.duckdb", {"alpha", "beta"})
    assert "2 expectation(s) failed" in footers["alpha"] and "all expectations met" not in footers["alpha"]
    assert "all expectations met" in footers["beta"] and "failed</h4>" not in footers["beta"]
    con = db.connect(tmp_path / "v.duckdb", read_only=True)
    for s in ("alpha", "beta"):
        live = page.study_validation(con, s)
        assert live.height >= 3 and live["failed"].sum() == (2 if s == "alpha" else 0)
        when = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)?|base64,[^\"]+")  # the time, in text and CSV
        assert when.sub("T", validation_html(live)) == when.sub("T", footers[s])
    con.close()

    # the render's validation process (iolab.reports.validator, started with the render) answers the same
    from iolab.reports.validator import Validator

    process = Validator()
    try:
        answered = process.validate(tmp_path / "v.duckdb", {"alpha", "beta"})
    finally:
        process.close()
    assert {s: when.sub("T", f) for s, f in answered.items()} == {s: when.sub("T", f) for s, f in footers.items()}


@pytest.mark.skipif(importlib.util.find_spec("pyspark") is None, reason="the [lake] extra (pyspark) is not installed")
def test_great_expectations_is_imported_without_pyspark():
    """GX imports pyspark when the [lake] extra is installed (0.2 s after pandas); the checker hides it for
    GX's import only: GX still validates, and pyspark still imports afterwards (the lake)."""
    said = _after_a_check(
        "print('pyspark' in sys.modules, r[0].success, r[0].result['unexpected_count'])\n"
        "import pyspark.sql; print(pyspark.sql.SparkSession.__name__)\n"
    )
    assert said == ["False", "False", "1", "SparkSession"]


def _after_a_check(code: str) -> list[str]:
    """What ``code`` prints, run in a fresh interpreter after one GX check (``r``) of a frame."""
    check = (
        "import sys; from iolab.validation.run import Checker; import pandas as pd\n"
        "c = Checker(); r = c.check('t', pd.DataFrame({'x': [1, 2]}), "
        "[c.E.ExpectColumnValuesToBeBetween(column='x', min_value=0, max_value=1)])\n"
    )
    out = subprocess.run([sys.executable, "-c", check + code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.split()


def test_great_expectations_is_imported_without_scipy_stats_and_altair():
    """GX's KL-divergence and KS-test expectations, which iolab does not use, import scipy.stats and
    Altair at their top (1.0-1.4 s of GX's 3.1 s import); they are stand-ins while GX imports: GX
    validates without either loaded, Altair and scipy.stats import for real afterwards, and the GX code
    that uses scipy.stats still gets the real module when it asks."""
    said = _after_a_check(
        "print('scipy.stats' in sys.modules, 'altair' in sys.modules, r[0].success)\n"
        "import altair; print(type(altair).__name__, hasattr(altair, 'Chart'))\n"
        "from great_expectations.expectations.core import expect_column_kl_divergence_to_be_less_than as kl\n"
        "print(kl.stats.entropy([0.5, 0.5], [0.25, 0.75]) > 0, type(sys.modules['scipy.stats']).__name__)\n"
    )
    assert said == ["False", "False", "False", "module", "True", "True", "module"]


def test_a_validation_process_that_fails_says_why_and_one_never_asked_is_stopped(tmp_path):
    """A snapshot the process cannot read: the render's validation fails with the error the process
    met, of its kind (as in one process: the command maps it to its exit code), not a hang; a process
    the render never asks (it ended first) is stopped by close."""
    from iolab import db
    from iolab.reports.validator import Validator

    process = Validator()
    try:
        with pytest.raises(db.DatabaseProblem, match="there is no database at"):
            process.validate(tmp_path / "none.duckdb", {"alpha"})
    finally:
        process.close()
    idle = Validator()
    idle.close()
    assert idle._proc.returncode is not None


def test_the_validation_process_fault_keeps_its_kind():
    """A DuckDB error the validation's process met (out of memory, a full disk) is raised in the render
    as that DuckDB error, which the command maps to its exit code as in one process; an unknown one
    is the validation's failure with its message."""
    import tempfile

    import duckdb

    from iolab.reports.validator import _failure

    with tempfile.TemporaryFile() as err:
        oom = _failure({"error": "duckdb.OutOfMemoryException", "message": "Out of Memory Error: x"}, err)
        assert isinstance(oom, duckdb.OutOfMemoryException) and str(oom) == "Out of Memory Error: x"
        other = _failure({"error": "builtins.ValueError", "message": "no"}, err)
        assert type(other) is RuntimeError and str(other) == "the validation failed: no"
        assert type(_failure({"error": "duckdb.nothing", "message": "m"}, err)) is RuntimeError
