# ---
# jupyter:
#   iolab:
#     studies: SELECT study FROM latency_percentiles
#     title: Latency percentiles
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
study = "fio-intel-d3-s4610-qd-sweep"

# %%
import altair as alt
import polars as pl

from iolab import lab
from iolab.reports import marks
from iolab.reports import page as r

con = lab.connect(db_path, lake)
r.heading(study, "latency percentiles")
systems = r.systems_block(con, study)
r.note(
    "Tail latency as the load grows (view latency_percentiles: every p<N> latency the tools state, for "
    "example fio's completion-latency percentiles). Lines are systems; dashes are percentiles. Both axes "
    "are log scales: each step right doubles the outstanding I/Os."
)

# %%
p = r.query(
    con,
    r"""SELECT coalesce(system, '(no system label)') AS system, workload, direction, kind,
                           coalesce(config_label, '') AS configuration, load, percentile,
                           'p' || regexp_replace(CAST(percentile AS VARCHAR), '\.0$', '') AS pct, latency_ms,
                           run_id, metric, scope, target
                    FROM latency_percentiles WHERE study = ? AND scope = 'all'
                    ORDER BY workload, direction, system, configuration, percentile, load""",
    [study],
).pipe(r.in_order, "workload", "direction", "system", "configuration", "percentile", "load")
SHOWN = [50.0, 99.0, 99.9, 99.99]  # the chart keeps four; the table below has every percentile
ORDER = [f"p{x:g}" for x in SHOWN]
d = marks.median_runs(
    p.filter(p["percentile"].is_in(SHOWN) & p["load"].is_not_null()),
    ["system", "workload", "direction", "kind", "configuration", "percentile", "load"],
    "latency_ms",
).sort(["workload", "direction", "system", "configuration", "percentile", "load", "kind"])
repeated = d.filter(d["runs"] > 1)
sources = r.number_sources(con, study)
d = d.join(sources, on=["run_id", "metric", "scope", "target"], how="left", nulls_equal=True, maintain_order="left")
if d.height:
    d = d.with_columns(panel=pl.col("workload") + " · " + pl.col("direction") + " (" + pl.col("kind") + ")")
    every, panels = r.panels_drawn(d, "panel", 8)  # every system keeps one
    d = d.filter(pl.col("panel").is_in(panels))
    r.show(
        alt.Chart(d)
        .mark_line(point=True)
        .encode(
            x=alt.X(
                "load:Q", scale=alt.Scale(type="log", base=2), title="outstanding I/Os (queue depth x workers), log2"
            ),
            y=alt.Y("latency_ms:Q", scale=alt.Scale(type="log"), title="latency (ms), log"),
            color=alt.Color(
                "system:N",
                scale=r.system_colors(systems["system"], d["system"]),
                legend=alt.Legend(orient="bottom", columns=1),
            ),
            # a dash and a point shape per percentile; the legend shows the shapes (dashed dots all look alike)
            strokeDash=alt.StrokeDash("pct:N", sort=ORDER, legend=None),
            shape=alt.Shape("pct:N", sort=ORDER, title="percentile", legend=alt.Legend(orient="bottom")),
            detail=alt.Detail("configuration:N"),
            tooltip=r.tooltips(
                "system",
                "workload",
                "direction",
                "configuration",
                "load",
                "pct",
                "latency_ms",
                "runs",
                *r.SOURCE_TOOLTIPS,
            ),
        )
        .properties(width=320, height=220)
        .facet(facet=alt.Facet("panel:N", title=None), columns=2)
        .properties(title="Latency percentiles vs load, one line per system and percentile"),
        f"Line charts, one panel per workload and direction ({len(panels)} panels): the p50, p99, p99.9 and p99.99 "
        f"latency (ms) of each of the {d['system'].n_unique()} systems as the outstanding I/Os grow.",
        source={
            "view": "latency_percentiles",
            "study": study,
            "system": "system",
            "where": {"scope": "all", "load": None},
            "keys": {"system": "system", "load": "load", "percentile": "percentile"},
            "values": {"latency_ms": "latency_ms"},
        },
        left_out=r.caption(
            f"Drawn: the percentiles {', '.join(ORDER)} and {len(panels)} of {len(every)} panels; "
            "every percentile of every run is in the table below.",
            marks.median_note(repeated),
            r.no_marks(systems, d["system"], "their files state no latency percentile at a load"),
        ),
    )
wide = p.pivot(
    on="pct",
    index=["system", "workload", "direction", "kind", "configuration", "load"],
    values="latency_ms",
    aggregate_function="max",
)
r.table(wide, "Every percentile (ms), one row per run")

# %%
r.provenance(con, study)
