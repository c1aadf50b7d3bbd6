"""The comparison page shows each point's runs, 95 % interval and verdict, and never draws a
difference inside the noise as a win; the comparison and scaling pages show the SLA headline of a
study that declares a bound.

The study is tests/test_comparison_noise's: repeats of the real Iometer sweep
tests/corpus/iometer/sqlserverio__iometeroutput.csv scaled by factors of known spread (fixed seeds):
Close 1 % from the baseline with 5 % noise, Far 50 % above it, Once a single run; its sidecar declares
sla = "mean<=5ms".
"""

from __future__ import annotations

import html
import re

import polars as pl
import pytest

from iolab import batch, db
from iolab.reports import headline, oracle, render, tables
from tests.test_comparison_noise import factors, noisy_study

STUDY = "noise"


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    root = tmp_path_factory.mktemp("cmp")
    study = noisy_study(
        root / "data",
        {
            "Base": factors(1.0, 3, seed=1),
            "Close": factors(1.01, 3, seed=2),
            "Far": factors(1.5, 3, seed=3),
            "Once": [1.5],
        },
    )
    (study / "iolab.toml").write_text('study = "noise"\nbaseline = "Base"\nsla = "mean<=5ms"\n')
    dbf = root / "n.duckdb"
    con = db.open_db(dbf)
    batch.ingest_paths(con, [study])
    con.close()
    assert render.render(dbf, root / "out", [STUDY]) == 0
    con = db.connect(dbf, read_only=True)
    yield con, root / "out" / STUDY
    con.close()


def text(page) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page.read_text())))


def test_pages_pass_the_oracle(rendered):
    con, out = rendered
    for name in ("03-scaling-curves.html", "05-comparison.html"):
        assert oracle.check_page(out / name, con) == []


def test_a_difference_inside_the_noise_is_never_drawn_as_a_win(rendered):
    con, out = rendered
    charts, _ = oracle.charts((out / "05-comparison.html").read_text())
    iops = next(c for c in charts if c.meta["source"]["where"] == {"metric": "iops"})
    bars, rule = iops.spec["spec"]["layer"]
    scale = bars["encoding"]["color"]["scale"]
    colour = dict(zip(scale["domain"], scale["range"]))
    seen: dict[str, set] = {}
    for row in iops.rows():
        seen.setdefault(row["system"], set()).add(row["verdict"])
    assert seen == {"Close": {"within noise"}, "Far": {"better"}, "Once": {"single run"}}
    assert colour == {
        "better": headline.VERDICTS["better"],
        "within noise": headline.VERDICTS["within noise"],
        "single run": headline.VERDICTS["single run"],
    }
    assert len(set(colour.values())) == 3
    # the interval is drawn: a rule from the low to the high end, outside 0 only for Far
    assert (rule["mark"]["type"], rule["encoding"]["x"]["field"], rule["encoding"]["x2"]["field"]) == (
        "rule",
        "ci95_low_pct",
        "ci95_high_pct",
    )
    for row in iops.rows():
        if row["system"] == "Far":
            assert 0 < row["ci95_low_pct"] < row["pct_better"] < row["ci95_high_pct"]
        elif row["system"] == "Close":
            assert row["ci95_low_pct"] < 0 < row["ci95_high_pct"]
        else:
            assert row["ci95_low_pct"] is None and row["n"] == 1


def _contrast(a: str, b: str) -> float:
    """WCAG 2.1 contrast ratio of two #rrggbb colours."""

    def lum(h: str) -> float:
        c = [int(h[i : i + 2], 16) / 255 for i in (1, 3, 5)]
        c = [x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4 for x in c]
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]

    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_every_verdict_colour_shows_on_paper_and_the_greys_differ():
    """3:1 against white (WCAG 1.4.11, graphical objects); the two greys told apart by eye too."""
    assert _contrast("#ffffff", "#d9d9d9") < 1.5  # the first print edition's single-run grey: the test sees it
    for verdict, colour in headline.VERDICTS.items():
        assert _contrast("#ffffff", colour) >= 3.0, verdict
    assert _contrast(headline.VERDICTS["within noise"], headline.VERDICTS["single run"]) >= 1.5


def test_the_tables_say_runs_interval_and_verdict(rendered):
    _, out = rendered
    t = text(out / "05-comparison.html")
    # headers are the columns' labels (iolab.display), numbers to the decimals their column's spread needs
    head = "baseline's value value baseline's runs runs % better 95 % interval, low (%) 95 % interval, high (%) verdict"
    assert (
        f"Matched points: IO/s; higher is better: % better = value / baseline - 1, the change in the value itself system workload baseline's configuration configuration baseline's RAID level RAID level baseline's drives drives where the baseline's drives are stated where the drives are stated {head}"
        in t
    )
    assert "Close 8 KiB sequential write, QD 1 861 859 3 3 -0.180 % -15.5 % 15.1 % within noise" in t
    # a % better is coloured as a win or a loss only where the verdict says so
    page = (out / "05-comparison.html").read_text()
    rows = re.findall(r"<tr>(.*?)</tr>", page, re.S)
    close = [r for r in rows if "<td>Close</td>" in r and "<td>within noise</td>" in r]
    assert len(close) >= 50  # the first 50 rows of each table are Close's (the download holds all)
    assert not any('class="better"' in r or 'class="worse"' in r for r in close)
    frame = pl.DataFrame(
        {"pct_better": [50.0, -0.2, 300.0, -20.0], "verdict": ["better", "within noise", "single run", "worse"]}
    )
    cells = re.findall(r"<td[^>]*>(.*?)</td>", tables.table_html(frame))
    assert cells[0::2] == [
        '<span class="better">+50 %</span>',  # the column's spread (320) needs no decimals
        "<span>-0.20 %</span>",  # a small one keeps two significant digits
        "<span>+300 %</span>",
        '<span class="worse">-20 %</span>',
    ]
    # the summary counts verdicts: 64 iops points of Close, all within noise
    assert re.search(r"Close IO/s IO/s higher 64 0 0 64 0 ", t), t[t.find("Every compared metric") :][:600]


@pytest.mark.parametrize("page", ["03-scaling-curves.html", "05-comparison.html"])
def test_the_sla_headline_table_is_on_both_pages(rendered, page):
    con, out = rendered
    t = text(out / page)
    assert 'SLA headline, sidecar: sla = "mean<=5ms" (average latency at most 5 ms)' in t
    rows = con.execute(
        """SELECT system, how FROM sla_headline WHERE study = ? AND block_size_bytes = 65536 AND read_pct = 0
           AND random_pct = 100 AND scope = 'all' ORDER BY system""",
        [STUDY],
    ).fetchall()
    assert [s for s, _ in rows] == ["Base", "Close", "Far", "Once"]
    assert "SLA headline: highest load and IO/s where mean<=5ms holds" in t
    for system, how in rows:  # every system's 64 KiB random write curve crosses the bound between two loads
        assert how.startswith("interpolated between load") and f" {system} 64 KiB random write " in t
        assert re.search(
            rf" {system} 64 KiB random write all average latency \(ms\) [\d.,]+ [\d.,]+ {re.escape(how)} ", t
        ), system


def test_no_sla_block_without_a_declared_bound(rendered, monkeypatch):
    con, _ = rendered
    shown = []
    monkeypatch.setattr(headline.r, "note", shown.append)
    monkeypatch.setattr(headline.r, "table", lambda *a, **k: shown.append(a))
    headline.sla_block(con, "a study that declares nothing")
    assert shown == []
    headline.sla_block(con, STUDY)
    assert len(shown) == 2
