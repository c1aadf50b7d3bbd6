"""The time-series page: every system of the study has its lines, each named by its system; a big
capture's lines are drawn through an envelope that keeps every spike; esxtop's first sample of a rate
(0: no interval before it) is not drawn as a ramp from zero.

ESXi hosts are often left as "localhost": two systems' captures then hold series of the same names,
and the time-series chart, coloured by name, joined both captures' points into one line that
zigzagged between them at every time stamp (found on a user-built study). The study: the real esxtop
capture tests/corpus/esxtop/rachsharp__small-esxtop-data.csv (host localhost.home) under one system,
and the same capture with every value written 1.1x (a hand-made change: the same bytes twice would
count once) under another, hostile, name.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from collections import Counter

from iolab import batch, db
from iolab.reports import envelope, oracle
from tests.conftest import corpus, rendered_page

B = 'Host B | "beta" <i>'
ADAPTER = "localhost.home Physical Disk Adapter (vmhba0) Commands/sec"


def scaled(capture, factor: float) -> str:
    """The capture with every value written ``factor`` times (a hand-made change), as esxtop writes it."""
    rows = list(csv.reader(io.StringIO(capture.read_text(), newline="")))
    for row in rows[1:]:
        row[1:] = [f"{float(v) * factor:.2f}" if re.fullmatch(r"-?[0-9.]+", v) else v for v in row[1:]]
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\r\n").writerows(rows)
    return out.getvalue()


def _study(tmp_path, captures: dict[str, tuple[str, str, str | bytes]]) -> tuple:
    """A study "farm" of ``captures`` (folder: (system, file name)) ingested; (database, series_summary units)."""
    study = tmp_path / "data" / "farm"
    for sub, (system, name, content) in captures.items():
        (study / sub).mkdir(parents=True)
        (study / sub / "iolab.toml").write_text(f"system = '{system}'\n")
        target = study / sub / name
        target.write_bytes(content) if isinstance(content, bytes) else target.write_text(content, newline="")
    (study / "iolab.toml").write_text('study = "farm"\n')
    dbf = tmp_path / "t.duckdb"
    con = db.open_db(dbf)
    batch.ingest_paths(con, [study])
    units = dict(con.execute("SELECT unit, count(*) FROM series_summary WHERE study = 'farm' GROUP BY ALL").fetchall())
    con.close()
    return dbf, units


def _chart(raw: str, unit: str):
    charts, _ = oracle.charts(raw)
    return next(c for c in charts if c.title.startswith(unit))


def test_same_named_series_of_two_systems_are_two_lines_named_by_their_system(tmp_path):
    src = corpus("esxtop/rachsharp__small-esxtop-data.csv")
    dbf, _ = _study(
        tmp_path,
        {"a": ("Host A", "esxtop.csv", src.read_bytes()), "b": (B, "esxtop-derived-x1.1.csv", scaled(src, 1.1))},
    )
    raw = rendered_page(dbf, tmp_path / "out", "farm", "06-time-series.html")
    iops = _chart(raw, "IO/s")
    x = iops.spec["encoding"]["x"]  # clock times, the capture's date in the title (page.time_x)
    assert x["axis"]["format"] in ("%H:%M:%S", "%H:%M:%S.%L") and re.fullmatch(
        r"time \(as the capture wrote it\) on \d{4}-\d\d-\d\d", x["title"]
    )
    points = iops.rows()
    assert max(Counter((p["series"], p["ts"]) for p in points).values()) == 1  # one point per line and time
    lines = {p["series"]: p for p in points}
    assert {f"Host A · {ADAPTER}", f"{B} · {ADAPTER}"} <= set(lines)
    assert {lines[f"Host A · {ADAPTER}"]["system"], lines[f"{B} · {ADAPTER}"]["system"]} == {"Host A", B}
    files = {lines[f"{s} · {ADAPTER}"]["file"].rsplit("/", 1)[-1] for s in ("Host A", B)}
    assert files == {"esxtop.csv", "esxtop-derived-x1.1.csv"}  # each by its path as ingested
    assert all("/" in lines[f"{s} · {ADAPTER}"]["file"] for s in ("Host A", B))
    assert iops.title == "IO/s: top 8 series by mean of each system"
    assert Counter(p["system"] for p in {p["series"]: p for p in points}.values()) == {"Host A": 8, B: 8}
    assert B not in raw and "&lt;i&gt;" in raw  # the system name stays text
    assert "capture #" in raw  # the tables say which capture each row is from


def test_two_captures_of_one_system_with_the_same_names_say_which_capture(tmp_path):
    src = corpus("esxtop/rachsharp__small-esxtop-data.csv")
    dbf, _ = _study(
        tmp_path,
        {"a": ("Host A", "esxtop.csv", src.read_bytes()), "b": ("Host A", "esxtop-x1.1.csv", scaled(src, 1.1))},
    )
    lines = {
        p["series"] for p in _chart(rendered_page(dbf, tmp_path / "out", "farm", "06-time-series.html"), "IO/s").rows()
    }
    assert {f"{ADAPTER} · capture 1", f"{ADAPTER} · capture 2"} <= lines  # one system: no system in the name


def test_every_system_has_its_lines_and_a_system_without_the_unit_is_named(tmp_path):
    """The top series are chosen per system: a system whose series all have lower means than another's
    (the real capture with every value written 0.05x, a hand-made change, under a hostile name) still
    has its lines (the study's top 8 overall drew none of it); a system whose captures record no
    series in a unit (a perfmon log: no esxtop latency counters) is named on that unit's chart."""
    src = corpus("esxtop/rachsharp__small-esxtop-data.csv")
    dbf, units = _study(
        tmp_path,
        {
            "a": ("Host A", "esxtop.csv", src.read_bytes()),
            "b": (B, "esxtop-derived-x0.05.csv", scaled(src, 0.05)),
            "c": ("Windows C", "perfmon.csv", corpus("perfmon/jg185342__DataCollector01.csv").read_bytes()),
        },
    )
    raw = rendered_page(dbf, tmp_path / "out", "farm", "06-time-series.html")
    iops = _chart(raw, "IO/s")
    drawn = {p["system"] for p in iops.rows()}
    assert {"Host A", B} <= drawn
    assert {p["file"].rsplit("/", 1)[-1] for p in iops.rows() if p["system"] == B} == {"esxtop-derived-x0.05.csv"}
    ms = _chart(raw, "ms")
    assert "No marks for Windows C: their captures record no series in ms." in ms.meta["left_out"]
    assert "ms" in units and B not in raw and "&lt;i&gt;" in raw


def test_esxtops_first_sample_of_a_rate_is_left_out_and_said(tmp_path):
    """esxtop writes 0.00 in its first sample for the counters it computes over an interval (it has
    none before its first line): the adapter's Commands/sec reads 0.00, 18.87, 15.86 in the real
    capture. Its line starts at 18.87, and the caption says why; a CPU percentage, which esxtop gives
    a value there (10.48), keeps its first sample."""
    dbf, _ = _study(
        tmp_path, {"a": ("Host A", "esxtop.csv", corpus("esxtop/rachsharp__small-esxtop-data.csv").read_bytes())}
    )
    raw = rendered_page(dbf, tmp_path / "out", "farm", "06-time-series.html")
    iops = _chart(raw, "IO/s")
    adapter = [p for p in iops.rows() if p["series"] == ADAPTER]
    assert [p["value"] for p in adapter] == [18.87, 15.86] and [p["sample_no"] for p in adapter] == [1, 2]
    said = iops.meta["left_out"]
    assert "The first sample of" in said and "0: the capture has no interval before it for a rate or a latency" in said
    assert [int(n) for _, n in iops.meta["source"]["envelope"]["no_interval"]] == [0] * len(
        iops.meta["source"]["envelope"]["no_interval"]
    )
    cpu = _chart(raw, "%")
    total = [p for p in cpu.rows() if p["series"] == "localhost.home Physical Cpu (_Total) % Util Time"]
    assert [p["value"] for p in total] == [10.48, 7.71, 8.35]


def _long_capture(samples: int, spike_at: int) -> str:
    """An esxtop-shaped capture (hand-made: the real capture's header cells for the adapter's
    Commands/sec and Average Driver MilliSec/Command and the CPU total, every cell quoted) of
    ``samples`` lines 5 s apart, a smooth load with one spike of 9,999 commands a second."""
    rows = list(csv.reader(io.StringIO(corpus("esxtop/rachsharp__small-esxtop-data.csv").read_text(), newline="")))
    cols = [0, 9, 6831, 6836]
    out = io.StringIO()
    w = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
    w.writerow([rows[0][c] for c in cols])
    t0 = dt.datetime(2018, 4, 26, 14, 6, 27)
    for i in range(samples):
        load = 100 + 50 * ((i * 37) % 101) / 101
        cmds = 9999.0 if i == spike_at else load
        w.writerow(
            [
                (t0 + dt.timedelta(seconds=5 * i)).strftime("%m/%d/%Y %H:%M:%S"),
                f"{5 + i % 7:.2f}",
                f"{cmds:.2f}",
                f"{load / 100:.2f}",
            ]
        )
    return out.getvalue()


def test_a_long_capture_is_drawn_through_its_envelope_and_keeps_its_spike(tmp_path):
    """A line of 5,000 samples holds more points than its chart has columns: it is drawn through its
    lowest and highest point of each of envelope.COLUMNS columns (at most twice that), the one spike
    among them, and the oracle finds every column's raw extremes drawn; a chart whose spike is taken
    out (as a naive thinning, a point in ten, would lose it) fails the oracle."""
    dbf, _ = _study(tmp_path, {"a": ("Host A", "long.csv", _long_capture(5000, 3333))})
    raw = rendered_page(dbf, tmp_path / "out", "farm", "06-time-series.html")
    iops = _chart(raw, "IO/s")
    line = [p for p in iops.rows() if p["series"] == ADAPTER]
    assert 2 * 10 < len(line) <= 2 * envelope.COLUMNS and max(p["value"] for p in line) == 9999.0
    assert [p["sample_no"] for p in line if p["value"] == 9999.0] == [3333]
    assert "drawn through its lowest and highest point in each of 360 columns" in iops.meta["left_out"]
    ro = db.connect(dbf, read_only=True)
    try:
        assert oracle.check(iops, ro) == []
        spec = iops.spec
        for rows in spec.get("datasets", {}).values():
            rows[:] = [r for r in rows if r.get("value") != 9999.0]
        found = oracle.check(iops, ro)
    finally:
        ro.close()
    assert len(found) == 1 and "the raw points span" in found[0] and "9999.0" in found[0]
