"""The explore page (notebooks/11-explore.py): one chart of any metric the study measured (y) against any
load or workload dimension (x), a colour per system, one panel or a panel per workload, each picked
from the page's select inputs. The inputs are Vega-Lite parameters bound to the page's own elements:
no server and no network, the chart changes in the browser from the one table the page carries.

That table is long, one row per number (``long_table``): every number of each system's current
measurement at the widest scope the study states its metric at (view explore_runs), and the points of
each capture metric's busiest series (view explore_series, series_points). Its size is bounded
(``MAX_ROWS``): where a metric and system hold more numbers than their share, every k-th of them is
sent, in workload and load order (capture points in time order), and the caption says how many; no
number is changed or averaged. The chart's inputs start on a default (``default_pick``), the picture
without scripts and in print, which the chart oracle checks against its view (``source["picked"]``).

A metric is labelled as the other pages label it, from the vocabulary (``metric_label``: its unit,
role and direction), in this one helper.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import altair as alt
import polars as pl

from .. import display
from . import page as r

# the x dimensions, in the order the input lists them: the column of the long table and what it is
DIMS = {
    "outstanding_ios": "outstanding I/Os (queue depth x workers)",
    "queue_depth": "queue depth (I/Os per worker)",
    "workers": "workers (threads, jobs)",
    "block_size_bytes": "block size (bytes)",
    "read_pct": "reads (% of I/Os)",
    "random_pct": "random (% of I/Os)",
    "small_oio": "small I/Os outstanding (ORION)",
    "large_oio": "large I/Os outstanding (ORION)",
    "tiles": "tiles",
    "vms": "VMs",
    "drives": "drives",
    "time": "time (a run's start, a capture's samples)",
}
MAX_ROWS = 10_000  # numbers the page carries at most
TOP_SERIES = 4  # series sent per capture metric: the highest means
PANELS = {"none": "one panel", "workload": "a panel per workload (a capture's: per series)"}
Y, X, FACET = "iolab_y", "iolab_x", "iolab_panels"  # the parameters' names
_RUN_COLUMNS = ", ".join(d for d in DIMS if d != "time")


def metric_label(metric: str, unit: str | None, role: str | None, direction: str | None) -> str:
    """A metric as the pages name it, from the vocabulary and its label (iolab.display): 'average latency
    (ms): latency, lower is better', 'IO/s: throughput, higher is better'."""
    what = ", ".join(p for p in (role, f"{direction} is better" if direction else None) if p)
    return display.metric_label(metric, unit) + (f": {what}" if what else "")


def runs(con, study: str) -> pl.DataFrame:
    """Every number the explore page can draw of ``study``'s runs (view explore_runs), in workload and load order."""
    return r.query(
        con,
        f"""SELECT system, metric, unit, role, direction, scope, target, workload, {_RUN_COLUMNS},
                   strftime(run_start, '%Y-%m-%d %H:%M:%S') AS time, value, file, line
            FROM explore_runs WHERE study = ?
            ORDER BY metric, unit, system, workload, {_RUN_COLUMNS}, time, file, line, target, value""",
        [study],
    )


def captures(con, study: str, top: int = TOP_SERIES) -> tuple[pl.DataFrame, int]:
    """The points of each capture metric's ``top`` series by mean (views explore_series, series_points),
    in time order, with the file and sample number they were read from; and how many series are not sent."""
    series = r.query(
        con,
        """SELECT series_id, source_id, system, metric, unit, role, direction, series, file,
                  row_number() OVER (PARTITION BY metric, unit ORDER BY avg DESC NULLS LAST, series_id) AS rank
           FROM explore_series WHERE study = ?""",
        [study],
    )
    if series.is_empty():
        return pl.DataFrame(), 0
    picked = series.filter(pl.col("rank") <= top)
    points = r.query(
        con,
        """SELECT p.series_id, strftime(p.ts, '%Y-%m-%d %H:%M:%S.%g') AS time, p.sample_no AS sample, p.value
           FROM series_points p WHERE p.series_id IN (SELECT unnest(?::BIGINT[])) AND p.ts IS NOT NULL
             AND p.value IS NOT NULL""",
        [picked["series_id"].to_list()],
    )
    out = picked.join(points, on="series_id").sort("metric", "unit", "system", "series", "time")
    return out.drop("series_id", "source_id", "rank"), series.height - picked.height


@dataclass
class Table:
    """What the page sends: the rows, how many numbers there were, and what the caption says of the cut."""

    rows: pl.DataFrame
    numbers: int
    cut: str


def long_table(con, study: str, limit: int = MAX_ROWS) -> Table:
    """The one long table the explore chart carries (runs' numbers and capture points), bounded."""
    run_rows = runs(con, study)
    cap_rows, unsent = captures(con, study)
    rows = (
        pl.concat([f for f in (run_rows, cap_rows) if f.height], how="diagonal_relaxed")
        if (run_rows.height or cap_rows.height)
        else run_rows
    )
    kept, said = bounded(rows, limit)
    if unsent:
        said = r.caption(
            f"Of each capture metric, the {TOP_SERIES} series of highest mean are sent ({unsent:,} series are not: "
            "the time-series page summarises every one).",
            said,
        )
    return Table(kept, rows.height, said)


def bounded(rows: pl.DataFrame, limit: int) -> tuple[pl.DataFrame, str]:
    """``rows`` with at most about ``limit`` of them: each metric and system its share, and of a
    metric and system holding more than its share every k-th row (in the order given); what it says of the cut."""
    if rows.height <= limit:
        return rows, ""
    groups = ["metric", "unit", "system"]
    share = max(1, limit // rows.select(groups).n_unique())
    n = pl.len().over(groups)
    step = ((n + share - 1) // share).cast(pl.Int64)
    kept = rows.filter(pl.int_range(pl.len()).over(groups) % step == 0)
    return kept, (
        f"{rows.height - kept.height:,} of {rows.height:,} numbers are not on this page: it carries at most about "
        f"{limit:,}, each metric and system its share ({share:,}); of one holding more, every k-th number is sent "
        "(in workload and load order; a capture's points in time order), none changed. "
        "`iolab export explore_runs` has every one."
    )


@dataclass
class Pick:
    """The chart's inputs at their default: the metric (a key of ``choices``) and the x dimension."""

    metric: str
    unit: str | None
    x: str


def choices(rows: pl.DataFrame) -> pl.DataFrame:
    """One row per metric the table holds: its key (metric|unit) and label, in name order."""
    m = rows.select("metric", "unit", "role", "direction").unique().sort("metric", "unit", nulls_last=True)
    labels = [metric_label(*row) for row in m.iter_rows()]
    keys = [f"{metric}|{unit or ''}" for metric, unit, _, _ in m.iter_rows()]
    return m.with_columns(key=pl.Series(keys, dtype=pl.String), label=pl.Series(labels, dtype=pl.String))


def dims(rows: pl.DataFrame) -> list[str]:
    """The x dimensions the table holds a value of, in DIMS' order."""
    return [d for d in DIMS if d in rows.columns and rows[d].null_count() < rows.height]


def default_pick(rows: pl.DataFrame) -> Pick:
    """The inputs' default: the headline throughput where there is one (iops, else the first throughput,
    else the first metric); against the dimension the most of its systems state (DIMS' order at a tie)."""
    metrics = choices(rows)
    for test in (pl.col("metric") == "iops", pl.col("role") == "throughput", pl.lit(True)):
        found = metrics.filter(test)
        if found.height:
            metric, unit = found["metric"][0], found["unit"][0]
            break
    mine = rows.filter((pl.col("metric") == metric) & pl.col("unit").eq_missing(unit))
    counts = {d: mine.filter(pl.col(d).is_not_null())["system"].n_unique() for d in dims(mine)}
    x = max(counts, key=lambda d: (counts[d], -list(DIMS).index(d))) if counts else dims(rows)[0]
    return Pick(metric, unit, x)


def _literal(values: list[str]) -> str:
    """A Vega expression's array literal of ``values`` (JSON strings are its string literals)."""
    return "[" + ", ".join(json.dumps(v) for v in values) + "]"


def _params(metrics: pl.DataFrame, xs: list[str], pick: Pick) -> list:
    """The three inputs: the metric (y), the dimension (x) and the panels, bound to select elements."""
    y = alt.param(
        name=Y,
        value=f"{pick.metric}|{pick.unit or ''}",
        bind=alt.binding_select(options=metrics["key"].to_list(), labels=metrics["label"].to_list(), name="y: "),
    )
    x = alt.param(name=X, value=pick.x, bind=alt.binding_select(options=xs, labels=[DIMS[d] for d in xs], name="x: "))
    panels = alt.param(
        name=FACET,
        value="none",
        bind=alt.binding_select(options=list(PANELS), labels=list(PANELS.values()), name="panels: "),
    )
    return [y, x, panels]


# an x label as the dimension reads: sizes in KiB and MiB, a time as its clock time, else the number
X_LABEL = (
    f"{X} == 'block_size_bytes' ? (datum.value >= 1048576 ? (datum.value / 1048576) + ' MiB' : "
    "datum.value >= 1024 ? (datum.value / 1024) + ' KiB' : datum.value + ' B') : "
    f"{X} == 'time' ? slice(datum.value, 11, 19) : datum.label"
)


def picked_label(metrics: pl.DataFrame) -> str:
    """A Vega expression: the picked metric's label (its unit in it), as the y input names it."""
    return f"{_literal(metrics['label'].to_list())}[indexof({_literal(metrics['key'].to_list())}, {Y})]"


def title(metrics: pl.DataFrame) -> dict:
    """The chart's title, the picked metric's label against the picked dimension's (the axes' names and units)."""
    y = picked_label(metrics)
    x = f"{_literal([DIMS[d] for d in DIMS])}[indexof({_literal(list(DIMS))}, {X})]"
    return {"text": {"expr": f"['y: ' + {y}, 'x: ' + {x}]"}, "anchor": "start"}


def sent(rows: pl.DataFrame) -> pl.DataFrame:
    """The columns of ``rows`` the page carries: the vocabulary's words are in the inputs' labels, not
    in every row; a float that is not a number goes as null (no JSON parser reads NaN)."""
    rows = rows.drop(c for c in ("role", "direction") if c in rows.columns)
    floats = [pl.when(pl.col(c).is_finite()).then(pl.col(c)).alias(c) for c, t in rows.schema.items() if t.is_float()]
    return rows.with_columns(floats) if floats else rows


def columns(rows: pl.DataFrame) -> pl.DataFrame:
    """The table as one row of lists, which the chart's first transform (flatten) makes rows again in
    the browser: each column's name is written once, not once a row (half the bytes of 20,000 rows).
    A frame, not a record: Altair checks a record's every value against its schema (19 s at 20,000 rows)."""
    table = sent(rows)
    return table.select(pl.all().implode())


def panel_order(rows: pl.DataFrame) -> list:
    """The panels (workloads, a capture's series) in their numeric order (iolab.display: 512 B, 4 KiB,
    16 KiB, 32 KiB), not as text."""
    names = [c for c in ("workload", "series") if c in rows.columns]
    return r.ordered(v for c in names for v in rows[c].drop_nulls().to_list())


def chart(rows: pl.DataFrame, pick: Pick, systems: pl.DataFrame):
    """The explore chart over ``rows`` (``long_table``), its inputs at ``pick``."""
    metrics, xs = choices(rows), dims(rows)
    base = alt.Chart().encode(
        x=alt.X("x:O", sort="ascending", title=None, axis=alt.Axis(labelExpr=X_LABEL, labelOverlap=True)),
        y=alt.Y("value:Q", title=None, axis=alt.Axis(format="~s")),
        color=alt.Color(
            "system:N",
            scale=r.system_colors(systems["system"], rows["system"]),
            legend=alt.Legend(orient="bottom", columns=1, title="system"),
        ),
        tooltip=[
            alt.Tooltip(f"{c}:{kind}", title=TIPS_SAID.get(c, r.label(c)))
            for c, kind in TOOLTIPS.items()
            if c in rows.columns or c in TIPS_SAID
        ],
    )
    lines = base.transform_filter("isValid(datum.series)").mark_line(strokeWidth=1).encode(detail="series:N")
    points = base.mark_circle(size=36, opacity=0.8)
    layers = alt.layer(points, lines) if "series" in rows.columns else points
    return (
        layers.properties(width=380, height=240)
        .facet(
            facet=alt.Facet("panel:N", title=None, header=alt.Header(labelLimit=0), sort=panel_order(rows)),
            columns=2,
            data=columns(rows),
        )
        .transform_flatten(list(sent(rows).columns))
        .transform_calculate(pick="datum.metric + '|' + (isValid(datum.unit) ? datum.unit : '')")
        .transform_filter(f"datum.pick == {Y} && isValid(datum[{X}])")
        .transform_calculate(metric_label=picked_label(metrics))
        .transform_calculate(
            x=f"datum[{X}]",
            panel=f"{FACET} == 'workload' ? (isValid(datum.workload) ? datum.workload : datum.series) : 'every workload'",
        )
        .add_params(*_params(metrics, xs, pick))
        .properties(title=title(metrics))
    )


# a tooltip's fields computed in the browser, by what they are titled: the point's metric by its label
# with its unit (as the y input names it), the value of the dimension picked
TIPS_SAID = {"metric_label": "metric", "x": "the dimension picked (x)"}
# what a point's tooltip names, where the table has it: the file and line (a capture's: sample) it was read from
TOOLTIPS = {
    "system": "N",
    "workload": "N",
    "series": "N",
    "metric_label": "N",
    "value": "Q",
    "x": "O",
    "scope": "N",
    "target": "N",
    "time": "N",
    "file": "N",
    "line": "Q",
    "sample": "Q",
}


def source(study: str, rows: pl.DataFrame, pick: Pick) -> dict:
    """What the chart oracle checks the default picture against: the view of the picked metric's numbers
    at the picked dimension, and which rows of the page's table the picture draws (``picked``)."""
    same = {"metric": pick.metric, **({"unit": pick.unit} if pick.unit is not None else {})}
    picked = {**same, pick.x: None}  # None: stated (not null)
    of_runs = (
        "series" not in rows.columns
        or rows.filter(
            (pl.col("metric") == pick.metric) & pl.col("unit").eq_missing(pick.unit) & pl.col("series").is_null()
        ).height
    )
    if of_runs:
        column = "run_start" if pick.x == "time" else pick.x
        return {
            "view": "explore_runs",
            "study": study,
            "system": "system",
            "where": {**same, column: None},
            "keys": {"system": "system", "file": "file", "line": "line"},
            "values": {"value": "value"},
            "picked": picked,
        }
    return {
        "view": "explore_series",
        "study": study,
        "system": "system",
        "where": same,
        "keys": {"system": "system", "series": "series"},
        "picked": picked,
        "aggregate": True,  # its points are series_points'
    }


def show(con, study: str, systems: pl.DataFrame) -> None:
    """The explore page's chart of ``study``, with what it says of itself (iolab.reports.page.show)."""
    table = long_table(con, study)
    if table.rows.is_empty():
        r.note("This study holds no number of a run or a capture to explore.")
        return
    rows = table.rows.select(c for c in table.rows.columns if table.rows[c].null_count() < table.rows.height)
    if not dims(rows):
        r.note(
            f"None of the study's {table.numbers:,} numbers states a load or workload dimension (queue depth, "
            "workers, block size, I/O mix, tiles, VMs, drives, a time): there is no axis to draw them along. "
            "The overview lists them."
        )
        return
    pick, metrics = default_pick(rows), choices(rows)
    shown = rows.filter(
        (pl.col("metric") == pick.metric) & pl.col("unit").eq_missing(pick.unit) & pl.col(pick.x).is_not_null()
    )
    label = metrics.filter(pl.col("key") == f"{pick.metric}|{pick.unit or ''}")["label"][0]
    r.show(
        chart(rows, pick, systems),
        f"Scatter chart with inputs: y is one of the {metrics.height} metrics of the study, x one of "
        f"{len(dims(rows))} load or workload dimensions, a colour per system. Drawn at {label} against "
        f"{DIMS[pick.x]}: {shown.height:,} numbers of {shown['system'].n_unique()} systems.",
        source=source(study, rows, pick),
        left_out=r.caption(
            table.cut,
            r.no_marks(systems, shown["system"], f"no number of theirs of {pick.metric} states {DIMS[pick.x]}"),
        ),
    )
