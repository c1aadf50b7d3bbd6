"""The print edition as a customer reads it (issue 43, point 1): tables without columns that are empty
in every row (said once under the table), names of 44 characters kept on one line, figures whose
parts show their legend once, axis titles wrapped rather than cut, small charts drawn to the page,
scales of facets shared where they compare like with like (said on the figure where they do not), and
the verdicts' grey bars outlined dark. Charts are drawn with vl-convert (no browser)."""

from __future__ import annotations

import re

import altair as alt
import pandas as pd

from ingest.reports import pdf, print_bands, print_tables, printed
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
    assert [s.count('role-legend"') for s in svgs] == [1] + [0] * (len(svgs) - 1)  # the legend once
