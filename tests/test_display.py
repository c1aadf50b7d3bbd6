"""The one display layer (iolab.display, issue 56): every metric and view column a human label with its
unit, every number a format fitted to its column, a value that fails a bound never printed as the
bound, every dimension in numeric order; and the chart pass (iolab.reports.chart_words) that puts
them into every chart's spec: titles, tooltip titles and formats, orders."""

from __future__ import annotations

import math
import re

import pytest
import vl_convert
from hypothesis import given
from hypothesis import strategies as st

from iolab import db, display
from iolab.reports import chart_words, tables
from iolab.vocabulary import METRICS

LABELS = [
    ("avg_latency_ms", "average latency (ms)"),
    ("p99_9_read_clat_ms", "p99.9 read completion latency (ms)"),
    ("iops", "IO/s"),
    ("read_mbps", "read MB/s"),
    ("cpu_util_pct", "CPU utilisation (%)"),
    ("transactions_per_s", "transactions per second"),
    ("davg_ms_avg", "average DAVG (ms)"),
    ("workload_label", "workload"),
    ("config_label", "configuration"),
    ("raid_level", "RAID level"),
    ("run_key", "run"),
    ("iops_per_drive", "IO/s per drive"),
    ("baseline_value", "baseline's value"),
    ("pct_better", "% better"),
    ("ci95_low_pct", "95 % interval, low (%)"),
    ("n_baseline", "baseline's runs"),
    ("line_no", "line"),
    ("source_sha256", "file's SHA-256"),
]


@pytest.mark.parametrize(("name", "said"), LABELS)
def test_names_read_as_a_person_says_them(name, said):
    assert display.label(name) == said


def test_every_metric_and_view_column_has_a_label_without_an_identifier(tmp_path):
    con = db.open_db(tmp_path / "x.duckdb")
    cols = {
        c for (c,) in con.execute("SELECT DISTINCT column_name FROM duckdb_columns() WHERE NOT internal").fetchall()
    }
    con.close()
    for name in {*METRICS, *cols}:
        said = display.label(name)
        assert said and "_" not in said, (name, said)
    # a unit the vocabulary gives a metric is in its label, once
    for m in METRICS.values():
        if m.unit in ("ms", "%", "bytes") and not m.name.endswith("_per_s"):
            assert display.label(m.name).count(m.unit) == 1, m.name


@pytest.mark.parametrize(
    ("values", "places"),
    [([289.405869721, 12.1], 0), ([0.011173, 0.5], 3), ([1.5, 1.5], 2), ([1234.0, 1250.5], 1), ([], 0)],
)
def test_decimals_fit_the_spread_of_a_column(values, places):
    assert display.decimals(values) == places


@pytest.mark.parametrize(
    ("value", "kw", "text"),
    [
        (12345, {}, "12,345"),
        (289.405869721, {"signed": True}, "+289"),
        (0.5, {}, "0.5"),
        (0.011173, {"places": 0}, "0.011"),  # a small number in a column of large ones keeps two digits
        (0.011173, {"places": 2, "bound": 0.01}, "0.011"),
        (0.0104, {"places": 3, "bound": 0.01}, "0.0104"),
        (0.01, {"places": 3, "bound": 0.01}, "0.010"),  # equal to the bound: printed equal
        (None, {}, ""),
        (float("nan"), {}, ""),
        (True, {}, "yes"),
    ],
)
def test_numbers_as_text(value, kw, text):
    assert display.fmt(value, **kw) == text


@given(
    st.floats(min_value=1e-6, max_value=1e6, allow_nan=False),
    st.floats(min_value=1e-6, max_value=1e6, allow_nan=False),
    st.integers(min_value=0, max_value=4),
)
def test_a_value_that_fails_a_bound_never_prints_equal_to_it(value, bound, places):
    if value == bound or abs(value - bound) < 1e-9 * bound:  # closer than any decimals the layer prints
        return
    text = display.fmt(value, places, bound=bound)
    assert float(text.replace(",", "")) != float(f"{bound:.{len(text.partition('.')[2])}f}"), (value, bound, text)


def test_the_sla_table_prints_a_failing_p99_apart_from_its_bound():
    import polars as pl

    t = pl.DataFrame({"fail_latency_ms": [0.011173, 2.5], "hold_latency_ms": [0.009, 0.0099]})
    page = tables.table_html(t, bounds={"fail_latency_ms": 0.01, "hold_latency_ms": 0.01})
    cells = re.findall(r'<td class="num">([^<]*)</td>', page)
    assert cells[0] != "0.01" and float(cells[0]) > 0.01 and cells[0] == "0.011"
    assert "<th>latency where it fails (ms)</th>" in page


@pytest.mark.parametrize(
    ("given_", "ordered"),
    [
        (["16 KiB", "32 KiB", "4 KiB", "512 B"], ["512 B", "4 KiB", "16 KiB", "32 KiB"]),
        (["QD 16", "QD 2", "QD 128"], ["QD 2", "QD 16", "QD 128"]),
        (
            ["8 KiB random read, QD 16", "8 KiB random read, QD 2", "64 KiB seq read, QD 1"],
            ["8 KiB random read, QD 2", "8 KiB random read, QD 16", "64 KiB seq read, QD 1"],
        ),
        ([1.0, None, 0.5], [0.5, 1.0, None]),
    ],
)
def test_dimensions_in_numeric_order(given_, ordered):
    assert display.ordered(given_) == ordered


@given(st.lists(st.integers(min_value=0, max_value=10**6), min_size=1, max_size=20))
def test_sizes_order_as_their_bytes(sizes):
    def said(n: int) -> str:
        return f"{n // 1024} KiB" if n % 1024 == 0 and n else f"{n} B"

    assert [display.order_key(said(n)) for n in sorted(set(sizes))] == sorted(
        display.order_key(said(n)) for n in set(sizes)
    )


def bars(rows: list[dict], **extra) -> dict:
    return {
        "data": {"values": rows},
        "mark": "bar",
        "encoding": {
            "x": {"field": "pct_better", "type": "quantitative"},
            "y": {"field": "workload_label", "type": "nominal"},
            "tooltip": [
                {"field": "raid_level", "type": "nominal"},
                {"field": "pct_better", "type": "quantitative"},
                {"field": "ci95_low_pct", "type": "quantitative"},
                {"field": "ts", "type": "temporal"},
            ],
            **extra,
        },
    }


ROWS = [
    {"workload_label": "16 KiB read", "pct_better": 289.405869721, "raid_level": "5", "ci95_low_pct": None, "ts": "2024-03-01T10:11:12"},
    {"workload_label": "4 KiB read", "pct_better": 12.25, "raid_level": "10", "ci95_low_pct": 3.5, "ts": "2024-03-01T10:11:13"},
]  # fmt: skip


def test_a_chart_takes_labels_formats_and_orders_from_the_display_layer():
    spec = chart_words.words(bars(ROWS))
    enc = spec["encoding"]
    assert enc["x"]["title"] == "% better" and enc["y"]["title"] == "workload"
    assert enc["y"]["sort"] == ["4 KiB read", "16 KiB read"]
    tips = {t["title"]: t for t in enc["tooltip"]}
    assert set(tips) == {"RAID level", "% better", "95 % interval, low (%)", "time"}
    assert tips["% better"]["format"] == ",.0~f"
    assert tips["time"]["format"] == display.TIMESTAMP
    # a field holding a null shows "none", never the 0 that Vega's format makes of a null
    view = vl_convert.vegalite_to_vega(spec)
    tooltip = view["marks"][0]["encode"]["update"]["tooltip"]["signal"]
    assert "iolab_shown_ci95_low_pct" in tooltip and "'none'" in spec["transform"][0]["calculate"]


def test_a_chart_s_own_title_format_and_order_are_kept():
    own = bars(ROWS, color={"field": "raid_level", "type": "nominal", "title": "RAID", "sort": ["5", "10"]})
    own["encoding"]["tooltip"][1]["format"] = ".3f"
    spec = chart_words.words(own)
    assert spec["encoding"]["color"] == {"field": "raid_level", "type": "nominal", "title": "RAID", "sort": ["5", "10"]}
    assert spec["encoding"]["tooltip"][1]["format"] == ".3f"


def test_the_chart_pass_is_drawn_by_vega_whatever_the_data():
    svg = vl_convert.vegalite_to_svg(chart_words.words(bars(ROWS)))
    assert "% better" in svg and "pct_better" not in svg and "workload_label" not in svg
    assert not math.isnan(display.decimals([1e300, -1e300]))


def test_facets_and_tables_keep_their_numeric_order():
    import polars as pl

    from iolab.reports import page

    rows = [{"workload": w, "iops": 1.0} for w in ("16 KiB", "32 KiB", "4 KiB", "512 B")]
    spec = chart_words.words(
        {"data": {"values": rows}, "facet": {"field": "workload", "type": "nominal"}, "spec": {"mark": "bar"}}
    )
    assert spec["facet"]["sort"] == ["512 B", "4 KiB", "16 KiB", "32 KiB"]
    assert spec["facet"]["title"] == "workload"
    svg = vl_convert.vegalite_to_svg(
        {**spec, "spec": {"mark": "bar", "encoding": {"x": {"field": "iops", "type": "quantitative"}}}}
    )
    assert [svg.index(f">{w}<") for w in spec["facet"]["sort"]] == sorted(
        svg.index(f">{w}<") for w in spec["facet"]["sort"]
    )
    t = pl.DataFrame(
        {"system": ["B", "A", "A", "A"], "workload": ["4 KiB", "16 KiB", "512 B", "4 KiB"], "n": [1, 2, 3, 4]}
    )
    assert page.in_order(t, "system", "workload").rows() == [
        ("A", "512 B", 3), ("A", "4 KiB", 4), ("A", "16 KiB", 2), ("B", "4 KiB", 1),
    ]  # fmt: skip


def test_a_verdict_s_value_never_prints_as_its_own_row_s_threshold():
    import polars as pl

    t = pl.DataFrame({"value": [0.0102, 5.0, 0.5], "threshold": [0.01, 5.0, 20.0]})
    cells = re.findall(r"<td[^>]*>(.*?)</td>", tables.table_html(t, bounds={"value": "threshold"}))
    assert cells[0::2] == ["0.0102", "5.00", "0.50"]  # 0.010 would read as its bound; 5.0 is its bound
