"""A fio sweep in the comparison view beside an Iometer sweep (issue 13, done-when).

No two real files share a workload across tools here: the real fio sweeps are 4 KiB random reads
(louwrentius/fio-plot, Intel D3-S4610) and the real Iometer QD sweep (sqlserverio, Pliant LS300S)
runs 8 KiB and 64 KiB only. (The Quarch Iometer file has 4 KiB random reads with four workers at Queue
Depth 1 each, 4 I/Os in flight: the last test pairs it with fio's iodepth=4.) The first study is built
honestly from real files, each system a sidecar label:
  "D3-S4610 iodepth" (baseline): randread-<iodepth>-1.json, iodepth 1..64 x 1 job
  "D3-S4610 numjobs": randread-1-16.json (1 x 16 jobs = 16 in flight), randread-16-4.json (16 x 4 = 64)
  "Pliant LS300S (Iometer)": the Iometer sweep, which finds no partner and is listed as unmatched.
The ratios are computed by hand from the JSON "iops" and clat "99.000000" values.
"""

from __future__ import annotations

import shutil

import pytest

from tests.conftest import ROOT, corpus, ingest, q, set_fio_iops

SWEEP = ROOT / "data" / "samples" / "fio-intel-d3-s4610-qd-sweep"
IOMETER = "iometer/sqlserverio__iometeroutput.csv"
BASE, JOBS, IOM = "D3-S4610 iodepth", "D3-S4610 numjobs", "Pliant LS300S (Iometer)"


@pytest.fixture
def study(con, tmp_path):
    root = tmp_path / "data" / "fio-vs-iometer"
    for folder, system in (("qd", BASE), ("jobs", JOBS), ("iometer", IOM)):
        (root / folder).mkdir(parents=True)
        (root / folder / "iolab.toml").write_text(f'system = "{system}"\n')
    for f in SWEEP.glob("randread-*.json"):
        shutil.copy(f, root / "qd" / f.name)
    for n in ("1-16", "16-4"):
        shutil.copy(corpus(f"fio-json/louwrentius__fio-plot__fio31_d3s4610_randread-{n}.json"), root / "jobs")
    shutil.copy(corpus(IOMETER), root / "iometer")
    (root / "iolab.toml").write_text(f'study = "fio-vs-iometer"\nbaseline = "{BASE}"\n')
    rep = ingest(con, tmp_path / "data")
    assert {o.status for o in rep.outcomes} == {"ingested"}
    return con


def test_matched_by_signature_with_hand_ratios(study):
    rows = q(
        study,
        """SELECT system, metric, block_size_bytes, read_pct, random_pct, load, baseline_value, value, ratio
                       FROM comparison WHERE study = 'fio-vs-iometer' AND metric IN ('iops', 'p99_read_latency_ms')
                       ORDER BY metric, load""",
    )
    assert [r[:6] for r in rows] == [
        (JOBS, "iops", 4096, 100.0, 100.0, 16),
        (JOBS, "iops", 4096, 100.0, 100.0, 64),
        (JOBS, "p99_read_latency_ms", 4096, 100.0, 100.0, 16),
        (JOBS, "p99_read_latency_ms", 4096, 100.0, 100.0, 64),
    ]
    # load 16: randread-1-16 "iops" 49355.421486 vs randread-16-1 50151.214146
    assert rows[0][6:] == (pytest.approx(50151.214146), pytest.approx(49355.421486), pytest.approx(0.984132, abs=1e-6))
    # load 64: randread-16-4 34589.587187 vs randread-64-1 44733.692210
    assert rows[1][6:] == (pytest.approx(44733.692210), pytest.approx(34589.587187), pytest.approx(0.773233, abs=1e-6))
    # p99 clat: 444416 ns vs 552960 ns at 16; 52690944 ns vs 2834432 ns at 64 (many jobs: a long tail)
    assert rows[2][8] == pytest.approx(444416 / 552960) and rows[3][8] == pytest.approx(52690944 / 2834432)
    assert q(study, "SELECT DISTINCT direction FROM comparison WHERE metric = 'p99_read_latency_ms'") == [("lower",)]


def test_unmatched_points_are_listed(study):
    miss = q(
        study,
        """SELECT side, system, other_system, load FROM comparison_unmatched
                       WHERE study = 'fio-vs-iometer' AND metric = 'iops' ORDER BY side, other_system, load""",
    )
    base = [(s, o, ld) for side, s, o, ld in miss if side == "baseline"]
    assert base == [(BASE, JOBS, ld) for ld in (1, 2, 4, 8, 32)] + [(BASE, IOM, ld) for ld in (1, 2, 4, 8, 16, 32, 64)]
    iom = [r for r in miss if r[0] == "system"]
    assert {r[1] for r in iom} == {IOM}  # every Iometer point: nothing at 8/64 KiB on the fio side
    n_iom = q(
        study,
        """SELECT count(*) FROM comparison_points WHERE study = 'fio-vs-iometer' AND system = ?
                        AND metric = 'iops'""",
        [IOM],
    )[0][0]
    assert len(iom) == n_iom > 0
    assert q(study, "SELECT count(*) FROM comparison WHERE system = ?", [IOM]) == [(0,)]


def test_an_iometer_sweep_meets_a_fio_sweep_at_the_same_load(con, tmp_path):
    """Quarch's Iometer file runs 4 KiB random reads with 4 workers at Queue Depth 1 each: 4 I/Os in
    flight, the load of fio's iodepth=4 x 1 job. The comparison pairs them at load 4 whatever the tool."""
    root = tmp_path / "data" / "fio-vs-quarch"
    for folder, system in (("fio", BASE), ("iometer", "Intel P3700 (Iometer, Quarch)")):
        (root / folder).mkdir(parents=True)
        (root / folder / "iolab.toml").write_text(f'system = "{system}"\n')
    for f in SWEEP.glob("randread-*.json"):
        shutil.copy(f, root / "fio" / f.name)
    shutil.copy(corpus("iometer/quarch__testfile.csv"), root / "iometer")
    (root / "iolab.toml").write_text(f'baseline = "{BASE}"\n')
    ingest(con, tmp_path / "data")
    rows = q(
        con,
        """SELECT system, load, baseline_value, value, ratio, baseline_tools, tools FROM comparison
                     WHERE study = 'fio-vs-quarch' AND metric = 'iops' AND block_size_bytes = 4096""",
    )
    # fio: randread-4-1.json read "iops" 16878.185364; Iometer: the mean of the ALL rows of its 4 KiB / 100 % read / 100 % random sessions, as written
    iom = q(
        con,
        """SELECT avg(r.iops), count(*) FROM iometer_results r JOIN iometer_access_specs a
                    ON a.session_no = r.session_no AND a.size_bytes = 4096 AND a.pct_reads = 100 AND a.pct_random = 100
                    WHERE r.row_type = 'ALL'""",
    )[0]
    assert iom[1] == 11
    assert rows == [
        (
            "Intel P3700 (Iometer, Quarch)",
            4,
            pytest.approx(16878.185364),
            pytest.approx(iom[0]),
            pytest.approx(iom[0] / 16878.185364),
            ["fio"],
            ["Iometer"],
        )
    ]


def test_two_splits_of_one_load_are_two_points_each_paired_with_its_own(con, tmp_path):
    """fio-plot's sweep runs 16 I/Os in flight two ways (iodepth 16 x 1 job, iodepth 1 x 16 jobs) and
    64 two ways (64 x 1, 16 x 4). Each is its own point: averaged together they were taken for two
    repeats of one point, with a noise that was the splits' difference (at 64 in flight a system
    1.25x the baseline everywhere came out 'within noise', -230 % to +290 %). "Faster" is the same
    real files with every "iops" value written 1.25x (a hand-made change, said here)."""
    import json

    root = tmp_path / "data" / "splits"
    names = ("1-1", "1-16", "16-1", "16-4", "64-1")
    for system in ("Base", "Faster"):
        (root / system).mkdir(parents=True)
        (root / system / "iolab.toml").write_text(f'system = "{system}"\n')
        for n in names:
            doc = json.loads(corpus(f"fio-json/louwrentius__fio-plot__fio31_d3s4610_randread-{n}.json").read_text())
            if system == "Faster":
                for job in doc["jobs"]:
                    set_fio_iops(job["read"], job["read"]["iops"] * 1.25)
            (root / system / f"randread-{n}.json").write_text(json.dumps(doc))
    (root / "iolab.toml").write_text('study = "splits"\nbaseline = "Base"\n')
    assert {o.status for o in ingest(con, tmp_path / "data").outcomes} == {"ingested"}
    rows = q(
        con,
        """SELECT load, queue_depth, workers, workload_label, n_baseline, n, pct_better, match_rule FROM comparison
           WHERE study = 'splits' AND metric = 'iops' ORDER BY load, queue_depth""",
    )
    assert [r[:6] for r in rows] == [
        (1, 1, 1, "4 KiB random read, QD 1", 1, 1),
        (16, 1, 16, "4 KiB random read, QD 16 (QD 1 x 16 workers)", 1, 1),
        (16, 16, 1, "4 KiB random read, QD 16 (QD 16 x 1 workers)", 1, 1),
        (64, 16, 4, "4 KiB random read, QD 64 (QD 16 x 4 workers)", 1, 1),
        (64, 64, 1, "4 KiB random read, QD 64 (QD 64 x 1 workers)", 1, 1),
    ]
    assert all(r[6] == pytest.approx(25.0) and "split" not in r[7] for r in rows)
    assert q(con, "SELECT count(*) FROM comparison_unmatched WHERE study = 'splits'") == [(0,)]
    # a system with one split where the baseline has two: both baseline points pair with it, and say so
    (root / "Faster" / "randread-1-16.json").unlink()
    ingest(con, tmp_path / "data")
    at16 = q(
        con,
        """SELECT workload_label, queue_depth, workers, match_rule FROM comparison
           WHERE study = 'splits' AND metric = 'iops' AND load = 16 ORDER BY baseline_queue_depth""",
    )
    assert at16 == [
        (
            "4 KiB random read, QD 16 (QD 1 x 16 workers)",
            16,
            1,
            "drives: not stated; config: equal; split: 16 x 1 for 1 x 16",
        ),
        ("4 KiB random read, QD 16 (QD 16 x 1 workers)", 16, 1, "drives: not stated; config: equal"),
    ]
