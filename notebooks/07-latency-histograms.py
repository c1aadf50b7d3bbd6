# ---
# jupyter:
#   iolab:
#     studies: SELECT study FROM latency_histograms
#     title: Latency histograms
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
study = "quarch-intel-nvme-2023"

# %%
import altair as alt
import polars as pl

from iolab import lab
from iolab.reports import page as r

con = lab.connect(db_path, lake)
r.heading(study, "latency histograms")
systems = r.systems_block(con, study)
r.note(
    "Share of I/Os per latency bin, wherever the file records bins (view latency_histograms: Iometer 1.1.0 "
    "bins of a run's ALL row, vscsiStats per virtual disk). Bins are as the tool wrote them."
)

# %%
h = r.histogram_bins(con, study)  # every bin of every run, with its file and run
pooled = r.pooled_histograms(con, study)  # repeated runs of a workload: one bar, their I/Os summed
d = pooled.with_columns(
    panel=pl.when(pl.col("direction") == "all")
    .then(pl.col("workload"))
    .otherwise(pl.col("workload") + " · " + pl.col("direction"))
)
d = d.with_columns(panel=r.short_labels(d["panel"]))
panels, keep = r.panels_drawn(d, "panel", 12)  # every system keeps one
shown = d.filter(pl.col("panel").is_in(keep) & (pl.col("io_count") > 0))
if shown.height:
    order = list(dict.fromkeys(pooled.sort("bin_no")["bin_label"]))
    r.show(
        alt.Chart(shown)
        .mark_bar()
        .encode(
            x=alt.X("bin_label:N", sort=order, title="latency bin (µs, upper bound)"),
            xOffset=alt.XOffset("system:N"),
            y=alt.Y("share_pct:Q", title="share of I/Os (%)"),
            color=alt.Color(
                "system:N",
                scale=r.system_colors(systems["system"], shown["system"]),
                legend=alt.Legend(orient="bottom", columns=1),
            ),
            tooltip=r.tooltips("system", "workload", "direction", "bin_label", "io_count", "share_pct", "runs"),
        )
        .properties(width=300, height=160)
        .facet(facet=alt.Facet("panel:N", title=None, header=alt.Header(labelLimit=0)), columns=2)
        .properties(title="Latency histogram per workload, bars by system; repeated runs pooled (I/Os summed)"),
        f"Bar charts, one panel per workload and direction ({len(keep)} panels): the share of I/Os in each latency "
        f"bin, bars of the {shown['system'].n_unique()} systems side by side.",
        source={
            "view": "latency_histograms",
            "study": study,
            "system": "system",
            "where": {"io_count": None},
            "aggregate": True,
        },
        left_out=r.caption(
            f"{len(panels) - len(keep)} of {len(panels)} panels not drawn (the first 12 and each system's "
            "first are); every bin is in the table below."
            if len(panels) > len(keep)
            else "",
            r.no_marks(systems, shown["system"], "their files record no latency histogram"),
        ),
    )
r.table(h, "Every bin")

# %%
r.provenance(con, study)
