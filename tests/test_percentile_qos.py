"""Percentile QoS criteria as data (13.4): `p99 <= 1 ms`-style rows of a criteria CSV, declared by a
study's sidecar, judged by qos_verdicts on the real fio queue-depth sweep (data/samples/fio-intel-d3-s4610-qd-sweep).

Hand-checked against the JSON files (read clat_ns percentile "99.000000" / "99.900000", ns):
iodepth 16: 552960 / 692224; iodepth 32: 1269760 / 1499136; iodepth 64: 2834432 / 3162112.
"""

from __future__ import annotations

import shutil

import pytest

from tests.conftest import FIXTURES, ROOT, ingest, q

SWEEP = ROOT / "data" / "samples" / "fio-intel-d3-s4610-qd-sweep"
CRITERIA = FIXTURES / "criteria-csv" / "handmade-percentile-qos.csv"


@pytest.fixture
def study(con, tmp_path):
    d = tmp_path / "data" / "fio-qos"
    shutil.copytree(SWEEP, d)
    sidecar = (d / "iolab.toml").read_text().replace('study = "fio-intel-d3-s4610-qd-sweep"', 'study = "fio-qos"')
    (d / "iolab.toml").write_text(
        'criteria = ["p99_read_le_1ms", "p99_9_read_le_5ms", "p99_9_read_le_1ms"]\n' + sidecar
    )
    (tmp_path / "data" / "criteria").mkdir()
    shutil.copy(CRITERIA, tmp_path / "data" / "criteria" / CRITERIA.name)
    rep = ingest(con, tmp_path / "data")
    assert {o.status for o in rep.outcomes} == {"ingested"}
    return con


def verdicts(con, criterion):
    return q(
        con,
        """SELECT r.outstanding_ios, round(v.value, 6), v.passed FROM qos_verdicts v JOIN runs r USING (run_id)
                     WHERE v.study = 'fio-qos' AND v.criterion = ? ORDER BY 1""",
        [criterion],
    )


def test_p99_within_1ms_up_to_queue_depth_16(study):
    rows = verdicts(study, "p99_read_le_1ms")
    assert [r[0] for r in rows] == [1, 2, 4, 8, 16, 32, 64]
    assert rows[4] == (16, 0.55296, True) and rows[5] == (32, 1.26976, False) and rows[6] == (64, 2.834432, False)
    assert [r[2] for r in rows] == [True] * 5 + [False] * 2


def test_p99_9_within_5ms_everywhere_but_not_within_1ms(study):
    assert all(r[2] for r in verdicts(study, "p99_9_read_le_5ms"))
    assert verdicts(study, "p99_9_read_le_5ms")[-1] == (64, 3.162112, True)
    assert [(r[0], r[2]) for r in verdicts(study, "p99_9_read_le_1ms")][4:] == [(16, True), (32, False), (64, False)]


def test_saturation_is_the_last_queue_depth_meeting_every_percentile(study):
    assert q(
        study,
        """SELECT saturation_load, max_load_tested, criteria FROM saturation
                       WHERE study = 'fio-qos' AND axis = 'outstanding_ios'""",
    ) == [(16, 64, "p99_9_read_le_1ms, p99_9_read_le_5ms, p99_read_le_1ms")]


def test_undeclared_criteria_judge_nothing(con, tmp_path):
    d = tmp_path / "data"
    shutil.copytree(SWEEP, d / "sweep")
    shutil.copy(CRITERIA, d / CRITERIA.name)
    ingest(con, d)
    assert q(con, "SELECT count(*) FROM qos_criteria WHERE criterion LIKE 'p99%'") == [(3,)]
    assert q(con, "SELECT count(*) FROM qos_verdicts WHERE criterion LIKE 'p99%'") == [(0,)]
