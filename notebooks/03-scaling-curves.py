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
study = "sqlserverio-pliant-ssd-2010"

# %%
import altair as alt

from ingest.reports import page as r

con = r.connect(db_path, lake)
r.heading(study, "scaling curves")
systems = r.systems_block(con, study)
colors = r.system_colors(systems["system"])
r.note(
    "Each curve holds the system, workload and configuration fixed and varies one load (view scaling). "
    "Linearity = value / (first value x load / first load); the knee (black diamond) is the first point "
    "below 80 % of linear. Load axes are log2: each step doubles the load."
)

# %%
pts = r.query(
    con,
    """SELECT axis, metric, unit, coalesce(system, '(no system label)') AS system, workload,
                             trim(coalesce(config_label, '') || ' ' || coalesce(raid_level, '')
                                  || CASE WHEN sizes > 1 THEN ' ' || size_label(block_size_bytes) ELSE '' END)
                                  AS configuration,
                             load, value, linearity, is_knee
                      FROM (SELECT *, count(DISTINCT block_size_bytes) OVER (PARTITION BY axis, metric, system,
                                           workload, config_label, raid_level) AS sizes  -- one curve per size
                            FROM scaling WHERE study = ?)
                      ORDER BY axis, metric, workload, system, configuration, load""",
    [study],
)
AXES = {
    "outstanding_ios": "outstanding I/Os (queue depth x workers), log2",
    "small_oio": "small-I/O outstanding, log2",
    "large_oio": "large-I/O outstanding, log2",
    "drives": "drives, log2",
    "tiles": "tiles, log2",
}
for (axis, metric, unit), g in pts.group_by(["axis", "metric", "unit"], maintain_order=True):
    d = g.to_pandas()
    workloads = list(dict.fromkeys(d["workload"]))[:12]
    d = d[d["workload"].isin(workloads)]
    d = d.assign(workload=r.short_labels(d["workload"]))
    base = alt.Chart(d).encode(
        x=alt.X("load:Q", scale=alt.Scale(type="log", base=2), title=AXES.get(axis, axis)),
        y=alt.Y("value:Q", title=f"{metric} ({unit})"),
        color=alt.Color("system:N", scale=colors, legend=alt.Legend(orient="bottom", columns=1)),
        strokeDash=alt.StrokeDash(
            "configuration:N",
            legend=None
            if d["configuration"].nunique() < 2
            else alt.Legend(orient="bottom", columns=2, title="configuration"),
        ),
        detail=alt.Detail("configuration:N"),
        tooltip=r.tooltips("system", "workload", "configuration", "load", "value", "linearity"),
    )
    knees = base.transform_filter("datum.is_knee").mark_point(
        shape="diamond", size=260, filled=True, color="black", opacity=1
    )
    r.show(
        (base.mark_line(point=True) + knees)
        .properties(width=300, height=200)
        .facet(facet=alt.Facet("workload:N", title=None, header=alt.Header(labelLimit=0)), columns=2)
        .resolve_scale(y="independent")
        .properties(
            title=f"{metric} ({unit}) vs {AXES.get(axis, axis)}: one line per system"
            + (f" (first 12 of {g['workload'].n_unique()} workloads)" if g["workload"].n_unique() > 12 else "")
        )
    )

# %%
# The hockey stick: latency against throughput along each outstanding-I/O curve
hs = r.query(
    con,
    """SELECT coalesce(i.system, '(no system label)') AS system, i.workload, i.load,
                            i.value AS iops, l.value AS latency_ms
                     FROM scaling i JOIN scaling l ON l.study = i.study AND l.system IS NOT DISTINCT FROM i.system
                          AND l.workload = i.workload AND l.config_label IS NOT DISTINCT FROM i.config_label
                          AND l.raid_level IS NOT DISTINCT FROM i.raid_level AND l.axis = i.axis AND l.load = i.load
                          AND l.tool = i.tool
                     WHERE i.study = ? AND i.axis = 'outstanding_ios' AND i.metric = 'iops' AND l.metric = 'avg_latency_ms'
                     ORDER BY system, workload, load""",
    [study],
)
if hs.height:
    d = hs.to_pandas()
    workloads = list(dict.fromkeys(d["workload"]))[:12]
    d = d[d["workload"].isin(workloads)]
    d = d.assign(workload=r.short_labels(d["workload"]))
    r.show(
        alt.Chart(d)
        .mark_line(point=True)
        .encode(
            x=alt.X("iops:Q", title="IO/s"),
            y=alt.Y("latency_ms:Q", title="average latency (ms)"),
            order=alt.Order("load:Q"),
            color=alt.Color("system:N", scale=colors, legend=alt.Legend(orient="bottom", columns=1)),
            tooltip=r.tooltips("system", "workload", "load", "iops", "latency_ms"),
        )
        .properties(width=300, height=200)
        .facet(facet=alt.Facet("workload:N", title=None, header=alt.Header(labelLimit=0)), columns=2)
        .resolve_scale(x="independent", y="independent")
        .properties(title="Latency vs IO/s as the load grows (the hockey stick), one line per system")
    )

# %%
knees = pts.filter(pts["is_knee"]).select(
    ["axis", "metric", "system", "workload", "configuration", "load", "value", "linearity"]
)
r.table(knees, "Knees: first point below 80 % of linear scaling")
sat = r.query(
    con,
    """SELECT coalesce(system, '(no system label)') AS system, axis, tool, workload, saturation_load,
                             max_load_tested, criteria
                      FROM saturation WHERE study = ? ORDER BY system, axis, workload""",
    [study],
)
r.table(sat, "Saturation: largest load that still meets every criterion this study declares")
r.table(pts, "Every curve point")

# %%
r.provenance(con, study)
