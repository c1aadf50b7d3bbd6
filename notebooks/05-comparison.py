# ---
# jupyter:
#   iolab:
#     studies: SELECT study FROM comparison UNION SELECT study FROM comparison_unmatched
#       UNION SELECT study FROM study_baseline WHERE systems > 1
#     title: Systems compared at matched points
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
study = "ds4300-vs-fastt200-2004"

# %%
from collections import Counter

import altair as alt
import polars as pl

from iolab import lab
from iolab.fdr import noise_alone
from iolab.reports import headline
from iolab.reports import page as r
from iolab.wording import better_means, change_words

con = lab.connect(db_path, lake)
r.heading(study, "systems compared at matched points")
systems = r.systems_block(con, study)
r.note(
    "Each system against the baseline at matched points (view comparison): the same block size, read %, "
    "random % and load (outstanding I/Os), scope and metric, whatever tool measured them; a run with no "
    "read/random mix matches on its workload as written. % better is positive when the system beats the "
    "baseline: higher IO/s and MB/s, lower latency. Where higher is better it is value / baseline - 1; where "
    "lower is better, baseline / value - 1, as much as the throughput the lower latency allows at the same load: "
    "a latency 34 % lower is +51.5 % better, and the column change says it in words (34.0 % lower latency). "
    "A correction factor applies only where the study's "
    "iolab.toml declares one; it is applied to the baseline. A point's value is the mean of its repeated runs "
    "(of one measurement: the table below names them); the columns runs and "
    "baseline's runs count them, and the 95 % interval of the % better (Welch's t) decides the verdict: better or "
    "worse only when the whole interval is on that side of 0, within noise when it spans 0, single run when "
    "either side has one run (no difference is claimed), equal when every run on both sides has the same value."
)
if why := headline.why_no_comparison(con, study):  # said here, beside the page's link and in the print edition
    r.not_drawn(why)
r.note(
    "Drive counts are each side's own: the sidecar's declared count, else the array profile's members behind the "
    "volumes the runs hit, else a published table's (the columns where the drives are stated say which, and what a profile "
    "says where the sidecar overrides it). A bar's label names its own system's RAID level, drives and "
    "configuration, and the baseline's where they differ (2 drives for 10 drives); the column how the points were matched states both counts."
)
measured = r.query(
    con,
    """SELECT DISTINCT system, measurement, baseline_system AS baseline, baseline_measurement AS "baseline measurement"
       FROM comparison WHERE study = ? ORDER BY system""",
    [study],
)
if measured.height:
    r.table(
        measured,
        "Measurements compared: each system's current one (its newest) against the baseline's; a system "
        "measured again is never averaged with its earlier runs (`iolab compare --measurement` compares others)",
    )
if said := noise_alone(con, "comparison_fdr", study):
    r.note(said)
corr = r.query(con, "SELECT correction, correction_source, scope FROM study_corrections WHERE study = ?", [study])
if corr.height:
    factor, source, scope = corr.row(0)
    r.note(
        (f"Declared correction: x {factor:g} ({source}), " if factor is not None else f"No correction: {source}. ")
        + (
            f"applied where its scope covers the metric ({scope}); every other metric (counts, errors, CPU use, "
            "settings, and what the scope leaves out) is compared as measured, with a correction of 1 in the tables."
            if scope
            else ""
        )
    )

# %%
# the study's headline metrics (view headline_metrics): its throughputs, its average latencies (fio's per direction)
HEADLINE = r.query(con, "SELECT metric FROM headline_metrics WHERE study = ? ORDER BY metric_no", [study])["metric"]
HEADLINE = HEADLINE.to_list()
c = r.query(
    con,
    """SELECT metric, unit, direction, system, workload_label AS workload, baseline_config, config,
                           baseline_raid_level, raid_level, baseline_drives, drives,
                           baseline_drives_source, drives_source, baseline_value,
                           -- where a correction applies, the baseline the % better is computed against
                           CASE WHEN correction <> 1 THEN CASE direction WHEN 'higher' THEN baseline_value * correction
                                WHEN 'lower' THEN baseline_value / correction END END AS corrected_baseline,
                           value, n_baseline, n, pct_better, pct_difference,
                           ci95_low_pct, ci95_high_pct, coalesce(verdict, 'no direction') AS verdict, match_rule
                    FROM comparison WHERE study = ? AND metric IN (SELECT unnest(?::VARCHAR[]))
                    ORDER BY list_position(?::VARCHAR[], metric), system, block_size_bytes, read_pct, random_pct, load, workload,
                             config, raid_level, drives, baseline_config, baseline_raid_level, baseline_drives""",
    [study, HEADLINE, HEADLINE],
)
PER_SYSTEM = 80  # bars per system panel; the table below holds every point
baseline = r.query(con, "SELECT baseline_system FROM study_baseline WHERE study = ?", [study])["baseline_system"]
for (metric, _unit, direction), g in c.group_by(["metric", "unit", "direction"], maintain_order=True):
    # the corrected baseline beside the raw one wherever a correction applies (the % better is against it)
    uncorrected = ["corrected_baseline"] if g["corrected_baseline"].null_count() == g.height else []
    # what each % means, in words: the value's own change (a latency 34 % lower, +51.5 % better)
    g = g.with_columns(change=pl.Series([change_words(v, metric) for v in g["pct_difference"]], dtype=pl.String)).drop(
        "pct_difference"
    )
    points = [r.point_label(row) for row in g.iter_rows(named=True)]  # every distinct matched point: its own bar
    d = g.with_columns(matched_point=pl.Series(points, dtype=pl.String))
    d = d.with_columns(point=r.short_labels(d["matched_point"]))  # cut on the axis, whole in print
    shown = d.filter(
        pl.int_range(pl.len()).over("system") < PER_SYSTEM
    )  # a cut per system: every system keeps its panel
    cut = len(d) - len(shown)
    base = alt.Chart(shown).encode(
        y=alt.Y("point:N", sort=None, title=None, axis=alt.Axis(labelLimit=0)),
        tooltip=r.tooltips(
            "system",
            "matched_point",  # what tells two bars apart: workload, RAID level, drives, configuration
            "config",
            "baseline_value",
            *(() if uncorrected else ("corrected_baseline",)),
            "value",
            "n_baseline",
            "n",
            "pct_better",
            "change",
            "ci95_low_pct",
            "ci95_high_pct",
            "verdict",
            "match_rule",
        ),
    )
    # the % axis spans the bars and their intervals as given: a metric whose points are all single runs
    # has no interval, and a scale left to find its extent would warn of an infinite one
    ends = pl.concat([shown[c].cast(pl.Float64).alias("end") for c in ("pct_better", "ci95_low_pct", "ci95_high_pct")])
    ends = ends.drop_nulls().drop_nans()  # none given: skipped
    span = [min(0.0, ends.min()), max(0.0, ends.max())] if ends.len() else [-1.0, 1.0]
    bars = base.mark_bar().encode(
        x=alt.X(
            "pct_better:Q",
            title=f"% better than the baseline ({r.label(metric)}; {direction} is better)",
            scale=alt.Scale(domain=span, nice=True),
        ),
        color=alt.Color(
            "verdict:N", scale=headline.verdict_colors(shown["verdict"]), legend=alt.Legend(orient="bottom")
        ),
    )
    interval = base.mark_rule(color="black").encode(x="ci95_low_pct:Q", x2="ci95_high_pct:Q")
    # the verdicts drawn, the most frequent first (at equal counts, the first drawn first)
    verdicts = sorted(Counter(shown["verdict"].to_list()).items(), key=lambda vn: -vn[1])
    r.show(
        r.whole_labels(
            alt.layer(bars, interval)
            .properties(width=260, height=alt.Step(12))
            .facet(column=alt.Column("system:N", title=None, header=alt.Header(labelLimit=0)))
            .properties(
                title=f"{r.label(metric)}: % better per matched point and its 95 % interval, one panel per system"
            ),
            point="matched_point",
        ),
        f"Bar charts, one panel per system compared with the baseline: the % by which its {r.label(metric)} is "
        f"better at each of its matched points ({len(shown)} bars in {shown['system'].n_unique()} panels), a black "
        "line across each bar for the 95 % interval, the bar's colour the verdict ("
        + ", ".join(f"{n} {v}" for v, n in verdicts)
        + "): only better and worse are outside the noise.",
        source={
            "view": "comparison",
            "study": study,
            "system": "system",
            "where": {"metric": metric},
            "keys": {"system": "system", "workload": "workload_label"},
            "values": {
                "pct_better": "pct_better",
                "value": "value",
                "baseline_value": "baseline_value",
                "ci95_low_pct": "ci95_low_pct",
                "ci95_high_pct": "ci95_high_pct",
                "verdict": "verdict",
            },
        },
        left_out=r.caption(
            f"{cut} of {len(d)} points not drawn (the first {PER_SYSTEM} of each system are); "
            "every point is in the table below."
            if cut
            else "",
            r.no_marks(
                systems,
                d["system"],
                f"no point of theirs matches the baseline's at {r.label(metric)} (listed under 'Points without a match')",
                besides=baseline,
            ),
        ),
    )
    r.table(
        g.drop(["metric", "unit", "direction", *uncorrected]),
        f"Matched points: {r.label(metric)}; {better_means(direction)}",
    )
if c.is_empty():
    r.note("No point of another system matches a baseline point at the headline metrics.")

# %%
allc = r.query(
    con,
    """SELECT system, metric, unit, direction, count(*) AS points, count(*) FILTER (verdict = 'better') AS better,
                              count(*) FILTER (verdict = 'worse') AS worse,
                              count(*) FILTER (verdict = 'within noise') AS within_noise,
                              count(*) FILTER (verdict = 'single run') AS single_run,
                              min(pct_better) AS min_pct_better, median(pct_better) AS median_pct_better,
                              max(pct_better) AS max_pct_better, median(pct_difference) AS median_change
                       FROM comparison WHERE study = ? GROUP BY ALL ORDER BY system, metric""",
    [study],
)
allc = allc.with_columns(
    median_change=pl.Series(
        [change_words(v, m) for v, m in zip(allc["median_change"], allc["metric"])], dtype=pl.String
    )
)
r.table(allc, "Every compared metric: verdicts and % better (the median change in words), summarised per system")
headline.sla_block(con, study)
u = r.query(
    con,
    """SELECT side, system, other_system, workload_label AS workload, scope, metric, unit, config, raid_level,
                           drives, value, reason
                    FROM comparison_unmatched WHERE study = ? AND metric IN (SELECT unnest(?::VARCHAR[]))
                    ORDER BY side, system, metric, workload, config, raid_level, drives, value""",
    [study, HEADLINE],
).pipe(r.in_order, "side", "system", "metric", "workload", "config", "raid_level", "drives", "value")
r.table(u, "Points without a match (headline metrics): listed, not dropped")

# %%
r.provenance(con, study)
