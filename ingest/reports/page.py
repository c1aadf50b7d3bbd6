"""Helpers the notebooks share: the database, escaped headings, tables with their full data as a
download, charts coloured by system, the systems of a study, provenance and per-study validation.

The analysis itself lives in schemas/views/*.sql; notebooks query those views and show them.
Every label that comes from the data (study, system, workload, file names) is escaped here:
notebooks never build HTML or Markdown from data themselves.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import cast

import altair as alt
import duckdb
import polars as pl
from IPython.display import HTML, display

from ..display import fmt, label, ordered  # noqa: F401  (every name, number and order as the pages show them)
from ..wording import point_label  # noqa: F401  (a matched point in words: moved down for the commands)
from . import pictures
from .chart_rules import busiest_workloads, panels_drawn, shared_y  # noqa: F401  (the pages' helpers)
from .tables import (
    CSS,
    SHOWN_ROWS,
    VALIDATION_SLOT,
    esc,
    no_marks_text,
    not_drawn_html,
    note_html,
    table_html,
    validation_html,
)

ROOT = Path(__file__).resolve().parent.parent.parent


def chart_values(data, **options):
    """Altair's data step (every row, never a cap) for the Polars frames the pages draw: a float that is
    not a number (NaN, an infinity) goes to the chart as null, as no JSON parser reads NaN. pandas is
    never imported for a chart: its import cost each kernel 0.26 s (iolab.reports.page.render_kernel)."""
    from altair.vegalite.data import default_data_transformer

    if isinstance(data, pl.DataFrame):
        floats = [c for c, t in data.schema.items() if t.is_float()]
        finite = [pl.when(pl.col(c).is_finite()).then(pl.col(c)).alias(c) for c in floats]
        data = data.with_columns(finite) if finite else data
    return default_data_transformer(data, **options)


# Registered, not enabled: iolab's charts use it for their own drawing (spec_of), and a user's Altair in
# the same notebook keeps its own data step, row guard and renderer (issue 56).
alt.data_transformers.register("iolab", chart_values)


def spec_of(chart) -> dict:
    """``chart``'s Vega-Lite spec with iolab's data step (every row, NaN as null), Altair's own
    settings left as the user has them."""
    with alt.data_transformers.enable("iolab", max_rows=None):
        return chart.to_dict()


# A render's kernels draw page after page from one snapshot: there, connect() hands every page the
# same read-only connection (render_kernel). None: each connect() opens the database, as in the lab.
_shared: dict[Path, duckdb.DuckDBPyConnection] | None = None
# In a render's kernels, each chart's picture is left for the render to draw (iolab.reports.pictures).
_pictures_by_render = False


def connect(db_path: str | None = None, lake: str = "") -> duckdb.DuckDBPyConnection:
    """Open the database read-only (waiting while an ingest holds it); never create one.

    None: the default database (iolab.config); a relative path is relative to ``$IOLAB_ROOT``.
    ``lake``: a Parquet lake directory (`iolab lake export` + `iolab lake views`) to read instead:
    its views (DIR/views/<view>/, whichever engine computed them) and tables, read with Polars,
    answer the same SQL the notebooks send to the database."""
    from .. import config, db

    if lake:
        from ..lake import lake_connection

        lake_path = Path(lake)
        if not lake_path.is_absolute():
            lake_path = config.root() / lake_path
        return lake_connection(lake_path)
    path = Path(db_path or config.default_db())
    if not path.is_absolute():
        path = config.root() / path
    if not path.is_file():
        raise FileNotFoundError(f"no database at {path}: run `make demo` (or `iolab ingest DATA --db {path}`) first")
    if _shared is None:
        return db.connect(path, read_only=True)
    if path not in _shared:
        _shared[path] = db.connect(path, read_only=True)
    return _shared[path]


def in_render() -> bool:
    """Whether this kernel renders pages (``render_kernel``): its connections are the render's snapshot."""
    return _shared is not None


def render_kernel() -> None:
    """Set up a kernel that renders many pages (iolab report): the first chart's costs are paid now
    (warm_up), and every page of the render shares one read-only connection per database instead of
    opening it again (35 ms a page: DuckDB reads the catalogue of every view). The pages only read;
    the render's snapshot does not change while they run.

    The kernel leaves its charts' pictures for the render to draw (iolab.reports.pictures): it runs
    no JavaScript engine of its own.

    Then what the kernel holds now (Polars, Altair, pyarrow: 95,000 objects) is moved out of the
    garbage collector's sight (gc.freeze). The render resets the namespace before each page
    (%reset -f), which runs two full collections over those objects (0.07 s each at 125,000 objects).
    They stay alive for the kernel's life anyway; a page's own objects are collected as before."""
    import atexit
    import gc

    global _shared, _pictures_by_render
    _shared = {}
    _pictures_by_render = True
    # Altair checks each part of a chart as it is made (its debug mode: better tracebacks while a
    # notebook is written) and the whole chart again when it is drawn (to_dict). A render draws
    # notebooks that are written: the whole chart is still checked once, the parts not again.
    alt.utils.schemapi.disable_debug_mode()
    alt.renderers.enable("svg")  # a chart a page displays without page.show stays static and offline
    warm_up()
    gc.freeze()
    atexit.register(gc.unfreeze)  # a kernel that exits normally frees them as usual


def query(con, sql: str, params=None) -> pl.DataFrame:
    df = con.sql(sql, params=params or None).pl()
    # SUM() of integers is HUGEINT in DuckDB (Decimal/Int128 here): plain numbers for charts and tables
    fix = []
    for name, dtype in df.schema.items():
        if isinstance(dtype, pl.Decimal):
            fix.append(pl.col(name).cast(pl.Int64 if (dtype.scale or 0) == 0 else pl.Float64))
        elif dtype == pl.Int128:
            fix.append(pl.col(name).cast(pl.Int64))
        elif isinstance(dtype, pl.List):
            fix.append(pl.col(name).cast(pl.List(pl.String)).list.join(", "))
    return df.with_columns(fix) if fix else df


def table(df: pl.DataFrame, title: str | None = None, max_rows: int = SHOWN_ROWS, bounds: dict | None = None) -> None:
    """``df`` as the page's table (``tables.table_html``; ``bounds``: a bound per column its values never
    print equal to unless they are)."""
    display(HTML(table_html(df, title, max_rows, bounds)))


def in_order(df: pl.DataFrame, *cols: str) -> pl.DataFrame:
    """``df`` sorted by ``cols``, each text column in its numeric order (iolab.display: 512 B, 4 KiB,
    16 KiB, QD 2 before QD 16), not as SQL orders text; nulls last, ties as they came."""
    if df.is_empty():
        return df
    keys = []
    for c in cols:
        if df.schema[c] == pl.String:
            rank = {v: i for i, v in enumerate(ordered(df[c].drop_nulls().unique().to_list()))}
            keys.append(pl.col(c).replace_strict(rank, default=None, return_dtype=pl.Int64))
        else:
            keys.append(pl.col(c))
    return df.sort(keys, nulls_last=True, maintain_order=True)


def heading(*parts: str) -> None:
    """The page title, escaped (a study named <script> stays text)."""
    display(HTML(f'{CSS}<div class="iolab"><h1>{esc(": ".join(parts))}</h1></div>'))


def note(text: str) -> None:
    display(HTML(note_html(text)))


def not_drawn(reason: str) -> None:
    """Say the page has nothing to draw, and why: the index says so beside its link, and the print
    edition leaves it out, listing it with the reason (tables.not_drawn_html)."""
    display(HTML(not_drawn_html(reason)))


def store_note(con) -> None:
    """Say so when time-series files are missing from the database's store: their series have no
    points, so the charts below would be silently empty."""
    try:
        ((missing, total),) = con.execute("SELECT count(*) FILTER (NOT present), count(*) FROM store_files").fetchall()
    except Exception:  # a lake, or a database without the store's view: nothing to check here
        return
    if missing:
        note(
            f"Warning: {missing} of {total} time-series files of this database are missing from its store "
            "(a database moved or copied without its <database>.points folder?): their series have no points "
            "below. `iolab info` says where the files are."
        )


def systems(con, study: str) -> pl.DataFrame:
    """Every system of the study, the baseline first, with what was measured on each in its current
    measurement: its tools with their runs and captures (a capture of time series is no run), and the
    drives behind its runs (a system with none current has no runs here: the measurements block says why)."""
    df = query(
        con,
        """
        WITH t AS (SELECT system, tool, runs, captures, drives,
                          tool || ' (' || concat_ws(', ', CASE WHEN runs > 0 THEN runs || CASE WHEN runs = 1 THEN ' run'
                                                                          ELSE ' runs' END END,
                                                     CASE WHEN captures > 0 THEN captures || CASE WHEN captures = 1
                                                          THEN ' capture' ELSE ' captures' END END) || ')' AS said
                   FROM study_system_runs WHERE study = ?),
             c AS (SELECT system, string_agg(DISTINCT config_label, '; ' ORDER BY config_label) AS configurations,
                          string_agg(DISTINCT generation, '; ' ORDER BY generation) AS generation
                   FROM current_runs WHERE study = ? GROUP BY system),
             n AS (SELECT system, string_agg(said, ', ' ORDER BY tool) AS tools, sum(runs) AS runs,
                          sum(captures) AS captures, string_agg(DISTINCT drives, ', ' ORDER BY drives) AS drives
                   FROM t GROUP BY system),
             s AS (SELECT DISTINCT system FROM study_runs WHERE study = ?)
        SELECT coalesce(s.system, '(no system label)') AS system, c.generation, c.configurations, n.tools,
               coalesce(n.runs, 0) AS runs, coalesce(n.captures, 0) AS captures, n.drives,
               coalesce(s.system = b.baseline_system, false) AS baseline  -- an unlabelled system is never one
        FROM s LEFT JOIN c ON c.system IS NOT DISTINCT FROM s.system LEFT JOIN n ON n.system IS NOT DISTINCT FROM s.system
             LEFT JOIN study_baseline b ON b.study = ?
        ORDER BY baseline DESC, s.system""",
        [study] * 4,
    )
    return df


def systems_block(con, study: str) -> pl.DataFrame:
    df = systems(con, study)
    if df.height:
        table(df, f"Systems under test ({df.height})")
    b = query(con, "SELECT baseline_system, baseline_source, systems FROM study_baseline WHERE study = ?", [study])
    if b.height and b["systems"][0] > 1:
        if b["baseline_system"][0] is None:  # refused: the study's sidecars name different baselines
            note(f"No baseline for comparisons: {b['baseline_source'][0]}.")
        else:
            note(f"Baseline for comparisons: {b['baseline_system'][0]} ({b['baseline_source'][0]}).")
    from .measured import measurements_block

    measurements_block(con, study)
    return df


PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"]


def no_marks(systems: pl.DataFrame, drawn, why: str, besides=()) -> str:
    """What a chart's caption says of the study's systems it draws nothing of ('' when it draws them
    all, ``besides`` those it never draws, such as the baseline of a comparison): a chart never
    leaves a system out without a word."""
    absent = sorted(set(systems["system"].drop_nulls().to_list()) - {str(s) for s in drawn} - set(besides))
    return no_marks_text(absent, why)


def caption(*parts: str) -> str:
    """A chart's left_out text from its parts, the empty ones skipped."""
    return " ".join(p for p in parts if p)


def system_colors(names, shown=None) -> alt.Scale:
    """One fixed colour per system (or configuration), the same on every chart of a page.

    ``shown``: the systems this chart draws. The legend lists only those (a legend entry without
    marks misleads), each in the colour it has on the page's other charts."""
    domain = sorted({str(n) for n in names if n is not None})
    colour = {n: PALETTE[i % len(PALETTE)] for i, n in enumerate(domain)}
    if shown is not None:
        domain = sorted({str(n) for n in shown if n is not None and n == n})
    return alt.Scale(domain=domain, range=[colour.get(n, PALETTE[-1]) for n in domain])


LABEL_CHARS = 80


def short_labels(values: pl.Series, n: int = LABEL_CHARS) -> pl.Series:
    """Chart labels (a Polars Series of strings) cut to ``n`` characters, ending "…", for an axis,
    header or legend drawn with ``labelLimit=0``. Vega's own cut (a labelLimit in pixels) measures each
    label again and again: 3.8 s of the 5 s page for one chart of 40 bars. Labels that differ only
    after the cut are kept whole: each keeps its own bar or line, never merged with another."""

    def cut(v: str) -> str:
        return v[: n - 1] + "…" if len(v) > n else v

    originals: dict[str, set[str]] = {}
    for v in values.drop_nulls().unique().to_list():
        originals.setdefault(cut(v), set()).add(v)
    shortened = {v: c for c, vs in originals.items() if len(vs) == 1 for v in vs if c != v}
    return values.replace(shortened) if shortened else values


# a chart's usermeta key: {field drawn on an axis, cut for the screen: the field holding its whole text}
WHOLE_LABELS = "iolab_whole_labels"


def screen_labels(d: pl.DataFrame, field: str) -> tuple[pl.DataFrame, str]:
    """``d`` with a field for the screen's axis: ``field``'s labels cut by ``short_labels``; ``field``
    itself keeps them whole (for the tooltip, and the print edition, which draws the whole label
    wrapped: ``whole_labels``). Returns ``d`` with it and the new field's name."""
    shown = f"{field}_shown"
    return d.with_columns(short_labels(d[field]).alias(shown)), shown


def whole_labels(chart, **shown: str):
    """``chart`` saying which of its fields are labels cut for the screen and which field holds each
    whole (``run_shown="run"``): the print edition draws the whole ones (iolab.reports.print_labels)."""
    return chart.properties(usermeta={WHOLE_LABELS: shown})


def warm_up() -> None:
    """What a kernel's first page would pay: its first query's rows as a Polars frame (DuckDB hands
    them over through pyarrow), Altair's first chart (its data step and the check of the whole spec)
    and, where the kernel draws its pictures itself, vl-convert's JavaScript engine, which starts on
    the first chart drawn (0.8 s). A render's kernels pay it (render_kernel) beside the snapshot,
    before any page."""
    con = duckdb.connect()
    try:
        rows = query(con, "SELECT 0.0 AS x")  # as a page's query hands them (through pyarrow)
    finally:
        con.close()
    chart = alt.Chart(rows).mark_point().encode(x="x:Q")
    spec = spec_of(chart)
    if not _pictures_by_render:
        pictures.draw(spec)


def time_x(times: pl.Series, field: str = "ts", what: str = "time") -> alt.X:
    """A time axis that reads as clock times (Vega's own labels for a short span read ".500 .500 :37"):
    hours, minutes and seconds, milliseconds too when the whole span is under 10 s, the day when it
    spans days; the date in the title. ``times``: the plotted values (a Polars Series of datetimes), as
    the chart draws them (naive: the clock the capture wrote)."""
    t = times.drop_nulls()
    if t.is_empty():
        return alt.X(f"{field}:T", title=what)
    lo, hi = cast(dt.datetime, t.min()), cast(dt.datetime, t.max())
    if lo.date() != hi.date():
        return alt.X(f"{field}:T", title=f"{what}, {lo:%Y-%m-%d} to {hi:%Y-%m-%d}", axis=alt.Axis(format="%d %b %H:%M"))
    short = (hi - lo).total_seconds() < 10
    return alt.X(
        f"{field}:T", title=f"{what} on {lo:%Y-%m-%d}", axis=alt.Axis(format="%H:%M:%S.%L" if short else "%H:%M:%S")
    )


def tooltips(*fields: str) -> list[alt.Tooltip]:
    """Tooltip channels as objects. Altair turns each plain string of an encoding into its channel
    class by hashing the schema of every class it has (4-12 ms a string, on every chart drawn). Each
    titled with its field's label (iolab.display); its format is set where the chart is drawn, from its
    data (iolab.reports.chart_words)."""
    return [alt.Tooltip(f, title=label(f.split(":")[0])) for f in fields]


# a file as a tooltip names it: its path as stored, under the folder holding its data root (six files
# of one system may share a base name, e.g. results.csv in one folder per run)
_FILE_NAME = "source_path"


def headline_sources(con, study: str) -> pl.DataFrame:
    """Per run of ``study``: the file (its path under the data root) and the line its headline IO/s was read from, the
    number per_drive_iops draws for the run (the highest headline IO/s of scope all or test). A chart
    drawing one run per mark joins this on run_id and names both in its tooltip (``SOURCE_TOOLTIPS``)."""
    return query(
        con,
        f"""SELECT m.run_id, {_FILE_NAME} AS file, arg_max(m.line_no, m.value) AS line
            FROM current_measurements m JOIN metric_vocabulary v ON v.metric = m.metric
            WHERE m.study = ? AND v.headline AND v.unit = 'IO/s' AND m.scope IN ('all', 'test')
            GROUP BY ALL""",
        [study],
    )


def number_sources(con, study: str) -> pl.DataFrame:
    """Per run, metric, scope and target of ``study``: the file and the line its number was read
    from; no line where the file states that number on several lines."""
    return query(
        con,
        f"""SELECT run_id, metric, scope, target, {_FILE_NAME} AS file,
                   CASE WHEN count(DISTINCT line_no) = 1 THEN min(line_no) END AS line
            FROM current_measurements WHERE study = ? GROUP BY ALL""",
        [study],
    )


SOURCE_TOOLTIPS = ("file", "line")


def _drawn(chart, alt_text: str, source: dict | None, stack: bool, left_out: str) -> tuple[dict, str, bool]:
    """``chart``'s checked spec as a page carries it (live selections added unless static), its SVG
    (in a render, ``pictures.PENDING``: the render draws it), and whether it is live."""
    from . import chart_words, interactive
    from .tables import visible

    meta = {"alt": alt_text, "source": source, "stack": stack, "left_out": left_out}
    chart = chart.configure_axis(labelFontSize=11, titleFontSize=12).configure_legend(labelLimit=320)
    own = getattr(chart, "usermeta", None)  # whole_labels' note for the print edition is kept
    usermeta = {**(own if isinstance(own, dict) else {}), "iolab": meta}
    spec = visible(chart_words.words(spec_of(chart.properties(description=alt_text, usermeta=usermeta))))
    live = interactive.enabled()
    if live:  # the same spec draws the static picture: a selection changes no mark
        spec = interactive.add(spec)
    return spec, pictures.PENDING if _pictures_by_render else pictures.draw(spec), live


def figure(chart, alt_text: str, source: dict | None = None, stack: bool = False, left_out: str = "") -> str:
    """The HTML of ``chart`` as a page shows it (``show``): SVG, alt text, caption and checked spec."""
    from .tables import figure_html

    spec, svg, live = _drawn(chart, alt_text, source, stack, left_out)
    return figure_html(spec, svg, alt_text, left_out, live)


def show(chart, alt_text: str, source: dict | None = None, stack: bool = False, left_out: str = "") -> None:
    """Draw ``chart`` with ``alt_text`` (what it shows, for a reader who cannot see it): live in the lab
    (a Vega view), as a static SVG where a frontend has no Vega renderer, as the page's figure in a
    render (iolab.reports.interactive.as_page).

    ``source`` says which view the chart draws, for the chart oracle (iolab.reports.oracle):
    ``{"view": V, "study": S, "system": field holding the system (if it compares systems),
    "values": {chart field: view column}, "keys": {chart field: view column}, "where": {column: value,
    None for IS NOT NULL}, "aggregate": True if its rows are computed from the view's}``.
    ``stack``: bars that share a place are meant to stack. ``left_out``: what the chart does not draw
    (its caption, shown below the chart in the lab)."""
    from . import interactive
    from .tables import chart_name, figure_html

    spec, svg, live = _drawn(chart, alt_text, source, stack, left_out)
    fig = figure_html(spec, svg, alt_text, left_out, live)
    data, meta = interactive.lab_output(spec, svg, fig, alt_text, chart_name(spec))
    display(data, metadata=meta, raw=True)
    if left_out:
        display(HTML(note_html(left_out)), metadata={interactive.LAB_ONLY: True})


def pooled_histograms(con, study: str) -> pl.DataFrame:
    """Latency histograms per system, workload and direction, with repeated runs (and targets) of
    the same workload pooled: their I/Os per bin summed, the share taken of that sum. Drawn one bar
    per run, repeated runs would cover each other at the same place."""
    return query(
        con,
        """SELECT system, workload, direction, bin_no, bin_label, io_count, runs,
                  100.0 * io_count / nullif(sum(io_count) OVER (PARTITION BY system, workload, direction), 0)
                      AS share_pct
           FROM (SELECT coalesce(system, '(no system label)') AS system, workload_label AS workload, direction,
                        bin_no, bin_label, sum(io_count) AS io_count, count(DISTINCT run_id) AS runs
                 FROM latency_histograms WHERE study = ? GROUP BY ALL)
           ORDER BY workload, system, direction, bin_no""",
        [study],
    )


def histogram_bins(con, study: str) -> pl.DataFrame:
    """Every latency bin of every run of ``study``, with the file and run it came from: repeated
    runs of a workload are told apart (ordered on every column shown)."""
    return query(
        con,
        """SELECT system, workload, file, run, target, direction, bin_no, bin_label, lower_us, upper_us,
                  io_count, share_pct
           FROM latency_histogram_bins WHERE study = ?
           ORDER BY workload, system, file, run_id, target, direction, bin_no""",
        [study],
    )


def provenance(con, study: str) -> None:
    """Footer: every source file of the study with its sha256 and parser, and the study's validation."""
    from .. import __version__

    files = query(
        con,
        """SELECT path AS source_file, format, parser || ' v' || parser_version AS parser,
                                 tool_version, status, left(sha256, 16) || '…' AS sha256
                          FROM study_files WHERE study = ? ORDER BY path""",
        [study],
    )
    table(files, "Provenance: source files of this study")
    if _shared is None:
        display(HTML(validation_html(study_validation(con, study))))
    else:  # a render: it validates every study while the pages run, and fills this in
        display(HTML(VALIDATION_SLOT))
    # on screen under every page; the print edition's cover says it once (a line of its own at the foot of
    # a section would start a page of one line)
    said = f"Rendered by iolab {__version__}; numbers come from the schemas/views/*.sql views."
    display(HTML(note_html(said, screen_only=True)))


def study_validation(con, study: str) -> pl.DataFrame:
    """Per-suite results of the study's validation, computed now (a notebook in the lab)."""
    from .validation import study_results, summary

    return summary(study_results(con, study))
