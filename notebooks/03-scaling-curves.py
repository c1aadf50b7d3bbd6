# ---
# jupyter:
#   iolab:
#     studies: SELECT study FROM scaling
#     title: Scaling curves
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
study = "sqlserverio-pliant-ssd-2010"

# %%
import altair as alt
import polars as pl

from iolab import lab
from iolab.reports import headline
from iolab.reports import page as r

con = lab.connect(db_path, lake)
r.heading(study, "scaling curves")
systems = r.systems_block(con, study)
r.note(
    "Each curve holds the system, workload and configuration fixed and varies one load (view scaling). "
    "Where the study ran a workload's loads both as deeper queues and as more workers, each curve holds one "
    "of them fixed and its workload says which: '1 worker' (the queue depth grows), 'QD 16' (the workers grow). "
    "Each point is the mean of the runs at that load (n: repeats, and a cycling Iometer file's repeated loads), "
    "never the best of them; where n > 1 a bar spans the mean's 95 % interval (t, n - 1 degrees of freedom). "
    "Each system's current measurement (the newest: see the measurements above where there are several). "
    "One panel per workload holds every system's line on one y-axis (a system run in several configurations "
    "gets a panel per configuration); whether the panels share one axis is said above each chart. "
    "Linearity = value / (first value x load / first load); the knee (a black diamond) is the first point "
    "below 80 % of linear: past it more load still adds throughput, only less per step, so a knee is no limit. "
    "The limit is saturation (table below): the largest load up to which every run meets every criterion "
    "the study declares for its tool. Load axes are log2: each step doubles the load."
)
busiest = r.busiest_workloads(con, study)  # the overview's headline order: its top workloads are drawn first

# %%
pts = r.query(
    con,
    """SELECT axis, metric, unit, coalesce(system, '(no system label)') AS system, workload,
                             trim(coalesce(config_label, '') || ' ' || coalesce(raid_level, '')
                                  || CASE WHEN sizes > 1 THEN ' ' || size_label(block_size_bytes) ELSE '' END)
                                  AS configuration,
                             load, value, n, ci95_low, ci95_high, linearity, is_knee
                      FROM (SELECT *, count(DISTINCT block_size_bytes) OVER (PARTITION BY axis, metric, system,
                                           workload, config_label, raid_level) AS sizes  -- one curve per size
                            FROM scaling WHERE study = ?)
                      ORDER BY axis, metric, workload, system, configuration, load""",
    [study],
).pipe(r.in_order, "axis", "metric", "workload", "system", "configuration", "load")
AXES = {
    "outstanding_ios": "outstanding I/Os (queue depth x workers), log2",
    "small_oio": "small-I/O outstanding, log2",
    "large_oio": "large-I/O outstanding, log2",
    "drives": "drives, log2",
    "tiles": "tiles, log2",
}
PANELS = 12


def panels(d: pl.DataFrame) -> tuple[pl.DataFrame, list[str]]:
    """One panel per workload, every system's line in it (and per configuration where a system ran the
    workload in several: a legend of 20 dash styles cannot be read). The first PANELS panels, the busiest
    workloads first (the overview's headline), and each system's first: a cut that keeps every system."""
    if "configuration" in d.columns:
        several = d.group_by("system", "workload").agg(pl.col("configuration").n_unique().alias("n"))["n"].max()
        if (several or 0) > 1:
            d = d.with_columns(workload=pl.col("workload") + " · " + pl.col("configuration").fill_null(""))
    _, keep = r.panels_drawn(d, "workload", PANELS, busiest)
    d = d.filter(pl.col("workload").is_in(keep))
    return d.with_columns(workload=r.short_labels(d["workload"])), keep


for (axis, metric, unit), g in pts.group_by(["axis", "metric", "unit"], maintain_order=True):
    d, keep = panels(g)
    n_all = (
        g.select(["workload", "configuration"]).n_unique()
        if d["workload"].str.contains(" · ").any()
        else g["workload"].n_unique()
    )
    colors = r.system_colors(systems["system"], d["system"])
    resolve, y_said = r.shared_y(d, "workload", "value")
    base = alt.Chart(d).encode(
        x=alt.X("load:Q", scale=alt.Scale(type="log", base=2), title=AXES.get(axis, axis)),
        y=alt.Y("value:Q", title=f"{r.label(metric)}"),
        color=alt.Color("system:N", scale=colors, legend=alt.Legend(orient="bottom", columns=1)),
        detail=alt.Detail("configuration:N"),
        tooltip=r.tooltips("system", "workload", "configuration", "load", "value", "n", "linearity"),
    )
    spread = (
        base.transform_filter("datum.n > 1")
        .mark_errorbar(ticks=True)
        .encode(y=alt.Y("ci95_low:Q", title=f"{r.label(metric)}"), y2="ci95_high:Q")
    )
    knees = (
        base.transform_filter("datum.is_knee")
        .mark_point(shape="diamond", size=260, filled=True, opacity=1)
        .encode(color=alt.value("black"))  # black whatever the system: the knee, not a system
    )
    r.show(
        (base.mark_line(point=True) + spread + knees)
        .properties(width=300, height=200)
        .facet(facet=alt.Facet("workload:N", title=None, header=alt.Header(labelLimit=0)), columns=2)
        .resolve_scale(y=resolve)
        .properties(
            title=alt.TitleParams(
                f"{r.label(metric)} vs {AXES.get(axis, axis)}: one line per system, each point the mean of its runs",
                subtitle=y_said or alt.Undefined,
            )
        ),
        f"Line charts, one panel per workload ({len(keep)} panels, {y_said or 'one panel'}): {r.label(metric)} of "
        f"each of the {d['system'].n_unique()} systems as {AXES.get(axis, axis)} grows, each point the mean of its "
        "runs with its 95 % interval where repeated; black diamonds mark the knees.",
        source={
            "view": "scaling",
            "study": study,
            "system": "system",
            "where": {"axis": axis, "metric": metric, "unit": unit},
            "keys": {"system": "system", "load": "load"},
            "values": {"value": "value", "linearity": "linearity"},
        },
        left_out=r.caption(
            f"{n_all - len(keep)} of {n_all} panels not drawn (the {PANELS} busiest workloads and each system's "
            "first are); every point is in the table below."
            if n_all > len(keep)
            else "",
            r.no_marks(
                systems,
                d["system"],
                f"no curve of two or more loads of {r.label(metric, with_unit=False)} along {AXES.get(axis, axis).removesuffix(', log2')}",
            ),
        ),
    )

# %%
# The hockey stick: latency against throughput along each outstanding-I/O curve
hs = r.query(
    con,
    """SELECT system, workload, load, iops, latency_ms FROM scaling_hockey_stick
       WHERE study = ? ORDER BY system, workload, load""",
    [study],
).pipe(r.in_order, "system", "workload", "load")
if hs.height:
    d, keep = panels(hs)
    n_all = hs["workload"].n_unique()
    r.show(
        alt.Chart(d)
        .mark_line(point=True)
        .encode(
            x=alt.X("iops:Q", title="IO/s"),
            y=alt.Y("latency_ms:Q", title="average latency (ms)"),
            order=alt.Order("load:Q"),
            color=alt.Color(
                "system:N",
                scale=r.system_colors(systems["system"], d["system"]),
                legend=alt.Legend(orient="bottom", columns=1),
            ),
            tooltip=r.tooltips("system", "workload", "load", "iops", "latency_ms"),
        )
        .properties(width=300, height=200)
        .facet(facet=alt.Facet("workload:N", title=None, header=alt.Header(labelLimit=0)), columns=2)
        .resolve_scale(x="independent", y="independent")
        .properties(
            title=alt.TitleParams(
                "Latency vs IO/s as the load grows (the hockey stick), one line per system",
                subtitle="each panel has its own x and y axes (read its own scales): systems share them within a panel",
            )
        ),
        f"Line charts, one panel per workload ({len(keep)} panels): average latency against IO/s of each of the "
        f"{d['system'].n_unique()} systems as the outstanding I/Os grow.",
        source={
            "view": "scaling_hockey_stick",
            "study": study,
            "system": "system",
            "keys": {"system": "system", "load": "load"},
            "values": {"iops": "iops", "latency_ms": "latency_ms"},
        },
        left_out=r.caption(
            f"{n_all - len(keep)} of {n_all} workloads not drawn (the {PANELS} busiest and each system's first are)."
            if n_all > len(keep)
            else "",
            r.no_marks(systems, d["system"], "no outstanding-I/O curve with both IO/s and average latency"),
        ),
    )

# %%
# The knee beside saturation, per throughput curve: where it bends, where it peaks, where it fails
sat = r.query(
    con,
    """SELECT coalesce(system, '(no system label)') AS system, axis, workload, saturation_load, first_failing_load,
                             max_load_tested, criteria
                      FROM saturation WHERE study = ? ORDER BY system, axis, workload""",
    [study],
).pipe(r.in_order, "system", "axis", "workload")
curve = ["axis", "metric", "system", "workload", "configuration"]
thru = pts.filter(pts["linearity"].is_not_null())
bends = (
    thru.group_by(curve, maintain_order=True)
    .agg(
        pl.col("load").filter(pl.col("is_knee")).first().alias("knee_load"),
        pl.col("linearity").filter(pl.col("is_knee")).first().alias("linearity_at_knee"),
        pl.col("load").sort_by("value").last().alias("peak_load"),
        (pl.col("value").max() / pl.col("value").sort_by("load").first()).alias("peak_x_first"),
    )
    .join(sat.drop("max_load_tested"), on=["system", "axis", "workload"], how="left", maintain_order="left")
)
r.note(
    "Knee and saturation are two things (view scaling, view saturation). The knee is the first load at which a "
    "throughput curve delivers under 80 % of linear scaling (linearity < 0.8): past it the curve may still "
    "climb (peak_x_first: its highest mean over its first), only less per step. Saturation is the one limit: the "
    "largest load up to which every run meets every criterion the study declares for its tool (first_failing_load: "
    "the load where a run first fails one); no saturation where no criterion of the study applies to the curve's tool."
)
r.table(bends, "Where each throughput curve bends (knee), peaks and fails (saturation)")
if not sat.height and pts.height:
    r.note("No criterion this study declares applies to the tools of these curves: no saturation load.")
headline.sla_block(con, study)
r.table(pts, "Every curve point")

# %%
r.provenance(con, study)
