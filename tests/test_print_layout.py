"""The print edition as a customer reads it (issue 43, point 1): tables without columns that are empty
in every row (said once under the table), names of 44 characters kept on one line, figures whose
parts show their legend once, axis titles wrapped rather than cut, small charts drawn to the page,
scales of facets shared where they compare like with like (said on the figure where they do not), and
the verdicts' grey bars outlined dark. Charts are drawn with vl-convert (no browser)."""

from __future__ import annotations

import base64
import html
import re

import altair as alt
import pandas as pd
import polars as pl

from iolab.reports import pdf, pictures, print_bands, print_fit, print_tables, printed
from iolab.reports.tables import figure_html
from tests.test_print_figures import recording

HOSTILE = '=HYPERLINK("http://example.invalid","Omega")'  # 44 characters, as tests/studies.py names Omega


def matched(rows: list[list[str]]) -> str:
    heads = ["system", "workload", "config", "raid level", "value", "ci95 low pct", "verdict"]
    head = "".join(f"<th>{h}</th>" for h in heads)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def test_columns_empty_in_every_row_are_left_out_and_said_once():
    table = matched(
        [
            [
                "=HYPERLINK(&quot;http://example.invalid&quot;,&quot;Omega&quot;)",
                "8 KiB write, QD 1",
                "",
                "",
                "658.0",
                "",
                "single run",
            ],
            ["Acme &lt;b&gt;", "8 KiB write, QD 2", "", " ", "1,379", "<span></span>", "single run"],
        ]
    )
    out = print_tables.whole_names(table)
    heads = re.findall(r"<th>([^<]*)</th>", out)
    assert heads == ["system", "workload", "value", "verdict"]
    assert [len(re.findall(r"<td", r)) for r in re.findall(r"<tr>(.*?)</tr>", out)[1:]] == [4, 4]
    assert out.endswith(
        '</table><p class="left-out">columns empty in every row shown are left out: config, raid level, ci95 low pct</p>'
    )
    assert out.count("left out") == 1
    assert '<td class="whole">=HYPERLINK(&quot;http://example.invalid&quot;,&quot;Omega&quot;)</td>' in out
    assert len(HOSTILE) == 44 <= print_tables.WHOLE  # a name of 44 characters is never wrapped on paper
    css = pdf.print_css()
    assert ".iolab p.left-out, p.left-out { color: #555; font-size: 12px;" in css


def test_a_head_cell_with_a_class_counts_as_a_column():
    """The appendix's file table heads its number columns <th class="num">: every head cell is a
    column, so an empty column after one is named right, and the names stay on their own columns
    (the print edition of a study whose files state no tool version and no lines failed on it)."""
    head = '<th>file</th><th class="num">bytes</th><th>system</th><th>tool version</th>'
    row = '<td>a/b.csv</td><td class="num">2,149</td><td>Acme &lt;b&gt;</td><td></td>'
    table = f"<table><thead><tr>{head}</tr></thead><tbody><tr>{row}</tr><tr>{row}</tr></tbody></table>"
    out = print_tables.whole_names(table)
    assert out.endswith('<p class="left-out">columns empty in every row shown are left out: tool version</p>')
    assert '<td class="whole">Acme &lt;b&gt;</td>' in out  # "system" is a name column: kept whole


def test_a_table_with_a_value_in_every_column_keeps_them_all():
    table = matched([["A", "w", "c1", "", "1.0", "", "better"], ["B", "w", "", "RAID 5", "2.0", "3", "worse"]])
    out = print_tables.whole_names(table)
    assert len(re.findall(r"<th>", out)) == 7 and "left-out" not in out


def test_a_table_of_empty_cells_only_or_without_rows_is_left_as_it_is():
    empty = matched([["", "", "", "", "", "", ""]])
    assert "left-out" not in print_tables.whole_names(empty)
    assert len(re.findall(r"<th>", print_tables.whole_names(empty))) == 7
    head_only = "<table><thead><tr><th>system</th><th>config</th></tr></thead><tbody></tbody></table>"
    assert print_tables.whole_names(head_only) == head_only


def side_by_side(bands: int, systems: int = 4) -> dict:
    """Bars of ``systems`` systems side by side per workload, legend under the plot (the overview's)."""
    rows = [
        {"workload": f"w{b:02d}", "system": f"system {s}", "iops": 1000.0 * (b + 1) + s}
        for b in range(bands)
        for s in range(systems)
    ]
    legend = {"orient": "bottom", "columns": 1}
    return (
        alt.Chart(pd.DataFrame(rows))
        .mark_bar()
        .encode(
            y=alt.Y("workload:N", sort="-x"),
            x="iops:Q",
            yOffset="system:N",
            color=alt.Color("system:N", legend=alt.Legend(**legend)),
        )
        .properties(width=560, title="Headline IO/s per workload and system")
        .to_dict()
    )


def test_twelve_workloads_of_four_systems_side_by_side_take_one_page_not_three():
    """48 bars at 14 px and the legend under them were 1,011 px: three pages of 4-5 workloads. On
    one page: the legend beside the plot and thinner bars (the first step of 12, 10, 8 px that fits)."""
    drawn, render = recording()
    (svg,) = printed.print_svgs(side_by_side(12), render)
    assert printed.fits(svg) and svg.count('role-legend"') == 1
    last = drawn[-1]
    assert last["height"]["step"] in (12, 10, print_bands.THINNEST)
    assert last["encoding"]["color"]["legend"]["orient"] == "right"
    assert all(f"w{b:02d}" in svg for b in range(12))


def test_bars_side_by_side_too_many_for_one_page_keep_every_slot_in_every_part():
    """Thirty workloads of four systems do not fit at 8 px: parts of whole bands, every part's
    offset scale the four systems (a part of one system's bands keeps its bars as thin)."""
    drawn, render = recording()
    svgs = printed.print_svgs(side_by_side(30), render)
    assert len(svgs) >= 2 and all(printed.fits(s) for s in svgs)
    labels = [re.findall(r">(w\d\d)</text>", svg) for svg in svgs]
    assert sorted(sum(labels, [])) == [f"w{b:02d}" for b in range(30)]  # each workload once, whole
    parts = [p for p in drawn if p.get("transform")]
    assert parts and all(
        p["encoding"]["yOffset"]["scale"]["domain"] == [f"system {s}" for s in range(4)] for p in parts
    )
    assert [s.count('role-legend"') for s in svgs] == [1] * len(svgs)  # the legend on every part
    bands = [len(b) for b in labels]
    assert max(bands) - min(bands) <= 1  # parts as even as the page allows: none of a few bars alone


def test_a_facets_x_title_is_wrapped_onto_lines_as_wide_as_its_plot_not_cut():
    """'outstanding I/Os (queue depth x workers), log2' under plots of 300 px ended 'x wor…'."""
    title = "outstanding I/Os (queue depth x workers), log2"
    spec = alt.Chart(facets_data(6)).mark_line().encode(x=alt.X("load:Q", title=title), y="iops:Q")
    spec = spec.properties(width=240, height=150).facet(facet="workload:N", columns=3).to_dict()
    (svg,) = printed.print_svgs(spec)
    assert "…" not in svg and "wor…" not in svg
    assert print_fit.lines(title, 240) == ["outstanding I/Os (queue depth", "x workers), log2"]
    assert print_fit.lines("IO/s", 240) == "IO/s"  # a title that fits stays one line
    shown = re.findall(r"<text[^>]*>((?:<tspan[^>]*>[^<]*</tspan>)+)</text>", svg)
    said = [" ".join(re.findall(r">([^<]*)</tspan>", s)) for s in shown]
    titles = [s for s in said if s.startswith("outstanding")]  # under each panel of the bottom row
    assert len(titles) >= 3 and set(titles) == {title}  # whole, on lines


def facets_data(n: int, scale=lambda i: 1.0) -> pd.DataFrame:
    rows = [{"workload": f"w{i}", "load": x, "iops": 100.0 * x * scale(i)} for i in range(n) for x in (1, 2, 4, 8)]
    return pd.DataFrame(rows)


def own_scales(scale) -> dict:
    chart = alt.Chart(facets_data(4, scale)).mark_line().encode(x="load:Q", y="iops:Q", color="workload:N")
    chart = chart.properties(width=300, height=200).facet(facet="workload:N", columns=2)
    return chart.properties(title="IO/s per panel").resolve_scale(y="independent").to_dict()


def test_panels_of_comparable_values_share_one_y_scale_on_paper():
    """Largest values 800 to 1,400 (under 4 times apart): one y scale, 0 to 1,400, over every panel."""
    out = print_fit.facet_scales(own_scales(lambda i: 1.0 + 0.25 * i), "workload")
    assert out["resolve"]["scale"]["y"] == "shared"
    assert out["spec"]["encoding"]["y"]["scale"]["domain"] == [0, 1400.0]
    assert out["title"] == "IO/s per panel"  # nothing to say


def test_panels_far_apart_keep_their_own_scale_and_the_figure_says_so():
    """Largest values 800 and 800,000: a shared scale would draw three panels flat."""
    out = print_fit.facet_scales(own_scales(lambda i: 1000.0 if i == 3 else 1.0), "workload")
    assert out["resolve"]["scale"]["y"] == "independent"
    assert out["title"] == {"text": "IO/s per panel", "subtitle": "each panel has its own y scale: read its own axis"}
    (svg,) = printed.print_svgs(own_scales(lambda i: 1000.0 if i == 3 else 1.0))
    assert "each panel has its own y scale: read its own axis" in svg


def test_a_figure_continued_shows_its_legend_on_every_page():
    """A reader of page 3 of a figure reads its colours there (issue 56: the legend was on the first
    page only, the others said so)."""
    page = figure_html(side_by_side(30), pictures.draw(side_by_side(30)), "Bars", "")
    figures = re.findall(r"<figure\b[^>]*>.*?</figure>", printed.print_figures(page), re.S)
    assert len(figures) >= 2
    svgs = [[base64.b64decode(m).decode() for m in re.findall(r"base64,([^\"]+)\"", f)][0] for f in figures]
    assert [s.count('role-legend"') for s in svgs] == [1] * len(figures)
    assert "on the first page" not in printed.print_figures(page) and "legend-note" not in pdf.print_css()


def test_a_single_small_panel_is_drawn_larger_up_to_the_page():
    """The latency-percentile chart of one panel (320 x 220 px) sat small in a page of white."""
    chart = alt.Chart(facets_data(1)).mark_line(point=True).encode(x="load:Q", y="iops:Q")
    spec = chart.properties(width=320, height=220).facet(facet="workload:N", columns=2).to_dict()
    drawn, render = recording()
    (svg,) = printed.print_svgs(spec, render)
    w, h = printed.svg_size(svg)
    assert printed.fits(svg) and w > printed.PAGE_WIDTH * 0.5 and h > printed.FIGURE_HEIGHT * 0.75
    last = drawn[-1]["spec"]
    assert 320 * 1.5 < last["width"] <= 320 * print_fit.GROW and 220 * 1.5 < last["height"] <= 220 * print_fit.GROW


def test_bars_are_outlined_dark_with_a_gap_between_them_on_paper():
    assert printed.THEME["bar"] == {"stroke": "#222222", "strokeWidth": 1}
    assert printed.THEME["scale"] == {"bandPaddingInner": 0.25}


def test_a_figure_continued_is_cut_into_even_parts():
    """The per-drive chart's 47 bars were 40 on a page and 7 alone at the top of the next (issue 56):
    parts as even as a page's worth allows. Drawn here by a stand-in measuring 250 px a row of three
    panels (a plot 200 px high and 50 px of axis) and 120 px the legend: two rows a page (plots drawn
    lower), 9 panels as 5 and 4, not 6 and 3."""
    assert [printed.even(47, 40), printed.even(12, 4), printed.even(9, 6), printed.even(3, 8)] == [24, 4, 5, 3]
    chart = alt.Chart(facets_data(9)).mark_line().encode(x="load:Q", y="iops:Q", color="workload:N")
    spec = chart.properties(width=300, height=200).facet(facet="workload:N", columns=3).to_dict()
    drawn: list[int] = []

    def measure(part: dict) -> str:
        panels = len(part["transform"][0]["filter"]["oneOf"])
        drawn.append(panels)
        legend = 120 * (part["spec"]["encoding"]["color"].get("legend", {}) is not None)
        rows = -(-panels // part["columns"]) * (part["spec"]["height"] + 50)
        return f'<svg width="{300 * min(panels, part["columns"])}" height="{rows + legend}"></svg>'

    svgs = printed.split_facets(spec, measure)
    assert svgs is not None and len(svgs) == 2 and drawn[-2:] == [5, 4]


def test_a_column_of_short_texts_is_never_broken_over_two_lines():
    """Run keys 's1/r57' and match rules 'sidecar:glob' were set over two lines ('s1/' 'r57')."""
    table = (
        "<table><thead><tr><th>run key</th><th>match rule</th><th>reason</th></tr></thead><tbody>"
        "<tr><td>s1/r57</td><td>sidecar:glob</td><td>no point of the baseline at this load</td></tr>"
        "<tr><td>1:1:random-read</td><td>sidecar:exact</td><td>x</td></tr></tbody></table>"
    )
    out = print_tables.whole_names(table)
    assert print_tables.short_columns(table) == {0, 1}
    assert '<td class="whole">s1/r57</td><td class="whole">sidecar:glob</td>' in out
    assert '<td class="whole">1:1:random-read</td>' in out
    assert "<td>no point of the baseline at this load</td>" in out  # longer text wraps at its spaces


def test_a_path_takes_two_lines_at_most_its_column_as_wide_as_that_needs():
    """The per-run table's paths (62 characters) took 4 lines in a narrow column: 12 rows a page. A
    path's column is now as wide as its two most even lines: 'four-systems/omega/derived-x0.8-' (32
    characters, the longer) and 'sqlserverio__iometeroutput.csv' (30)."""
    path = "four-systems/omega/derived-x0.8-sqlserverio__iometeroutput.csv"
    assert print_tables.two_lines(path) == 33  # the longer line and a character to spare
    assert print_tables.two_lines("fio/randread-1-1.json") == 14  # 'fio/randread-' | '1-1.json'
    assert print_tables.two_lines("a/" + "b" * 80) == print_tables.PATH_MOST  # never wider than that
    table = (
        "<table><thead><tr><th>run key</th><th>source path</th></tr></thead><tbody>"
        f"<tr><td>s1/r57</td><td>{path}</td></tr><tr><td>s1/r58</td><td>a&amp;b/c.csv</td></tr></tbody></table>"
    )
    out = print_tables.whole_names(table)
    assert '<td class="path" style="--two-lines: 33ch">four-<wbr>systems/<wbr>omega/<wbr>' in out
    assert '<td class="path" style="--two-lines: 6ch">a&amp;b/<wbr>c.csv</td>' in out  # 'a&b/' | 'c.csv'
    # on a report page only: the appendix's file table (no .iolab) wraps its other columns instead
    assert ".iolab td.path { min-width: var(--two-lines); }" in pdf.print_css()


def per_drive(n: int = 24) -> dict:
    """The per-drive chart of a page: one bar per run labelled by its system, workload, drives, file
    and run key (over 80 characters), cut for the screen's axis (page.screen_labels)."""
    from iolab.reports import page

    runs = [f"{HOSTILE} · 8 KiB sequential read, QD {q} · 1 drives · randread-{q}-1.json s1/r{q}" for q in range(n)]
    d = pl.DataFrame({"run": runs, "iops_per_drive": [100.0 * q for q in range(n)]})
    d, label = page.screen_labels(d, "run")
    chart = page.whole_labels(alt.Chart(d), **{label: "run"}).mark_bar()
    y = alt.Y(f"{label}:N", sort="-x", title=None, axis=alt.Axis(labelLimit=0))
    return chart.encode(x="iops_per_drive:Q", y=y, tooltip=["run"]).properties(width=520).to_dict()


def test_a_label_cut_on_screen_is_whole_in_the_data_and_printed_whole_on_two_lines():
    spec = per_drive()
    rows = print_bands.rows_of(spec)
    whole = f"{HOSTILE} · 8 KiB sequential read, QD 23 · 1 drives · randread-23-1.json s1/r23"
    assert len(whole) == 114 and whole in [r["run"] for r in rows]  # whole in the data: the tooltip shows it
    assert whole[:79] + "…" in [r["run_shown"] for r in rows]  # the screen's axis: 80 characters
    assert spec["encoding"]["y"]["field"] == "run_shown" and spec["encoding"]["tooltip"][0]["field"] == "run"
    svgs = printed.print_svgs(spec)
    text = "".join(svgs)
    assert "…" not in text
    lines = re.findall(r"<tspan[^>]*>([^<]*)</tspan>", text)
    assert f"{lines[0]} {lines[1]}" == whole  # the highest bar first, whole
    assert lines[:2] == [
        '=HYPERLINK("http://example.invalid","Omega") ·',  # broken after a part, where the next fits a line
        "8 KiB sequential read, QD 23 · 1 drives · randread-23-1.json s1/r23",
    ]
    assert len(lines) == 2 * 24 and all(printed.fits(s) for s in svgs)


def test_a_long_panel_header_is_set_on_lines_as_wide_as_its_plot():
    """The scaling curves' headers ("OLTP (100% random, 67% read) · All Caches Disabled RAID-10 16
    KiB", 420 px) made each panel that wide: two a row, four a page, 12 panels on 3 pages. Set on
    lines as wide as the plot, six panels of 250 px take one page."""
    names = [f"OLTP (100% random, 67% read) · All Caches Disabled RAID-10 {k} KiB" for k in (4, 8, 16, 32, 64, 128)]
    d = pl.DataFrame({"w": [n for n in names for _ in range(3)], "x": [1, 2, 3] * 6, "y": [1.0, 2, 3] * 6})
    chart = alt.Chart(d).mark_line().encode(x="x:Q", y="y:Q").properties(width=250, height=180)
    (svg,) = printed.print_svgs(chart.facet(facet="w:N", columns=2).to_dict())
    lines = re.findall(r"<tspan[^>]*>([^<]*)</tspan>", svg)
    assert lines[:2] == ["OLTP (100% random, 67% read) · All", "Caches Disabled RAID-10 128 KiB"]
    assert len(lines) == 12 and printed.fits(svg)  # every header whole, on two lines
    short = alt.Chart(d.with_columns(w=pl.lit("4 KiB"))).mark_line().encode(x="x:Q", y="y:Q")
    spec = printed.themed(short.properties(width=250).facet(facet="w:N").to_dict())
    assert "labelExpr" not in (spec["facet"].get("header") or {})  # a header that fits stays as it is


def test_whole_labels_of_panels_with_their_own_step_are_as_tall_as_their_lines():
    """The comparison's panels set their bands' step (12 px): labels of two lines overlapped their
    neighbours' on paper. Each band is now as tall as its label's lines."""
    spec = per_drive(3)
    spec["height"] = {"step": 12}
    out = printed.themed(spec)
    assert out["height"] == {"step": 2 * 13 + 2}  # two lines of 13 px and 2 to spare


def test_a_word_with_a_hyphen_is_never_broken_at_it():
    """'All Caches Disabled RAID-|10 16 KiB': Chromium breaks a line after a hyphen. A word with one
    is kept on one line (the text unchanged: search and copy find RAID-10), a path still breaks."""
    table = (
        "<table><thead><tr><th>configuration</th><th>reason</th></tr></thead><tbody>"
        "<tr><td>All Caches Disabled RAID-10 16 KiB with a name longer than forty-eight characters</td>"
        "<td>another configuration: RAID-5 of D3-S4610 drives</td></tr></tbody></table>"
    )
    out = print_tables.whole_names(table)
    assert "RAID-10" not in re.sub(r'<span class="nw">RAID-10</span>', "", out)
    assert '<span class="nw">RAID-5</span> of <span class="nw">D3-S4610</span> drives' in out
    assert ".iolab td.whole, td.whole, .iolab span.nw { white-space: nowrap; }" in pdf.print_css()
    assert print_tables._joined("a-<wbr>b/<wbr>c-d") == "a-<wbr>b/<wbr>c-d"  # a path's breaks stay


def test_a_long_reason_repeated_over_runs_of_rows_heads_them_once():
    """The ds4300 study's 'points without a match': a reason of 100 characters in each of its 50 rows
    took most of the page's width and made every row three lines (17 rows a page). On paper it heads
    each run of rows that share it, once; the rows keep their order and every other cell."""
    why = ["the baseline (IBM FAStT200 (dual controllers)) has no point at this workload, load and metric"] * 6
    why += ["another configuration, drive count or split of the load of IBM DS4300 was compared here"] * 6
    rows = [["system", f"IBM DS4300 &lt;{i}&gt;", f"{4 << i} KiB", why[i]] for i in range(12)]
    head = "".join(f"<th>{h}</th>" for h in ("side", "system", "workload", "reason"))
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    out = print_tables.whole_names(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
    assert re.findall(r"<th>([^<]*)</th>", out) == ["side", "system", "workload"]
    groups = re.findall(r'<tr class="group"><td colspan="3">(.*?)</td></tr>', out)
    assert groups == [f"reason: {why[0]}", f"reason: {why[6]}"]
    # each heading stands right above the first row of its run, and no row lost a cell or its order
    assert re.findall(r"IBM DS4300 &lt;(\d+)&gt;", out) == [str(i) for i in range(12)]
    assert out.index(groups[1]) < out.index("IBM DS4300 &lt;6&gt;") and out.index(groups[1]) > out.index("&lt;5&gt;")
    assert [len(re.findall(r"<td", r)) for r in re.findall(r"<tr>(.*?)</tr>", out)[1:]] == [3] * 12
    assert ".iolab tr.group { break-after: avoid;" in pdf.print_css()


def test_a_reason_that_changes_every_few_rows_stays_a_column():
    """A text that changes from row to row (on average every 3 rows or sooner) would head nearly every
    row: it stays in its column. So does a table too short to gain from it."""
    texts = [f"reason number {i // 2} of a list of reasons longer than forty characters" for i in range(12)]
    rows = "".join(f"<tr><td>s{i}</td><td>w{i}</td><td>{t}</td></tr>" for i, t in enumerate(texts))
    table = (
        f"<table><thead><tr><th>system</th><th>workload</th><th>reason</th></tr></thead><tbody>{rows}</tbody></table>"
    )
    assert print_tables.grouped_column(table, ["system", "workload", "reason"]) is None
    assert 'class="group"' not in print_tables.whole_names(table)
    short = table.replace(rows, rows[: rows.index("<tr><td>s4<")])
    assert print_tables.grouped_column(short, ["system", "workload", "reason"]) is None


def test_a_path_wraps_over_more_lines_where_its_two_lines_leave_no_room():
    """The esg study's per-run table (15 columns, a 90-character path): with the path held to two lines
    no plan fitted the page, and Chromium squeezed the system's name to 8 characters a line. The path
    now wraps over as many lines as the row takes (no two-line minimum), and the table keeps its plan."""
    heads = ["system", "workload", "run", "tool", "RAID level", "configuration", "volume", "drives"]
    heads += ["where the drives are stated", "how the points were matched", "IO/s", "IO/s per drive", "MB/s"]
    heads += ["MB/s per drive", "file"]
    path = "samples/esg-ds5020-2009/Performance_2009_10_16_11_49_42_RECONSTRUCTED-esg-ds5020-js01.html"
    cells = ["IBM DS5020 Express (112 x 15K FC)", "Iometer large sequential read characterization", "Performance"]
    cells += ["Jetstress", "10", "4-tile VMware mixed workload", "JS_01"]
    numbers = ["8", "declared", "sidecar:exact", "1,101", "137.6", "3,100", "27.7"]
    row = "".join(f"<td>{c}</td>" for c in cells) + '<td class="num">8</td>'
    row += "".join(f"<td>{c}</td>" for c in numbers[1:3]) + "".join(f'<td class="num">{c}</td>' for c in numbers[3:])
    row += f"<td>{path}</td>"
    head = "".join(f"<th>{h}</th>" for h in heads)
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{f'<tr>{row}</tr>' * 3}</tbody></table>"
    out = print_tables.whole_names(table)
    shares = [float(w) for w in re.findall(r'<col style="width: ([\d.]+)%">', out)]
    assert len(shares) == len(heads) and abs(sum(shares) - 100) < 1
    assert '<td class="path">samples/<wbr>esg-<wbr>' in out and "--two-lines" not in out
    assert print_tables._words(path) == len("RECONSTRUCTED-") and "Performance_<wbr>2009_<wbr>" in out


def test_a_name_repeated_over_runs_of_rows_stays_in_every_row():
    """The appendix's run table lists every run with its system (a 44-character name, the same over
    64 rows): a name is never lifted into a heading, so a row carries it on every page it lands on."""
    name = '=HYPERLINK("http://example.invalid","Omega")'
    rows = "".join(f"<tr><td>{i}</td><td>{html.escape(name)}</td><td>4 KiB random read</td></tr>" for i in range(64))
    table = f"<table><thead><tr><th>#</th><th>system</th><th>workload</th></tr></thead><tbody>{rows}</tbody></table>"
    assert print_tables.grouped_column(table, ["#", "system", "workload"]) is None
    assert print_tables.whole_names(table).count(html.escape(name)) == 64
