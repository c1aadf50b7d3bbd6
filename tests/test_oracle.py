"""The chart oracle (iolab.reports.oracle) on the constructed four-system study (tests/studies.py):
the rendered pages pass it, and each defect of issue 28 put back into a chart is caught. Also the
render's own promises: pages declared by their notebooks, fingerprints over the whole database,
atomic writes, an unknown --study refused, a callback per page."""

from __future__ import annotations

import csv
import math
import os
import shutil

import altair as alt
import polars as pl
import pytest

from iolab import batch, db
from iolab.reports import check, oracle, page, render
from iolab.reports.interactive import embed
from tests.conftest import ROOT, corpus
from tests.studies import STUDY, SYSTEMS, four_systems


@pytest.fixture(scope="module")
def four(tmp_path_factory):
    d = tmp_path_factory.mktemp("four")
    dbf = d / "f.duckdb"
    con = db.open_db(dbf)
    batch.ingest_paths(con, [four_systems(d / "data"), ROOT / "data" / "samples" / "criteria"])
    con.close()
    seen = []
    assert render.render(dbf, d / "out", [STUDY], on_page=lambda *a: seen.append(a)) == 0
    return dbf, d / "out", seen


def pages(out):
    return sorted((out / render.slug(STUDY)).glob("*.html"))


def test_the_constructed_study_passes_the_oracle(four):
    dbf, out, _ = four
    con = db.connect(dbf, read_only=True)
    try:
        found = [d for p in pages(out) for d in oracle.check_page(p, con)]
        charts = [c for p in pages(out) for c in oracle.charts(p.read_text())[0]]
    finally:
        con.close()
    assert found == [], "\n".join(found)
    assert len(charts) >= 8
    comparison = [c for c in charts if c.meta["source"] and c.meta["source"]["view"] == "comparison"]
    iops = next(c for c in comparison if c.meta["source"]["where"] == {"metric": "iops"})
    # both compared systems drawn, every matched point: 64 at -20 %, 64 at +50 %
    pct = {}
    for r in iops.rows():
        pct.setdefault(r["system"], set()).add(round(r["pct_better"], 9))
    assert pct == {SYSTEMS["omega"]: {-20.0}, oracle.clean(SYSTEMS["zeta"]): {50.0}}
    assert len(iops.rows()) == 128
    # the per-drive chart: the three Iometer systems share run keys; each keeps its own bars
    per_drive = next(
        c
        for c in charts
        if c.meta["source"]
        and c.meta["source"]["view"] == "per_drive_iops"
        and "iops_per_drive" in c.meta["source"]["values"]
    )
    assert len({r["system"] for r in per_drive.rows()}) == 4


def test_every_page_reports_progress_and_has_alt_text(four):
    _, out, seen = four
    assert sorted(nb for _, nb, status in seen if status == "rendered") == [p.stem for p in pages(out)]
    for p in pages(out):
        assert "No description has been provided" not in p.read_text()


def test_knees_are_black_whatever_the_system(four):
    _, out, _ = four
    charts, _ = oracle.charts((out / render.slug(STUDY) / "03-scaling-curves.html").read_text())
    layers = charts[0].spec["spec"]["layer"]
    knee = next(lay for lay in layers if lay["mark"].get("shape") == "diamond")
    assert knee["encoding"]["color"] == {"value": "black"}


# ---- each defect put back is caught ------------------------------------------------------------


@pytest.fixture(scope="module")
def cmp(four):
    dbf, _, _ = four
    con = db.connect(dbf, read_only=True)
    df = page.query(
        con,
        "SELECT system, workload_label AS workload, pct_better, value FROM comparison WHERE study = ? "
        "AND metric = 'iops' ORDER BY system, workload",
        [STUDY],
    )
    yield con, df.to_pandas()
    con.close()


def defects(con, chart, alt_text="Bar chart of the % better of each system at every matched point.", **kw):
    found, loose = oracle.charts(page.figure(chart, alt_text, **kw))
    assert loose == []
    return " | ".join(d for c in found for d in oracle.check(c, con))


SRC = {
    "view": "comparison",
    "study": STUDY,
    "system": "system",
    "where": {"metric": "iops"},
    "keys": {"system": "system", "workload": "workload_label"},
    "values": {"pct_better": "pct_better"},
}


def bars(d, **enc):
    return (
        alt.Chart(d).mark_bar().encode(x=alt.X("pct_better:Q", title="% better (IO/s)"), y=alt.Y("workload:N"), **enc)
    )


def test_a_good_chart_passes(cmp):
    con, d = cmp
    assert defects(con, bars(d, yOffset="system:N", color="system:N"), source=SRC) == ""


def test_a_system_cut_away_is_caught(cmp):
    con, d = cmp
    found = defects(con, bars(d.head(60), yOffset="system:N", color="system:N"), source=SRC)
    assert "has rows in comparison but none in the chart" in found
    assert "Zeta" in found


def test_a_cut_without_caption_is_caught(cmp):
    con, d = cmp
    found = defects(con, bars(d.groupby("system").head(30), yOffset="system:N", color="system:N"), source=SRC)
    assert "draws 60 of the 128 rows of comparison" in found


def test_stacked_systems_are_caught(cmp):
    con, d = cmp
    assert "bars stack at" in defects(con, bars(d, color="system:N"), source=SRC)
    # declared, a stack is fine
    assert "stack" not in defects(con, bars(d, color="system:N"), source=SRC, stack=True)


def test_a_legend_entry_without_marks_is_caught(cmp):
    con, d = cmp
    scale = alt.Scale(domain=sorted(set(d["system"])) + ["Ghost G1"])
    found = defects(con, bars(d, yOffset="system:N", color=alt.Color("system:N", scale=scale)), source=SRC)
    assert "legend entry 'Ghost G1' has no marks" in found


def test_legend_entries_that_look_the_same_are_caught(cmp):
    con, _ = cmp
    d = pl.DataFrame({"load": [1, 2, 1, 2], "ms": [1.0, 2.0, 3.0, 4.0], "pct": ["p50", "p50", "p99", "p99"]})
    chart = (
        alt.Chart(d.to_pandas())
        .mark_line(point=True)
        .encode(x=alt.X("load:Q", title="outstanding I/Os"), y=alt.Y("ms:Q", title="latency (ms)"), strokeDash="pct:N")
    )
    assert "look the same" in defects(con, chart)
    fixed = chart.encode(strokeDash=alt.StrokeDash("pct:N", legend=None), shape="pct:N")
    assert defects(con, fixed) == ""


def test_a_wrong_value_and_null_drawn_as_zero_are_caught(cmp):
    con, d = cmp
    wrong = d.assign(pct_better=d["pct_better"] + 1e-3)
    assert "is not the value of comparison.pct_better" in defects(
        con, bars(wrong, yOffset="system:N", color="system:N"), source=SRC
    )


def test_an_axis_without_unit_overlapping_labels_and_no_alt_are_caught(cmp):
    con, _ = cmp
    d = pl.DataFrame({"x": [50_000.0, 55_000.0, 60_000.0], "y": ["a", "b", "c"]}).to_pandas()
    crowded = (
        alt.Chart(d)
        .mark_bar()
        .encode(
            x=alt.X("x:Q", title="throughput", axis=alt.Axis(labelOverlap=False, tickCount=40, format=",d")),
            y="y:N",
        )
        .properties(width=120)
    )
    found = defects(con, crowded, alt_text="")
    assert "names no unit" in found
    assert "labels overlap" in found
    assert "no text alternative" in found


def test_a_chart_drawn_without_show_is_caught():
    import vl_convert

    svg = vl_convert.vegalite_to_svg(
        alt.Chart(pl.DataFrame({"x": [1]}).to_pandas()).mark_point().encode(x="x:Q").to_dict()
    )
    import base64

    html = f'<img src="data:image/svg+xml;base64,{base64.b64encode(svg.encode()).decode()}">'
    assert oracle.charts(html)[1] == ["page: 1 chart(s) drawn without page.show (no spec, no alt text)"]


# ---- pages describe themselves; a render never serves a stale or cut page ------------------------


def test_every_notebook_declares_its_page_and_is_rendered(four, tmp_path):
    """A meta-test: each notebook of notebooks/ is planned for some study of a database holding the
    constructed study, the esxtop samples, the criteria and a system measured on two firmware
    releases (the trends page) (or it would never be rendered)."""
    from tests.test_statistical_model import two_firmwares

    dbf, _, _ = four
    every = render.notebooks()
    assert set(every) == {p.stem for p in (ROOT / "notebooks").glob("*.py")} - {"explore"}  # not a page
    d = tmp_path / "m.duckdb"
    shutil.copyfile(dbf, d)
    con = db.open_db(d)
    batch.ingest_paths(
        con,
        [
            ROOT / "data" / "samples" / s
            for s in (
                "esxtop-perfmon-samples",
                "iomark-vm-hp4335-2014",
                "quarch-intel-nvme-2023",
                "fio-pkb-clat-hist-2017",
            )
        ]
        + [two_firmwares(tmp_path / "fw")],
    )
    con.close()
    planned = {nb for _, nb in render.plan(d)}
    assert planned == set(every), set(every) - planned


def test_a_notebook_added_at_test_time_is_rendered(four, tmp_path):
    dbf, _, _ = four
    nbs = tmp_path / "notebooks"
    nbs.mkdir()
    shutil.copyfile(ROOT / "notebooks" / "01-overview.py", nbs / "01-overview.py")
    text = (ROOT / "notebooks" / "01-overview.py").read_text()
    extra = text.replace("title: Overview and provenance", "title: A page added by a test")
    (nbs / "99-extra.py").write_text(extra)
    out = tmp_path / "out"
    assert render.render(dbf, out, [STUDY], notebooks_dir=nbs) == 0
    assert (out / render.slug(STUDY) / "99-extra.html").is_file()
    assert "A page added by a test" in (out / "index.html").read_text()
    (nbs / "98-headless.py").write_text(text.replace("#   iolab:\n", "#   nothing:\n"))
    with pytest.raises(ValueError, match="declares no page"):
        render.notebooks(nbs)


def test_an_unknown_study_is_an_error_listing_the_studies(four, tmp_path, capsys):
    dbf, _, _ = four
    assert render.render(dbf, tmp_path / "out", ["no-such-study"]) == 2
    err = capsys.readouterr().err
    assert "No study 'no-such-study'" in err and "four systems" in err
    assert not (tmp_path / "out").exists()


def test_the_fingerprint_covers_other_studies_and_criteria(four, tmp_path):
    """A page reads criteria and published figures of other studies: any change of the database
    renders it again, where a digest of its own study's files kept it stale."""
    dbf, _, _ = four
    d = tmp_path / "c.duckdb"
    shutil.copyfile(dbf, d)
    jobs = [(STUDY, "04-efficiency-qos")]
    before = render.fingerprints(d, jobs, render.notebooks())
    con = db.open_db(d)
    con.execute("UPDATE qos_criteria SET threshold = threshold / 40")
    con.close()
    assert render.fingerprints(d, jobs, render.notebooks()) != before


def test_pages_are_written_whole_or_not_at_all(tmp_path, monkeypatch):
    out = tmp_path / "out"
    first = render.write_page(out, "s", "01-overview", "<html>old page</html>", "")
    real = os.replace

    def killed(src, dst):
        raise KeyboardInterrupt  # the render killed between writing and renaming

    monkeypatch.setattr(os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        render.write_page(out, "s", "01-overview", "<html>new page, cut" * 1000, "")
    monkeypatch.setattr(os, "replace", real)
    assert first.read_text() == "<html>old page</html>"
    assert sorted(p.name for p in first.parent.iterdir()) == ["01-overview.html"]


def test_missing_is_blank_in_tables():
    from iolab.reports.tables import table_html

    t = table_html(
        pl.DataFrame(
            {"system": ["w"], "read_latency_ms": [None], "write_latency_ms": [0.25]},
            schema_overrides={"read_latency_ms": pl.Float64},
        )
    )
    assert '<td class="num">0.250</td>' in t and "<td></td>" in t and "0.00" not in t  # three significant digits


@pytest.mark.skipif(not check.chromium(), reason="needs chromium (make check-reports installs it)")
def test_a_chart_cut_off_on_screen_is_caught(tmp_path, cmp):
    con, d = cmp
    fig = page.figure(
        alt.Chart(d).mark_bar().encode(x=alt.X("pct_better:Q", title="% better"), y="workload:N").properties(width=900),
        "Bar chart wider than the box it sits in, to test the cut-off probe.",
    )
    p = tmp_path / "p.html"
    p.write_text(embed(f'<html><body><div style="width:300px;overflow:hidden">{fig}</div></body></html>'))
    assert check.cut_off(check.probe(p))[0].startswith("chart 1: cut off")
    p.write_text(embed(f"<html><body><div>{fig}</div></body></html>"))
    assert check.cut_off(check.probe(p)) == []
    # a chart meant to be live whose script never ran (here: none in the page) shows its picture: caught
    p.write_text(f"<html><body><div>{fig}</div></body></html>")
    assert check.cut_off(check.probe(p)) == ["chart 1: the interactive chart did not draw (its static picture shows)"]


def test_a_null_of_the_view_drawn_as_zero_is_caught():
    import duckdb

    con = duckdb.connect()
    con.execute(
        "CREATE TABLE v AS SELECT * FROM (VALUES ('s', 'W1', 'write only', NULL), ('s', 'W1', 'mixed', 2.5)) t(study, system, workload, read_ms)"
    )
    src = {
        "view": "v",
        "study": "s",
        "system": "system",
        "keys": {"workload": "workload"},
        "values": {"read_ms": "read_ms"},
    }
    d = pl.DataFrame({"system": ["W1", "W1"], "workload": ["write only", "mixed"], "read_ms": [0.0, 2.5]}).to_pandas()
    chart = (
        alt.Chart(d)
        .mark_bar()
        .encode(x=alt.X("read_ms:Q", title="read latency (ms)"), y="workload:N", color="system:N")
    )
    assert "read_ms = 0.0 at ('write only',) is not the value of v.read_ms there ([None])" in defects(
        con, chart, source=src
    )
    shown = d.assign(read_ms=[None, 2.5])  # missing is missing: no bar
    assert (
        defects(
            con,
            alt.Chart(shown)
            .mark_bar()
            .encode(x=alt.X("read_ms:Q", title="read latency (ms)"), y="workload:N", color="system:N"),
            source=src,
        )
        == ""
    )


def test_a_page_whose_kernel_dies_fails_and_the_render_ends(four, tmp_path):
    """vl-convert aborts its process on a control character in chart text: a kernel that dies fails
    its page (the blocking kernel client waited for its output forever)."""
    dbf, _, _ = four
    nbs = tmp_path / "notebooks"
    nbs.mkdir()
    head = (ROOT / "notebooks" / "01-overview.py").read_text().split("# %%\nimport altair")[0]
    (nbs / "01-abort.py").write_text(head.replace("Overview and provenance", "Abort") + "# %%\nimport os\nos.abort()\n")
    assert render.render(dbf, tmp_path / "out", [STUDY], notebooks_dir=nbs) == 1


def test_the_reports_folder_is_never_read_as_data(four):
    """render marks its folder as iolab's output: an ingest of a folder holding it skips it."""
    _, out, _ = four
    assert (out / db.STORE_MARK).is_file()
    walked = [p for _, p in batch.walk([out.parent])]
    assert walked and not [p for p in walked if out in p.parents]


def test_tooltips_name_the_file_and_line_each_bar_was_read_from(four):
    """A bar of one run names its file and line; that line of the real file holds the number drawn."""
    _, out, _ = four
    charts, _ = oracle.charts((out / render.slug(STUDY) / "02-per-drive-iops.html").read_text())
    (chart,) = charts
    tips = [t["title"] for t in chart.spec["encoding"]["tooltip"]]
    assert tips[-2:] == ["file", "line"]  # the line shown as text: "none" where fio's JSON states none
    real = corpus("iometer/sqlserverio__iometeroutput.csv")
    lines = real.read_text().splitlines()
    # the file by its path as ingested (six files of one system may share a base name)
    acme = [row for row in chart.rows() if row["file"].endswith(f"/{real.name}") and "/" in row["file"]]
    assert len(acme) >= 5
    for row in acme:
        cells = next(csv.reader([lines[int(row["line"]) - 1]]))
        assert cells[0] == "ALL" and math.isclose(float(cells[6]), row["iops"]), row
    # fio JSON numbers have no line (the parser stores none): the tooltip names the file alone
    fio = [row for row in chart.rows() if row["system"] == SYSTEMS["fio"]]
    assert fio and all(row["file"].endswith(".json") and row.get("line") is None for row in fio)


def test_a_repeat_is_named_by_its_smallest_place_whatever_the_row_order():
    from collections import Counter

    places = [(0.0, 1.001, 0.032, 0.064), (0.0, 1.001, 0.016, 0.032), (1.0, 2.0, "a", None)]
    for order in (places, places[::-1], places[1:] + places[:1]):
        counts = Counter([*order, *order[:2]])
        assert oracle.first_repeat(counts) == ((0.0, 1.001, 0.016, 0.032), 2)
    assert oracle.first_repeat(Counter(places)) is None
