"""Interactive charts (iolab.reports.interactive) and every chart as an image (iolab.reports.images):
the legend selection and the time zoom are added once, in page.figure, without changing a mark; the
print edition's switch leaves charts static; the page draws them live offline in headless Chromium,
where a legend click fades the other systems and a wheel zooms the time axis; `--images` writes
valid SVG and PNG files, named safely whatever the study and chart are called."""

from __future__ import annotations

import base64
import html
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import altair as alt
import pandas as pd
import pytest
import vl_convert

from iolab.reports import check, images, interactive, oracle, page, render
from iolab.reports.tables import CSS, file_name, visible

HOSTILE = ["Acme <b>X1</b> <script>alert(1)</script>", "../../etc/passwd \x1b[31m", "Zeta **Z9**"]


def bars() -> alt.Chart:
    d = pd.DataFrame({"system": HOSTILE, "workload": ["8 KiB read"] * 3, "iops": [100.0, 150.0, 80.0]})
    return (
        alt.Chart(d)
        .mark_bar()
        .encode(
            y=alt.Y("workload:N"),
            yOffset="system:N",
            x=alt.X("iops:Q", title="IO/s"),
            color=alt.Color("system:N", legend=alt.Legend(orient="bottom")),
        )
        .properties(title="../../hostile/<title> \x00 IO/s")
    )


def series() -> alt.Chart:
    ts = pd.date_range("2024-01-01", periods=50, freq="s")
    d = pd.concat(
        [pd.DataFrame({"ts": ts, "value": [float(i + k * 10) for i in range(50)], "series": f"s{k}"}) for k in range(2)]
    )
    return (
        alt.Chart(d)
        .mark_line()
        .encode(x=alt.X("ts:T", title="time"), y=alt.Y("value:Q", title="value (IO/s)"), color="series:N")
        .properties(title="a time series")
    )


def spec_of(fig: str) -> dict:
    charts, defects = oracle.charts(fig)
    assert not defects
    return charts[0].spec


def params(spec: dict) -> list[dict]:
    found = []

    def walk(s):
        if isinstance(s, dict):
            found.extend(s.get("params", []))
            for v in s.values():
                walk(v)
        elif isinstance(s, list):
            for v in s:
                walk(v)

    walk(spec)
    return [p for p in found if p.get("name") in (interactive.LEGEND, interactive.ZOOM)]


def test_a_legend_selection_is_added_once_and_fades_the_marks_of_other_systems(monkeypatch):
    monkeypatch.delenv(interactive.ENV, raising=False)
    spec = spec_of(page.figure(bars(), "Bar chart of three systems' IO/s at one workload, side by side."))
    (legend,) = params(spec)
    assert legend == {"name": "iolab_legend", "select": {"type": "point", "fields": ["system"]}, "bind": "legend"}
    assert spec["encoding"]["opacity"] == {"condition": {"param": "iolab_legend", "value": 1}, "value": 0.1}
    assert interactive.add_time_zoom(spec) is False  # no time axis here


def test_a_time_axis_zooms_on_x_only_and_a_layered_chart_gets_each_selection_once(monkeypatch):
    monkeypatch.delenv(interactive.ENV, raising=False)
    chart = series() + series().mark_point()
    spec = spec_of(page.figure(chart, "Line chart of two series over time, with their points drawn."))
    found = params(spec)
    assert [p["name"] for p in found] == ["iolab_legend", "iolab_zoom"]
    assert found[1] == {"name": "iolab_zoom", "select": {"type": "interval", "encodings": ["x"]}, "bind": "scales"}
    assert all(lay["encoding"]["opacity"]["condition"]["param"] == "iolab_legend" for lay in spec["layer"])
    assert [lay["mark"]["clip"] for lay in spec["layer"]] == [True, True]  # zoomed, no line past the edges


def test_facets_and_charts_without_a_legend_stay_as_they_are():
    faceted = series().facet(facet="series:N").to_dict()
    assert interactive.add_time_zoom(faceted) is False
    no_legend = bars().encode(color=alt.Color("system:N", legend=None)).to_dict()
    assert interactive.add(no_legend) == no_legend
    black = series().encode(color=alt.value("black")).to_dict()
    assert interactive.add_legend_selection(black) is False


def test_selections_change_no_mark_of_the_static_picture(monkeypatch):
    """The same marks (each mark's aria-label: its fields and values) with and without the selections."""
    monkeypatch.delenv(interactive.ENV, raising=False)
    for chart in (bars(), series()):
        spec = visible(chart.to_dict())  # vl-convert aborts on a control character (tables.visible)
        live = interactive.add(spec)
        assert params(live)
        before = oracle.mark_labels(ET.fromstring(vl_convert.vegalite_to_svg(spec)))
        after = oracle.mark_labels(ET.fromstring(vl_convert.vegalite_to_svg(live)))
        assert before == after and len(before) >= 3


def test_the_print_edition_switch_leaves_every_chart_static(monkeypatch):
    monkeypatch.setenv(interactive.ENV, "1")
    fig = page.figure(bars(), "Bar chart of three systems' IO/s at one workload, side by side.")
    assert params(spec_of(fig)) == [] and interactive.BOX not in fig
    assert interactive.embed(f"<html><body>{fig}</body></html>") == f"<html><body>{fig}</body></html>"


def test_the_page_script_holds_no_network_action_and_no_closing_tag():
    bundle = interactive.bundle()
    assert "window.vegaEmbed" in bundle and "</body" not in bundle and "</script" not in bundle.lower()
    assert "editor: false" in interactive.SCRIPT and "source: false" in interactive.SCRIPT
    assert not render.FETCHES.search(bundle + interactive.SCRIPT)


def test_file_names_from_hostile_titles_stay_plain():
    for title in ["../../etc/passwd", ".hidden", "a/b\\c", "\x00\x1b[31m", "", "é" * 80, "CON:"]:
        name = file_name(title)
        assert re.fullmatch(r"[a-z0-9_](?:[a-z0-9_-]{0,58}[a-z0-9_])?", name), (title, name)
    assert file_name("IO/s per drive (one bar per run)") == "io-s-per-drive-one-bar-per-run"


# ---- in headless Chromium, offline ---------------------------------------------------------------


def standalone(tmp_path: Path, *charts: alt.TopLevelMixin) -> Path:
    """A page of ``charts`` as the render writes one (figures, then the scripts before </body>)."""
    figs = "".join(page.figure(c, "A chart of a test: its systems and their values, as drawn.") for c in charts)
    out = tmp_path / "page.html"
    out.write_text(interactive.embed(f"<!DOCTYPE html><html><head>{CSS}</head><body>{figs}</body></html>"))
    return out


# Runs after the live charts drew: ACTION on the first figure (fig, its view), then writes RESULT's JSON.
DRIVE = """<script>window.addEventListener('load', () => {
  const t = setInterval(() => {
    const fig = document.querySelector('figure.iolab-chart');
    if (!fig || !fig.iolabView) return;
    clearInterval(t);
    const view = fig.iolabView;
    ACTION;
    setTimeout(() => { const p = document.createElement('pre'); p.id = 'iolab-driven';
      p.textContent = JSON.stringify(RESULT); document.body.appendChild(p); }, 300);
  }, 50);
});</script>"""

CLICK_FIRST_ENTRY = """const el = fig.querySelector('.iolab-vega .role-legend-symbol path');
    const r = el.getBoundingClientRect();
    el.dispatchEvent(new MouseEvent('click', {bubbles: true, clientX: r.x + 2, clientY: r.y + 2, view: window}))"""


def drive(path: Path, action: str, result: str, screenshot: Path | None = None) -> dict:
    driven = path.with_name("driven.html")
    script = DRIVE.replace("ACTION", action).replace("RESULT", result)
    driven.write_text(path.read_text().replace("</body>", script + "</body>"))
    if screenshot:
        check.run(driven, f"--screenshot={screenshot}", "--window-size=900,700", "--virtual-time-budget=8000")
    dom = check.run(driven, "--dump-dom", "--virtual-time-budget=8000").stdout
    m = re.search(r'<pre id="iolab-driven">(.*?)</pre>', dom, re.S)
    assert m, "the live chart did not draw"
    return json.loads(html.unescape(m.group(1)))


needs_chromium = pytest.mark.skipif(check.chromium() is None, reason="no chromium (make check-reports installs it)")


@needs_chromium
def test_a_legend_click_shows_that_system_and_fades_the_others_offline(tmp_path, monkeypatch):
    monkeypatch.delenv(interactive.ENV, raising=False)
    p = standalone(tmp_path, bars())
    result = """[...fig.querySelectorAll('.iolab-vega .role-mark path')].map(
        e => [e.getAttribute('aria-label'), getComputedStyle(e).opacity, e.getAttribute('opacity')])"""
    before = drive(p, "", result)
    after = drive(p, CLICK_FIRST_ENTRY, result, screenshot=tmp_path / "clicked.png")
    assert len(before) == len(after) == 3
    assert {(o, a) for _, o, a in before} <= {("1", None), ("1", "1")}
    first = sorted(oracle.clean(s) for s in HOSTILE)[0]  # the legend lists the systems in order
    faded = {label.split("; ")[-1] if label else "": attr for label, _, attr in after}
    shown = [k for k, v in faded.items() if v in (None, "1")]
    assert len(shown) == 1 and first.split(" ")[0] in shown[0], faded
    assert sorted(v for v in faded.values() if v not in (None, "1")) == ["0.1", "0.1"]


@needs_chromium
def test_a_time_series_zooms_on_its_x_axis_offline(tmp_path, monkeypatch):
    monkeypatch.delenv(interactive.ENV, raising=False)
    p = standalone(tmp_path, series())
    wheel = """const el = fig.querySelector('.iolab-vega .role-mark path'), r = el.getBoundingClientRect();
    el.dispatchEvent(new WheelEvent('wheel', {bubbles: true, cancelable: true, deltaY: -300,
        clientX: r.x + r.width / 2, clientY: r.y + r.height / 2, view: window}))"""
    result = "{x: view.scale('x').domain().map(Number), y: view.scale('y').domain()}"
    before, after = drive(p, "", result), drive(p, wheel, result)
    assert after["x"][1] - after["x"][0] < before["x"][1] - before["x"][0]  # zoomed in on time
    assert after["y"] == before["y"]  # x only


# ---- every chart as an image -----------------------------------------------------------------------


def rendered_like(tmp_path: Path, study: str) -> Path:
    """A render's folder for ``study`` holding one page with two charts (as render.write_page lays it out)."""
    out = tmp_path / "reports"
    folder = out / render.slug(study)
    folder.mkdir(parents=True)
    (folder / ".iolab-render.json").write_text("{}")
    fig = page.figure(bars(), "Bar chart of three systems' IO/s at one workload, side by side.")
    fig += page.figure(series(), "Line chart of two series over time.")
    (folder / "01-overview.html").write_text(f"<html><body>{fig}</body></html>")
    return out


def test_images_are_valid_svg_and_png_holding_the_systems_of_their_chart(tmp_path):
    study = "../../<study> \x1b"
    out = rendered_like(tmp_path, study)
    written = images.write_images(out, tmp_path / "img")
    folder = tmp_path / "img" / render.slug(study)
    assert sorted(p.name for p in written) == sorted(p.name for p in folder.iterdir())
    names = [p.name for p in written]
    assert names == [
        "01-overview-01-hostile-title-x00-io-s.svg",
        "01-overview-01-hostile-title-x00-io-s.png",
        "01-overview-02-a-time-series.svg",
        "01-overview-02-a-time-series.png",
    ]
    assert all(p.resolve().is_relative_to((tmp_path / "img").resolve()) for p in written)
    svg = ET.parse(written[0]).getroot()
    assert svg.tag.endswith("svg")
    texts = {t.text for t in svg.iter() if t.tag.endswith("text")}
    assert {oracle.clean(s) for s in HOSTILE} <= texts  # the legend names every system, escapes shown
    for png in written[1::2]:
        data = png.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
        width = int.from_bytes(data[16:20], "big")
        shown = float(ET.parse(png.with_suffix(".svg")).getroot().get("width") or 0)
        assert width == int(shown * images.PNG_SCALE)
    assert (tmp_path / "img" / ".iolab-output").is_file()  # never ingested as data


def test_the_svg_file_is_the_picture_the_page_shows_with_what_its_page_said_around_it(tmp_path):
    import vl_convert

    from iolab.reports import oracle

    out = rendered_like(tmp_path, "plain")
    svg = images.write_images(out, tmp_path / "img", ["plain"])[0]
    text = (out / "plain" / "01-overview.html").read_text()
    first = re.search(r"data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)", text)
    chart = oracle.charts(text)[0][0]
    assert first and base64.b64decode(first.group(1)).decode() == vl_convert.vegalite_to_svg(chart.spec)
    assert svg.read_text() == vl_convert.vegalite_to_svg(images.titled(chart, "plain", None))


def test_images_refuse_a_study_folder_linked_outside(tmp_path):
    out = rendered_like(tmp_path, "plain")
    (tmp_path / "img").mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "img" / "plain").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(ValueError, match="outside"):
        images.write_images(out, tmp_path / "img")
    assert list((tmp_path / "elsewhere").iterdir()) == []


@needs_chromium
def test_a_tooltip_names_the_file_and_line_of_the_point_offline(tmp_path, monkeypatch):
    monkeypatch.delenv(interactive.ENV, raising=False)
    d = pd.DataFrame({"system": ["<b>A</b>"], "iops": [1196.5], "file": ["iometer <x>.csv"], "line": [15]})
    chart = (
        alt.Chart(d)
        .mark_bar()
        .encode(
            x=alt.X("iops:Q", title="IO/s"),
            y="system:N",
            tooltip=page.tooltips("system", "iops", *page.SOURCE_TOOLTIPS),
        )
    )
    hover = """const el = fig.querySelector('.iolab-vega .role-mark path'), r = el.getBoundingClientRect();
    for (const type of ['pointermove', 'mousemove'])
      el.dispatchEvent(new MouseEvent(type, {bubbles: true, clientX: r.x + 3, clientY: r.y + 3, view: window}))"""
    result = "(document.getElementById('vg-tooltip-element') || {}).innerText || ''"
    shown = drive(standalone(tmp_path, chart), hover, result)
    assert shown.split() == ["system", "<b>A</b>", "IO/s", "1,197", "file", "iometer", "<x>.csv", "line", "15"]


def test_time_series_points_name_their_capture_file_in_each_study(tmp_path):
    """The same capture in two studies under two names: each study's chart names its own file, and each
    point's sample number is the store's (0-based data line) for that time and value."""
    from iolab import batch, db
    from tests.conftest import ROOT

    capture = ROOT / "data" / "samples" / "esxtop-perfmon-samples" / "rachsharp__small-esxtop-data.csv"
    for study, name in (("first", "cap <a>.csv"), ("second", "cap-b.csv")):
        (tmp_path / "data" / study).mkdir(parents=True)
        (tmp_path / "data" / study / name).write_bytes(capture.read_bytes())
        (tmp_path / "data" / study / "iolab.toml").write_text(f'study = "{study}"\n')
    dbf = tmp_path / "t.duckdb"
    con = db.open_db(dbf)
    batch.ingest_paths(con, [tmp_path / "data"])
    points = {(str(ts), v): n for ts, v, n in con.execute("SELECT ts, value, sample_no FROM series_points").fetchall()}
    con.close()
    assert render.render(dbf, tmp_path / "out", ["first", "second"]) == 0
    for study, name in (("first", "cap <a>.csv"), ("second", "cap-b.csv")):
        charts, _ = oracle.charts((tmp_path / "out" / study / "06-time-series.html").read_text())
        rows = [row for c in charts for row in c.rows()]
        assert rows and {row["file"] for row in rows} == {f"data/{study}/{name}"}  # its path as ingested
        for row in rows[:50]:
            assert points[(pd.Timestamp(row["ts"]).strftime("%Y-%m-%d %H:%M:%S"), row["value"])] == row["sample_no"]


@needs_chromium
def test_the_menu_saves_svg_and_png_offline_and_offers_nothing_else(tmp_path, monkeypatch):
    """What the menu's two entries run (vega-embed's export: view.toSVG, view.toImageURL) gives an SVG
    naming every system and a PNG, with the network cut; no other entry is offered."""
    monkeypatch.delenv(interactive.ENV, raising=False)
    action = """view.toSVG().then(s => { window.svg = s; });
    view.toImageURL('png').then(u => { window.png = u.slice(0, 22); })"""
    result = """{menu: [...fig.querySelectorAll('.vega-actions a')].map(a => a.textContent),
             links: [...fig.querySelectorAll('.vega-actions a')].map(a => a.getAttribute('href') || ''),
             svg: window.svg || '', png: window.png || ''}"""
    got = drive(standalone(tmp_path, bars()), action, result)
    assert got["menu"] == ["Save as SVG", "Save as PNG"]
    assert not any(link.startswith("http") for link in got["links"])
    assert got["png"] == "data:image/png;base64,"
    texts = {t.text for t in ET.fromstring(got["svg"]).iter() if t.tag.endswith("text")}
    assert {oracle.clean(s) for s in HOSTILE} <= texts


@needs_chromium
def test_a_time_series_point_names_its_full_timestamp_offline(tmp_path, monkeypatch):
    """Hovering a line over time names the sample under the pointer (a hidden point per sample carries
    the tooltip) with its date and clock time, each entry titled by its label and rounded."""
    monkeypatch.delenv(interactive.ENV, raising=False)
    ts = pd.date_range("2024-01-01 10:11:12", periods=5, freq="s")
    d = pd.DataFrame({"ts": ts, "iops": [1000.123456, 1500.5, 1200.0, 900.25, 1100.0], "system": "A"})
    chart = (
        alt.Chart(d)
        .mark_line()
        .encode(x=alt.X("ts:T"), y=alt.Y("iops:Q"), color="system:N", tooltip=page.tooltips("system", "ts", "iops"))
    )
    hover = """const el = fig.querySelectorAll('.iolab-vega .mark-symbol path')[2], r = el.getBoundingClientRect();
    for (const type of ['pointermove', 'mousemove'])
      el.dispatchEvent(new MouseEvent(type, {bubbles: true, clientX: r.x + r.width / 2, clientY: r.y + r.height / 2,
        view: window}))"""
    result = "(document.getElementById('vg-tooltip-element') || {}).innerText || ''"
    shown = drive(standalone(tmp_path, chart), hover, result)
    assert shown.split() == ["system", "A", "time", "2024-01-01", "10:11:14", "IO/s", "1,200"], shown
    (spec,) = [oracle.charts(standalone(tmp_path, chart).read_text())[0][0].spec]
    assert spec["mark"]["point"] == interactive.HOVER_POINTS  # live only: the picture draws no point
