"""The explore page (notebooks/11-explore.py, iolab.reports.explore): every metric of a study among
its choices, labelled from the vocabulary; the table it sends bounded, no number changed; its default
picture true to its view (the chart oracle, which also catches a wrong value in it); in headless
Chromium with the network cut, the selects change what it draws."""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iolab import batch, db
from iolab.reports import check, explore, interactive, oracle, page, plan
from iolab.reports.tables import CSS
from tests.conftest import ROOT
from tests.studies import STUDY, four_systems


def test_a_metric_is_labelled_from_the_vocabulary():
    assert explore.metric_label("iops", "IO/s", "throughput", "higher") == "IO/s: throughput, higher is better"
    assert explore.metric_label("p99_read_latency_ms", "ms", "latency", "lower") == (
        "p99 read latency (ms): latency, lower is better"
    )
    assert explore.metric_label("read_pct_observed", "%", "mix", None) == "read % observed: mix"
    assert explore.metric_label("odd", None, None, None) == "odd"


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=400), min_size=1, max_size=12), st.integers(10, 600))
def test_the_table_sent_is_bounded_and_keeps_every_metric_and_system_unchanged(sizes, limit):
    groups = [(f"m{i % 4}", f"s{i}") for i in range(len(sizes))]
    rows = pl.DataFrame(
        [
            {"metric": m, "unit": "IO/s", "system": s, "value": float(g * 1000 + k)}
            for (m, s), n, g in zip(groups, sizes, range(len(sizes)))
            for k in range(n)
        ]
    )
    kept, said = explore.bounded(rows, limit)
    assert kept.select("metric", "system").unique().height == rows.select("metric", "system").unique().height
    assert set(kept["value"]) <= set(rows["value"])  # none changed, none made up
    if rows.height <= limit:
        assert kept.equals(rows) and said == ""
    else:
        share = max(1, limit // len(groups))
        assert kept.group_by("metric", "system").len()["len"].max() <= share  # type: ignore[operator]
        assert f"{rows.height - kept.height:,} of {rows.height:,} numbers are not on this page" in said


@pytest.fixture(scope="module")
def four(tmp_path_factory):
    d = tmp_path_factory.mktemp("explore")
    dbf = d / "f.duckdb"
    con = db.open_db(dbf)
    batch.ingest_paths(con, [four_systems(d / "data"), ROOT / "data" / "samples" / "esxtop-perfmon-samples"])
    con.close()
    return dbf


@pytest.fixture
def con(four):
    """A connection of each test's own (a fetchone() left unfinished stays in its connection)."""
    c = db.connect(four, read_only=True)
    yield c
    c.close()


def figure_page(tmp_path: Path, con, study: str) -> tuple[Path, explore.Pick, pl.DataFrame]:
    """The explore page's chart as a page carries it (page.figure), alone on a page."""
    table = explore.long_table(con, study)
    rows = table.rows.select(c for c in table.rows.columns if table.rows[c].null_count() < table.rows.height)
    pick = explore.default_pick(rows)
    fig = page.figure(
        explore.chart(rows, pick, page.systems(con, study)),
        "Scatter chart with inputs: any metric of the study against any of its load dimensions, by system.",
        source=explore.source(study, rows, pick),
        left_out=table.cut,
    )
    out = tmp_path / "explore.html"
    out.write_text(interactive.embed(f"<!DOCTYPE html><html><head>{CSS}</head><body>{fig}</body></html>"))
    return out, pick, rows


def test_every_metric_is_a_choice_and_the_default_is_true_to_its_view(con, tmp_path, monkeypatch):
    monkeypatch.delenv(interactive.ENV, raising=False)
    path, pick, _ = figure_page(tmp_path, con, STUDY)
    assert oracle.check_page(path, con) == []
    (chart,), _ = oracle.charts(path.read_text())
    y = next(p for p in chart.spec["params"] if p["name"] == explore.Y)
    every = con.execute("SELECT DISTINCT metric, unit FROM explore_runs WHERE study = ?", [STUDY]).fetchall()
    assert sorted(y["bind"]["options"]) == sorted(f"{m}|{u or ''}" for m, u in every)
    assert "IO/s: throughput, higher is better" in y["bind"]["labels"]
    assert (pick.metric, pick.x) == ("iops", "outstanding_ios")
    # its default picture: the view's iops of every system of the study, with the file and line of each
    drawn = chart.rows()
    ((n,),) = con.execute(
        "SELECT count(*) FROM explore_runs WHERE study = ? AND metric = 'iops' AND outstanding_ios IS NOT NULL", [STUDY]
    ).fetchall()
    assert len(drawn) == n and len({r["system"] for r in drawn}) == 4
    assert all(r["file"] for r in drawn) and any(r.get("line") for r in drawn)


def test_a_wrong_number_in_the_default_picture_is_caught(con, tmp_path, monkeypatch):
    monkeypatch.delenv(interactive.ENV, raising=False)
    path, pick, _ = figure_page(tmp_path, con, STUDY)
    (chart,), _ = oracle.charts(path.read_text())
    record = next(iter(chart.spec["datasets"].values()))[0]
    at = next(i for i, (m, x) in enumerate(zip(record["metric"], record[pick.x])) if m == "iops" and x is not None)
    record["value"][at] *= 1.5
    chart.spec["datasets"] = {k: [record] for k in chart.spec["datasets"]}
    found = oracle.check(chart, con)
    assert any("is not the value of explore_runs.value" in d for d in found), found


def test_a_capture_study_draws_its_series_against_time(con, tmp_path, monkeypatch):
    monkeypatch.delenv(interactive.ENV, raising=False)
    study = "esxtop-perfmon-samples"
    path, pick, rows = figure_page(tmp_path, con, study)
    assert pick.x == "time" and "series" in rows.columns and "sample" in rows.columns
    assert oracle.check_page(path, con) == []


def test_the_bound_keeps_a_big_study_page_small():
    """A study of 10,000 runs of 20 metrics and four systems (200,000 numbers): the chart carries at
    most MAX_ROWS of them, as columns, in under 2 MB of spec."""
    n = 200_000
    rows = pl.DataFrame(
        {
            "system": [f"System {i % 4} with a long name" for i in range(n)],
            "metric": [f"metric_{i % 20}_latency_ms" for i in range(n)],
            "unit": ["ms"] * n,
            "role": ["latency"] * n,
            "direction": ["lower"] * n,
            "workload": [f"{4 << (i % 5)} KiB random read" for i in range(n)],
            "outstanding_ios": [1 << (i % 8) for i in range(n)],
            "value": [float(i) / 7 for i in range(n)],
            "file": [f"study/system-{i % 4}/run-{i // 20:05}.json" for i in range(n)],
            "line": [i % 300 for i in range(n)],
        }
    )
    kept, said = explore.bounded(rows, explore.MAX_ROWS)
    assert kept.height <= explore.MAX_ROWS and said
    pick = explore.default_pick(kept)
    systems = pl.DataFrame({"system": [f"System {i} with a long name" for i in range(4)]})
    spec = explore.chart(kept, pick, systems).to_dict()
    assert len(json.dumps(spec)) < 2_000_000


def test_the_print_edition_leaves_the_page_out():
    pages = plan.notebooks()
    assert pages["11-explore"].printed is False
    assert all(p.printed for name, p in pages.items() if name != "11-explore")


needs_chromium = pytest.mark.skipif(check.chromium() is None, reason="no chromium (make check-reports installs it)")


@needs_chromium
def test_the_selects_change_the_chart_offline(con, tmp_path, monkeypatch):
    from tests.test_interactive_charts import drive

    monkeypatch.delenv(interactive.ENV, raising=False)
    path, _, _ = figure_page(tmp_path, con, STUDY)
    result = """{marks: fig.querySelectorAll('.iolab-vega .role-mark path').length,
      below: fig.querySelector('.vega-bindings').getBoundingClientRect().top >=
             fig.querySelector('.iolab-vega svg').getBoundingClientRect().bottom - 1,
      title: [...fig.querySelectorAll('.iolab-vega .role-title-text')].map(e => e.textContent),
      first: (fig.querySelector('.iolab-vega .role-mark path') || {getAttribute: () => ''}).getAttribute('aria-label')}"""

    def pick(name: str, value: str) -> str:
        return f"""{{const s = fig.querySelector('select[name="{name}"]'); s.value = {json.dumps(value)};
        s.dispatchEvent(new Event('change', {{bubbles: true}})); s.dispatchEvent(new Event('input', {{bubbles: true}}))}}"""

    shots = tmp_path / "shots"
    shots.mkdir()
    before = drive(path, "", result, screenshot=shots / "default.png")
    latency = drive(path, pick(explore.Y, "avg_latency_ms|ms"), result, screenshot=shots / "latency.png")
    panels = pick(explore.X, "block_size_bytes") + pick(explore.FACET, "workload")
    by_size = drive(path, panels, result, screenshot=shots / "size.png")
    assert before["marks"] > 0 and latency["marks"] > 0 and by_size["marks"] > 0
    assert "IO/s: throughput" in before["title"][-1] and "outstanding I/Os" in before["title"][-1]
    assert "average latency (ms): latency, lower is better" in latency["title"][-1]
    # a point names its metric as the y input does, never by its identifier
    assert "metric: average latency (ms): latency, lower is better" in latency["first"], latency["first"]
    assert "avg_latency_ms" not in latency["first"] and "file:" in latency["first"]
    assert "block size (bytes)" in by_size["title"][-1] and len(by_size["title"]) > 2  # panels: their headers
    assert before["below"] and by_size["below"]  # the chart grew to its panels: the selects stay below it
    assert all(p.stat().st_size > 10_000 for p in shots.glob("*.png"))
    assert re.search(r"line: \d+", latency["first"])
