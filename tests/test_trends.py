"""Trends over time: each system measured again, from repeats of a real Iometer file.

Every run is tests/corpus/iometer/sqlserverio__iometeroutput.csv with its IO/s and MB/s x f and its
response times x 1/f (tests/test_comparison.scaled_iometer), f drawn with a fixed seed around a
known mean with 5 % run-to-run spread; a measurement is a sidecar firmware label or, without one,
the day the runs started (the copies' 'Time Stamp' dates are moved to make a second day).
"""

from __future__ import annotations

import csv
import io
import random
from pathlib import Path

import pytest
from scipy import stats

from iolab import db
from tests.conftest import ROOT, corpus, ingest, q, set_fio_iops
from tests.test_comparison import scaled_iometer

SPREAD = 0.05
SCALED = "('iops', 'mbps', 'avg_latency_ms', 'max_latency_ms')"
DAY = "2010-07-26"  # the day the corpus file's runs started


def factors(mean: float, n: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    return [mean * (1 + rng.gauss(0, SPREAD)) for _ in range(n)]


def write_runs(folder: Path, fs: list[float], day: str = DAY, sidecar: str = "") -> None:
    folder.mkdir(parents=True)
    if sidecar:
        (folder / "iolab.toml").write_text(sidecar)
    src = corpus("iometer/sqlserverio__iometeroutput.csv")
    for i, f in enumerate(fs):
        name = f"scaled-x{f:.6f}-run{i}-{day}-sqlserverio__iometeroutput.csv"
        (folder / name).write_text(scaled_iometer(src, f, 1 / f).replace(DAY, day))


def fleet(root: Path) -> Path:
    """Steady: firmware 1.1 within noise of 1.0. Broken: firmware 2.0 at 60 % of 1.0's throughput.
    Dated: no firmware label, a second day 20 % faster. Once: one measurement."""
    study = root / "fleet"
    for system, old, new in (("Steady", 1.0, 1.01), ("Broken", 1.0, 0.6)):
        fw_new = "1.1" if system == "Steady" else "2.0"
        seed = 10 if system == "Steady" else 20
        write_runs(study / system / "old", factors(old, 4, seed), sidecar=f'system = "{system}"\nfirmware = "1.0"\n')
        write_runs(
            study / system / "new", factors(new, 4, seed + 1), sidecar=f'system = "{system}"\nfirmware = "{fw_new}"\n'
        )
    (study / "Dated").mkdir()
    (study / "Dated" / "iolab.toml").write_text('system = "Dated"\n')
    write_runs(study / "Dated" / "july", factors(1.0, 3, 30))
    write_runs(study / "Dated" / "sept", factors(1.2, 3, 31), day="2010-09-14")
    write_runs(study / "Once", factors(1.0, 2, 40), sidecar='system = "Once"\n')
    (study / "iolab.toml").write_text('study = "fleet"\nfirmware_order = ["1.0", "1.1", "2.0"]\n')
    return study


def newest(con, system: str) -> list[tuple]:
    return q(
        con,
        f"""SELECT DISTINCT previous_measurement, measurement, verdict, regression, previous_n, n FROM trends
            WHERE system = '{system}' AND metric IN {SCALED} AND previous_value > 0 ORDER BY ALL""",
    )


def test_regression_only_outside_the_noise(con, tmp_path):
    ingest(con, fleet(tmp_path / "data"))
    ms = q(
        con, "SELECT system, measurement, measured_by, measurement_no, ordered_by FROM trend_measurements ORDER BY ALL"
    )
    assert ms == [
        ("Broken", "1.0", "firmware", 1, "firmware_order"),
        ("Broken", "2.0", "firmware", 2, "firmware_order"),
        ("Dated", "2010-07-26", "run date", 1, "first run start"),
        ("Dated", "2010-09-14", "run date", 2, "first run start"),
        ("Once", DAY, "run date", 1, "first run start"),
        ("Steady", "1.0", "firmware", 1, "firmware_order"),
        ("Steady", "1.1", "firmware", 2, "firmware_order"),
    ]
    assert newest(con, "Steady") == [("1.0", "1.1", "within noise", False, 4, 4)]
    assert newest(con, "Broken") == [("1.0", "2.0", "worse", True, 4, 4)]
    assert newest(con, "Dated") == [(DAY, "2010-09-14", "better", False, 3, 3)]
    assert q(con, "SELECT count(*) FROM trends WHERE system = 'Once' AND previous_value IS NOT NULL") == [(0,)]


def test_values_are_the_runs_mean_and_interval(con, tmp_path):
    """value, n, sd are the mean and spread of the measurement's runs; the % change and its interval
    are the comparison's Welch interval with the previous measurement as the baseline."""
    ingest(con, fleet(tmp_path / "data"))
    point = "system = 'Broken' AND metric = 'iops' AND scope = 'all'"
    key = "block_size_bytes, read_pct, random_pct, load"
    first = q(con, f"SELECT {key} FROM trends WHERE {point} AND previous_value > 0 ORDER BY ALL LIMIT 1")[0]
    match = " AND ".join(f"{k} IS NOT DISTINCT FROM ?" for k in key.split(", "))
    per_run = q(
        con,
        f"SELECT firmware, value FROM trend_runs WHERE {point} AND {match.replace('load', 'outstanding_ios')}",
        list(first),
    )
    old = [v for fw, v in per_run if fw == "1.0"]
    new = [v for fw, v in per_run if fw == "2.0"]
    assert len(old) == len(new) == 4
    row = q(
        con,
        f"""SELECT previous_value, value, previous_sd, sd, pct_change, ci95_low_pct, ci95_high_pct,
                   value_ci95_low, value_ci95_high FROM trends WHERE {point} AND {match} AND measurement = '2.0'""",
        list(first),
    )[0]
    mean = lambda xs: sum(xs) / len(xs)  # noqa: E731
    sd = lambda xs: (sum((x - mean(xs)) ** 2 for x in xs) / (len(xs) - 1)) ** 0.5  # noqa: E731
    assert abs(row[0] - mean(old)) < 1e-6 and abs(row[1] - mean(new)) < 1e-6
    assert abs(row[2] - sd(old)) < 1e-6 and abs(row[3] - sd(new)) < 1e-6
    assert abs(row[4] - (mean(new) / mean(old) - 1) * 100) < 1e-9
    vp, vn = sd(old) ** 2 / 4, sd(new) ** 2 / 4
    df = (vp + vn) ** 2 / (vp * vp / 3 + vn * vn / 3)  # Welch-Satterthwaite, fractional (scipy's)
    half = stats.t.ppf(0.975, df) * (vp + vn) ** 0.5 / mean(old) * 100
    assert row[5] == pytest.approx(row[4] - half, rel=1e-9) and row[6] == pytest.approx(row[4] + half, rel=1e-9)
    own = stats.t.ppf(0.975, 3) * sd(new) / 2  # t(0.975, 3) sd / sqrt(4)
    assert row[7] == pytest.approx(mean(new) - own, rel=1e-9) and row[8] == pytest.approx(mean(new) + own, rel=1e-9)


def test_latency_regression_is_higher_latency(con, tmp_path):
    ingest(con, fleet(tmp_path / "data"))
    rows = q(
        con,
        """SELECT DISTINCT direction, pct_change < 0, regression FROM trends
           WHERE system = 'Broken' AND metric = 'avg_latency_ms' AND previous_value > 0""",
    )
    assert rows == [("lower", True, True)]


def fio_without_time(folder: Path, sidecar: str, indent: int | None = None) -> None:
    """The real fio 2.18 file with its report's timestamp (and the time text beside it) taken out
    (a hand-made change): a run that states no time at all. ``indent``: other bytes, the same run
    (two copies of one file in a study count once)."""
    import json

    folder.mkdir(parents=True)
    (folder / "iolab.toml").write_text(sidecar)
    doc = json.loads(corpus("fio-json/louwrentius__fio-plot__fio218_randread-01-01.json").read_text())
    for k in ("timestamp", "timestamp_ms", "time"):
        doc.pop(k, None)
    (folder / "randread-no-time.json").write_text(json.dumps(doc, indent=indent))


def test_measurements_without_an_order_are_listed_not_trended(con, tmp_path):
    """Without firmware_order, firmware labels are ordered by their first run's start. A fio JSON run
    states an end (the report's timestamp, 1492427705 = 2017-04-17 11:15:05 UTC) and a runtime (10016
    ms): it started at the end minus the runtime. A firmware whose runs state no time at all is
    'unordered', and runs with neither a time nor a firmware are the measurement 'no time': both
    listed, in no trend."""
    study = tmp_path / "data" / "lab"
    write_runs(study / "b", factors(1.0, 2, 2), day="2011-01-02", sidecar='system = "S"\nfirmware = "B"\n')
    write_runs(study / "a", factors(1.0, 2, 1), sidecar='system = "S"\nfirmware = "A"\n')
    (study / "c").mkdir()
    (study / "c" / "iolab.toml").write_text('system = "S"\nfirmware = "C"\n')
    fio = "fio-json/louwrentius__fio-plot__fio218_randread-01-01.json"
    (study / "c" / "randread.json").write_bytes(corpus(fio).read_bytes())
    fio_without_time(study / "d", 'system = "S"\nfirmware = "D"\n')
    fio_without_time(study / "e", 'system = "T"\n', indent=1)
    ingest(con, tmp_path / "data")
    assert q(
        con,
        """SELECT system, measurement, measured_by, measurement_no, ordered_by, measurements, CAST(first_run AS VARCHAR)
           FROM trend_measurements ORDER BY 1, 2""",
    ) == [
        ("S", "A", "firmware", 1, "first run start", 3, "2010-07-26 09:28:04.211"),
        ("S", "B", "firmware", 2, "first run start", 3, "2011-01-02 09:28:04.211"),
        ("S", "C", "firmware", 3, "first run start", 3, "2017-04-17 11:14:54.984"),
        ("S", "D", "firmware", None, "unordered", 3, None),
        ("T", "no time", "no time", None, "unordered", 0, None),
    ]
    assert q(con, "SELECT DISTINCT started_from FROM trend_runs WHERE measurement = 'C'") == [("end - runtime",)]
    assert q(con, "SELECT DISTINCT measurement FROM trends ORDER BY 1") == [("A",), ("B",), ("C",)]


def test_the_trend_page_is_planned_for_the_studies_trend_measurements_trends(con, tmp_path):
    """The page's studies query (its notebook's header) reads system_measurements, not trend_measurements:
    a render stores what the studies queries read before it knows its pages, and trend_measurements
    joins every run (trend_runs: 0.2 s of a 1,000-run study's snapshot with no trends page). It names
    the studies where a system has two ordered measurements, as trend_measurements.measurements counts."""
    from iolab.reports.plan import notebooks

    fleet(tmp_path / "data")
    fio_without_time(tmp_path / "data" / "unordered" / "d", 'study = "unordered"\nsystem = "S"\nfirmware = "D"\n')
    write_runs(tmp_path / "data" / "once" / "a", factors(1.0, 2, 1), sidecar='study = "once"\nsystem = "S"\n')
    ingest(con, tmp_path / "data")
    planned = q(con, f"SELECT DISTINCT study FROM ({notebooks()['09-trends'].studies}) ORDER BY 1")
    assert planned == q(con, "SELECT DISTINCT study FROM trend_measurements WHERE measurements > 1 ORDER BY 1")
    assert planned == [("fleet",)]
    assert "trend_measurements" not in notebooks()["09-trends"].studies


def test_firmware_order_names_are_checked(con, tmp_path):
    from iolab import declared

    ingest(con, fleet(tmp_path / "data"))
    assert declared.problems(con) == []
    side = tmp_path / "data" / "fleet" / "iolab.toml"
    side.write_text('study = "fleet"\nfirmware_order = ["1.0", "1.2", "2.0"]\n')
    ingest(con, tmp_path / "data" / "fleet")
    (p,) = declared.problems(con)
    assert (p.key, p.value, p.line) == ("firmware_order", "1.2", 2)
    assert "did you mean '1.1'?" in p.reason()


def con_of(f: Path):
    from iolab import db

    return db.connect(f, read_only=True)


def test_compare_against_previous(tmp_path, capsys):
    from iolab import cli

    f = tmp_path / "t.duckdb"
    assert cli.main(["ingest", "-q", str(fleet(tmp_path / "data")), "--db", str(f)]) == 0
    capsys.readouterr()
    args = ["compare", "--db", str(f), "--study", "fleet", "--against", "previous", "--metric", "iops"]
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    assert "Once: one measurement only (2010-07-26, by run date)" in " ".join(out.split())
    lines = {ln.split()[0]: ln for ln in out.splitlines() if ln.strip().startswith(("Steady", "Broken", "Dated"))}
    assert "within noise" in lines["Steady"] and lines["Steady"].rstrip().endswith(" 0")
    assert "worse" in lines["Broken"] and not lines["Broken"].rstrip().endswith(" 0")
    assert "1.0" in lines["Broken"] and "2.0" in lines["Broken"]
    said = " ".join(out.split())
    tested, claimed, kept = q(
        con_of(f),
        """SELECT count(p_value), count(*) FILTER (p_value IS NOT NULL AND verdict IN ('better', 'worse')),
                  count(*) FILTER (p_value IS NOT NULL AND verdict_fdr IN ('better', 'worse'))
           FROM trends WHERE study = 'fleet' AND repeats_metric IS NULL""",
    )[0]
    assert tested > 0 and kept <= claimed
    assert f"the study's {tested:,} distinct hypotheses with a p-value" in said
    assert f"noise alone would call about {0.05 * tested:,.1f} of them better or worse" in said
    assert f"{claimed:,} are, at " in said and f"{kept:,} remain, at " in said
    assert cli.main([*args, "--format", "csv"]) == 0
    csv = capsys.readouterr().out.splitlines()
    assert csv[0].endswith("pct_change,ci95_low_pct,ci95_high_pct,verdict,regression,p_value,fdr_q,verdict_fdr")
    assert {ln.split(",")[1] for ln in csv[1:]} == {"Steady", "Broken", "Dated"}
    assert cli.main([*args, "--baseline", "Steady"]) == 2
    with pytest.raises(SystemExit) as bad:
        cli.main([*args[:-4], "--against", "next"])
    assert bad.value.code == 2


def test_trend_page_draws_the_view(tmp_path):
    """The page renders for the study, every chart passes the chart oracle against trends, and the
    regressions it marks are Broken's and no other system's."""
    from iolab import batch, db
    from iolab.cli import render_reports
    from iolab.reports import oracle

    dbf = tmp_path / "t.duckdb"
    con = db.open_db(dbf)
    batch.ingest_paths(con, [fleet(tmp_path / "data")])
    con.close()
    out = tmp_path / "out"
    assert render_reports.main(["--db", str(dbf), "--out", str(out), "--study", "fleet"]) == 0
    page = out / "fleet" / "09-trends.html"
    con = db.connect(dbf, read_only=True)
    assert oracle.check_page(page, con) == []
    found, _ = oracle.charts(page.read_text(), "trends")
    assert [c.meta["source"]["where"]["metric"] for c in found] == ["iops", "mbps", "avg_latency_ms"]
    for c in found:
        rows = c.rows()
        # Broken's 64 regressions lead and fill the page's 12 panels past their cap: Dated's changes for the
        # better and Steady's points (within noise) are in the table, and the caption says so
        assert {r["system"] for r in rows} == {"Broken"}  # Once has no second measurement
        assert len({r["panel"] for r in rows if r["status"] == "regression"}) == 64
        assert " ".join(c.spec["title"]["subtitle"]) == (
            "64 of 192 panels drawn; all 64 regressions among them, drawn first; 0 of 64 changes for the better "
            "outside the noise, next."
        )
        assert "No marks for Dated, Steady: their panels come after the 64 drawn" in " ".join(c.caption.split())
    con.close()


def test_hostile_names_on_the_trend_page_stay_text(tmp_path):
    from iolab import batch, db
    from iolab.cli import render_reports
    from iolab.reports import oracle
    from tests.studies import SYSTEMS, toml

    study = tmp_path / "data" / "hostile"
    name, firmware = SYSTEMS["acme"], "<img src=x onerror=alert(5)>"
    write_runs(study / "old", factors(1.0, 2, 1), sidecar=f"system = {toml(name)}\nfirmware = {toml(firmware)}\n")
    write_runs(study / "new", factors(0.5, 2, 2), day="2010-08-01", sidecar=f"system = {toml(name)}\n")
    dbf = tmp_path / "t.duckdb"
    con = db.open_db(dbf)
    batch.ingest_paths(con, [tmp_path / "data"])
    con.close()
    out = tmp_path / "out"
    assert render_reports.main(["--db", str(dbf), "--out", str(out), "--study", "hostile"]) == 0
    page = out / "hostile" / "09-trends.html"
    text = page.read_text()
    assert "<script>alert(1)" not in text and "<img src=x" not in text
    assert "&lt;img src=x onerror=alert(5)&gt;" in text  # the firmware shown, as text
    con = db.connect(dbf, read_only=True)
    assert oracle.check_page(page, con) == []
    con.close()


def test_the_bundled_quarch_sweep_is_one_measurement(tmp_path, capsys):
    """The real quarch results file runs from 2023-03-25 03:05 to 2023-03-27 13:14, and its instantaneous
    capture was taken during its last test: one session, so one measurement (a file is never split; a
    new measurement begins more than 12 hours after every earlier file's last run). Its points measured
    on both days are repeats of one point (the 37 % drop of 4 KiB random read, QD 4 between the days is a
    drive leaving its fresh state inside one sweep, not a new release)."""
    from iolab import cli

    f = tmp_path / "t.duckdb"
    assert cli.main(["ingest", "-q", str(ROOT / "data" / "samples" / "quarch-intel-nvme-2023"), "--db", str(f)]) == 0
    con = db.connect(f, read_only=True)
    assert q(con, "SELECT measurement, measured_by, files, measurement_no, is_current FROM system_measurements") == [
        ("2023-03-25", "run date", 2, 1, True)
    ]
    con.close()
    capsys.readouterr()
    args = ["compare", "--db", str(f), "--study", "quarch-intel-nvme-2023", "--against", "previous"]
    assert cli.main([*args, "--metric", "iops", "--format", "csv"]) == 0
    assert capsys.readouterr().out.count("\n") == 1  # the header alone: nothing to compare with
    assert cli.main([*args, "--metric", "iops"]) == 0
    assert "one measurement only (2023-03-25, by run date)" in capsys.readouterr().out


def test_two_splits_of_one_load_are_two_trended_points(con, tmp_path):
    """One system's fio-plot sweep measured on firmware 1.0, then on 2.0 with every "iops" value
    written 1.25x (a hand-made change of the real files): 16 in flight as 16 x 1 and as 1 x 16 are
    two points, each against its own before (averaged, they were taken for two repeats of one)."""
    import json

    for fw, k in (("1.0", 1.0), ("2.0", 1.25)):
        d = tmp_path / "data" / "fw" / fw
        d.mkdir(parents=True)
        (d / "iolab.toml").write_text(f'firmware = "{fw}"\n')
        for n in ("1-16", "16-1"):
            doc = json.loads(corpus(f"fio-json/louwrentius__fio-plot__fio31_d3s4610_randread-{n}.json").read_text())
            for job in doc["jobs"]:
                set_fio_iops(job["read"], job["read"]["iops"] * k)
            (d / f"randread-{n}.json").write_text(json.dumps(doc))
    (tmp_path / "data" / "fw" / "iolab.toml").write_text(
        'study = "fw"\nsystem = "D3"\nfirmware_order = ["1.0", "2.0"]\n'
    )
    ingest(con, tmp_path / "data")
    rows = q(
        con,
        """SELECT workload_label, queue_depth, workers, previous_n, n, pct_change, verdict FROM trends
           WHERE study = 'fw' AND metric = 'iops' AND measurement = '2.0' ORDER BY queue_depth""",
    )
    assert [r[:5] for r in rows] == [
        ("4 KiB random read, QD 16 (QD 1 x 16 workers)", 1, 16, 1, 1),
        ("4 KiB random read, QD 16 (QD 16 x 1 workers)", 16, 1, 1, 1),
    ]
    assert all(r[5] == pytest.approx(25.0) and r[6] == "single run" for r in rows)


def scaled_rows(src: Path, up: float, spec: str, spec_up: float) -> str:
    """The Iometer file with throughput x up and response times / up, and the rows of the access
    specification ``spec`` x spec_up more (a hand-made change of the real file: one workload changed)."""
    from tests.test_comparison import DOWN, UP

    out, header, current = [], None, None
    for row in csv.reader(io.StringIO(src.read_text())):
        if row and row[0] == "'Target Type":
            header = row
        elif header and row and row[0] in ("ALL", "MANAGER", "WORKER", "DISK"):
            current = row[2] if row[0] != "DISK" else current  # a DISK row names no spec: its worker's
            k = up * (spec_up if current == spec else 1.0)  # every row of the block alike: each sums those below
            for i, name in enumerate(header):
                if i < len(row) and row[i] not in ("", "-1") and (name in UP or name in DOWN):
                    row[i] = repr(float(row[i]) * (k if name in UP else 1 / k))
        elif row and row[0].startswith("'"):
            header = None if row[0] != "'Target Type" else header
        out.append(row)
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(out)
    return buf.getvalue()


def eight_regressions(root: Path) -> Path:
    """One system on firmware 1.0 and 2.0, three runs each (5 % noise); on 2.0 every 8 KiB random write
    point (8 queue depths) runs at 60 % of its IO/s and MB/s: 8 regressions, all in one workload that
    sorts after the 64 KiB ones."""
    study = root / "fw8"
    src = corpus("iometer/sqlserverio__iometeroutput.csv")
    for fw, seed, k in (("1.0", 50, 1.0), ("2.0", 51, 0.6)):
        d = study / fw
        d.mkdir(parents=True)
        (d / "iolab.toml").write_text(f'firmware = "{fw}"\n')
        for i, f in enumerate(factors(1.0, 3, seed)):
            text = scaled_rows(src, f, "8k 0% Read; 100% Random 8k", k)
            (d / f"scaled-x{f:.6f}-run{i}-8k-random-write-x{k}-{src.name}").write_text(text)
    (study / "iolab.toml").write_text('study = "fw8"\nsystem = "Array"\nfirmware_order = ["1.0", "2.0"]\n')
    return study


def test_the_trend_page_leads_with_every_regression(tmp_path):
    """64 trended points per metric, 12 panels drawn: the 8 regressions (8 KiB
    random write, at QD 1 .. 128) are all drawn, first, and the chart's own title (what an exported
    image carries) says how many panels of how many and that all regressions are among them."""
    from iolab import batch, db
    from iolab.reports import oracle
    from tests.conftest import rendered_page

    dbf = tmp_path / "t.duckdb"
    con = db.open_db(dbf)
    batch.ingest_paths(con, [eight_regressions(tmp_path / "data")])
    assert q(con, "SELECT count(*) FROM trends WHERE metric = 'iops' AND scope = 'all' AND regression") == [(8,)]
    con.close()
    html = rendered_page(dbf, tmp_path / "out", "fw8", "09-trends.html")
    found, _ = oracle.charts(html, "trends")
    assert [c.meta["source"]["where"]["metric"] for c in found] == ["iops", "mbps", "avg_latency_ms"]
    for c in found:
        rows = c.rows()
        worse = {r["workload"] for r in rows if r["status"] == "regression"}
        assert len(worse) == 8 and all(w.startswith("8 KiB random write, QD ") for w in worse)
        panels = list(dict.fromkeys(r["panel"] for r in rows))
        assert len(panels) == 12
        order = c.spec["facet"]["sort"]
        assert sorted(order) == sorted(panels) and {p.split(" · ")[0] for p in order[:8]} == worse
        subtitle = " ".join(c.spec["title"]["subtitle"])
        assert subtitle == "12 of 64 panels drawn; all 8 regressions among them, drawn first."
        assert "12 of 64 panels drawn; all 8 regressions" in c.caption
    from iolab.reports import images

    page = next((tmp_path / "out").glob("*/09-trends.html"))
    (tmp_path / "images").mkdir()
    svgs = [f for f in images.page_images(page, tmp_path / "images", "fw8", None) if f.suffix == ".svg"]
    assert len(svgs) == 3
    for f in svgs:  # the exported image says it in its own subtitle
        assert "12 of 64 panels drawn; all 8 regressions among them, drawn first." in f.read_text()
