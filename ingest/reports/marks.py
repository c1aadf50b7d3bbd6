"""How many marks a chart draws when a study repeats its runs: the rule, and the words that say it.

A study of 1,000 runs repeats each workload ten times a system. Drawn one mark per run, a line chart
of percentiles against load carries 4,800 points (2 MB of spec, 3 MB of SVG, seconds to draw) whose
repeats at one load stack into a vertical zig-zag nobody can read. ``median_runs`` keeps, per line
point, the run whose value is the median of the repeats there: the lower median, so the mark is one
run's own number (its file and line still in the tooltip, and the view's value, which the chart
oracle checks), never an average no run measured. ``median_note`` is the sentence each such chart
writes in its caption: no cut is silent. Every run stays in the page's table.
"""

from __future__ import annotations

import polars as pl

RUNS = "runs"  # the column saying how many runs a mark stands for


def median_runs(df: pl.DataFrame, keys: list[str], value: str) -> pl.DataFrame:
    """One row per distinct ``keys``: the row holding the lower median of ``value`` (of n rows sorted
    by ``value``, then ``run_id``, the ((n - 1) // 2)-th: the same row whatever order ``df`` came
    in), with ``RUNS``: how many rows it stands for. Rows whose ``value`` is null are left out."""
    ordered = df.filter(pl.col(value).is_not_null()).sort([*keys, value, "run_id"], nulls_last=True)
    return (
        ordered.with_columns(pl.len().over(keys).alias(RUNS), pl.int_range(pl.len()).over(keys).alias("_nth"))
        .filter(pl.col("_nth") == (pl.col(RUNS) - 1) // 2)
        .drop("_nth")
    )


def median_note(repeated: pl.DataFrame) -> str:
    """The caption's sentence for a chart drawn by ``median_runs``: '' when no mark stands for more
    than one run (``repeated``: the rows with ``RUNS`` > 1)."""
    if repeated.is_empty():
        return ""
    most = int(repeated[RUNS].max())  # type: ignore[arg-type]
    return (
        f"{repeated.height:,} points stand for repeated runs (up to {most} at one load): each is the median run "
        "there (the lower median: that run's own value, named in its tooltip with the number of runs)."
    )
