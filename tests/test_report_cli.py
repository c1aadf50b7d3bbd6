"""`iolab report` off a terminal says what it does page by page (render's on_page), and a --study
naming no study is wrong usage that lists the studies."""

from __future__ import annotations

import shutil

import duckdb
import pytest

from iolab import cli, outputs
from iolab.reports import render
from tests.conftest import ROOT

STUDY = "iomark-vm-hp4335-2014"


@pytest.fixture(scope="module")
def dbf(tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    shutil.copytree(ROOT / "data" / "samples" / STUDY, root / STUDY)
    f = root / "x.duckdb"
    assert cli.main(["ingest", "-q", str(root / STUDY), "--db", str(f)]) == 0
    return f


def test_a_line_per_page_as_it_is_done(dbf, tmp_path, capsys, monkeypatch):
    # the pages' contents are not what this test is about: each "executes" at once
    monkeypatch.setattr(render, "execute_page", lambda snap, study, nb, pages: f"<p>{nb}</p>")
    monkeypatch.setattr(render, "validate", lambda snap, studies: {s: "" for s in studies})
    pages = [nb for s, nb in render.plan(render.snapshot(dbf, tmp_path)) if s == STUDY]
    assert pages
    out_dir = tmp_path / "reports"
    assert cli.main(["report", "--db", str(dbf), "--out", str(out_dir), "--study", STUDY]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("rendering the reports of")
    assert sorted(lines[1 : 1 + len(pages)]) == sorted(f"rendered   {STUDY} / {nb}" for nb in pages)
    assert cli.main(["report", "--db", str(dbf), "--out", str(out_dir), "--study", STUDY]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert sorted(lines[1 : 1 + len(pages)]) == sorted(f"unchanged  {STUDY} / {nb}" for nb in pages)


def test_a_page_rendered_static_is_rendered_again_live(dbf, tmp_path, capsys, monkeypatch):
    """IOLAB_STATIC_CHARTS (the print edition) changes a page: the next render without it draws it again."""
    from iolab.reports import interactive

    monkeypatch.setattr(render, "execute_page", lambda snap, study, nb, pages: f"<p>{nb}</p>")
    monkeypatch.setattr(render, "validate", lambda snap, studies: {s: "" for s in studies})
    args = ["report", "--db", str(dbf), "--out", str(tmp_path / "reports"), "--study", STUDY]
    monkeypatch.setenv(interactive.ENV, "1")
    assert cli.main(args) == 0
    capsys.readouterr()
    monkeypatch.delenv(interactive.ENV)
    assert cli.main(args) == 0
    lines = capsys.readouterr().out.splitlines()[1:-1]
    assert lines and all(line.startswith("rendered ") for line in lines), lines


def test_a_study_that_is_not_there_is_wrong_usage(dbf, tmp_path, capsys):
    assert cli.main(["report", "--db", str(dbf), "--out", str(tmp_path), "--study", "nope"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "No study 'nope'" in err and STUDY in err


CHARTED = "esg-ds5020-2009"  # three pages with a chart each


def test_images_writes_every_chart_of_the_pages_as_svg_and_png(tmp_path, capsys):
    import xml.etree.ElementTree as ET

    from iolab.reports import oracle

    shutil.copytree(ROOT / "data" / "samples" / CHARTED, tmp_path / CHARTED)
    dbf = tmp_path / "x.duckdb"
    assert cli.main(["ingest", "-q", str(tmp_path / CHARTED), "--db", str(dbf)]) == 0
    out, images = tmp_path / "reports", tmp_path / "images"
    assert cli.main(["report", "--db", str(dbf), "--out", str(out), "--study", CHARTED, "--images", str(images)]) == 0
    charts = [c for p in sorted((out / CHARTED).glob("*.html")) for c in oracle.charts(p.read_text())[0]]
    con = duckdb.connect(str(dbf), read_only=True)
    ((baseline, systems),) = con.execute(
        "SELECT baseline_system, systems FROM study_baseline WHERE study = ?", [CHARTED]
    ).fetchall()
    if systems < 2:  # one system: nothing is compared with a baseline, and the title says so
        baseline = "none (the study compares no systems)"
    con.close()
    svgs, pngs = sorted(images.glob(f"{CHARTED}/*.svg")), sorted(images.glob(f"{CHARTED}/*.png"))
    assert len(charts) >= 2 and len(svgs) == len(pngs) == len(charts)
    assert f"{len(charts)} charts as SVG and PNG -> {images}" in capsys.readouterr().out
    for svg, chart in zip(svgs, sorted(charts, key=lambda c: c.where)):
        texts = {t.text for t in ET.parse(svg).getroot().iter() if t.tag.endswith(("text", "tspan"))}
        systems = {r["system"] for r in chart.rows() if "system" in r}
        assert systems and systems <= texts  # the systems it draws are named in the picture
        # the file names what its page said around it: the study, the baseline, the metric
        assert {f"Study: {CHARTED}", f"Baseline: {baseline}"} <= texts, texts
        metric = [t for t in texts if t and t.startswith("Metric: ")]
        assert metric and metric[0] != "Metric: (none: the chart draws no quantity)", texts
        assert svg.with_suffix(".png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # a file where the folder should be: refused before anything is rendered (wrong usage, exit 2)
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    assert cli.main(["report", "--db", str(dbf), "--out", str(out), "--study", CHARTED, "--images", str(blocked)]) == 2
    assert "a-file is a file, not a folder: give --images a folder" in " ".join(capsys.readouterr().err.split())
    # both folders are listed in their markers: an ingest of a folder holding them reads none of their files
    assert outputs.foreign(out) == outputs.foreign(images) == [] and len(outputs.read_cover(images).files) == 2 * len(
        svgs
    )


def test_an_image_title_names_the_study_its_baseline_and_the_metric():
    from iolab.reports import images, oracle

    meta = {"usermeta": {"iolab": {"source": {"view": "comparison", "where": {"metric": "iops"}}}}}
    chart = oracle.Chart("p: chart 1", {"title": "% better", "mark": "bar", **meta}, "", "", "")
    assert images.titled(chart, "S \u202eevil", "Acme X1")["title"] == {
        "text": "% better",
        "subtitle": ["Study: S \\u202eevil", "Baseline: Acme X1", "Metric: iops"],
    }
    axes = {"x": {"field": "load", "type": "quantitative", "title": "load (outstanding I/Os)"}}
    chart = oracle.Chart(
        "p: chart 2", {"mark": "line", "encoding": {**axes, "y": {"field": "mbps", "type": "quantitative"}}}, "", "", ""
    )
    assert images.metric_of(chart) == "mbps / load (outstanding I/Os)"
