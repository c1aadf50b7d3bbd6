"""The latency heatmap page's helpers: the cells of a study's fio histogram logs (view
latency_heatmap), and long logs drawn in a bounded number of columns.

A one-hour log at fio's usual log_hist_msec=1000 has 3,600 intervals, some 40,000 cells per panel:
an SVG of tens of MB. Past ``MAX_COLUMNS`` intervals in a panel, k consecutive intervals become one
column, their I/Os per octave summed: whole intervals only, as the octaves are whole fio bins.
"""

from __future__ import annotations

import pandas as pd

MAX_COLUMNS = 240
KEYS = ["system", "file", "direction", "panel", "lower_ms", "upper_ms", "bin_label"]


def merge_intervals(d: pd.DataFrame, max_columns: int = MAX_COLUMNS) -> tuple[pd.DataFrame, int]:
    """``d`` (rows of latency_heatmap with a ``panel`` column) with at most ``max_columns`` columns of
    time per panel, and k, the intervals summed into each column (1: ``d`` as it was)."""
    if d.empty:
        return d, 1
    n = int(d.groupby("panel")["time_s"].nunique().max())
    k = -(-n // max_columns)
    if k <= 1:
        return d, 1
    d = d.assign(slot=d.groupby("panel")["time_s"].rank(method="dense").sub(1).floordiv(k).astype(int))
    span = d.groupby(["panel", "slot"])
    d = d.assign(time_start_s=span["time_start_s"].transform("min"), time_s=span["time_s"].transform("max"))
    merged = (
        d.groupby(KEYS + ["slot", "time_start_s", "time_s"], sort=False)
        .agg(io_count=("io_count", "sum"), line_no=("line_no", "min"), last_line=("line_no", "max"))
        .reset_index()
        .drop(columns="slot")
    )
    return merged, k
