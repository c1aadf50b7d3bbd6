# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% tags=["parameters"]
db_path = None  # None: the default database (data/iolab.duckdb, or $IOLAB_DB)
lake = ""  # a Parquet lake (iolab lake export + views): read its views instead of the database
study = "quarch-intel-nvme-2023"

# %%
import altair as alt

from ingest.reports import page as r

con = r.connect(db_path, lake)
r.heading(study, "latency histograms")
systems = r.systems_block(con, study)
colors = r.system_colors(systems["system"])
r.note(
    "Share of I/Os per latency bin, wherever the file records bins (view latency_histograms: Iometer 1.1.0 "
    "bins of a run's ALL row, vscsiStats per virtual disk). Bins are as the tool wrote them."
)

# %%
h = r.query(
    con,
    """SELECT coalesce(system, '(no system label)') AS system, workload_label AS workload, target, direction,
                           bin_no, bin_label, lower_us, upper_us, io_count, share_pct
                    FROM latency_histograms WHERE study = ? ORDER BY workload, system, target, direction, run_id, bin_no""",
    [study],
)
d = h.to_pandas()
workloads = list(dict.fromkeys(d["workload"]))[:12]
shown = d[d["workload"].isin(workloads) & (d["io_count"] > 0)]
if len(shown):
    order = list(dict.fromkeys(h.sort("bin_no")["bin_label"]))
    r.show(
        alt.Chart(shown)
        .mark_bar()
        .encode(
            x=alt.X("bin_label:N", sort=order, title="latency bin (µs, upper bound)"),
            xOffset=alt.XOffset("system:N"),
            y=alt.Y("share_pct:Q", title="share of I/Os (%)"),
            color=alt.Color("system:N", scale=colors, legend=alt.Legend(orient="bottom", columns=1)),
            tooltip=r.tooltips("system", "workload", "bin_label", "io_count", "share_pct"),
        )
        .properties(width=300, height=160)
        .facet(facet=alt.Facet("workload:N", title=None), columns=2)
        .properties(
            title="Latency histogram per workload, bars by system"
            + (f" (first 12 of {d['workload'].nunique()} workloads)" if d["workload"].nunique() > 12 else "")
        )
    )
r.table(h, "Every bin")

# %%
r.provenance(con, study)
