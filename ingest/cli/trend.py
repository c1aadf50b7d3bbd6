"""`iolab compare --study S --against previous`: the newest measurement of each system against the
one before (view trends: a measurement is a measurement or firmware label, or a session of runs measured
again: 008_measurements_of_systems.sql), with the noise of
both and a regression flag where the newest is worse outside it."""

from __future__ import annotations

from typing import Any

from ..display import metric_label
from ..terminal import console, markup, shown
from .cells import _interval, column_format, overall_verdict, pct_cell, verdict_counts
from .tables import CSV as MORE
from .tables import Cell, Col, table

TREND_COLUMNS = [
    "study",
    "system",
    "metric",
    "unit",
    "direction",
    "workload_label",
    "block_size_bytes",
    "read_pct",
    "random_pct",
    "load",
    "scope",
    "config_label",
    "previous_measurement",
    "measurement",
    "measured_by",
    "previous_value",
    "value",
    "previous_n",
    "n",
    "pct_change",
    "ci95_low_pct",
    "ci95_high_pct",
    "verdict",
    "regression",
    "p_value",
    "fdr_q",
    "verdict_fdr",
]


def measurements(con: Any, study: str) -> Any:
    """Per system of ``study``: its ordered measurements, newest last, and the unordered ones."""
    return con.sql(
        """SELECT system, measurement, measured_by, measurement_no, measurements, ordered_by, runs, first_run
           FROM trend_measurements WHERE study = $1 ORDER BY system, measurement_no NULLS LAST, measurement""",
        params=[study],
    ).pl()


def newest_rows(con: Any, study: str, metrics: list[str]) -> Any:
    """Every point of each system's newest measurement that the measurement just before also has."""
    cols = ", ".join(f"t.{c}" for c in TREND_COLUMNS)
    return con.sql(
        f"""SELECT {cols} FROM trends t
            JOIN trend_measurements b ON b.study = t.study AND b.system = t.system
             AND b.measurement_no = t.measurements - 1 AND b.measurement = t.previous_measurement
            WHERE t.study = $1 AND t.measurement_no = t.measurements AND t.measurements > 1
              AND t.metric IN (SELECT unnest($2::VARCHAR[]))
            ORDER BY t.system, t.metric, t.block_size_bytes, t.read_pct, t.random_pct, t.load, t.workload_label""",
        params=[study, metrics],
    ).pl()


def unpaired(con: Any, study: str, metrics: list[str]) -> dict[tuple[str, str], int]:
    """(system, metric) -> points of the newest measurement that the one just before does not have."""
    rows = con.execute(
        """SELECT t.system, t.metric, count(*) FROM trends t
           JOIN trend_measurements b ON b.study = t.study AND b.system = t.system
            AND b.measurement_no = t.measurements - 1
           WHERE t.study = ? AND t.measurement_no = t.measurements AND t.measurements > 1
             AND t.previous_measurement IS DISTINCT FROM b.measurement AND t.metric IN (SELECT unnest(?::VARCHAR[]))
           GROUP BY ALL""",
        [study, metrics],
    ).fetchall()
    return {(s, m): n for s, m, n in rows}


def summary(df: Any) -> Any:
    """Per system and metric: the points compared, the geometric mean of the % change, the verdicts."""
    import polars as pl

    better = 1 + pl.col("pct_change") / 100
    return (
        df.group_by("system", "metric", "unit", "direction", "previous_measurement", "measurement", maintain_order=True)
        .agg(
            pl.len().alias("points"),
            ((better.filter(better > 0).log().mean().exp() - 1) * 100).alias("pct_change_geomean"),
            pl.col("verdict").drop_nulls().alias("verdicts"),
            pl.col("regression").fill_null(False).sum().alias("regressions"),
        )
        .sort("system", "metric")
    )


SUMMARY = [
    Col("system", key=True),
    Col("metric", key=True),
    Col("better", drop=7),
    Col("before", key=True, wrap=10),
    Col("newest", key=True, wrap=10),
    Col("points", number=True, drop=3),
    Col("newest only", number=True, drop=5),
    Col("% change", number=True),
    Col("verdicts", drop=4, shorten=True),
    Col("regressions", number=True, drop=1),
]
POINTS = [
    Col("system", key=True, wrap=16),
    Col("workload", key=True, wrap=20),
    Col("metric", key=True),
    Col("before", number=True, drop=2),
    Col("newest", number=True, drop=2),
    Col("% change", number=True),
    Col("95 % CI", drop=3),
    Col("runs", number=True, drop=4),
    Col("verdict", drop=1),
]


def print_trend(df: Any, ms: Any, study: str, rows: bool, alone: dict[tuple[str, str], int], many: str = "") -> None:
    """Each system's newest measurement against the one before; a line for each that has one only.
    ``many``: what noise alone would give among the study's verdicts (ingest/fdr.py), said under the table."""
    out = console()
    out.print(
        f"[bold]{markup(study)}[/]: each system's newest measurement against the one before "
        "(a regression: worse outside the 95 % interval of both measurements' runs)."
    )
    for r in ms.filter(ms["measurement_no"] == ms["measurements"]).iter_rows(named=True):
        if r["measurements"] == 1:
            out.print(
                f"{markup(r['system'])}: one measurement only ({markup(r['measurement'])}, by "
                f"{r['measured_by']}); nothing to compare it with. A measurement or firmware label (sidecar "
                '`measurement = "..."`, `firmware = "..."`), or its points measured again with repeats more than '
                "12 hours after its last run, make a second one."
            )
    for r in ms.filter(ms["ordered_by"] == "unordered").iter_rows(named=True):
        out.print(
            f"{markup(r['system'])}: measurement {markup(r['measurement'])} is in no trend: its runs state no "
            "time (neither a start nor an end and a runtime), and the study's firmware_order does not list it."
        )
    paired = set(zip(df["system"], df["metric"], strict=True))
    for (system, metric), n in sorted(alone.items()):
        if (system, metric) not in paired:
            out.print(
                f"{markup(system)}: none of the {n:,} {markup(metric)} points of its newest measurement was "
                "measured in the one before (same workload, load, scope)."
            )
    if df.height == 0:
        return
    cells: list[list[Cell]] = [
        [
            shown(r["system"]),
            shown(metric_label(r["metric"], r["unit"])),
            r["direction"],  # which way is better
            shown(r["previous_measurement"]),
            shown(r["measurement"]),
            f"{r['points']:,}",
            f"{alone.get((r['system'], r['metric']), 0):,}",
            pct_cell(r["pct_change_geomean"], overall_verdict(r["verdicts"])),
            verdict_counts(r["verdicts"]),
            (f"{r['regressions']:,}", "red") if r["regressions"] else "0",
        ]
        for r in summary(df).iter_rows(named=True)
    ]
    table("newest measurement against the one before", SUMMARY, cells, MORE)
    if many:
        out.print(markup(many))
    if rows:
        _print_rows(df)
    else:
        out.print("`--all` lists every point.")


def _print_rows(df: Any) -> None:
    plain = column_format([*df["previous_value"], *df["value"]])
    cells: list[list[Cell]] = [
        [
            shown(r["system"]),
            shown(r["workload_label"]),
            shown(metric_label(r["metric"], r["unit"])),
            plain(r["previous_value"]),
            plain(r["value"]),
            pct_cell(r["pct_change"], r["verdict"]),
            _interval(r["ci95_low_pct"], r["ci95_high_pct"]),
            f"{r['previous_n']}/{r['n']}",
            ("regression", "red") if r["regression"] else (r["verdict"] or ""),
        ]
        for r in df.iter_rows(named=True)
    ]
    table("points", POINTS, cells, MORE)
