# ---
# jupyter:
#   iolab:
#     studies: SELECT study FROM system_measurements WHERE ordered_by <> 'unordered'
#       GROUP BY study, system HAVING count(*) > 1
#     title: Trends over time
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
import itertools

import altair as alt
import polars as pl

from iolab import lab
from iolab.fdr import noise_alone
from iolab.reports import measured
from iolab.reports import page as r
from iolab.wording import change_words

con = lab.connect(db_path, lake)
r.heading(study, "trends over time")
systems = r.systems_block(con, study)
r.note(
    f"The same system measured again (view trends). {measured.RULE} A run's time is its own start, or its end "
    "minus its runtime where a file states only those (fio JSON). Measurements are ordered by the study's "
    "firmware_order, else by their first run. Each point is the mean of a measurement's runs with its "
    "95 % interval (t, n - 1 degrees of freedom). Against the previous measurement at the same workload, load, "
    "scope and metric, a regression is a change for the worse (lower IO/s or MB/s, higher latency) whose whole "
    "95 % Welch interval is below 0: outside the run-to-run noise of both measurements. One run on either side "
    "is a 'single run': no claim is made. % change is positive where the newer is better: value / previous - 1 "
    "where higher is better, previous / value - 1 where lower is (a latency 34 % lower is +51.5 %, as much as "
    "the throughput it allows at the same load); the column change says the value's own change in words "
    "(34.0 % lower latency)."
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
# the study's headline metrics (view headline_metrics): its throughputs, its average latencies (fio's per direction)
HEADLINE = r.query(con, "SELECT metric FROM headline_metrics WHERE study = ? ORDER BY metric_no", [study])["metric"]
HEADLINE = HEADLINE.to_list()
PANELS = 12  # panels per metric, more where more have a change outside the noise; the table below holds every point
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
              value_ci95_low, value_ci95_high, previous_measurement, previous_n, pct_change, pct_difference,
              ci95_low_pct,
              ci95_high_pct, verdict,
              fdr_q, verdict_fdr,
              CASE WHEN previous_value IS NULL THEN 'first measurement' WHEN regression THEN 'regression'
                   ELSE coalesce(verdict, 'no direction') END AS status,
              list_position(?::VARCHAR[], metric) AS metric_no
       FROM trends WHERE study = ? AND scope = 'all' AND trended AND metric IN (SELECT unnest(?::VARCHAR[]))""",
    [HEADLINE, study, HEADLINE],
)
# workloads and configurations in their numeric order (4 KiB before 16 KiB), as every page orders them
t = r.in_order(t, "metric_no", "system", "workload", "configuration", "measurement_no").drop("metric_no")
if said := noise_alone(con, "trends", study):
    r.note(said)
if t.is_empty():  # said here, beside the page's link and in the print edition, which leaves the page out
    r.not_drawn(
        f"no point of any system was measured in two of its measurements at {', '.join(r.label(m) for m in HEADLINE)} over all I/Os "
        "(the measurements above hold other points, or none with numbers): nothing to trend"
    )


def lead_with_changes(d: pl.DataFrame) -> list[str]:
    """The panels to draw, in order: every panel with a regression (never cut), then those with a change
    for the better outside the noise, then the rest (the systems taking turns, so each keeps its share),
    up to PANELS panels in all."""
    by_panel = d.group_by("panel", maintain_order=True).agg(pl.col("status")).iter_rows()
    statuses = {p: set(st) for p, st in by_panel}
    worse = [p for p, st in statuses.items() if "regression" in st]
    better = [p for p, st in statuses.items() if "better" in st and p not in worse]
    rest = [
        [p for p in dict.fromkeys(g["panel"].to_list()) if p not in worse and p not in better]
        for _, g in d.group_by("system", maintain_order=True)
    ]
    turns = [p for turn in itertools.zip_longest(*rest) for p in turn if p is not None]
    return worse + (better + turns)[: max(0, PANELS - len(worse))]


for (metric, _unit), g in t.group_by(["metric", "unit"], maintain_order=True):
    configured = pl.when(pl.col("configuration") != "").then(" · " + pl.col("configuration")).otherwise(pl.lit(""))
    d = g.with_columns(panel=pl.col("workload") + configured + " · " + pl.col("system"))
    d = d.with_columns(panel=r.short_labels(d["panel"], 60))
    every = list(dict.fromkeys(d["panel"].to_list()))
    regressions, improvements = (d["status"] == "regression").sum(), (d["status"] == "better").sum()
    panels = lead_with_changes(d)
    trended = set(d["system"].to_list())
    marks = d.filter(pl.col("panel").is_in(panels))
    drawn = f"{len(panels)} of {len(every)} panels drawn; " + (
        f"all {regressions} regressions among them, drawn first"
        if regressions
        else f"no regression (a change for the worse outside the noise) in any of the {len(every)}"
    )
    if improvements:
        kept = (marks["status"] == "better").sum()
        drawn += (
            f"; {'all' if kept == improvements else f'{kept} of'} {improvements} changes for the better outside "
            "the noise" + (", next" if regressions else ", drawn first")
        )
    cut = [drawn + (" (every point is in the table below)" if len(panels) < len(every) else "")]
    d = marks
    shown = set(d["status"].to_list())
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
        base.mark_line().encode(y=alt.Y("value:Q", title=f"{r.label(metric)}")),
        base.mark_rule().encode(y=alt.Y("value_ci95_low:Q", title=f"{r.label(metric)}"), y2="value_ci95_high:Q"),
        # a red ring around each regression, over the system's colour
        base.transform_filter(alt.datum.status == "regression")
        .mark_point(size=260, filled=False, color="#d62728", strokeWidth=2)
        .encode(y=alt.Y("value:Q", title=f"{r.label(metric)}"), color=alt.value("#d62728")),
        base.mark_point(size=70, filled=True).encode(
            y=alt.Y("value:Q", title=f"{r.label(metric)}"),
            shape=alt.Shape(
                "status:N",
                scale=alt.Scale(
                    domain=[s for s in STATUS if s in shown], range=[SHAPES[s] for s in STATUS if s in shown]
                ),
                title="vs previous",
                legend=alt.Legend(orient="bottom"),
            ),
            tooltip=r.tooltips(
                "system", "workload", "configuration", "measurement", "value", "n", "status", "pct_change", "fdr_q"
            ),
        ),
    )
    r.show(
        chart.properties(width=220, height=160)
        .facet(facet=alt.Facet("panel:N", title=None, sort=panels, header=alt.Header(labelLimit=0)), columns=3)
        .resolve_scale(x="independent", y="independent")
        .properties(
            # the count is in the chart's own title: an exported image (iolab report --images) carries it too
            title=alt.TitleParams(
                f"{r.label(metric)} per measurement, with the 95 % interval of its runs", subtitle=[drawn + "."]
            )
        ),
        f"Line charts, one panel per system and workload ({len(panels)} panels, those with a regression first, "
        f"then those with a change for the better): the mean {r.label(metric)} of each measurement, oldest to "
        f"newest, with a vertical bar for the 95 % interval of its runs; a cross in a red ring marks a regression "
        f"against the previous measurement.",
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
            r.no_marks(
                systems.filter(systems["system"].is_in(list(trended))),
                d["system"],
                f"their panels come after the {len(panels)} drawn (no regression there; the table below has them)",
            ),
            r.no_marks(
                systems, trended, f"no {r.label(metric, with_unit=False)} point of theirs was measured more than once"
            ),
        ),
    )

# %%
t = t.with_columns(
    change=pl.Series([change_words(v, m) for v, m in zip(t["pct_difference"], t["metric"])], dtype=pl.String)
)
reg = t.filter(t["previous_measurement"].is_not_null()).select(
    "system",
    "workload",
    "configuration",
    "metric",
    "unit",
    "previous_measurement",
    "previous_n",
    "measurement",
    "n",
    "pct_change",
    "change",
    "ci95_low_pct",
    "ci95_high_pct",
    "verdict",
    "fdr_q",
    "verdict_fdr",
    "status",
)
r.table(
    reg.sort(reg["status"] != "regression", "system", maintain_order=True),
    "Each measurement against the previous one (% change: positive is better; change: the value's own, in words)",
)
left = m.filter(m["ordered_by"] == "unordered")
if left.height:
    r.note(
        f"{left.height} measurement(s) are in no trend: their runs state no time (neither a start nor an end "
        "and a runtime) and the study's firmware_order does not list them; runs with no firmware label and no "
        "time are the measurement 'no time' (table above)."
    )

# %%
r.provenance(con, study)
