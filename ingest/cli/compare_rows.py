"""The rows `iolab compare` reads: which metrics (the study's headline metrics by default, a --metric
resolved to its per-direction forms where the study states it per direction only), and the comparison
with its p-values and Benjamini-Hochberg verdicts (view comparison_fdr), for the measurements compared."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

COMPARE_COLUMNS = [
    "study",
    "metric",
    "unit",
    "direction",
    "baseline_system",
    "system",
    "baseline_measurement",
    "measurement",
    "workload_label",
    "block_size_bytes",
    "read_pct",
    "random_pct",
    "load",
    "small_oio",
    "large_oio",
    "scope",
    # every dimension a point is told apart by (no two rows the same): configuration, RAID level,
    # drives and the split of the load (queue depth x workers), the baseline's and the system's
    "baseline_config",
    "config",
    "baseline_raid_level",
    "raid_level",
    "baseline_drives",
    "drives",
    "baseline_queue_depth",
    "baseline_workers",
    "queue_depth",
    "workers",
    "baseline_value",
    "value",
    "ratio",
    "correction",
    "pct_better",
    "pct_difference",
    "match_rule",
    "n_baseline",
    "n",
    "ci95_low_pct",
    "ci95_high_pct",
    "verdict",
    "p_value",
    "fdr_q",
    "verdict_fdr",
    "repeats_metric",
]


def default_metrics(con: Any, study: str) -> list[str]:
    """The study's headline metrics (view headline_metrics): its throughputs, its average latencies (fio's
    per direction)."""
    rows = con.execute("SELECT metric FROM headline_metrics WHERE study = ? ORDER BY metric_no", [study]).fetchall()
    return [m for (m,) in rows]


def stated_metrics(con: Any, study: str) -> list[str]:
    """Every metric the points of ``study`` state (view comparison_points), in name order."""
    rows = con.execute("SELECT DISTINCT metric FROM comparison_points WHERE study = ? ORDER BY 1", [study]).fetchall()
    return [m for (m,) in rows]


def resolve_metrics(con: Any, study: str, asked: list[str]) -> tuple[list[str], list[str], list[str]]:
    """(the metrics to compare, notes, the metrics asked that the study does not state): each asked
    metric that the study's points state; where they state it per I/O direction only (fio's
    avg_read_latency_ms, never an avg_latency_ms), those, with a note. Never "0 matched points"
    without a word: a metric stated neither way is the caller's to refuse."""
    from ..vocabulary import per_direction

    stated = set(stated_metrics(con, study))
    metrics: list[str] = []
    notes, missing = [], []
    for metric in dict.fromkeys(asked):
        if metric in stated:
            metrics.append(metric)
        elif forms := [m for m in per_direction(metric) if m in stated]:
            metrics += forms
            notes.append(f"{metric}: the study states it per I/O direction only; compared as {', '.join(forms)}.")
        else:
            missing.append(metric)
    return list(dict.fromkeys(metrics)), notes, missing


def comparison_rows(
    con: Any, study: str, baseline: str | None, metrics: list[str], chosen: dict[str, str] | None = None
) -> Any:
    """The comparison of ``study`` (view comparison_fdr: each row with its p-value and its verdict with the
    false discovery rate held, over the rows compared); with ``baseline``, against that system (same
    matching rules); each system's current measurement, or the one ``chosen`` names for it (system ->
    measurement)."""
    with compared(con, study, baseline, chosen):
        return rows(con, study, metrics)


def rows(con: Any, study: str, metrics: list[str]) -> Any:
    """The rows of comparison_fdr of ``study`` at ``metrics``, every column of COMPARE_COLUMNS."""
    return con.sql(
        f"""SELECT {", ".join(COMPARE_COLUMNS)} FROM comparison_fdr
            WHERE study = $1 AND metric IN (SELECT unnest($2::VARCHAR[]))
            ORDER BY system, metric, block_size_bytes, read_pct, random_pct, load, workload_label, baseline_raid_level,
                     baseline_drives, baseline_config, baseline_queue_depth, baseline_workers, scope""",
        params=[study, metrics],
    ).pl()


@contextmanager
def compared(con: Any, study: str, baseline: str | None, chosen: dict[str, str] | None) -> Iterator[None]:
    """While inside, the views of ``con`` compare against ``baseline`` (from then on: the command's own
    connection) and, where ``chosen`` names measurements, compare those (comparison_fdr: the p-values and
    the false discovery rate of the rows compared)."""
    lit = lambda v: "'" + v.replace("'", "''") + "'"  # noqa: E731  (DDL takes no parameters)
    if baseline:
        # the views read the baseline from study_baseline: shadow it for this connection only
        con.execute(f"""CREATE OR REPLACE TEMP VIEW study_baseline AS
                        SELECT study, {lit(baseline)}::VARCHAR AS baseline_system,
                               'command line: --baseline' AS baseline_source, count(DISTINCT system) AS systems
                        FROM measurements WHERE study = {lit(study)} GROUP BY study""")
    if chosen:  # comparison_fdr reads the comparison (the current measurements): shadow it with those chosen
        pairs = ", ".join(f"({lit(s)}, {lit(m)})" for s, m in chosen.items())
        con.execute(f"""CREATE OR REPLACE TEMP VIEW comparison AS
                        WITH chosen(system, measurement) AS (VALUES {pairs})
                        SELECT c.* EXCLUDE (baseline_current, current) FROM comparison_measurements c
                        LEFT JOIN chosen b ON b.system = c.baseline_system LEFT JOIN chosen s ON s.system = c.system
                        WHERE CASE WHEN b.system IS NULL THEN c.baseline_current
                                   ELSE c.baseline_measurement = b.measurement END
                          AND CASE WHEN s.system IS NULL THEN c.current ELSE c.measurement = s.measurement END""")
    try:
        yield
    finally:
        if chosen:
            con.execute("DROP VIEW temp.comparison")
