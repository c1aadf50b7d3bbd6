# ---
# jupyter:
#   iolab:
#     studies: SELECT study FROM study_captures
#     title: esxtop / perfmon time series
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
study = "esxtop-perfmon-samples"

# %%
import altair as alt
import polars as pl

from iolab import lab
from iolab.reports import envelope
from iolab.reports import page as r

con = lab.connect(db_path, lake)
r.heading(study, "esxtop and perfmon time series")
r.note(
    "Counters from esxtop batch output and Windows perfmon logs, summarised per capture (views series_summary, "
    "device_io, cpu_usage): join them to benchmark runs by host and time window (first/last sample)."
)
caps = r.query(
    con,
    """SELECT row_number() OVER (ORDER BY capture) AS "#", capture, system, tool, time_zone, bias_minutes, series,
              samples, has_date, first_sample, last_sample
       FROM study_captures WHERE study = ? ORDER BY capture""",
    [study],
)
r.table(caps, "Captures")
r.store_note(con)
# each capture's number (the table's #) by its source: two captures of hosts with the same name (an ESXi
# host left as "localhost") hold rows and series of the same names, told apart by that number
numbers = (
    # the capture's stored source (its series' source_id) from its place, not from series_summary: that view
    # aggregates every point of the study, which the chart and the tables below already pay for
    r.query(con, "SELECT content_id AS source_id, path FROM source_files WHERE study = ? AND status = 'ok'", [study])
    .join(
        caps.select(pl.col("capture").alias("path"), pl.col("#").alias("capture #")), on="path", maintain_order="left"
    )
    .select("source_id", "capture #")
    .unique("source_id", keep="first")
)


def numbered(frame: pl.DataFrame) -> pl.DataFrame:
    """A table of rows per capture, led by the capture's number where the study has more than one."""
    if caps.height < 2:
        return frame.drop("source_id")
    return frame.join(numbers, on="source_id", how="left", maintain_order="left").select(
        "capture #", pl.exclude("source_id", "capture #")
    )


# %%
dev = r.query(
    con,
    """SELECT source_id, host, object, instance, iops_avg, iops_p95, iops_max, read_iops_avg, write_iops_avg,
                             davg_ms_avg, kavg_ms_avg, gavg_ms_avg, qavg_ms_avg, read_latency_ms_avg,
                             write_latency_ms_avg, queue_length_avg
                      FROM device_io WHERE study = ? ORDER BY iops_avg DESC NULLS LAST, host, object, instance""",
    [study],
)
r.table(numbered(dev), "Storage devices, adapters, paths, virtual and logical disks (avg / p95 / max over the capture)")
cpu = r.query(
    con,
    """SELECT source_id, host, object, instance, counter, samples, avg, p95, max FROM cpu_usage
                      WHERE study = ? ORDER BY metric, avg DESC, host, object, instance, counter""",
    [study],
)
r.table(numbered(cpu), "CPU: utilisation per physical CPU, ready time per VM group (highest first)")

# %%
# One chart per unit, on the real time axis: each system's TOP series there by mean load are drawn
# (never the study's top alone: every system has its lines), the rest summarised in the table below
TOP = 8  # lines per system, fewer where the study has more than LINES // TOP systems
LINES = 20  # lines a chart tells apart by colour
CHARTED = [  # the metrics charted, one chart per unit
    "cpu_util_pct",
    "cpu_used_pct",
    "cpu_ready_pct",
    "queue_length",
    "iops",
    "read_iops",
    "write_iops",
    "davg_ms",
    "gavg_ms",
]
ranked = r.query(
    con,
    r"""SELECT series_id, source_id, unit, coalesce(system, '(no system label)') AS system, source_path AS file,
              host || ' ' || object || coalesce(' (' || instance || ')', '') || ' ' || counter AS series,
              row_number() OVER (PARTITION BY unit, system ORDER BY avg DESC NULLS LAST, series_id) AS rank,
              count(*) OVER (PARTITION BY unit, system) AS of_system, count(*) OVER (PARTITION BY unit) AS of_unit
       FROM series_summary WHERE study = ? AND unit IS NOT NULL AND list_contains(?, metric)
       AND first_ts IS NOT NULL  -- a time axis: a capture of times of day without a date has no place on it
       ORDER BY unit, system, rank""",
    [study, CHARTED],
)
systems = ranked["system"].unique().sort().to_list()
top = max(1, min(TOP, LINES // max(1, len(systems))))
drawn = ranked.filter(pl.col("rank") <= top).join(numbers, on="source_id", how="left", maintain_order="left")
# a line is named by its system (when the study has more than one) and its series; two captures of one
# system holding series of the same name (an ESXi host left as "localhost") by the capture's number too
twice = pl.col("source_id").n_unique().over("unit", "system", "series") > 1
drawn = drawn.with_columns(
    line=(pl.col("system") + " · " if len(systems) > 1 else pl.lit(""))
    + pl.col("series")
    + pl.when(twice).then(" · capture " + pl.col("capture #").cast(pl.String)).otherwise(pl.lit(""))
)
# each capture's series per unit, and its system: a chart names the systems it draws no line of
rest = r.query(
    con,
    """SELECT source_id, unit, host, object, instance, counter, samples, avg, p95, max, first_ts, last_ts, metric
                       FROM series_summary WHERE study = ? ORDER BY unit, avg DESC NULLS LAST, host, object, instance, counter, series_id""",
    [study],
)


def left_out(unit: str, g: pl.DataFrame, meta: dict) -> str:
    """What a unit's chart does not draw: each system's series past its top, the thinning and the first
    samples left out (iolab.reports.envelope), and the study's systems with no series in that unit."""
    cut = g.group_by("system", maintain_order=True).agg(pl.col("of_system").max(), pl.len().alias("n"))
    cut = cut.filter(pl.col("of_system") > pl.col("n"))
    said = [f"{s}: {k - n} of its {k}" for s, k, n in zip(cut["system"], cut["of_system"], cut["n"])]
    if len(systems) < 2:
        said = [f"{k - n} of the {k}" for k, n in zip(cut["of_system"], cut["n"])]
    labels = dict(zip(g["series_id"].to_list(), g["line"].to_list()))
    undated = rest.filter((pl.col("unit") == unit) & pl.col("metric").is_in(CHARTED) & pl.col("first_ts").is_null())
    return r.caption(
        f"Series in {unit} not drawn (lower means; all are in the table below): {'; '.join(said)}." if said else "",
        f"{undated.height} series in {unit} of captures that give times of day without a date are not drawn on "
        "the time axis (they are in the table below)."
        if undated.height
        else "",
        envelope.caption(meta, g.height, labels),
        r.no_marks(caps, g["system"].to_list(), f"their captures record no series in {unit}"),
    )


for (unit,), g in drawn.group_by("unit", maintain_order=True):
    pts, meta = envelope.points(con, g["series_id"].to_list())
    if pts.is_empty():  # series with a date whose points have none (a capture's stamps it could not read)
        continue
    d = pts.join(g.select("series_id", "line", "system", "file"), on="series_id", maintain_order="left")
    d = d.with_columns(series=r.short_labels(d["line"])).drop("line")
    lines = d["series"].n_unique()
    r.show(
        alt.Chart(d)
        .mark_line()
        .encode(
            x=r.time_x(d["ts"], what="time (as the capture wrote it)"),
            y=alt.Y("value:Q", title=f"value ({unit})"),
            color=alt.Color(
                "series:N",
                legend=alt.Legend(orient="bottom", columns=1, labelLimit=0),
                title=None,
                scale=alt.Scale(scheme="tableau20" if lines > 10 else "tableau10"),
            ),
            detail="series_id:N",
            # the capture file and the sample's number in it (0-based, data lines only: its line is not stored)
            tooltip=[
                *r.tooltips("series", "system", "ts", "value", "file"),
                alt.Tooltip("sample_no:Q", title="sample (0-based)"),
            ],
        )
        .properties(
            width=720,
            height=220,
            title=f"{unit}: top {top} series by mean of each system"
            if len(systems) > 1
            else f"{unit}: top {min(top, int(g['of_unit'].max()))} of {int(g['of_unit'].max())} series by mean",
        ),
        f"Line chart over time of the series in {unit} with the highest mean"
        + (f", the top {top} of each of {g['system'].n_unique()} systems" if len(systems) > 1 else "")
        + f" ({lines} lines, one per series: {'system, ' if len(systems) > 1 else ''}host, object, instance and counter).",
        source={
            "view": "series_summary",
            "study": study,
            "system": "system",
            "where": {"unit": unit, "metric": CHARTED, "first_ts": None},  # None: IS NOT NULL
            "aggregate": True,
            "envelope": meta,
        },
        left_out=left_out(unit, g, meta),
    )
r.table(numbered(rest.drop("metric")), "Every series, summarised (avg / p95 / max)")

# %%
r.provenance(con, study)
