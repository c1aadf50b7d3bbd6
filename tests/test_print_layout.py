"""The print edition as a customer reads it (issue 43, point 1): tables without columns that are empty
in every row (said once under the table), names of 44 characters kept on one line, figures whose
parts show their legend once, axis titles wrapped rather than cut, small charts drawn to the page,
scales of facets shared where they compare like with like (said on the figure where they do not), and
the verdicts' grey bars outlined dark. Charts are drawn with vl-convert (no browser)."""

from __future__ import annotations

import re

from ingest.reports import pdf, print_tables

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
