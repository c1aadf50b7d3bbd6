"""Figures and tables laid out for the printed page (iolab.reports.printed, print_tables): a chart is
drawn again from its spec at print size, wrapped to the A4 landscape width and continued on the next
page rather than shrunk; a table keeps names whole. And the comparison shows the corrected baseline
beside the raw one wherever a correction applies, with no "Infinite extent" warning of its live charts.

The chart tests draw with vl-convert (no browser); the comparison is rendered and printed once."""

from __future__ import annotations

import base64
import html
import json
import re
import shutil

import altair as alt
import pandas as pd
import pypdf
import pytest

from iolab import db, display
from iolab.reports import check, pdf, pictures, print_tables, printed, render
from iolab.reports.tables import figure_html
from tests.conftest import ROOT, ingest
from tests.studies import STUDY, SYSTEMS, four_systems, toml


def facets(n: int, title: str = "twelve workloads") -> dict:
    """A chart of ``n`` facets of 300 x 200 px in two columns, as the scaling page draws them."""
    rows = [{"workload": f"w{i:02d}", "load": x, "iops": 100.0 * i + x} for i in range(n) for x in (1, 2, 4, 8)]
    return (
        alt.Chart(pd.DataFrame(rows))
        .mark_line(point=True)
        .encode(x="load:Q", y="iops:Q")
        .properties(width=300, height=200)
        .facet(facet=alt.Facet("workload:N", title=None), columns=2)
        .properties(title=title)
        .to_dict()
    )


def recording():
    drawn: list[dict] = []

    def render(spec: dict) -> str:
        drawn.append(spec)
        return pictures.draw(spec)

    return drawn, render


def shown(spec: dict) -> list:
    """The facets or bands a part draws (its first filter)."""
    return spec["transform"][0]["filter"]["oneOf"]


def test_the_print_theme_sets_every_text_at_7_pt_or_more():
    theme = printed.THEME.values()
    sizes = [v for part in theme if isinstance(part, dict) for k, v in part.items() if "fontsize" in k.lower()]
    assert len(sizes) == 9 and min(sizes) * printed.PT >= 7
    assert printed.PAGE_WIDTH == 1016 and printed.FIGURE_HEIGHT == 585  # 269 mm x 155 mm at 96 px an inch


def test_many_facets_are_wrapped_to_the_page_width_and_continued():
    """Twelve facets, two columns of 300 px on screen (1,150 px tall): three columns of two rows on
    each page, twelve facets in their order over two pages, every part inside the printable box."""
    spec = facets(12)
    drawn, render = recording()
    svgs = printed.print_svgs(spec, render)
    assert len(svgs) == 2
    for svg in svgs:
        w, h = printed.svg_size(svg)
        assert 0 < w <= printed.PAGE_WIDTH and 0 < h <= printed.FIGURE_HEIGHT
    parts = [s for s in drawn if s.get("columns") and len(shown(s)) > 1][-2:]
    assert [shown(p) for p in parts] == [[f"w{i:02d}" for i in range(6)], [f"w{i:02d}" for i in range(6, 12)]]
    assert {p["columns"] for p in parts} == {3}
    assert all("w00" in svg for svg in svgs[:1]) and "w11" in svgs[1] and "w11" not in svgs[0]


def test_a_chart_that_fits_is_drawn_once_at_print_size():
    spec = facets(2)
    drawn, render = recording()
    (svg,) = printed.print_svgs(spec, render)
    w, h = printed.svg_size(svg)
    assert w <= printed.PAGE_WIDTH and h <= printed.FIGURE_HEIGHT
    assert 'font-size="11px"' in svg or "font-size: 11px" in svg or 'font-size="11"' in svg


def test_a_tall_bar_chart_is_continued_band_by_band():
    """Sixty bars, 14 px each on paper: about 900 px tall, more than a page; each part holds as many
    bars as a page does, in the chart's order (highest first: sort -x), all sixty once, on one x scale
    (0 to 59 on every page, not each part's own)."""
    d = pd.DataFrame({"run": [f"run {i:02d}" for i in range(60)], "iops": [float(i) for i in range(60)]})
    spec = alt.Chart(d).mark_bar().encode(y=alt.Y("run:N", sort="-x"), x="iops:Q").properties(width=400).to_dict()
    drawn, render = recording()
    svgs = printed.print_svgs(spec, render)
    assert len(svgs) == 2 and all(printed.fits(s) for s in svgs)
    parts = [p for p in drawn if p.get("transform")][-2:]
    assert sum((shown(p) for p in parts), []) == [f"run {i:02d}" for i in range(59, -1, -1)]
    assert [p["encoding"]["x"]["scale"]["domain"] for p in parts] == [[0, 59.0], [0, 59.0]]


def test_a_printed_page_continues_a_figure_under_its_number_and_puts_its_caption_last():
    spec = facets(12)
    page = figure_html(spec, pictures.draw(spec), "Line charts <of twelve>", "w12 left out")
    out = printed.print_figures(f"<p>before</p>{page}<p>after</p>")
    figures = re.findall(r"<figure\b[^>]*>.*?</figure>", out, re.S)
    assert len(figures) == 2 and 'class="iolab-chart iolab-continued"' in figures[1]
    assert "w12 left out" in figures[1] and "w12 left out" not in figures[0]
    assert 'alt="Line charts &lt;of twelve&gt; (part 2 of 2)"' in figures[1]  # still escaped
    assert 'class="iolab-chart-spec"' in figures[0]  # the chart's spec and data stay with it
    images = [base64.b64decode(m).decode() for m in re.findall(r"base64,([^\"]+)\"", out)]
    assert all(printed.fits(svg) for svg in images) and len(images) == 2
    css = pdf.print_css()
    assert 'content: "Figure " counter(iolab-figure) " (continued)"' in css
    assert "figure.iolab-chart.iolab-continued { counter-increment: none; break-before: page" in css


def test_the_defects_check_takes_a_continued_figure_as_begun_on_its_page(tmp_path, monkeypatch):
    from tests.test_report_pdf import marked_pdf

    marks = {f"iolab-figure-p-1-{k}-{end}": k - 1 for k in (1, 2) for end in ("top", "end")}
    out = marked_pdf(tmp_path / "x.pdf", ["Figure 1\n...", "Figure 1 (continued)\n"], marks, monkeypatch)
    assert pdf.defects(out) == []


def test_every_part_of_a_figure_is_marked_at_its_top_and_foot_with_nothing_to_read():
    spec = facets(12)
    page = figure_html(spec, pictures.draw(spec), "Lines", "")
    out = printed.print_figures(f"{page}<p>between</p>{page}", name="03-scaling curves")
    tops = re.findall(r'<a id="(iolab-figure-[^"]+-top)" href="#\1"></a>', out)
    ends = re.findall(r'<a id="(iolab-figure-[^"]+-end)" href="#\1"></a>', out)
    assert tops == [f"iolab-figure-03_scaling_curves-{f}-{k}-top" for f in (1, 2) for k in (1, 2)]
    assert [e.replace("-end", "-top") for e in ends] == tops
    assert "end of figure" not in pdf.print_css() and "color: #fff" not in pdf.print_css()


def test_table_cells_of_names_are_kept_whole_and_long_text_wraps():
    table = (
        "<table><thead><tr><th>system</th><th>reason</th><th>source path</th><th>iops</th></tr></thead><tbody>"
        "<tr><td>IBM DS4300 (dual controllers)</td><td>no point of the baseline at this load</td>"
        '<td>four-systems/omega/derived-x0.8-sqlserverio__iometeroutput.csv</td><td class="num">1,070</td></tr>'
        "<tr><td>IBM DS4300 (dual controllers) with a name longer than fits</td><td>x</td>"
        '<td></td><td class="num">2</td></tr></tbody></table>'
    )
    out = print_tables.whole_names(table)
    assert '<td class="whole">IBM DS4300 (dual controllers)</td>' in out  # a name: never wrapped
    assert '<td class="name">IBM DS4300 (dual controllers) with a name longer than fits</td>' in out
    assert "<td>no point of the baseline at this load</td>" in out  # text wraps at its spaces
    path = "four-<wbr>systems/<wbr>omega/<wbr>derived-<wbr>x0.8-<wbr>sqlserverio__<wbr>iometeroutput.csv"
    assert f'<td class="path" style="--two-lines: 33ch">{path}</td>' in out  # never inside a word
    assert '<td class="num">1,070</td>' in out
    css = pdf.print_css()
    assert ".iolab td.whole, td.whole, .iolab span.nw { white-space: nowrap; }" in css  # the appendix has no .iolab
    assert "overflow-wrap: break-word" not in css


# ---- the comparison of a study whose sidecar declares a correction ------------------------------


@pytest.fixture(scope="module")
def corrected(tmp_path_factory):
    """The four-system study with the DS4300 paper's x1.1 drive-generation correction declared: its
    comparison page alone, rendered."""
    d = tmp_path_factory.mktemp("corrected")
    study = four_systems(d / "data")
    (study / "iolab.toml").write_text(
        f'study = {toml(STUDY)}\nbaseline = {toml(SYSTEMS["acme"])}\ncorrections = ["drive_generation_correction"]\n'
    )
    con = db.open_db(d / "r.duckdb")
    ingest(con, study, ROOT / "data" / "samples" / "criteria")
    con.close()
    (d / "nb").mkdir()
    shutil.copy(ROOT / "notebooks" / "05-comparison.py", d / "nb")
    assert render.render(d / "r.duckdb", d / "out", [STUDY], notebooks_dir=d / "nb") == 0
    return d / "out" / render.slug(STUDY) / "05-comparison.html"


def matched_table(page: str, metric: str) -> tuple[list[str], list[list[str]]]:
    at = page.index(f"Matched points: {display.label(metric)};")
    table = page[at : page.index("</table>", at)]
    heads = [html.unescape(h) for h in re.findall(r"<th>([^<]*)</th>", table)]
    rows = [re.findall(r"<td[^>]*>(.*?)</td>", r) for r in re.findall(r"<tr>(.*?)</tr>", table, re.S)[1:]]
    return heads, rows


@pytest.mark.slow
def test_the_corrected_baseline_stands_beside_the_raw_one(corrected):
    """Omega does 0.8 of Acme's IO/s: -20 % raw, -27.3 % against Acme x 1.1. The table says both
    baselines: Omega's 658.0 IO/s against 822.5, corrected 904.7 (the real Iometer file's 8 KiB
    sequential writes at QD 1: 822.5 IO/s for Acme, its repeat the same)."""
    heads, rows = matched_table(corrected.read_text(), "iops")
    at = heads.index("baseline's value")
    assert heads[at : at + 3] == ["baseline's value", "corrected baseline", "value"]
    first = next(r for r in rows if r[1] == "8 KiB sequential write, QD 1" and "Omega" in r[0])
    assert first[at : at + 3] == ["822", "905", "658"]  # the column's spread (hundreds to thousands): no decimals
    assert re.search(r">-27\.3 %<", "".join(first))
    for r in rows:  # every row: the corrected baseline is the raw one x 1.1 (as shown, rounded)
        raw, fixed = (float(v.replace(",", "")) for v in r[at : at + 2])
        assert fixed == pytest.approx(raw * 1.1, rel=0.002, abs=1)
    # the seed's boost covers throughput only (docs/DESIGN.md: never latency): no corrected latency
    heads, rows = matched_table(corrected.read_text(), "avg_latency_ms")
    assert "corrected baseline" not in heads and rows


@pytest.mark.slow
@pytest.mark.skipif(check.chromium() is None, reason="no chromium (make check-reports installs it)")
def test_the_comparison_prints_both_baselines_and_its_live_charts_warn_of_nothing(corrected, tmp_path):
    """Every point of the other systems is a single run (no interval): the live charts used to warn
    "Infinite extent" six times (two interval fields, three metrics)."""
    done = check.run(corrected, "--dump-dom", "--enable-logging=stderr", "--v=0", "--virtual-time-budget=8000")
    assert "iolab-live" in done.stdout  # the live charts were drawn
    assert [line for line in done.stderr.splitlines() if "Infinite extent" in line] == []
    out = tmp_path / "comparison.pdf"
    pdf.chromium_print(pdf.print_copy(corrected, tmp_path), out)
    text = "\n".join(p.extract_text() for p in pypdf.PdfReader(out).pages)
    assert "822 905 658 2 1 -27.3 %" in text
    assert pdf.small_text(out) == [] and pdf.figure_text(out) == [] and pdf.defects(out) == []
    spec = json.loads(base64.b64decode(re.search(r'class="iolab-chart-spec"[^>]*>([^<]*)<', corrected.read_text())[1]))
    assert spec["spec"]["layer"][0]["encoding"]["x"]["scale"]["domain"] == [
        pytest.approx(-27.27, abs=0.01),
        pytest.approx(36.36, abs=0.01),
    ]


def test_lines_coloured_by_system_are_dashed_and_marked_by_it_too_on_paper():
    """A greyscale printer makes the systems' blue, red and green lines the same grey: on paper each
    system's line has its own dash and its points their own shape, in one legend with the colour."""
    d = pd.DataFrame({"system": ["A", "A", "B", "B"], "load": [1, 2, 1, 2], "iops": [1.0, 2.0, 2.0, 3.0]})
    colours = alt.Scale(domain=["A", "B"], range=["#1f77b4", "#d62728"])
    chart = (
        alt.Chart(d).mark_line(point=True).encode(x="load:Q", y="iops:Q", color=alt.Color("system:N", scale=colours))
    )
    enc = printed.themed(chart.to_dict())["encoding"]
    for channel in ("strokeDash", "shape"):
        assert enc[channel] == {"field": "system", "type": "nominal", "scale": {"domain": ["A", "B"]}}
    (svg,) = printed.print_svgs(chart.to_dict())
    assert svg.count('role-legend"') == 1 and svg.count("legend-title") == 1  # one legend, "system"
    assert "stroke-dasharray" in svg
