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
# One panel per unit, on the real time axis; the TOP series by mean load are drawn, the rest summarised
TOP = 8
CHARTED = [  # the metrics charted, one panel per unit
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
pts = r.query(
    con,
    r"""WITH s AS (SELECT ss.series_id, ss.source_id, ss.unit, ss.metric, ss.avg, ss.source_path AS file,
                                       ss.host || ' ' || ss.object || coalesce(' (' || ss.instance || ')', '') || ' ' || ss.counter AS series,
                                       row_number() OVER (PARTITION BY ss.unit ORDER BY ss.avg DESC NULLS LAST, ss.series_id) AS rank,
                                       count(*) OVER (PARTITION BY ss.unit) AS of_unit
                                FROM series_summary ss WHERE ss.study = ? AND ss.unit IS NOT NULL
                                AND list_contains(?, ss.metric))
                      SELECT s.unit, s.series, s.rank, s.of_unit, p.ts, p.value, s.file, p.sample_no, s.source_id
                      FROM s JOIN series_points p USING (series_id)
                      WHERE s.rank <= ? AND p.ts IS NOT NULL ORDER BY s.unit, s.series, p.ts""",
    [study, CHARTED, TOP],
)
# each capture's series per unit, and its system: a chart names the captures and systems it draws no line of
rest = r.query(
    con,
    """SELECT source_id, unit, host, object, instance, counter, samples, avg, p95, max, first_ts, last_ts, metric
                       FROM series_summary WHERE study = ? ORDER BY unit, avg DESC NULLS LAST, host, object, instance, counter, series_id""",
    [study],
)
per_unit = (
    rest.filter(pl.col("unit").is_not_null() & pl.col("metric").is_in(CHARTED))
    .group_by("source_id", "unit")
    .agg(pl.len().alias("series"))
    .join(numbers, on="source_id")
)
by_number = dict(zip(caps["#"], caps["system"]))


def not_drawn(unit: str, drawn: set) -> str:
    """What a unit's chart draws no line of: captures whose series there all have lower means, and the
    study's systems whose captures record no series in that unit at all."""
    hidden = per_unit.filter((pl.col("unit") == unit) & ~pl.col("source_id").is_in(list(drawn))).sort("capture #")
    said = [
        f"capture {n}"
        + (f" ({by_number[n]})" if by_number.get(n) else "")
        + f": its {k} series in {unit} have lower means"
        for n, k in zip(hidden["capture #"], hidden["series"])
    ]
    counted = per_unit.filter(pl.col("unit") == unit)["capture #"].to_list()
    return r.caption(
        f"No lines for {'; '.join(said)}." if said else "",
        r.no_marks(caps, [by_number.get(n) for n in counted], f"their captures record no series in {unit}"),
    )


for unit, g in pts.join(numbers, on="source_id", how="left", maintain_order="left").group_by(
    "unit", maintain_order=True
):
    # series of the same name in two captures are two lines: their names say which capture (never one merged line)
    twice = pl.col("source_id").n_unique().over("series") > 1
    named = pl.col("series") + " · capture " + pl.col("capture #").cast(pl.String)
    d = g.with_columns(series=pl.when(twice).then(named).otherwise(pl.col("series")))
    unit = unit[0] if isinstance(unit, tuple) else unit
    of_unit = int(d["of_unit"].max())
    d = d.with_columns(series=r.short_labels(d["series"]))
    r.show(
        alt.Chart(d)
        .mark_line()
        .encode(
            x=r.time_x(d["ts"], what="time (as the capture wrote it)"),
            y=alt.Y("value:Q", title=f"value ({unit})"),
            color=alt.Color("series:N", legend=alt.Legend(orient="bottom", columns=1, labelLimit=0), title=None),
            # the capture file and the sample's number in it (0-based, data lines only: its line is not stored)
            tooltip=[
                *r.tooltips("series", "ts", "value", "file"),
                alt.Tooltip("sample_no:Q", title="sample (0-based)"),
            ],
        )
        .properties(
            width=720,
            height=220,
            title=f"{unit}: top {min(TOP, of_unit)} of {of_unit} series by mean",
        ),
        f"Line chart over time of the {min(TOP, of_unit)} series in {unit} with the highest mean "
        f"({d['series'].n_unique()} lines, one per series: host, object, instance and counter).",
        left_out=r.caption(
            f"{of_unit - TOP} of {of_unit} series in {unit} not drawn (lower means); all are in the table below."
            if of_unit > TOP
            else "",
            not_drawn(unit, {int(x) for x in d["source_id"]}),
        ),
    )
r.table(numbered(rest.drop("metric")), "Every series, summarised (avg / p95 / max)")

# %%
r.provenance(con, study)
