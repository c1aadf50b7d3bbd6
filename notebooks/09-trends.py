# ---
# jupyter:
#   iolab:
#     studies: SELECT study FROM trend_measurements WHERE measurements > 1
#     title: Trends over time
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
import itertools

import altair as alt

from ingest.reports import page as r

con = r.connect(db_path, lake)
r.heading(study, "trends over time")
systems = r.systems_block(con, study)
r.note(
    "The same system measured again (view trends). A measurement is the runs of one firmware (the sidecar's "
    "firmware label) or, without one, of one day (the runs' own start times); they are ordered by the "
    "study's firmware_order, else by their first run. Each point is the mean of a measurement's runs with its "
    "95 % interval (t, n - 1 degrees of freedom). Against the previous measurement at the same workload, load, "
    "scope and metric, a regression is a change for the worse (lower IO/s or MB/s, higher latency) whose whole "
    "95 % Welch interval is below 0: outside the run-to-run noise of both measurements. One run on either side "
    "is a 'single run': no claim is made."
)
m = r.query(
    con,
    """SELECT coalesce(system, '(no system label)') AS system, measurement_no AS "no.", measurement, measured_by,
              ordered_by, runs, files, first_run, last_run
       FROM trend_measurements WHERE study = ? ORDER BY system, measurement_no NULLS LAST, measurement""",
    [study],
)
r.table(m, "Measurements of each system, oldest first")

# %%
HEADLINE = ["iops", "mbps", "avg_latency_ms"]
PANELS = 12  # panels per metric; the table below holds every point
SHAPES = {
    "first measurement": "circle",
    "single run": "diamond",
    "within noise": "square",
    "better": "triangle-up",
    "regression": "cross",
    "no direction": "stroke",
}
STATUS = list(SHAPES)
t = r.query(
    con,
    """SELECT coalesce(system, '(no system label)') AS system, measurement, measurement_no, metric, unit,
              workload_label AS workload, coalesce(config_label, '') AS configuration, load, value, n,
              value_ci95_low, value_ci95_high, previous_measurement, pct_change, ci95_low_pct, ci95_high_pct, verdict,
              CASE WHEN previous_value IS NULL THEN 'first measurement' WHEN regression THEN 'regression'
                   ELSE coalesce(verdict, 'no direction') END AS status
       FROM trends WHERE study = ? AND scope = 'all' AND trended AND metric IN (SELECT unnest(?::VARCHAR[]))
       ORDER BY list_position(?::VARCHAR[], metric), system, workload, configuration, measurement_no""",
    [study, HEADLINE, HEADLINE],
)
for (metric, unit), g in t.group_by(["metric", "unit"], maintain_order=True):
    d = g.to_pandas()
    d["panel"] = r.short_labels(
        d["workload"] + (" · " + d["configuration"]).where(d["configuration"] != "", "") + " · " + d["system"], 60
    )
    every = list(dict.fromkeys(d["panel"]))
    # the systems take turns, so each keeps its share of the panels
    per_system = [list(dict.fromkeys(g["panel"])) for _, g in d.groupby("system", sort=False)]
    panels = [p for turn in itertools.zip_longest(*per_system) for p in turn if p is not None][:PANELS]
    d = d[d["panel"].isin(panels)]
    shown = set(d["status"])
    cut = (
        [f"{len(panels)} of {len(every)} panels (every point is in the table below)"]
        if len(panels) < len(every)
        else []
    )
    if (d["n"] < 2).any():
        cut.append(f"no interval bar for the {(d['n'] < 2).sum()} measurement(s) of one run")
    base = alt.Chart(d).encode(
        x=alt.X("measurement:N", sort=alt.SortField("measurement_no"), title="measurement, oldest first"),
        color=alt.Color(
            "system:N",
            scale=r.system_colors(systems["system"], d["system"]),
            legend=alt.Legend(orient="bottom", columns=1),
        ),
    )
    chart = alt.layer(
        base.mark_line().encode(y=alt.Y("value:Q", title=f"{metric} ({unit})")),
        base.mark_rule().encode(y=alt.Y("value_ci95_low:Q", title=f"{metric} ({unit})"), y2="value_ci95_high:Q"),
        # a red ring around each regression, over the system's colour
        base.transform_filter(alt.datum.status == "regression")
        .mark_point(size=260, filled=False, color="#d62728", strokeWidth=2)
        .encode(y=alt.Y("value:Q", title=f"{metric} ({unit})"), color=alt.value("#d62728")),
        base.mark_point(size=70, filled=True).encode(
            y=alt.Y("value:Q", title=f"{metric} ({unit})"),
            shape=alt.Shape(
                "status:N",
                scale=alt.Scale(
                    domain=[s for s in STATUS if s in shown], range=[SHAPES[s] for s in STATUS if s in shown]
                ),
                title="vs previous",
                legend=alt.Legend(orient="bottom"),
            ),
            tooltip=r.tooltips(
                "system", "workload", "configuration", "measurement", "value", "n", "status", "pct_change"
            ),
        ),
    )
    r.show(
        chart.properties(width=220, height=160)
        .facet(facet=alt.Facet("panel:N", title=None, header=alt.Header(labelLimit=0)), columns=3)
        .resolve_scale(x="independent", y="independent")
        .properties(title=f"{metric} ({unit}) per measurement, with the 95 % interval of its runs"),
        f"Line charts, one panel per system and workload ({len(panels)} panels): the mean {metric} ({unit}) of each "
        f"measurement, oldest to newest, with a vertical bar for the 95 % interval of its runs; a cross in a red "
        f"ring marks a regression against the previous measurement.",
        source={
            "view": "trends",
            "study": study,
            "system": "system",
            "where": {"scope": "all", "metric": metric, "trended": True},
            "keys": {"system": "system", "measurement": "measurement", "workload": "workload_label", "load": "load"},
            "values": {"value": "value", "value_ci95_low": "value_ci95_low", "value_ci95_high": "value_ci95_high"},
        },
        left_out=r.caption(
            ("Drawn: " + "; ".join(cut) + ".") if cut else "",
            r.no_marks(systems, d["system"], f"no {metric} point of theirs was measured more than once"),
        ),
    )

# %%
reg = t.filter(t["previous_measurement"].is_not_null()).select(
    "system",
    "workload",
    "configuration",
    "metric",
    "unit",
    "previous_measurement",
    "measurement",
    "n",
    "pct_change",
    "ci95_low_pct",
    "ci95_high_pct",
    "verdict",
    "status",
)
r.table(
    reg.sort(reg["status"] != "regression", "system"),
    "Each measurement against the previous one (% change: positive is better)",
)
left = m.filter(m["ordered_by"] == "unordered")
if left.height:
    r.note(
        f"{left.height} measurement(s) are in no trend: their runs state no start time and the study's "
        "firmware_order does not list them (table above)."
    )

# %%
r.provenance(con, study)
