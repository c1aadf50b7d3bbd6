"""The latency_heatmap view: fio completion-latency histogram logs (write_hist_log) as I/O counts per
time interval and latency octave.

The study is the bundled data/samples/fio-pkb-clat-hist-2017: four real fio 2.17 `_clat_hist.N.log`
files of one PerfKitBenchmarker run (1216 bins per row: usec). The cells checked below were summed by
hand from the raw lines: a row is `msec, ddir, bs, <count of bin 0>, <count of bin 1>, ...`, so bin i
is field i + 4. The fio 3.x layout (1856 bins, ns) is checked on hand-made logs written by the tests.
"""

from __future__ import annotations

import math

import polars as pl
import pytest

from iolab.formats import _fio
from tests.conftest import ROOT, ingest, q

STUDY = ROOT / "data" / "samples" / "fio-pkb-clat-hist-2017"
JOB1 = "pkb_fio_avg_1506559526.49_clat_hist.1.log"
JOB3 = "pkb_fio_avg_1506559526.49_clat_hist.3.log"


@pytest.fixture
def pkb(con):
    ingest(con, STUDY)
    return con


def cell(con, file: str, time_s: float, lower_ms: float) -> tuple:
    return q(
        con,
        """SELECT direction, time_start_s, upper_ms, bin_label, io_count, fio_bins, line_no FROM latency_heatmap
           WHERE file = ? AND time_s = ? AND lower_ms = ?""",
        [file, time_s, lower_ms],
    )[0]


def test_cells_summed_by_hand_from_the_real_log(pkb):
    # job 1, line 1 (1001 ms, read): bins 32..63 (fields 36..67) hold 2599 I/Os in 29 nonzero bins...
    assert cell(pkb, JOB1, 1.001, 0.032) == ("read", 0.0, 0.064, "32-64 us", 2599, 29, 1)
    # ... bins 64..127, one usec wide each, 4591 I/Os; bins 128..191 (128-256 us, 2 us wide) 892
    assert cell(pkb, JOB1, 1.001, 0.064) == ("read", 0.0, 0.128, "64-128 us", 4591, 64, 1)
    assert cell(pkb, JOB1, 1.001, 0.128) == ("read", 0.0, 0.256, "128-256 us", 892, 61, 1)
    # bins 320..383 are 1024-2048 us (16 us wide): 196 I/Os in 14 bins; bin 410 alone is 2048-4096 us
    assert cell(pkb, JOB1, 1.001, 1.024) == ("read", 0.0, 2.048, "1024-2048 us", 196, 14, 1)
    assert cell(pkb, JOB1, 1.001, 2.048) == ("read", 0.0, 4.096, "2048-4096 us", 1, 1, 1)
    # job 3 (writes), line 9 (9006 ms): 267 I/Os in bins 320..383; the interval starts at line 8's 8006 ms
    assert cell(pkb, JOB3, 9.006, 1.024) == ("write", 8.006, 2.048, "1024-2048 us", 267, 43, 9)


def test_every_io_of_every_line_is_in_one_cell(pkb):
    for n in (1, 2, 3, 4):
        name = f"pkb_fio_avg_1506559526.49_clat_hist.{n}.log"
        lines = (STUDY / name).read_text().splitlines()
        for ln, line in enumerate(lines, start=1):
            counts = [int(c) for c in line.split(",")[3:]]
            got = q(pkb, "SELECT sum(io_count) FROM latency_heatmap WHERE file = ? AND line_no = ?", [name, ln])
            assert got == [(sum(counts),)], (name, ln)
    assert q(pkb, "SELECT DISTINCT system, file_unit FROM latency_heatmap") == [
        ("Google Compute Engine persistent disk (PerfKitBenchmarker test run)", "us")
    ]


def handmade_log(root, nbins: int):
    """A hand-made histogram log (handmade-*): one row with count i + 1 in fio bin i, so each
    octave's sum says which bins went into it."""
    d = root / "data" / "hist"
    d.mkdir(parents=True, exist_ok=True)
    row = ", ".join(["1000", "0", "4096"] + [str(i + 1) for i in range(nbins)])
    (d / f"handmade-octaves-{nbins}_clat_hist.1.log").write_text(row + "\n")
    (d / "iolab.toml").write_text('study = "hist"\nsystem = "handmade"\n')
    return root / "data"


@pytest.mark.parametrize(("nbins", "unit", "per_ms", "top"), [(1216, "us", 1e3, 23), (1856, "ns", 1e6, 33)])
def test_octaves_sum_whole_fio_bins(con, tmp_path, nbins, unit, per_ms, top):
    ingest(con, handmade_log(tmp_path, nbins))
    rows = q(
        con,
        "SELECT lower_ms, upper_ms, io_count, fio_bins, file_unit FROM latency_heatmap ORDER BY lower_ms",
    )
    # fio's own representative value of each bin (stat.c plat_idx_to_val) names its octave
    want: dict[int, list[int]] = {}
    for i in range(nbins):
        v = _fio.plat_idx_to_val(i)
        want.setdefault(-1 if v == 0 else int(math.floor(math.log2(v))), []).append(i)
    assert len(rows) == len(want) == top + 2  # bin 0, then octaves 2^0 .. 2^top
    for (lower, upper, count, nb, u), (k, bins) in zip(rows, sorted(want.items())):
        assert u == unit and count == sum(i + 1 for i in bins) and nb == len(bins)
        if k < 0:
            assert (lower, upper) == (0, 1 / per_ms)
        else:
            assert lower == pytest.approx(2**k / per_ms, rel=1e-12)
            assert upper == (None if k == top else pytest.approx(2 ** (k + 1) / per_ms, rel=1e-12))
    assert sum(r[2] for r in rows) == nbins * (nbins + 1) // 2


def test_the_heatmap_page_draws_every_cell_and_passes_the_oracle(tmp_path):
    import altair as alt

    from iolab import batch, db
    from iolab.reports import oracle, page, render

    dbf = tmp_path / "h.duckdb"
    con = db.open_db(dbf)
    batch.ingest_paths(con, [STUDY])
    con.close()
    out = tmp_path / "out"
    assert render.render(dbf, out, ["fio-pkb-clat-hist-2017"]) == 0
    html = (out / "fio-pkb-clat-hist-2017" / "10-latency-heatmap.html").read_text()
    overview = (out / "fio-pkb-clat-hist-2017" / "01-overview.html").read_text()
    assert "4 fio histogram log(s), 103,214 I/Os" in overview and "No rows" not in overview
    con = db.connect(dbf, read_only=True)
    try:
        assert oracle.check_page(out / "fio-pkb-clat-hist-2017" / "10-latency-heatmap.html", con) == []
        (chart,), _ = oracle.charts(html)
        rows = chart.rows()
        # every cell of the four logs, every I/O: no octave here is open or below 1 usec
        assert len(rows) == q(con, "SELECT count(*) FROM latency_heatmap")[0][0] == 224
        assert sum(r["io_count"] for r in rows) == 39663 + 40461 + 11549 + 11541
        assert {r["panel"] for r in rows} == {
            f"pkb_fio_avg_1506559526.49_clat_hist.{n}.log · {d}"
            for n, d in ((1, "read"), (2, "read"), (3, "write"), (4, "write"))
        }
        assert [m for m, *_ in chart.layers()] == ["rect"] and chart.spec["spec"]["encoding"]["y"]["scale"][
            "type"
        ] == "log"
        # the four logs drawn in one panel instead of one each: their cells cover one another, caught
        cells = page.query(
            con, "SELECT system, file, time_start_s, time_s, lower_ms, upper_ms, io_count FROM latency_heatmap"
        )
        twice = (
            alt.Chart(cells)
            .mark_rect()
            .encode(
                x=alt.X("time_start_s:Q", title="time (s)"),
                x2="time_s:Q",
                y=alt.Y("lower_ms:Q", scale=alt.Scale(type="log"), title="latency (ms)"),
                y2="upper_ms:Q",
                color=alt.Color("io_count:Q", title="I/Os"),
                tooltip=page.tooltips("system", "file"),
            )
        )
        found, _ = oracle.charts(page.figure(twice, "Heatmap of every cell of the four logs drawn in one panel."))
        # jobs 1 and 2 both end their first interval at 1001 ms
        assert "2 cells cover one another at (0.0, 1.001, 0.016, 0.032)" in " ".join(oracle.check(found[0]))
    finally:
        con.close()


def test_a_long_log_is_drawn_in_bounded_columns_of_whole_intervals(con, tmp_path):
    from iolab.reports import heatmap, page

    d = tmp_path / "data" / "long"
    d.mkdir(parents=True)
    rows = []
    for t in range(1, 601):  # 600 one-second intervals; I/Os in bins 100 (100 us) and 330 (1024-2048 us)
        counts = ["0"] * 1216
        counts[100], counts[330] = str(t), str(t % 7)
        rows.append(", ".join([str(t * 1000), "0", "4096"] + counts))
    (d / "handmade-long_clat_hist.1.log").write_text("\n".join(rows) + "\n")
    (d / "iolab.toml").write_text('study = "long"\nsystem = "handmade"\n')
    ingest(con, tmp_path / "data")
    cells = page.query(con, "SELECT * FROM latency_heatmap ORDER BY time_s, lower_ms")
    cells = cells.with_columns(panel=cells["file"])
    merged, k = heatmap.merge_intervals(cells, max_columns=240)
    assert k == 3 and merged["time_s"].n_unique() == 200
    # every I/O of every octave is still there, and each column is three whole intervals
    sums = merged.group_by("lower_ms").agg(pl.col("io_count").sum())
    assert dict(sums.iter_rows()) == {0.064: sum(range(1, 601)), 1.024: sum(t % 7 for t in range(1, 601))}
    first = merged.filter(pl.col("time_s") == 3.0).sort("lower_ms")
    assert first.select("time_start_s", "io_count", "line_no", "last_line").rows() == [
        (0.0, 1 + 2 + 3, 1, 3),
        (0.0, 1 + 2 + 3, 1, 3),
    ]
    assert heatmap.merge_intervals(cells, max_columns=600)[1] == 1


def test_cells_a_log_axis_cannot_hold_are_left_out_with_a_caption(tmp_path):
    from iolab import batch, db
    from iolab.reports import oracle, render

    d = tmp_path / "data" / "edges"
    d.mkdir(parents=True)
    counts = ["0"] * 1856
    counts[0], counts[100], counts[1855] = "3", "5", "7"  # [0, 1) ns, [100, 101) ns, >= 2^33 ns
    (d / "handmade-edges_clat_hist.1.log").write_text(", ".join(["1000", "1", "4096"] + counts) + "\n")
    (d / "iolab.toml").write_text('study = "edges"\nsystem = "handmade"\n')
    dbf = tmp_path / "e.duckdb"
    con = db.open_db(dbf)
    batch.ingest_paths(con, [d])
    assert q(con, "SELECT lower_ms, upper_ms, bin_label, io_count FROM latency_heatmap ORDER BY lower_ms") == [
        (0.0, 1e-06, "0-1 ns", 3),
        (6.4e-05, 0.000128, "64-128 ns", 5),
        (8589.934592, None, ">= 8589934592 ns", 7),
    ]
    con.close()
    assert render.render(dbf, tmp_path / "out", ["edges"]) == 0
    page = tmp_path / "out" / "edges" / "10-latency-heatmap.html"
    con = db.connect(dbf, read_only=True)
    try:
        assert oracle.check_page(page, con) == []
        (chart,), _ = oracle.charts(page.read_text())
        assert [(r["lower_ms"], r["io_count"]) for r in chart.rows()] == [(6.4e-05, 5)]
        assert chart.caption.startswith("2 cells not drawn: below 1 unit")
    finally:
        con.close()


def test_the_heatmap_names_the_systems_it_draws_nothing_of(tmp_path):
    """Beside the real PKB logs (system "fio box"): a real Iometer results file (no histogram log) and a
    hand-made log whose only cells sit in fio's bin 0 (no place on a log axis), each under its own
    system. The chart draws the PKB logs alone, and its caption names both others, escaped."""
    import shutil

    from iolab import batch, db
    from iolab.reports import oracle
    from tests.conftest import corpus, rendered_page

    d = tmp_path / "data" / "mixed"
    for sub, system in (("fio", "fio box"), ("iometer", "O'Brien <b>"), ("edge", "edge box")):
        (d / sub).mkdir(parents=True)
        (d / sub / "iolab.toml").write_text(f'system = "{system}"\n')
    for log in sorted(STUDY.glob("*_clat_hist.*.log")):
        shutil.copy(log, d / "fio" / log.name)
    shutil.copy(corpus("iometer/adisireesha__results.csv"), d / "iometer" / "results.csv")
    counts = ["0"] * 1856
    counts[0] = "9"
    (d / "edge" / "handmade-bin0_clat_hist.1.log").write_text(", ".join(["1000", "1", "4096"] + counts) + "\n")
    (d / "iolab.toml").write_text('study = "mixed"\n')
    dbf = tmp_path / "m.duckdb"
    con = db.open_db(dbf)
    batch.ingest_paths(con, [d])
    con.close()
    raw = rendered_page(dbf, tmp_path / "out", "mixed", "10-latency-heatmap.html")  # passes the oracle
    (chart,), _ = oracle.charts(raw)
    assert {r["system"] for r in chart.rows()} == {"fio box"}
    said = chart.meta["left_out"]
    assert "No marks for O'Brien <b>: their files hold no fio latency histogram log" in said
    assert "No marks for edge box: none of their cells has a place on the log axis" in said
    assert "O'Brien <b>" not in raw  # escaped in the page
