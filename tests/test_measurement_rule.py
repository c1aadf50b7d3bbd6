"""The measurement rule (issue 52, item 4; issue 59, item 2): what a system's files measured at other
times are, said at ingest and on the pages, and a sidecar's word over the rule.

Every run is the real Iometer sweep tests/corpus/iometer/sqlserverio__iometeroutput.csv (64 points,
2010-07-26 09:28 to 10:32) scaled (tests/test_comparison.scaled_iometer) and moved in time (every
'Time Stamp' shifted: ``shifted``), beside the real perfmon capture tests/corpus/perfmon/
narmadha6790__DataCollector01.csv (2017-09-19) and the Jetstress report of data/samples/esg-ds5020-2009
(2009-10-16).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest

from iolab import cli
from tests.conftest import ROOT, corpus, ingest, q
from tests.test_comparison import scaled_iometer

IOMETER = "iometer/sqlserverio__iometeroutput.csv"
STAMP = re.compile(r"(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}):(\d{3})")
JETSTRESS = (
    ROOT / "data" / "samples" / "esg-ds5020-2009" / "Performance_2009_10_16_11_49_42_RECONSTRUCTED-esg-ds5020-js01.html"
)


def shifted(text: str, hours: float) -> str:
    """An Iometer results file with every time stamp ``hours`` later (a hand-made change)."""

    def later(m: re.Match) -> str:
        t = dt.datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S") + dt.timedelta(hours=hours)
        return f"{t:%Y-%m-%d %H:%M:%S}:{m.group(2)}"

    return STAMP.sub(later, text)


def repeats(folder: Path, starts: list[float], up: float = 1.0, sidecar: str = "") -> list[Path]:
    """One sweep per repeat, the i-th started ``starts[i]`` hours after the corpus file's start, its
    throughput x ``up`` x (1 + i/100) (each repeat its own bytes)."""
    folder.mkdir(parents=True, exist_ok=True)
    if sidecar:
        (folder / "iolab.toml").write_text(sidecar)
    src = corpus(IOMETER)
    out = []
    for i, h in enumerate(starts):
        k = up * (1 + i / 100)
        out.append(folder / f"derived-x{k:g}-plus{h:g}h-{src.name}")
        out[-1].write_text(shifted(scaled_iometer(src, k, 1 / k), h))
    return out


def study(root: Path, name: str, sidecar: str = "") -> Path:
    """A study with a baseline measured once (three repeats the same morning, x 0.9)."""
    s = root / name
    repeats(s / "base", [0, 0, 0], 0.9, 'system = "Base"\n')
    (s / "iolab.toml").write_text(f'study = "{name}"\nbaseline = "Base"\n{sidecar}')
    return s


def measurements(con, system: str) -> list[tuple]:
    return q(
        con,
        f"""SELECT measurement, measured_by, files, runs_with_numbers, measurement_no, is_current
            FROM system_measurements WHERE system = '{system}' ORDER BY measurement""",
    )


def test_an_overnight_campaign_is_one_measurement_of_its_repeats(con, tmp_path):
    """Three repeats of a sweep, started 9 h and then 14 h apart (the third 12.9 h after the second
    ends): each point measured once per repeat. One measurement of three repeats, not two of two runs
    and one run; the session after the gap is said, as one more repeat."""
    s = study(tmp_path / "data", "overnight")
    files = repeats(s / "camp", [0, 9, 23], 1.0, 'system = "Camp"\n')
    ingest(con, s)
    assert measurements(con, "Camp") == [("2010-07-26", "run date", 3, 192, 1, True)]
    ((before, after, gap, decision, left, right),) = q(
        con,
        """SELECT measurement_before, measurement_after, gap_hours, decision, files_before, files_after
           FROM measurement_splits""",
    )
    assert (before, after, decision) == ("2010-07-26", "2010-07-26", "one more repeat")
    assert gap == pytest.approx(23 - 9 - (10 + 32 / 60 + 6.571 / 3600 - (9 + 28 / 60 + 4.211 / 3600)), abs=1e-6)
    assert [Path(p).name for p in left] == [files[0].name, files[1].name] and [Path(p).name for p in right] == [
        files[2].name
    ]
    # every point of the comparison and the scaling curves is the mean of three repeats
    assert q(con, "SELECT DISTINCT n, coalesce(verdict, '') <> 'single run' FROM comparison WHERE system = 'Camp'") == [
        (3, True)
    ]
    assert q(con, "SELECT DISTINCT n FROM scaling WHERE system = 'Camp'") == [(3,)]


def test_a_campaign_measured_again_a_month_later_is_a_new_measurement_said_at_ingest(tmp_path, capsys):
    """Three repeats the same morning, then three more 30 days later: measured again, with repeats of its
    own: two measurements. The ingest says which files on each side of the gap, and how long it is."""
    s = study(tmp_path / "data", "monthly")
    first = repeats(s / "m" / "july", [0, 0, 0], 1.0)
    later = repeats(s / "m" / "august", [720, 720, 720], 1.2)
    (s / "m" / "iolab.toml").write_text('system = "Monthly"\n')
    dbf = tmp_path / "t.duckdb"
    assert cli.main(["ingest", str(s), "--db", str(dbf)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    said = re.search(r"Measurements: 'Monthly' of study 'monthly': (.*?) names it otherwise", out)
    assert said, out
    text = said.group(1)
    assert "monthly/m/august/" + ", monthly/m/august/".join(f.name for f in later) + " start 718.9 hours after" in text
    assert all(f.name in text for f in first)
    assert "measurement '2010-08-25', apart from '2010-07-26' (the pages show the newest)" in text
    from iolab import db

    con = db.connect(dbf, read_only=True)
    assert measurements(con, "Monthly") == [
        ("2010-07-26", "run date", 3, 192, 1, False),
        ("2010-08-25", "run date", 3, 192, 2, True),
    ]
    assert q(con, "SELECT decision FROM measurement_splits") == [("new measurement",)]
    con.close()
    # said again only when the study changes: an ingest of unchanged files is quiet
    assert cli.main(["ingest", str(s), "--db", str(dbf)]) == 0
    assert "Measurements:" not in capsys.readouterr().out
    assert cli.main(["ingest", str(s), "--db", str(dbf), "--format", "json", "--verify"]) == 0
    assert json.loads(capsys.readouterr().out)["measurements"] == []  # verified, nothing changed
    # `iolab info` lists each system's measurements, as `compare --measurement SYSTEM=LABEL` names them
    assert cli.main(["info", "--db", str(dbf), "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)["measurements"]
    assert [
        (m["system"], m["measurement"], m["measured_by"], m["runs_with_numbers"], m["current"]) for m in listed
    ] == [
        ("Base", "2010-07-26", "run date", None, True),  # one session: nothing turns on its numbers
        ("Monthly", "2010-07-26", "run date", 192, False),
        ("Monthly", "2010-08-25", "run date", 192, True),
    ]
    assert cli.main(["info", "--db", str(dbf)]) == 0
    # off a terminal: plain rows, columns two spaces or more apart (study, system, measurement, ..., current)
    rows = [re.split(r"\s{2,}", ln.strip()) for ln in capsys.readouterr().out.splitlines()]
    rows = [r for r in rows if len(r) > 3 and r[1] == "Monthly" and r[2].startswith("2010-")]
    assert [[r[1], r[2], r[-1]] for r in rows] == [
        ["Monthly", "2010-07-26", "no"],
        ["Monthly", "2010-08-25", "yes"],
    ]


def test_a_capture_and_a_jetstress_report_of_other_days_are_part_of_the_measurement(con, tmp_path):
    """A Jetstress report of 2009, the Iometer sweeps of 2010 and a perfmon capture of 2017, one system:
    none measures again what another measured, so they are one measurement (named by its first day),
    and the comparison compares the sweeps (issue 59: a capture of another day had emptied it)."""
    s = study(tmp_path / "data", "lab")
    repeats(s / "lab", [0, 0, 0], 1.0, 'system = "Lab"\n')
    (s / "lab" / JETSTRESS.name).write_bytes(JETSTRESS.read_bytes())
    capture = corpus("perfmon/narmadha6790__DataCollector01.csv")
    (s / "lab" / capture.name).write_bytes(capture.read_bytes())
    ingest(con, s)
    assert measurements(con, "Lab") == [("2009-10-16", "run date", 5, 193, 1, True)]
    assert q(con, "SELECT measurement_after, decision FROM measurement_splits ORDER BY gap_hours") == [
        ("2009-10-16", "nothing measured again"),
        ("2009-10-16", "nothing measured again"),
    ]
    assert q(con, "SELECT count(*), min(n) FROM comparison WHERE system = 'Lab' AND metric = 'iops'") == [(64, 3)]


def test_a_measurement_with_no_number_is_never_current(con, tmp_path):
    """Firmware 2.0, the newest by firmware_order, holds only a perfmon capture (a time series, no number
    of its own): 1.0 stays current, the comparison compares it, and the measurement says why."""
    s = study(tmp_path / "data", "fw", 'firmware_order = ["1.0", "2.0"]\n')
    repeats(s / "fw" / "old", [0, 0, 0], 1.0, 'system = "Fw"\nfirmware = "1.0"\n')
    (s / "fw" / "new").mkdir()
    (s / "fw" / "new" / "iolab.toml").write_text('system = "Fw"\nfirmware = "2.0"\n')
    capture = corpus("perfmon/narmadha6790__DataCollector01.csv")
    (s / "fw" / "new" / capture.name).write_bytes(capture.read_bytes())
    ingest(con, s)
    assert measurements(con, "Fw") == [("1.0", "firmware", 3, 192, 1, True), ("2.0", "firmware", 1, 0, 2, False)]
    (note,) = q(con, "SELECT current_note FROM system_measurements WHERE measurement = '2.0'")[0]
    assert note.startswith("no run of it has a number of its own (a capture")
    assert q(con, "SELECT DISTINCT measurement, n FROM comparison WHERE system = 'Fw'") == [("1.0", 3)]


def test_a_measurement_label_names_the_measurement_over_the_rule(con, tmp_path):
    """`measurement = "..."` in a sidecar: files a month apart that the time rule would split are one
    measurement; files of one morning labelled apart are two, ordered by firmware_order, which names
    measurement labels as it names firmware labels."""
    s = study(tmp_path / "data", "labelled", 'firmware_order = ["before", "after"]\n')
    repeats(s / "one" / "july", [0, 0, 0], 1.0, 'system = "One"\nmeasurement = "campaign"\n')
    repeats(s / "one" / "august", [720, 720, 720], 1.2, 'system = "One"\nmeasurement = "campaign"\n')
    repeats(s / "two" / "a", [0, 0], 1.1, 'system = "Two"\nmeasurement = "after"\n')
    repeats(s / "two" / "b", [0, 0], 1.5, 'system = "Two"\nmeasurement = "before"\n')
    rep = ingest(con, s)
    assert not rep.failed and not rep.measured  # labelled files are no sessions: nothing to say
    assert measurements(con, "One") == [("campaign", "label", 6, None, 1, True)]  # one label: not counted
    assert q(con, "SELECT DISTINCT n FROM comparison WHERE system = 'One'") == [(6,)]
    assert measurements(con, "Two") == [("after", "label", 2, 128, 2, True), ("before", "label", 2, 128, 1, False)]
    from iolab import declared

    assert declared.problems(con) == []
    (s / "iolab.toml").write_text('study = "labelled"\nbaseline = "Base"\nfirmware_order = ["befor", "after"]\n')
    ingest(con, s)
    (p,) = declared.problems(con)
    assert (p.key, p.value) == ("firmware_order", "befor") and "did you mean 'before'?" in p.reason()


@pytest.mark.parametrize(
    "sidecar, said",
    [
        ('measurment = "x"\n', "did you mean 'measurement'"),
        ("measurement = 2\n", "'measurement' should be text in quotes, got 2"),
        ('measurement = ""\n', "'measurement' should be a name (a measurement named by nothing would be none), got ''"),
    ],
)
def test_the_measurement_key_is_checked(con, tmp_path, sidecar, said):
    root = tmp_path / "data"
    repeats(root / "s", [0], 1.0, sidecar)
    (bad,) = ingest(con, root).outcomes
    assert bad.status == "unreadable" and said in bad.reason, bad.reason


def test_a_page_with_nothing_to_draw_says_why_on_the_index_and_is_not_printed(tmp_path):
    """Issue 59: a page that cannot be drawn says why, on the page, beside its link in the index and under
    the print edition's contents, which leaves it out. Study "fw": Fw's newest firmware holds a capture
    alone, so nothing is trended (and Camp's overnight repeats are one measurement, which the pages
    say); study "unordered": the one system beside the baseline has two measurements of no time and no
    order, so nothing is compared."""
    from iolab import batch, db
    from iolab.reports import check, render

    if check.chromium() is None:
        pytest.skip("no chromium (make check-reports installs it)")
    root = tmp_path / "data"
    s = study(root, "fw", 'firmware_order = ["1.0", "2.0"]\n')
    repeats(s / "fw" / "old", [0, 0], 1.0, 'system = "Fw"\nfirmware = "1.0"\n')
    (s / "fw" / "new").mkdir()
    (s / "fw" / "new" / "iolab.toml").write_text('system = "Fw"\nfirmware = "2.0"\n')
    capture = corpus("perfmon/narmadha6790__DataCollector01.csv")
    (s / "fw" / "new" / capture.name).write_bytes(capture.read_bytes())
    repeats(s / "camp", [0, 9, 23], 1.2, 'system = "Camp"\n')  # an overnight campaign: the pages say it
    u = study(root, "unordered")
    orion = ROOT / "data" / "samples" / "orion-public-samples" / "databasejournal__11gtest_summary.txt"
    for i, fw in enumerate(("x", "y")):  # ORION summaries state no time; two labels, no firmware_order
        (u / fw).mkdir()
        (u / fw / f"copy{'-' * i}-{orion.name}").write_bytes(orion.read_bytes() + b"\n" * i)
        (u / fw / "iolab.toml").write_text(f'system = "S"\nfirmware = "{fw}"\n')
    dbf = tmp_path / "t.duckdb"
    con = db.open_db(dbf)
    batch.ingest_paths(con, [root])
    con.close()
    out = tmp_path / "out"
    assert render.render(dbf, out, pdf=True) == 0
    index = " ".join((out / "index.html").read_text().split())
    trends = "no point of any system was measured in two of its measurements at IO/s, MB/s, average latency (ms)"
    compared = (
        "no current measurement of S (2 measurements and none in order: declare firmware_order in the study&#x27;s "
        "iolab.toml)"
    )
    assert f"Trends over time</a> (nothing drawn: {trends}" in index
    assert f"Systems compared at matched points</a> (nothing drawn: {compared})" in index
    assert index.count("nothing drawn") == 2  # the other pages drew something
    # every page that shows the measurements says what the rule made of Camp's third repeat, 12.9 h later
    overview = " ".join((out / "fw" / "01-overview.html").read_text().split())
    assert "Sessions of a system hours or days apart (1)" in overview
    assert re.search(r"<td>Camp</td><td class=\"num\">12\.9</td><td>one more repeat</td>", overview), overview[:0]
    import pypdf

    for name, title, why in (("fw", "Trends over time", trends), ("unordered", "Systems compared", compared)):
        reader = pypdf.PdfReader(out / name / f"{name}.pdf")
        assert not any(o.title.startswith(title) for o in reader.outline), name  # not printed
        contents = " ".join(reader.pages[1].extract_text().split())
        assert "Not printed: nothing drawn" in contents and title in contents
        assert why.replace("&#x27;", "'")[:60] in contents
