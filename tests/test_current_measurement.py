"""One current-measurement rule, owned by the model (issue 52, item 1): every view and every page draws
each system's current measurement only, except the trends and the comparison's own list of
measurements (every pair, for `iolab compare --measurement`).

The study (tests/studies.two_releases): a baseline and a system Dual measured on firmware 1.0 and on 2.0,
the OLDER release 1.5x faster. Every view of the database's catalogue that has a run or a system column
(asked of DuckDB, not listed here) and every rendered page is searched for a run of 1.0, a number only
1.0 has (a value of its runs, or the mean of its runs at a point) and the name of one of its files.
"""

from __future__ import annotations

import base64
import csv
import io
import json
import re

import pytest

from iolab import batch, db
from tests.conftest import q
from tests.studies import two_releases

OLD = "1.0"
# the views that hold every measurement by design, each row naming its measurement: the model's own
# (file_measurements, system_measurements, measurement_splits), the public rows every view reads
# (measurements, study_runs), the trends', and the comparison's list of measurement pairs
EVERY_MEASUREMENT = {
    "measurements",
    "study_runs",
    "file_measurements",
    "system_measurements",
    "measurement_splits",
    "trend_runs",
    "trend_measurements",
    "trends",
    "comparison_points",
    "comparison_candidates",
    "comparison_measurements",
}
# the views of one run each, without a system: what a view with a system reads (throughput, starts, targets)
RUN_HELPERS = {
    "run_starts",
    "run_targets",
    "run_throughput",
    "target_throughput",
    "target_volumes",
    "run_drives",  # the drives behind each run (read by comparison_points, which holds every measurement)
    "log_targets",
    "latency_bin_shares",
    "orion_latency_points",
}


@pytest.fixture(scope="module")
def releases(tmp_path_factory):
    root = tmp_path_factory.mktemp("releases")
    dbf = root / "t.duckdb"
    con = db.open_db(dbf)
    report = batch.ingest_paths(con, [two_releases(root / "data")])
    assert not report.failed and not report.warnings
    con.close()
    return dbf


def _columns(con) -> dict[str, dict[str, str]]:
    rows = q(
        con,
        """SELECT v.view_name, c.column_name, c.data_type FROM duckdb_views() v
           JOIN duckdb_columns() c ON c.table_name = v.view_name AND c.schema_name = v.schema_name
           WHERE NOT v.internal AND NOT v.temporary ORDER BY v.view_name, c.column_index""",
    )
    out: dict[str, dict[str, str]] = {}
    for view, col, kind in rows:
        out.setdefault(view, {})[col] = kind
    return out


def _old_numbers(con) -> set[float]:
    """The numbers only the older release has: its runs' values and its points' means."""
    return {
        v
        for (v,) in q(
            con,
            f"""SELECT value FROM measurements WHERE measurement = '{OLD}' AND value <> 0
                EXCEPT SELECT value FROM measurements WHERE measurement IS DISTINCT FROM '{OLD}'
                UNION
                (SELECT value FROM comparison_points WHERE measurement = '{OLD}' AND value <> 0
                 EXCEPT SELECT value FROM comparison_points WHERE measurement <> '{OLD}')""",
        )
    }


def test_every_view_with_a_run_or_a_system_holds_the_current_measurement_only(releases):
    con = db.connect(releases, read_only=True)
    views = _columns(con)
    con.execute(f"CREATE TEMP TABLE old_numbers AS SELECT unnest({sorted(_old_numbers(con))!r}::DOUBLE[]) AS v")
    old_runs = "(SELECT run_id FROM study_runs WHERE measurement = '1.0')"
    # 3 Iometer sweeps of 64 runs, an Iometer run with latency bins, 7 fio runs and a histogram log
    assert q(con, f"SELECT count(*) FROM {old_runs}") == [(3 * 64 + 1 + 7 + 1,)]
    assert len(_old_numbers(con)) > 1000
    checked = []
    for view, cols in views.items():
        systems = [c for c in cols if c == "system" or c.endswith("_system")]
        if view in RUN_HELPERS or not (systems or "run_id" in cols):
            continue
        if view in EVERY_MEASUREMENT:  # they hold the older release, and say which measurement each row is
            assert {"measurement"} & set(cols) or view == "measurement_splits", view
            continue
        checked.append(view)
        if "run_id" in cols:
            assert q(con, f"SELECT count(*) FROM {view} WHERE run_id IN {old_runs}") == [(0,)], view
        if "measurement" in cols:
            assert q(con, f"SELECT DISTINCT measurement FROM {view} WHERE system = 'Dual'") in ([], [("2.0",)]), view
        for col, kind in cols.items():
            if kind == "DOUBLE":
                leaked = q(con, f'SELECT count(*) FROM {view} WHERE "{col}" IN (SELECT v FROM old_numbers)')
                assert leaked == [(0,)], f"{view}.{col}"
    # the views the pages draw are among those checked, and hold the current release
    assert {
        "per_drive_iops",
        "latency_percentiles",
        "latency_histograms",
        "qos_verdicts",
        "scaling",
        "comparison",
    } <= set(checked)
    for view in ("per_drive_iops", "latency_percentiles", "latency_histograms", "qos_verdicts", "sizing"):
        assert q(con, f"SELECT count(*) > 0 FROM {view} WHERE system = 'Dual'") == [(True,)], view
    # and the search finds the older release where it is meant to be
    assert q(con, f"SELECT count(*) > 0 FROM measurements WHERE run_id IN {old_runs}") == [(True,)]
    con.close()


def _page_data(html: str) -> list[tuple[str, list[list]]]:
    """Every table's rows (its CSV download, all rows) and every chart's data rows of a page."""
    out = []
    for name, data in re.findall(r'download="([^"]*)\.csv" href="data:text/csv;charset=utf-8;base64,([^"]+)"', html):
        out.append((name, list(csv.reader(io.StringIO(base64.b64decode(data).decode("utf-8"))))))
    for data in re.findall(r'<script type="application/json" class="iolab-chart-spec">([^<]+)</script>', html):
        spec = json.loads(base64.b64decode(data))
        for rows in spec.get("datasets", {}).values():
            out.append((str(spec.get("title", "chart")), [list(r.values()) for r in rows]))
    return out


def _number(cell) -> float | None:
    try:
        return float(cell)
    except (TypeError, ValueError):
        return None


def test_every_page_but_the_trends_draws_the_current_measurement_only(releases, tmp_path):
    from iolab.reports import render

    assert render.render(releases, tmp_path / "out", ["two releases"]) == 0
    pages = {p.stem: p.read_text() for p in (tmp_path / "out").glob("*/*.html")}
    assert {
        "01-overview",
        "02-per-drive-iops",
        "03-scaling-curves",
        "04-efficiency-qos",
        "05-comparison",
        "07-latency-histograms",
        "08-latency-percentiles",
        "09-trends",
        "10-latency-heatmap",
    } <= set(pages)
    con = db.connect(releases, read_only=True)
    old = _old_numbers(con)
    old_files = {
        p.rsplit("/", 1)[-1] for (p,) in q(con, f"SELECT source_path FROM study_runs WHERE measurement = '{OLD}'")
    }
    con.close()
    assert len(old_files) == 3 + 1 + 7 + 1
    found_old_on_trends = False
    for page, html in sorted(pages.items()):
        for table, rows in _page_data(html):
            if table.startswith("provenance"):  # every file of the study, by name: the older release's too
                continue
            for row in rows:
                hit = [c for c in row if _number(c) in old or any(f in str(c) for f in old_files)]
                if page == "09-trends":
                    found_old_on_trends |= bool(hit)
                else:
                    assert not hit, (page, table, row)
    assert found_old_on_trends  # the trends page draws both releases: the search finds them there


def test_the_rule_is_read_from_one_base_never_repeated():
    """New views inherit the rule by reading current_measurements, current_runs or current_files
    (012_study_runs.sql), not by filtering on is_current themselves: only the model's files say it, and the
    comparison's, whose list of every measurement pair (comparison_points, comparison_candidates) picks
    the current pair for `comparison`, `comparison_unmatched` and the SLA headline."""
    from iolab.config import VIEWS

    said = {}
    for f in sorted(VIEWS.glob("*.sql")):
        code = "\n".join(line.split("--")[0] for line in f.read_text().splitlines())  # comments left out
        if re.search(r"\b(is_current|current_measurement|baseline_current)\b", code):
            said[f.name] = True
    assert sorted(said) == [
        "008_measurements_of_systems.sql",  # the rule
        "010_measurements.sql",  # each number's current_measurement
        "012_study_runs.sql",  # each run's, and the base
        "075_comparison.sql",
        "077_sla_headline.sql",
        "079_efficiency.sql",  # the comparison's own points of the current measurement (comparison_points)
        "097_explore.sql",  # the explore page's rows: the current measurement, and runs of no system
    ]
