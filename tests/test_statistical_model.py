"""One statistical model (issue 39): a measurement is a dimension, never a repeat; a point's value is
the mean of its repeats on every page; the same folder gives the same bytes.

The study: a baseline measured three times (the real Iometer sweep tests/corpus/iometer/
sqlserverio__iometeroutput.csv with every IO/s and MB/s x 1.00, 1.03 and 0.97: derived-x*) and a system
measured on firmware 1.0 (x 1.30, 1.33, 1.27) and on firmware 2.0 (x 1.04, 1.07, 1.01). Pooled, the
system would be +17 % over six runs; compared by measurement it is firmware 2.0, +4 % over three.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from iolab import db
from tests.conftest import ROOT, corpus, ingest, q
from tests.test_comparison import scaled_iometer

BASE = {"b1": 1.00, "b2": 1.03, "b3": 0.97}
FW = {"1.0": {"a1": 1.30, "a2": 1.33, "a3": 1.27}, "2.0": {"c1": 1.04, "c2": 1.07, "c3": 1.01}}


def two_firmwares(root: Path, *, order: bool = True) -> Path:
    study = root / "fw-study"
    src = corpus("iometer/sqlserverio__iometeroutput.csv")
    (study / "base").mkdir(parents=True)
    (study / "base" / "iolab.toml").write_text('system = "Base B1"\n')
    for name, x in BASE.items():
        (study / "base" / f"derived-x{x}-{name}-{src.name}").write_text(scaled_iometer(src, x, 1 / x))
    for fw, files in FW.items():
        folder = study / "sys" / f"fw{fw}"
        folder.mkdir(parents=True)
        (folder / "iolab.toml").write_text(f'system = "Sys S2"\nfirmware = "{fw}"\n')
        for name, x in files.items():
            (folder / f"derived-x{x}-{name}-{src.name}").write_text(scaled_iometer(src, x, 1 / x))
    (study / "iolab.toml").write_text(
        'study = "fw"\nbaseline = "Base B1"\n' + ('firmware_order = ["1.0", "2.0"]\n' if order else "")
    )
    return study


def test_measurements_of_the_study(con, tmp_path):
    ingest(con, two_firmwares(tmp_path))
    rows = q(
        con,
        """SELECT system, measurement, measured_by, files, measurement_no, is_current FROM system_measurements
           ORDER BY system, measurement""",
    )
    assert rows == [
        ("Base B1", "2010-07-26", "run date", 3, 1, True),
        ("Sys S2", "1.0", "firmware", 3, 1, False),
        ("Sys S2", "2.0", "firmware", 3, 2, True),
    ]


def test_comparison_is_newest_against_newest_never_pooled(con, tmp_path):
    ingest(con, two_firmwares(tmp_path))
    rows = q(
        con,
        """SELECT baseline_measurement, measurement, n_baseline, n, value / baseline_value
           FROM comparison WHERE metric = 'iops'""",
    )
    assert len(rows) == 64  # every point of the sweep
    for bm, m, nb, n, ratio in rows:
        assert (bm, m, nb, n) == ("2010-07-26", "2.0", 3, 3)
        assert ratio == pytest.approx(1.04, rel=1e-9)
    # the older firmware is there to be asked for, against the same baseline, never pooled with 2.0
    older = q(
        con,
        """SELECT DISTINCT n, round(value / baseline_value, 9) FROM comparison_measurements
           WHERE metric = 'iops' AND measurement = '1.0' AND baseline_current""",
    )
    assert older == [(3, 1.3)]
    assert q(con, "SELECT max(runs) FROM comparison_points WHERE system = 'Sys S2'") == [(3,)]


def test_scaling_is_the_mean_of_the_repeats(con, tmp_path):
    ingest(con, two_firmwares(tmp_path))
    runs: dict[tuple, list[float]] = {}
    for system, workload, load, value in q(
        con,
        """SELECT system, workload, load, value FROM scaling_points
           WHERE metric = 'iops' AND axis = 'outstanding_ios'""",  # each system's current measurement
    ):
        runs.setdefault((system, workload, load), []).append(value)
    rows = q(
        con,
        """SELECT system, measurement, workload, load, value, n, ci95_low, ci95_high FROM scaling
           WHERE metric = 'iops' AND axis = 'outstanding_ios'""",
    )
    assert {(s, m) for s, m, *_ in rows} == {("Base B1", "2010-07-26"), ("Sys S2", "2.0")}
    assert len(rows) == len(runs) > 20
    by_point = {}
    for system, _, workload, load, value, n, lo, hi in rows:
        assert n == 3 and len(runs[system, workload, load]) == 3
        assert value == pytest.approx(statistics.fmean(runs[system, workload, load]), rel=1e-12)
        assert lo < value < hi  # the repeats differ: an interval around the mean
        by_point[system, workload, load] = value
    for (system, workload, load), value in by_point.items():
        if system == "Sys S2":  # the mean of 1.04, 1.07, 1.01 over the mean of 1.00, 1.03, 0.97
            assert value / by_point["Base B1", workload, load] == pytest.approx(1.04, rel=1e-6)


def test_curve_is_not_the_best_repeat(con, tmp_path):
    ingest(con, two_firmwares(tmp_path))
    best = q(
        con,
        """SELECT count(*) FROM scaling s WHERE metric = 'iops' AND value = (
               SELECT max(value) FROM scaling_points p WHERE p.system = s.system AND p.load = s.load
               AND p.workload = s.workload AND p.metric = s.metric)""",
    )
    assert best == [(0,)]


def test_equal_repeats_give_exactly_zero_and_say_equal(con, tmp_path):
    study = tmp_path / "same"
    src = corpus("iometer/sqlserverio__iometeroutput.csv")
    for folder, system in (("a", "A"), ("b", "B")):
        (study / folder).mkdir(parents=True)
        (study / folder / "iolab.toml").write_text(f'system = "{system}"\n')
        for i in range(3):  # three runs of the same numbers (x 0.3: sums that round), not the same bytes
            text = scaled_iometer(src, 0.3, 1 / 0.3) + "\n" * (i + 3 * (folder == "b"))
            (study / folder / f"derived-x0.3-{i}-{src.name}").write_text(text)
    (study / "iolab.toml").write_text('study = "same"\nbaseline = "A"\n')
    ingest(con, study)
    rows = q(
        con,
        "SELECT DISTINCT pct_better, ci95_low_pct, ci95_high_pct, verdict FROM comparison WHERE direction IS NOT NULL",
    )
    assert rows == [(0.0, 0.0, 0.0, "equal")]


def test_firmware_labels_without_order_follow_their_first_run(con, tmp_path):
    study = two_firmwares(tmp_path, order=False)
    # the same copied times: the two firmware labels cannot be told apart by their first run
    ingest(con, study)
    rows = q(con, "SELECT measurement, measurement_no, is_current FROM system_measurements WHERE system = 'Sys S2'")
    # ordered by first run, then by label: both are ordered, 2.0 after 1.0
    assert sorted(rows) == [("1.0", 1, False), ("2.0", 2, True)]


def test_measurements_without_order_are_named_not_picked(con, tmp_path):
    study = tmp_path / "undated"
    orion = ROOT / "data" / "samples" / "orion-public-samples" / "databasejournal__11gtest_summary.txt"
    for i, fw in enumerate(("x", "y")):  # ORION summaries state no time; two labels, no firmware_order
        (study / fw).mkdir(parents=True)
        (study / fw / f"copy{'-' * i}-{orion.name}").write_bytes(orion.read_bytes() + b"\n" * i)
        (study / fw / "iolab.toml").write_text(f'system = "S"\nfirmware = "{fw}"\n')
    (study / "iolab.toml").write_text('study = "undated"\n')
    ingest(con, study)
    rows = q(con, "SELECT measurement, ordered_by, measurement_no, is_current, current_note FROM system_measurements")
    note = "2 measurements and none in order: declare firmware_order in the study's iolab.toml"
    assert sorted(rows) == [("x", "unordered", None, False, note), ("y", "unordered", None, False, note)]
    assert q(con, "SELECT DISTINCT measurement FROM comparison_points ORDER BY 1") == [("x",), ("y",)]
    assert q(con, "SELECT count(*) FROM comparison_points WHERE current_measurement") == [(0,)]


def _export(dbf: Path, view: str) -> bytes:
    return subprocess.run(
        [sys.executable, "-m", "iolab", "export", view, "--db", str(dbf)], capture_output=True, check=True, cwd=ROOT
    ).stdout


def test_step_by_step_and_fresh_export_the_same_bytes(tmp_path):
    study = two_firmwares(tmp_path / "data")
    steps, fresh = tmp_path / "steps.duckdb", tmp_path / "fresh.duckdb"
    c = db.open_db(steps)
    for part in ("sys/fw2.0", "base", "sys/fw1.0"):  # another order than the walk's
        ingest(c, study / part)
    ingest(c, study)
    c.close()
    c = db.open_db(fresh)
    ingest(c, study)
    c.close()
    for view in ("comparison", "comparison_measurements", "scaling", "system_measurements"):
        a, b = _export(steps, view), _export(fresh, view)
        assert a.count(b"\n") > 1 and a == b, view
