"""The latency heatmap page's helpers: the cells of a study's fio histogram logs (view
latency_heatmap), and long logs drawn in a bounded number of columns.

A one-hour log at fio's usual log_hist_msec=1000 has 3,600 intervals, some 40,000 cells per panel:
an SVG of tens of MB. Past ``MAX_COLUMNS`` intervals in a panel, k consecutive intervals become one
column, their I/Os per octave summed: whole intervals only, as the octaves are whole fio bins.
"""

from __future__ import annotations

import polars as pl

MAX_COLUMNS = 240
KEYS = ["system", "file", "direction", "panel", "lower_ms", "upper_ms", "bin_label"]


def merge_intervals(d: pl.DataFrame, max_columns: int = MAX_COLUMNS) -> tuple[pl.DataFrame, int]:
    """``d`` (rows of latency_heatmap with a ``panel`` column) with at most ``max_columns`` columns of
    time per panel, and k, the intervals summed into each column (1: ``d`` as it was)."""
    if d.is_empty():
        return d, 1
    n = d.group_by("panel").agg(pl.col("time_s").n_unique()).select(pl.col("time_s").max()).item()
    k = -(-n // max_columns)
    if k <= 1:
        return d, 1
    slot = ((pl.col("time_s").rank("dense").over("panel") - 1) // k).cast(pl.Int64)
    d = d.with_columns(slot=slot).with_columns(
        time_start_s=pl.col("time_start_s").min().over("panel", "slot"),
        time_s=pl.col("time_s").max().over("panel", "slot"),
    )
    merged = (
        d.group_by([*KEYS, "slot", "time_start_s", "time_s"], maintain_order=True)
        .agg(io_count=pl.col("io_count").sum(), line_no=pl.col("line_no").min(), last_line=pl.col("line_no").max())
        .drop("slot")
    )
    return merged, k
