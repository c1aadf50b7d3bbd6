"""Rendered reports: executed notebooks, no code cells, no network, the reproduced figures visible,
charts drawn in a real browser (headless Chromium, network cut) when one is installed."""
from __future__ import annotations

import html
import re

import pytest

from ingest import batch, db
from notebooks import check_reports, render
from tests.conftest import ROOT
from validation import run as vrun


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    d = tmp_path_factory.mktemp("reports")
    dbf = d / "r.duckdb"
    con = db.open_db(dbf)
    batch.ingest_paths(con, [ROOT / "data" / "samples" / s for s in
                             ("ds4300-vs-fastt200-2004", "iomark-vm-hp4335-2014", "criteria", "esxtop-perfmon-samples")])
    vrun.validate(con)
    con.close()
    assert render.main(["--db", str(dbf), "--out", str(d / "out"),
                        "--study", "ds4300-vs-fastt200-2004", "--study", "iomark-vm-hp4335-2014",
                        "--study", "esxtop-perfmon-samples"]) == 0
    return d / "out"


def text(page):
    return html.unescape(re.sub(r"<[^>]+>", " ", page.read_text()))


def test_index_links_every_report(rendered):
    idx = (rendered / "index.html").read_text()
    links = re.findall(r'href="([^"]+)"', idx)
    assert "ds4300-vs-fastt200-2004/05-cross-generation.html" in links
    assert "iomark-vm-hp4335-2014/04-efficiency-qos.html" in links
    assert all((rendered / l).exists() for l in links)


def test_reports_are_offline_and_codeless(rendered):
    pages = list(rendered.rglob("*.html"))
    assert len(pages) >= 7
    for p in pages:
        t = p.read_text()
        assert not render.FETCHES.search(t), p
        assert "import report as r" not in t  # no code cells
        assert "Traceback" not in t and "Warning:" not in t, p


def test_reproduced_figures_are_in_the_reports(rendered):
    gen = text(rendered / "ds4300-vs-fastt200-2004" / "05-cross-generation.html")
    assert "227.1 %" in gen and "3,780" in gen and "13,600" in gen  # RAID-5 8K random reads, corrected
    eff = text(rendered / "iomark-vm-hp4335-2014" / "04-efficiency-qos.html")
    assert "542" in eff and "82,418" in eff  # $/VM
    ts = text(rendered / "esxtop-perfmon-samples" / "06-time-series.html")
    assert "7,630" in ts and "India Standard Time" in ts and "vmhba0" in ts
    ov = text(rendered / "ds4300-vs-fastt200-2004" / "01-overview.html")
    assert "all expectations met" in ov and "e4ee479f96b6b380" in ov  # validation + sha256 provenance


@pytest.mark.skipif(check_reports.chromium() is None, reason="no chromium (make check-reports installs it)")
def test_charts_render_in_headless_chromium(rendered):
    r = check_reports.check(rendered / "ds4300-vs-fastt200-2004" / "05-cross-generation.html")
    assert r["charts"] == 1 and r["min_marks"] > 20
    assert r["png"] is not None and r["png"].stat().st_size > 20_000
