# ---
# jupyter:
#   iolab:
#     studies: SELECT study FROM latency_heatmap
#     title: Latency heatmaps
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% tags=["parameters"]
db_path = None  # None: the default database (data/iolab.duckdb, or $IOLAB_DB)
lake = ""  # a Parquet lake (iolab lake export + views): read its views instead of the database
study = "fio-pkb-clat-hist-2017"

# %%
import altair as alt
import polars as pl

from iolab import lab
from iolab.reports import heatmap
from iolab.reports import page as r

con = lab.connect(db_path, lake)
r.heading(study, "latency heatmaps")
systems = r.systems_block(con, study)
r.note(
    "Completion latency over time, from fio histogram logs (write_hist_log, *_clat_hist.N.log; view "
    "latency_heatmap): each cell is one logged interval (log_hist_msec) and one latency octave, coloured by "
    "the I/Os that completed in it. fio's fine bins (64 per power of two) are summed whole into powers of two "
    "of the file's unit (usec for fio 2.x, ns for 3.x); the latency axis is in ms, log scale."
)

# %%
h = r.query(
    con,
    """SELECT system, file, direction, time_start_s, time_s, lower_ms, upper_ms, bin_label, io_count, fio_bins,
              file_unit, line_no
       FROM latency_heatmap WHERE study = ? ORDER BY file, direction, time_s, lower_ms""",
    [study],
)
PANELS = 12
d = h.with_columns(panel=pl.col("file") + " · " + pl.col("direction"))
d = d.with_columns(panel=r.short_labels(d["panel"]))
panels, keep = r.panels_drawn(d, "panel", PANELS)  # every system keeps one
# a log axis has no 0, an open octave no top
drawable = (pl.col("lower_ms") > 0).fill_null(False) & pl.col("upper_ms").is_not_null()
shown, k = heatmap.merge_intervals(d.filter(pl.col("panel").is_in(keep) & drawable))
unbounded = d.filter(~drawable).height
cut = [
    f"{len(panels) - len(keep)} of {len(panels)} panels not drawn (the first {PANELS} and each system's first are)"
    if len(panels) > len(keep)
    else "",
    f"{unbounded} cells not drawn: below 1 unit (fio's bin 0, no place on a log axis) or in fio's open-ended top octave"
    if unbounded
    else "",
    f"{k} consecutive intervals summed into each column (at most {heatmap.MAX_COLUMNS} columns a panel)"
    if k > 1
    else "",
]
source = {
    "view": "latency_heatmap",
    "study": study,
    "system": "system",
    "keys": {"file": "file", "direction": "direction", "time_s": "time_s", "lower_ms": "lower_ms"},
    "values": {"io_count": "io_count", "upper_ms": "upper_ms", "time_start_s": "time_start_s"},
}
# the study's systems the chart draws nothing of: no histogram log, or no cell a log axis can place
logged = systems.filter(systems["system"].is_in(d["system"].drop_nulls().unique().to_list()))
left_out = r.caption(
    "; ".join(c for c in cut if c) + ("; every cell is in the table below." if any(cut) else ""),
    r.no_marks(systems, d["system"], "their files hold no fio latency histogram log (write_hist_log)"),
    r.no_marks(logged, shown["system"], "none of their cells has a place on the log axis (all are in the table below)"),
)
if k > 1:  # columns of k intervals: their sums are not rows of the view
    source = {**source, "aggregate": True, "values": {"upper_ms": "upper_ms"}, "keys": {"lower_ms": "lower_ms"}}
if len(shown):
    r.show(
        alt.Chart(shown)
        .mark_rect()
        .encode(
            x=alt.X("time_start_s:Q", title="time since the job started (s)"),
            x2="time_s:Q",
            y=alt.Y("lower_ms:Q", scale=alt.Scale(type="log"), title="completion latency (ms, log scale)"),
            y2="upper_ms:Q",
            color=alt.Color(
                "io_count:Q",
                scale=alt.Scale(type="log", scheme="viridis"),
                title="I/Os in the cell",
                legend=alt.Legend(orient="bottom"),
            ),
            tooltip=r.tooltips("system", "file", "direction", "time_s", "bin_label", "io_count", "line_no"),
        )
        .properties(width=320, height=200)
        .facet(facet=alt.Facet("panel:N", title=None, header=alt.Header(labelLimit=0)), columns=2)
        .properties(title="Completion latency over time: I/Os per interval and latency octave, one panel per log"),
        f"Heatmaps, one panel per histogram log and direction ({shown['panel'].n_unique()} panels): time since the "
        "job started across, completion latency up (log scale, one row per power of two), each cell coloured by "
        f"the I/Os completed in that interval and octave ({int(shown['io_count'].sum()):,} I/Os in "
        f"{len(shown):,} cells).",
        source=source,
        left_out=left_out,
    )
per_log = r.query(
    con,
    """SELECT system, file, direction, file_unit, count(DISTINCT time_s) AS intervals, max(time_s) AS last_s,
              sum(io_count) AS ios, min(lower_ms) AS lowest_ms, max(coalesce(upper_ms, lower_ms)) AS highest_ms
       FROM latency_heatmap WHERE study = ? GROUP BY ALL ORDER BY file, direction""",
    [study],
)
r.table(per_log, "Histogram logs: intervals, I/Os and the latency range they span")
r.table(h, "Every cell (interval and latency octave)")

# %%
r.provenance(con, study)
