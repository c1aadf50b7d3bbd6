"""A storage lab's study as issue 59 tried it (tests/labstudy.py: two array generations from real files),
its numbers checked against a plain-Python reading of the same files: what the views and pages claim
is what the files, the profiles and the criteria file say, and nothing more.

* Cross-generation (item 1): every generation_comparison row pairs the same load, block size and mix,
  compares means of three repeats, states both drive counts and applies the correction in scope.
* Scopes (item 3): the Exchange sizing rule sizes the Jetstress report only; the Jetstress latency bounds
  judge it alone and the DS4300 paper's 20 ms point the Iometer runs; the x1.1 correction touches IO/s
  and MB/s only, never CPU use, errors or packets (no "worse" from values that did not change).
* Drive counts (item 4) from the profiles, in the comparison and its labels; efficiency (item 5) from
  the mean of repeats, naming its workload and load; saturation and the knee (item 6); the files the
  numbers depend on, with their lines (item 8); runs and captures counted apart (item 9).
"""

from __future__ import annotations

import csv
import html
import io
import re
import statistics
from collections import defaultdict
from pathlib import Path

import pytest

from iolab import batch, db
from iolab.reports import page
from tests import labstudy as lab
from tests.conftest import q

CORRECTION = 1.1
STORAGE_THROUGHPUT = {"iops", "mbps", "read_iops", "write_iops", "read_mbps", "write_mbps"}


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    root = tmp_path_factory.mktemp("lab")
    data = lab.lab_study(root)
    con = db.open_db(root / "lab.duckdb")
    batch.ingest_paths(con, [data])
    yield con, data
    con.close()


def iometer_rows(path: Path) -> list[dict]:
    """The ALL rows of an Iometer results file, each with its access specification and queue depth."""
    out, header = [], None
    for row in csv.reader(io.StringIO(path.read_text())):
        if row and row[0] == "'Target Type":
            header = row
        elif header and row and row[0] == "ALL":
            out.append(dict(zip(header, row)))
    return out


@pytest.fixture(scope="module")
def plain(study):
    """(system, access specification, queue depth) -> the repeats' IO/s, MB/s (10^6 bytes a second: Iometer
    writes 2^20), average response times and CPU use, read from the study's Iometer files with csv alone."""
    _, data = study
    got: dict[tuple, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for folder, system in (("ds4500", lab.OLD), ("e2600", lab.NEW)):
        for f in sorted((data / lab.STUDY / folder).glob("*iometeroutput.csv")):
            for r in iometer_rows(f):
                point = got[(system, r["Access Specification Name"], int(r["Queue Depth"]))]
                point["iops"].append(float(r["IOps"]))
                point["mbps"].append(
                    float(r["MBps"]) * 2**20 / 1e6
                )  # Iometer's MBps are MiB/s; iolab's MB/s are 10^6 B/s
                point["avg_latency_ms"].append(float(r["Average Response Time"]))
                point["cpu_util_pct"].append(float(r["% CPU Utilization"]))
    assert len(got) == 2 * 64 and {len(p["iops"]) for p in got.values()} == {3}
    return got


def test_per_drive_iops_divide_each_run_by_its_profile_s_drives(study, plain):
    con, _ = study
    rows = q(
        con,
        """SELECT system, workload, outstanding_ios, iops, drives, drives_source, iops_per_drive FROM per_drive_iops
           WHERE study = ? AND level = 'run' AND tool = 'Iometer'""",
        [lab.STUDY],
    )
    assert len(rows) == 384
    for system, spec, qd, iops, drives, source, per_drive in rows:
        assert (drives, source) == (lab.DRIVES[system], "profile")
        assert iops in plain[(system, spec, qd)]["iops"]
        assert per_drive == iops / drives


# a curve's workload (the views' label less the load) -> the Iometer access specification it is (p.workload)
SPECS = """JOIN (SELECT DISTINCT system, workload_label(block_size_bytes, read_pct, random_pct, NULL, workload) AS label,
                        workload FROM per_drive_iops WHERE study = ? AND tool = 'Iometer') p
             ON p.system = s.system AND p.label = s.workload"""


def test_scaling_points_are_the_means_of_the_three_repeats(study, plain):
    con, _ = study
    rows = q(
        con,
        f"""SELECT s.system, s.load, s.value, s.n, p.workload FROM scaling s {SPECS}
           WHERE s.study = ? AND s.metric = 'iops' AND s.axis = 'outstanding_ios'""",
        [lab.STUDY, lab.STUDY],
    )
    assert len(rows) == 128
    for system, load, value, n, spec in rows:
        assert n == 3 and value == pytest.approx(statistics.fmean(plain[(system, spec, int(load))]["iops"]), rel=1e-12)


def test_every_generation_row_pairs_one_point_and_compares_means(study, plain):
    """Item 1: the same load, block size and mix on both sides, the means of repeats, drive counts stated."""
    con, _ = study
    rows = q(
        con,
        """SELECT g.metric, g.workload_label, g.load, g.block_size_bytes, g.read_pct, g.random_pct, g.old_value,
                  g.new_value, g.n_old, g.n_new, g.old_drives, g.new_drives, g.correction, g.pct_better, g.match_rule,
                  g.old_generation, g.new_generation, g.old_system, g.new_system
           FROM generation_comparison g WHERE g.study = ?""",
        [lab.STUDY],
    )
    assert len(rows) == q(con, "SELECT count(*) FROM comparison WHERE study = ?", [lab.STUDY])[0][0] > 0
    seen = set()
    for (
        metric,
        label,
        load,
        bs,
        read,
        rnd,
        old,
        new,
        n_old,
        n_new,
        d_old,
        d_new,
        corr,
        pct,
        rule,
        og,
        ng,
        os_,
        ns,
    ) in rows:
        assert (og, ng, os_, ns) == ("DS4500", "E2600", lab.OLD, lab.NEW)
        assert label.endswith(f", QD {int(load)}") and (n_old, n_new) == (3, 3)
        assert (d_old, d_new) == (10, 2) and rule.startswith("drives: 2 for 10")
        assert corr == (CORRECTION if metric in STORAGE_THROUGHPUT else 1.0)
        if metric in ("iops", "mbps", "avg_latency_ms"):
            spec = next(s for (sy, s, qd) in plain if sy == lab.OLD and qd == load and mix(s) == (bs, read, rnd))
            old_mean = statistics.fmean(plain[(lab.OLD, spec, int(load))][metric])
            new_mean = statistics.fmean(plain[(lab.NEW, spec, int(load))][metric])
            assert (old, new) == (pytest.approx(old_mean, rel=1e-12), pytest.approx(new_mean, rel=1e-12))
            if metric == "avg_latency_ms":  # lower is better, out of the correction's scope
                assert pct == pytest.approx((old_mean / new_mean - 1) * 100, rel=1e-9)
            else:  # 1.8 x on every point: 1.8 / 1.1 - 1 = +63.64 %, the figure
                assert new / old == pytest.approx(1.8, rel=1e-12)
                assert pct == pytest.approx((1.8 / CORRECTION - 1) * 100, rel=1e-9)
            seen.add((metric, spec, load))
    assert len(seen) == 3 * 64


def mix(spec: str) -> tuple[int, float, float]:
    """'8k 0% Read; 100% Random 8k' -> (8192, 0.0, 100.0): its block size, read % and random %."""
    size, rest = spec.split(" ", 1)
    return int(size.rstrip("k")) * 1024, float(rest.split("%")[0]), float(rest.split("; ")[1].split("%")[0])


def size_mix(spec: str) -> str:
    """'8k 0% Read; 100% Random 8k' -> '8 KiB random write' (how iolab labels the spec)."""
    bs, read, random = mix(spec)
    return f"{bs // 1024} KiB {'random' if random == 100 else 'sequential'} {'read' if read == 100 else 'write'}"


def test_the_correction_touches_no_metric_outside_its_scope(study, plain):
    """Item 3: CPU use, errors, packets/s and transaction counts did not change: no verdict says they did."""
    con, _ = study
    assert q(con, "SELECT count(*) FROM comparison WHERE study = ? AND verdict = 'worse'", [lab.STUDY]) == [(0,)]
    same = q(
        con,
        """SELECT DISTINCT metric, correction, pct_better, verdict FROM comparison
           WHERE study = ? AND value = baseline_value AND sd = 0 AND sd_baseline = 0 AND direction IS NOT NULL""",
        [lab.STUDY],
    )
    assert {m for m, *_ in same} >= {"cpu_util_pct", "packets_per_s", "errors"}
    assert {(c, p, v) for m, c, p, v in same if m not in STORAGE_THROUGHPUT} == {(1.0, 0.0, "equal")}
    zeros = q(  # no reads in a write workload on either side: corrected or not, still 0, still equal
        con,
        """SELECT DISTINCT value, pct_better, verdict FROM comparison WHERE study = ? AND correction <> 1
           AND value = baseline_value""",
        [lab.STUDY],
    )
    assert zeros == [(0.0, 0.0, "equal")]
    cpu = q(
        con,
        "SELECT count(*) FROM comparison WHERE study = ? AND metric = 'cpu_util_pct' AND verdict = 'equal'",
        [lab.STUDY],
    )
    assert cpu == [(64,)]  # the file's CPU utilisation is the same on both sides (only throughput was scaled)
    said = q(con, "SELECT correction, scope FROM study_corrections WHERE study = ?", [lab.STUDY])
    assert said == [(CORRECTION, "drive_generation_correction: throughput metrics in IO/s, MB/s")]


def test_sizing_and_criteria_apply_to_their_tool_s_runs_only(study):
    """Item 3: no mailboxes for an Iometer run; the real Jetstress count (1101.114 IO/s / 0.5) instead."""
    con, _ = study
    sized = q(con, "SELECT tool, criterion, iops, multiple FROM sizing WHERE study = ?", [lab.STUDY])
    assert sized == [("Jetstress", "exchange_iops_per_mailbox", 1101.114, 1101.114 / 0.5)]
    judged = q(con, "SELECT DISTINCT tool, criterion FROM qos_verdicts WHERE study = ? ORDER BY ALL", [lab.STUDY])
    assert judged == [
        ("Iometer", "ds4300_measurement_point"),
        ("Jetstress", "jetstress_db_read_latency"),
        ("Jetstress", "jetstress_log_write_latency"),
    ]


def test_efficiency_is_the_best_point_s_mean_of_repeats(study, plain):
    """Item 5: $/IOPS divides by a point's mean over its repeats (never the best single run), named."""
    con, _ = study
    rows = q(
        con,
        """SELECT system, best_iops, best_iops_workload, best_iops_load, best_iops_runs, best_iops_drives,
                  best_iops_per_drive, usd_per_iops FROM efficiency WHERE study = ? ORDER BY system""",
        [lab.STUDY],
    )
    assert len(rows) == 2
    for system, best, workload, load, runs, drives, per_drive, usd in rows:
        means = {(s, qd): statistics.fmean(v["iops"]) for (sy, s, qd), v in plain.items() if sy == system}
        (spec, qd), top = max(means.items(), key=lambda kv: kv[1])
        single = max(max(v["iops"]) for (sy, _, _), v in plain.items() if sy == system)
        assert best == pytest.approx(top, rel=1e-12) and best < single  # the mean, not the best repeat
        assert (workload, load, runs, drives) == (f"{size_mix(spec)}, QD {qd}", qd, 3, lab.DRIVES[system])
        assert per_drive == best / drives and usd == lab.PRICES[system] / best


def test_saturation_is_the_last_load_before_a_run_fails(study, plain):
    """Item 6: saturation walks each curve up to the first load where a repeat fails the 20 ms point."""
    con, _ = study
    rows = q(
        con,
        f"""SELECT s.system, p.workload, s.saturation_load, s.first_failing_load FROM saturation s {SPECS}
           WHERE s.study = ? AND s.axis = 'outstanding_ios'""",
        [lab.STUDY, lab.STUDY],
    )
    assert len(rows) == 16
    for system, spec, sat, first in rows:
        loads = sorted(qd for (sy, s, qd) in plain if sy == system and s == spec)
        fails = [qd for qd in loads if max(plain[(system, spec, qd)]["avg_latency_ms"]) > 20]
        assert first == (fails[0] if fails else None)
        assert sat == max(qd for qd in loads if not fails or qd < fails[0])


def test_the_files_the_numbers_depend_on_with_their_lines(study):
    """Item 8: both profiles (the mapped volumes, their group and its member drives) and the criteria file
    (the rows the study declares), found by a plain reading of the files."""
    con, data = study
    rows = {
        Path(p).name: (kind, lines)
        for kind, p, lines in q(con, "SELECT kind, path, lines FROM study_dependencies WHERE study = ?", [lab.STUDY])
    }
    assert set(rows) == {"storcs__ibm_DS4500.txt", "jmrunkle__storageArrayProfile.txt", "criteria.csv"}
    ds = (data / lab.STUDY / "ds4500" / "storcs__ibm_DS4500.txt").read_text().splitlines()
    at = {line.strip(): i for i, line in enumerate(ds, 1)}
    head = at["ARRAY 1 (RAID 5)"]
    table = next(i for i, line in enumerate(ds, 1) if i > head and line.strip() == "ENCLOSURE  SLOT")
    members = list(range(table + 1, table + 11))  # its 10 drives, one a line under the table's heading
    volumes = [at[f"LOGICAL DRIVE NAME: array1_LUN{n}_app01_5G"] for n in (0, 1, 2)]  # the mapped ones
    assert rows["storcs__ibm_DS4500.txt"] == ("array profile", sorted([head, *members, *volumes]))
    e2600 = (data / lab.STUDY / "e2600" / "jmrunkle__storageArrayProfile.txt").read_text().splitlines()
    pairs = [i for i, line in enumerate(e2600, 1) if "[mirrored pair with drive at tray" in line][:2]
    group = next(i for i, line in enumerate(e2600, 1) if line.split() == ["Name:", "1"])
    volume = next(i for i, line in enumerate(e2600, 1) if line.split() == ["Volume", "name:", "0"])
    assert rows["jmrunkle__storageArrayProfile.txt"] == ("array profile", [group, *pairs, volume])
    crit = (data / "criteria" / "criteria.csv").read_text().splitlines()
    declared = (
        "exchange_iops_per_mailbox",
        "jetstress_db_read_latency",
        "jetstress_log_write_latency",
        "ds4300_measurement_point",
        "drive_generation_correction",
    )
    want = sorted(i for i, line in enumerate(crit, 1) if line.split(",")[0] in declared)
    assert rows["criteria.csv"] == ("criteria", want)


def test_runs_and_captures_are_counted_apart(study):
    """Item 9: 192 Iometer runs and a Jetstress report, 192 runs and an esxtop capture, not 193 and 193."""
    con, _ = study
    rows = q(
        con,
        "SELECT system, tool, runs, captures, drives FROM study_system_runs WHERE study = ? ORDER BY ALL",
        [lab.STUDY],
    )
    assert rows == [
        (lab.OLD, "Iometer", 192, 0, "10 (profile)"),
        (lab.OLD, "Jetstress", 1, 0, "10 (profile)"),
        (lab.NEW, "Iometer", 192, 0, "2 (profile)"),
        (lab.NEW, "esxtop", 0, 1, None),
    ]
    shown = page.systems(con, lab.STUDY)
    assert shown.select("system", "tools", "runs", "captures", "drives").rows() == [
        (lab.OLD, "Iometer (192 runs), Jetstress (1 run)", 193, 0, "10 (profile)"),
        (lab.NEW, "Iometer (192 runs), esxtop (1 capture)", 192, 1, "2 (profile)"),
    ]


def test_a_bar_of_the_new_array_carries_its_own_drives(study):
    """Item 4: the comparison page's bars say 2 drives for the baseline's 10, never "drives: equal"."""
    con, _ = study
    rows = q(
        con,
        """SELECT workload_label AS workload, raid_level, baseline_raid_level, drives, baseline_drives, config,
                  baseline_config, match_rule FROM comparison WHERE study = ? AND metric = 'iops'""",
        [lab.STUDY],
    )
    names = ["workload", "raid_level", "baseline_raid_level", "drives", "baseline_drives", "config", "baseline_config"]
    for row in rows:
        label = page.point_label(dict(zip(names, row)))
        assert label.endswith(" · 2 drives for 10 drives") and row[-1].startswith("drives: 2 for 10;")
    assert len(rows) == 64


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """The study's pages, rendered from a database of their own, every chart true to its view (the
    chart oracle)."""
    from iolab.reports import oracle, render

    root = tmp_path_factory.mktemp("rendered")
    dbf = root / "lab.duckdb"
    con = db.open_db(dbf)
    batch.ingest_paths(con, [lab.lab_study(root)])
    con.close()
    out = root / "out"
    assert render.render(dbf, out, [lab.STUDY]) == 0
    found = {p.name: p for p in out.glob("*/*.html")}
    ro = db.connect(dbf, read_only=True)
    try:
        for p in found.values():
            assert oracle.check_page(p, ro) == [], p.name
    finally:
        ro.close()
    return {name: p.read_text() for name, p in found.items()}


def text(page_html: str) -> str:
    """A page's text, as a reader sees it: tags out, entities read, spaces collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page_html)).split())


def test_the_pages_say_what_the_views_hold(pages):
    """Items 3-6 and 9 as a reader of the pages sees them."""
    overview = text(pages["01-overview.html"])
    # 8 workloads at 8 loads, not 64 workloads; runs and captures apart
    assert f"{lab.OLD} Iometer 2008.06.18 192 8 8" in overview
    assert f"{lab.NEW} E2600 Iometer (192 runs), esxtop (1 capture) 192 1 2 (profile)" in overview
    per_drive = text(pages["02-per-drive-iops.html"])
    assert f"sizing Jetstress runs only: {lab.OLD} · Jetstress Performance: 2,202." in per_drive
    qd = [int(m) for m in re.findall(r"8 KiB sequential write, QD (\d+) s1/r\d+ Iometer", per_drive)]
    assert qd[:9] == [1, 1, 1, 2, 2, 2, 4, 4, 4]  # loads sorted as numbers, not text (1, 128, 16, 2 ...)
    scaling = pages["03-scaling-curves.html"]  # the alt text says what the chart's subtitle does
    assert "(8 panels, each panel has its own y-axis" in scaling and "Knee and saturation are two things" in scaling
    efficiency = text(pages["04-efficiency-qos.html"])
    assert "never the best single run" in efficiency and "8 KiB sequential read, QD 64 64 3 2" in efficiency
    comparison = text(pages["05-comparison.html"])
    assert "throughput metrics in IO/s, MB/s" in comparison and "2 drives for 10 drives" in comparison
    assert "drives: equal" not in comparison
