"""Two captures of hosts with the same name are two lines per counter, never one.

ESXi hosts are often left as "localhost": two systems' captures then hold series of the same names,
and the time-series chart, coloured by name, joined both captures' points into one line that
zigzagged between them at every time stamp (found on a user-built study). The study: the real esxtop
capture tests/corpus/esxtop/rachsharp__small-esxtop-data.csv (host localhost.home) under one system,
and the same capture with every value written 1.1x (a hand-made change: the same bytes twice would
count once) under another, hostile, name.
"""

from __future__ import annotations

import csv
import io
import re
from collections import Counter

from iolab import batch, db
from iolab.reports import oracle
from tests.conftest import corpus, rendered_page

B = 'Host B | "beta" <i>'


def scaled(capture, factor: float) -> str:
    """The capture with every value written ``factor`` times (a hand-made change), as esxtop writes it."""
    rows = list(csv.reader(io.StringIO(capture.read_text(), newline="")))
    for row in rows[1:]:
        row[1:] = [f"{float(v) * factor:.2f}" if re.fullmatch(r"-?[0-9.]+", v) else v for v in row[1:]]
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\r\n").writerows(rows)
    return out.getvalue()


def test_same_named_series_of_two_captures_are_two_lines_and_say_which(tmp_path):
    study = tmp_path / "data" / "farm"
    src = corpus("esxtop/rachsharp__small-esxtop-data.csv")
    (study / "a").mkdir(parents=True)
    (study / "b").mkdir()
    (study / "a" / "iolab.toml").write_text('system = "Host A"\n')
    (study / "b" / "iolab.toml").write_text(f"system = '{B}'\n")
    (study / "a" / "esxtop.csv").write_bytes(src.read_bytes())
    (study / "b" / "esxtop-derived-x1.1.csv").write_text(scaled(src, 1.1), newline="")
    (study / "iolab.toml").write_text('study = "farm"\n')
    dbf = tmp_path / "t.duckdb"
    con = db.open_db(dbf)
    batch.ingest_paths(con, [study])
    con.close()
    raw = rendered_page(dbf, tmp_path / "out", "farm", "06-time-series.html")
    charts, _ = oracle.charts(raw)
    iops = next(c for c in charts if c.title.startswith("IO/s"))
    x = iops.spec["encoding"]["x"]  # clock times, the capture's date in the title (page.time_x)
    assert x["axis"]["format"] in ("%H:%M:%S", "%H:%M:%S.%L") and re.fullmatch(
        r"time \(as the capture wrote it\) on \d{4}-\d\d-\d\d", x["title"]
    )
    points = iops.rows()
    assert max(Counter((p["series"], p["ts"]) for p in points).values()) == 1  # one point per line and time
    lines = {p["series"]: p for p in points}
    adapter = "localhost.home Physical Disk Adapter (vmhba0) Commands/sec"
    assert {f"{adapter} · capture 1", f"{adapter} · capture 2"} <= set(lines)
    files = {lines[f"{adapter} · capture {n}"]["file"].rsplit("/", 1)[-1] for n in (1, 2)}
    assert files == {"esxtop.csv", "esxtop-derived-x1.1.csv"}  # each by its path as ingested
    assert all("/" in lines[f"{adapter} · capture {n}"]["file"] for n in (1, 2))
    assert B not in raw and "&lt;i&gt;" in raw  # the system name stays text
    assert "capture #" in raw  # the tables say which capture each row is from


def test_a_chart_names_the_captures_and_systems_it_draws_no_line_of(tmp_path):
    """A unit's chart draws the top series by mean of every capture of the study together: a capture
    whose series all have lower means (here: the real capture with every value written 0.05x, a hand-made
    change, under a hostile name) has no line, and the chart's caption says so; a system whose captures
    record no series in a unit (a perfmon log: no esxtop latency counters) is named on that unit's chart."""
    study = tmp_path / "data" / "farm"
    src = corpus("esxtop/rachsharp__small-esxtop-data.csv")
    for sub, system in (("a", "Host A"), ("b", B), ("c", "Windows C")):
        (study / sub).mkdir(parents=True)
        (study / sub / "iolab.toml").write_text(f"system = '{system}'\n")
    (study / "a" / "esxtop.csv").write_bytes(src.read_bytes())
    (study / "b" / "esxtop-derived-x0.05.csv").write_text(scaled(src, 0.05), newline="")
    (study / "c" / "perfmon.csv").write_bytes(corpus("perfmon/jg185342__DataCollector01.csv").read_bytes())
    (study / "iolab.toml").write_text('study = "farm"\n')
    dbf = tmp_path / "t.duckdb"
    con = db.open_db(dbf)
    batch.ingest_paths(con, [study])
    units = dict(con.execute("SELECT unit, count(*) FROM series_summary WHERE study = 'farm' GROUP BY ALL").fetchall())
    con.close()
    raw = rendered_page(dbf, tmp_path / "out", "farm", "06-time-series.html")
    charts, _ = oracle.charts(raw)
    iops = next(c for c in charts if c.title.startswith("IO/s"))
    x = iops.spec["encoding"]["x"]  # clock times, the capture's date in the title (page.time_x)
    assert x["axis"]["format"] in ("%H:%M:%S", "%H:%M:%S.%L") and re.fullmatch(
        r"time \(as the capture wrote it\) on \d{4}-\d\d-\d\d", x["title"]
    )
    assert {p["file"].rsplit("/", 1)[-1] for p in iops.rows()} == {"esxtop.csv"}  # the 0.05x capture has no line here
    said = iops.meta["left_out"]
    assert "No lines for capture 2 (" + B + "): its" in said and "series in IO/s have lower means" in said
    ms = next(c for c in charts if c.title.startswith("ms"))
    assert "No marks for Windows C: their captures record no series in ms." in ms.meta["left_out"]
    assert "ms" in units and B not in raw and "&lt;i&gt;" in raw
