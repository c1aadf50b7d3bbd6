"""The comparison view end to end: a study of three systems built from real files with known ratios.

"Acme X1" is the real Iometer queue-depth sweep tests/corpus/iometer/sqlserverio__iometeroutput.csv.
"Zeta Z9" is derived from it in the test: every IO/s and MB/s value x 4/3, every response time x 3/4,
so Zeta is exactly 33.33 % better at every point, for throughput and for latency alike.
"Bolt B3" is another real Iometer file (tests/corpus/iometer/adisireesha__results.csv) whose
workloads mostly differ: its points have no partner and must be listed, not dropped.
"""

from __future__ import annotations

import csv
import io
import types
from pathlib import Path

import pytest

from iolab import registry
from iolab.model import ParseResult, Run
from tests.conftest import corpus, ingest, q

UP = ("IOps", "Read IOps", "Write IOps", "MBps", "Read MBps", "Write MBps", "Transactions per Second")
DOWN = (
    "Average Response Time",
    "Average Read Response Time",
    "Average Write Response Time",
    "Average Transaction Time",
    "Maximum Response Time",
    "Maximum Read Response Time",
    "Maximum Write Response Time",
    "Maximum Transaction Time",
)


def scaled_iometer(src: Path, up: float, down: float) -> str:
    """The Iometer results file with throughput columns x up and response times x down."""
    out, header = [], None
    for row in csv.reader(io.StringIO(src.read_text())):
        if row and row[0] == "'Target Type":
            header = row
        elif header and row and row[0] in ("ALL", "MANAGER", "WORKER", "DISK"):
            for i, name in enumerate(header):
                if i < len(row) and row[i] not in ("", "-1") and (name in UP or name in DOWN):
                    row[i] = repr(float(row[i]) * (up if name in UP else down))
        elif row and row[0].startswith("'"):
            header = None if row[0] != "'Target Type" else header
        out.append(row)
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(out)
    return buf.getvalue()


def make_study(root: Path, baseline: str | None = "Acme X1", name: str = "acme-vs-zeta") -> Path:
    study = root / name
    for folder, system in (("acme", "Acme X1"), ("zeta", "Zeta Z9"), ("bolt", "Bolt B3")):
        (study / folder).mkdir(parents=True)
        (study / folder / "iolab.toml").write_text(f'system = "{system}"\n')
    src = corpus("iometer/sqlserverio__iometeroutput.csv")
    (study / "acme" / "sqlserverio__iometeroutput.csv").write_bytes(src.read_bytes())
    (study / "zeta" / "derived-x4over3-sqlserverio__iometeroutput.csv").write_text(scaled_iometer(src, 4 / 3, 3 / 4))
    (study / "bolt" / "adisireesha__results.csv").write_bytes(corpus("iometer/adisireesha__results.csv").read_bytes())
    (study / "iolab.toml").write_text(f'study = "{name}"\n' + (f'baseline = "{baseline}"\n' if baseline else ""))
    return study


@pytest.fixture
def three(con, tmp_path):
    ingest(con, make_study(tmp_path / "data"))
    return con


def test_exactly_a_third_better_at_every_matched_point(three):
    rows = q(
        three,
        """SELECT metric, direction, baseline_value, value, ratio, pct_better FROM comparison
                       WHERE system = 'Zeta Z9' AND metric IN ('iops', 'read_iops', 'write_iops', 'mbps',
                             'avg_latency_ms', 'max_latency_ms', 'avg_write_latency_ms')
                       AND baseline_value <> 0""",
    )  # a write-only sweep: its read numbers are 0
    points = q(three, """SELECT count(DISTINCT run_id) FROM measurements WHERE system = 'Acme X1' AND scope = 'all'""")[
        0
    ][0]
    assert points == 64
    by_metric = {}
    for metric, direction, base, value, ratio, pct in rows:
        by_metric.setdefault(metric, []).append(pct)
        assert round(pct, 2) == 33.33 and pct == pytest.approx(100 / 3, rel=1e-9), (metric, base, value)
        if "latency" in metric:
            assert direction == "lower" and ratio == pytest.approx(0.75)
        else:
            assert direction == "higher" and ratio == pytest.approx(4 / 3)
    # every run-level point of the sweep (64 queue depths x access specs) for each metric
    assert {m: len(v) for m, v in by_metric.items()}["iops"] == 64
    assert len(by_metric["avg_latency_ms"]) == 64
    assert q(three, "SELECT DISTINCT baseline_system, correction FROM comparison") == [("Acme X1", 1.0)]


def test_matched_on_the_signature_not_the_tool_label(three):
    keys = q(
        three,
        """SELECT DISTINCT workload_label, block_size_bytes, read_pct, random_pct, load FROM comparison
                       WHERE system = 'Zeta Z9' AND metric = 'iops' AND load = 32 AND block_size_bytes = 8192
                       ORDER BY ALL""",
    )
    assert keys == [
        ("8 KiB random read, QD 32", 8192, 100.0, 100.0, 32),
        ("8 KiB random write, QD 32", 8192, 0.0, 100.0, 32),
        ("8 KiB sequential read, QD 32", 8192, 100.0, 0.0, 32),
        ("8 KiB sequential write, QD 32", 8192, 0.0, 0.0, 32),
    ]


def test_unmatched_points_are_listed(three):
    bolt_points = q(three, """SELECT count(*) FROM comparison_points WHERE system = 'Bolt B3'""")[0][0]
    bolt_pairs = q(three, """SELECT count(*) FROM comparison WHERE system = 'Bolt B3'""")[0][0]
    bolt_left = q(three, """SELECT count(*) FROM comparison_unmatched WHERE side = 'system' AND system = 'Bolt B3'""")[
        0
    ][0]
    assert bolt_points > 0 and bolt_pairs + bolt_left == bolt_points  # nothing vanishes
    base_left = q(
        three,
        """SELECT DISTINCT reason FROM comparison_unmatched WHERE side = 'baseline' AND other_system = 'Bolt B3'
                            AND metric = 'iops'""",
    )
    assert base_left == [("Bolt B3 has no point at this workload, load, scope and metric",)]
    # Zeta matches everywhere: none of its points, nor Acme's, is left for Zeta
    assert q(three, "SELECT count(*) FROM comparison_unmatched WHERE 'Zeta Z9' IN (system, other_system)") == [(0,)]


def test_default_baseline_is_the_alphabetically_first_system(con, tmp_path):
    ingest(con, make_study(tmp_path / "data", baseline=None))
    assert q(con, "SELECT baseline_system, baseline_source LIKE 'default:%' FROM study_baseline") == [("Acme X1", True)]


def test_declared_baseline_wins(con, tmp_path):
    ingest(con, make_study(tmp_path / "data", baseline="Zeta Z9"))
    pct = q(
        con, "SELECT min(pct_better), max(pct_better) FROM comparison WHERE system = 'Acme X1' AND metric = 'iops'"
    )[0]
    assert pct == (pytest.approx(-25.0), pytest.approx(-25.0))  # Acme does 3/4 of Zeta's IO/s


def test_criteria_and_corrections_apply_only_where_declared(con, tmp_path):
    """The DS4300 paper's 20 ms criterion and 1.10 correction are defined, but this study names neither."""
    from tests.conftest import ROOT

    ingest(con, make_study(tmp_path / "data"), ROOT / "data" / "samples" / "criteria")
    assert q(con, "SELECT count(*) FROM qos_criteria WHERE criterion = 'drive_generation_correction'") == [(1,)]
    assert q(con, "SELECT count(*) FROM qos_verdicts WHERE study = 'acme-vs-zeta'") == [(0,)]
    assert q(con, "SELECT DISTINCT correction FROM comparison") == [(1.0,)]
    # declaring them makes them apply
    (tmp_path / "data" / "acme-vs-zeta" / "iolab.toml").write_text(
        'study = "acme-vs-zeta"\nbaseline = "Acme X1"\ncriteria = ["ds4300_measurement_point"]\n'
        'corrections = ["drive_generation_correction"]\n'
    )
    ingest(con, tmp_path / "data" / "acme-vs-zeta")
    assert q(con, "SELECT DISTINCT criterion FROM qos_verdicts WHERE study = 'acme-vs-zeta'") == [
        ("ds4300_measurement_point",)
    ]
    pct = q(con, "SELECT pct_better FROM comparison WHERE system = 'Zeta Z9' AND metric = 'iops' LIMIT 1")[0][0]
    assert pct == pytest.approx((4 / 3 / 1.1 - 1) * 100)
    # the correction's scope is throughput in IO/s and MB/s (criteria.csv's roles and units): a response time
    # is compared as measured, 4/3 better, and so is everything else the scope leaves out
    lat = q(con, "SELECT pct_better FROM comparison WHERE system = 'Zeta Z9' AND metric = 'avg_latency_ms' LIMIT 1")[0][
        0
    ]
    assert lat == pytest.approx((4 / 3 - 1) * 100)
    corrected = q(con, "SELECT DISTINCT metric FROM comparison WHERE correction <> 1 ORDER BY 1")
    assert corrected == [(m,) for m in ("iops", "mbps", "read_iops", "read_mbps", "write_iops", "write_mbps")]


# ---- a format the views have never heard of ----------------------------------------------------


def _fake_parse(data: bytes, name: str) -> ParseResult:
    """Lines 'bs,read,random,oio,iops,mbps,lat': one run each, scope 'all' plus one target."""
    res = ParseResult()
    for i, line in enumerate(data.decode().split("\n")[1:], start=2):
        if not line.strip():
            continue
        bs, rd, rnd, oio, iops, mbps, lat = line.split(",")
        key = f"p{i}"
        res.runs.append(
            Run(
                key=key,
                tool="NewBench",
                block_size_bytes=int(bs),
                read_pct=float(rd),
                random_pct=float(rnd),
                outstanding_ios=int(oio),
                queue_depth=int(oio),
                workers=1,
                workload=f"job{i}",
            )
        )
        res.add(key, "all", "iops", float(iops), "IO/s", line_no=i)
        res.add(key, "all", "mbps", float(mbps), "MB/s", line_no=i)
        res.add(key, "all", "avg_latency_ms", float(lat), "ms", line_no=i)
        res.add(key, "target", "iops", float(iops), "IO/s", target="/dev/sdz", line_no=i)
    return res


FAKE = types.ModuleType("newbench", "A made-up tool's CSV: the views must take it as it comes.")
FAKE.FORMAT, FAKE.VERSION, FAKE.parse = "newbench-csv", "1", _fake_parse
FAKE.sniff = lambda head, name: head.startswith("#newbench")


def test_a_new_format_reaches_the_views_without_view_edits(con, tmp_path, monkeypatch):
    real = registry.modules()
    monkeypatch.setattr(registry, "modules", lambda: (*real, FAKE))
    study = tmp_path / "data" / "newbench"
    for system, iops in (("Old O1", 1000.0), ("New N2", 1500.0)):
        d = study / system.split()[0].lower()
        d.mkdir(parents=True)
        d.joinpath("iolab.toml").write_text(
            f'system = "{system}"\n[[targets]]\ntarget = "/dev/sdz"\nvolume = "lun0"\ndrives = 4\n'
        )
        lines = ["#newbench"] + [
            f"4096,100,100,{qd},{iops * qd / (1 + qd / 16)},{iops * qd / 250},{qd / 10}" for qd in (1, 2, 4, 8, 16, 32)
        ]
        d.joinpath("run.csv").write_text("\n".join(lines) + "\n")
    (study / "iolab.toml").write_text('study = "newbench"\nbaseline = "Old O1"\n')
    report = ingest(con, study)
    assert [(o.status, o.format) for o in report.outcomes if o.path.endswith(".csv")] == [
        ("ingested", "newbench-csv")
    ] * 2, [(o.path, o.status, o.reason) for o in report.outcomes]
    per_drive = q(
        con,
        """SELECT system, iops, drives, iops_per_drive FROM per_drive_iops
                          WHERE level = 'run' AND outstanding_ios = 1 ORDER BY system""",
    )
    assert per_drive == [
        ("New N2", pytest.approx(1500 / (1 + 1 / 16)), 4, pytest.approx(1500 / (1 + 1 / 16) / 4)),
        ("Old O1", pytest.approx(1000 / (1 + 1 / 16)), 4, pytest.approx(1000 / (1 + 1 / 16) / 4)),
    ]
    curve = q(
        con,
        """SELECT system, workload, count(*), bool_or(is_knee) FROM scaling
                      WHERE metric = 'iops' AND axis = 'outstanding_ios' GROUP BY ALL ORDER BY ALL""",
    )
    assert curve == [("New N2", "4 KiB random read", 6, True), ("Old O1", "4 KiB random read", 6, True)]
    pct = q(con, "SELECT DISTINCT metric, round(pct_better, 6) FROM comparison WHERE system = 'New N2' ORDER BY 1")
    assert pct == [("avg_latency_ms", 0.0), ("iops", 50.0), ("mbps", 50.0)]
