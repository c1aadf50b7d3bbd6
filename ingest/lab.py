"""A notebook of your own: iolab's database, its views as Polars frames and charts as the pages draw
them, in three lines (notebooks/explore.py shows more)::

    from . import lab
    df = lab.view("comparison", study="ds4300-vs-fastt200-2004", metric="iops")
    lab.chart(df, x="pct_better", y="workload_label")

* ``connect(db=None, lake="")``: the database, read-only (the default one: ``$IOLAB_DB``, else
  data/iolab.duckdb under ``$IOLAB_ROOT``), or a Parquet lake's views; the connection every other
  function here uses from then on (the default database is opened on first use).
* ``studies()``, ``views()``: what there is to look at.
* ``view(name, study=None, **where)``: a view (schemas/views/*.sql) or table, all its rows or one study's,
  as the pages read it (``iolab.reports.page.query``: HUGEINT and DECIMAL as plain numbers, lists
  as text), in a stable order (ORDER BY ALL).
* ``chart(df, x, y, color=...)``: a bar, line or point chart with the pages' conventions (one colour
  per system on every chart, tooltips, long labels cut), drawn live in JupyterLab
  and with alt text (``page.show``); ``show=False`` returns the Altair chart to change first, and
  ``show(chart, alt_text)`` draws any Altair chart the same way. Axes, legends and tooltips are
  titled with each column's label and unit (``label(name)``, iolab.display: "pct_better" reads
  "% better"), tooltips' numbers rounded to their spread (``fmt(value)`` for your own text).

Importing this module changes no global setting of Altair or Polars: iolab's charts carry their own
data step and look per call. It registers (and does not enable) an Altair renderer, ``iolab``: after
``alt.renderers.enable("iolab")`` a notebook's own Altair charts are drawn live in JupyterLab, offline,
with the static SVG beside them, as iolab's are.
"""

from __future__ import annotations

import re
from typing import Any, Literal

import altair as alt
import duckdb
import polars as pl

from .display import fmt, label  # noqa: F401  (the pages' words, for a notebook's own text)
from .reports import page
from .reports.page import query, show

__all__ = ["chart", "connect", "query", "show", "studies", "view", "views"]

_con: list[duckdb.DuckDBPyConnection] = []  # the connection connect() opened last


def live(spec: dict, **_: object) -> tuple[dict, dict]:
    """Altair's renderer ``iolab``: the chart's spec for JupyterLab's own Vega-Lite renderer (live,
    offline) and its static SVG for a frontend without one. ``alt.renderers.enable("iolab")``."""
    from .reports import interactive, pictures

    svg = pictures.draw(spec)
    data = {interactive.VEGALITE: spec, "image/svg+xml": svg, "text/plain": "<Altair chart>"}
    return data, {interactive.VEGALITE: {"embed_options": interactive.LAB_EMBED}}


alt.renderers.register("iolab", live)


def connect(db: str | None = None, lake: str = "") -> duckdb.DuckDBPyConnection:
    """Open the database read-only (``None``: the default one; a relative path is relative to
    ``$IOLAB_ROOT``), or the Parquet lake ``lake``; it becomes the connection ``view`` and
    ``studies`` read. FileNotFoundError, with the command that makes one, when there is none.

    Read-only means read-only: the connection can reach no file (DuckDB's external access is off
    and its configuration locked), so ATTACH, DETACH of the database, COPY ... TO, EXPORT DATABASE,
    read_csv of any path and INSTALL or LOAD of an extension are refused; every view, the time
    series and a lake's views still read (iolab.store.points.lock). A frame of your own is queried
    after ``con.register("name", frame)`` (DuckDB no longer finds Python variables by name)."""
    from .store import points

    con = page.connect(db, lake)
    if page.in_render():  # the render's own snapshot, read by iolab's pages: left as the render opened it
        pass
    elif lake:
        points.lock_settings(con)
    else:
        points.lock(con)
    _con[:] = [con]
    return con


def _connection(con: duckdb.DuckDBPyConnection | None) -> duckdb.DuckDBPyConnection:
    if con is not None:
        return con
    return _con[0] if _con else connect()


def studies(con: duckdb.DuckDBPyConnection | None = None) -> pl.DataFrame:
    """Every study of the database: its systems under test, its files read and its runs."""
    return query(
        _connection(con),
        """SELECT f.study,
                  (SELECT string_agg(DISTINCT r.system, '; ' ORDER BY r.system) FROM study_runs r
                   WHERE r.study = f.study) AS systems,
                  count(*) AS files,
                  (SELECT count(DISTINCT r.run_id) FROM study_runs r WHERE r.study = f.study) AS runs
           FROM study_files f WHERE f.status = 'ok' GROUP BY f.study ORDER BY f.study""",
    )


def views() -> list[str]:
    """The names of iolab's views (schemas/views/*.sql), in file order."""
    from .reports.plan import view_names

    return view_names()


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def view(
    name: str, study: str | None = None, con: duckdb.DuckDBPyConnection | None = None, **where: object
) -> pl.DataFrame:
    """The rows of view (or table) ``name``, of ``study`` only when given and where each column of
    ``where`` equals its value (``metric="iops"``), ordered by all columns."""
    if study is not None:
        where = {"study": study, **where}
    for col in (name, *where):
        if not _NAME.fullmatch(col):
            raise ValueError(f"{col!r} is not the name of a view or column: lab.views() lists the views")
    _check_columns(_connection(con), name, list(where))
    sql = f'SELECT * FROM "{name}"'
    if where:
        sql += " WHERE " + " AND ".join(f'"{col}" IS NOT DISTINCT FROM ?' for col in where)
    return query(_connection(con), sql + " ORDER BY ALL", list(where.values()) or None)


def _check_columns(con: duckdb.DuckDBPyConnection, name: str, wanted: list[str]) -> None:
    """ValueError naming the view's columns when ``wanted`` asks for one it lacks, or the views when
    ``name`` is none (instead of DuckDB's binder traceback)."""
    try:
        columns = [r[0] for r in con.execute(f'DESCRIBE SELECT * FROM "{name}"').fetchall()]
    except duckdb.CatalogException:
        raise ValueError(f"{name!r} is no view or table of this database: lab.views() lists the views") from None
    if missing := [c for c in wanted if c not in columns]:
        raise ValueError(
            f"{name} has no column {', '.join(map(repr, missing))}; its columns: {', '.join(columns)}"
        ) from None


_MARKS = {"bar": "mark_bar", "line": "mark_line", "point": "mark_point"}


Kind = Literal["quantitative", "temporal", "nominal"]


def _kind(df: pl.DataFrame, col: str) -> Kind:
    dtype = df.schema[col]
    if dtype.is_numeric():
        return "quantitative"
    if dtype.is_temporal():
        return "temporal"
    return "nominal"


def chart(
    df: pl.DataFrame,
    x: str,
    y: str,
    color: str | None = "system",
    kind: str = "bar",
    title: str = "",
    alt_text: str = "",
    show: bool = True,
    tooltip: list[str] | None = None,
) -> alt.Chart | None:
    """``df`` drawn as the pages draw: ``kind`` bar, line or point, ``x`` against ``y``, one colour per
    ``color`` value (the same colour for a system on every chart; None, or a column ``df`` lacks: one
    colour), bars that share a place side by side (by colour, else one per row) and never summed, a
    tooltip naming what is drawn and the file and line it came from where ``df`` has them (``tooltip``:
    other columns), text labels cut to 80 characters. Shown with ``alt_text`` (default: what the chart plots) unless ``show`` is False: then returned."""
    if kind not in _MARKS:
        raise ValueError(f"kind {kind!r}: one of {', '.join(_MARKS)}")
    if missing := [c for c in (x, y) if c not in df.columns]:
        raise ValueError(
            f"the frame has no column {', '.join(map(repr, missing))}; its columns: {', '.join(df.columns)}"
        )
    if df.is_empty():
        _nothing_to_draw(show)
        return None
    color = color if color in df.columns else None
    data = df
    for col in {x, y} | ({color} if color else set()):
        if _kind(df, col) == "nominal":
            data = data.with_columns(page.short_labels(data[col].cast(pl.String)).alias(col))
    kinds = {c: _kind(df, c) for c in (x, y)}
    axes = {c: alt.Axis(labelLimit=0) if kinds[c] == "nominal" else alt.Axis() for c in (x, y)}  # cut above
    enc: dict[str, Any] = {
        "x": alt.X(x, type=kinds[x], axis=axes[x], title=label(x)),
        "y": alt.Y(y, type=kinds[y], axis=axes[y], title=label(y)),
    }
    shown = [c for c in dict.fromkeys([color, y, x, *page.SOURCE_TOOLTIPS]) if c in df.columns]
    enc["tooltip"] = page.tooltips(*(shown if tooltip is None else tooltip))
    if kind == "bar" and "quantitative" in kinds.values():  # bars at one place side by side, never summed
        enc["x" if kinds[x] == "quantitative" else "y"].stack = None
    if color:
        scale = page.system_colors(data[color])
        enc["color"] = alt.Color(
            color, type="nominal", scale=scale, legend=alt.Legend(orient="bottom"), title=label(color)
        )
    if kind == "bar" and "nominal" in kinds.values():
        data = _side_by_side(data, enc, y if kinds[y] == "nominal" else x, color, y)
    made = getattr(alt.Chart(data), _MARKS[kind])().encode(**enc)
    if title:
        made = made.properties(title=title)
    if not show:
        return made
    what = f"{label(x)} per {label(y)}" if kinds[y] == "nominal" != kinds[x] else f"{label(y)} against {label(x)}"
    per = f", one colour per {label(color)}" if color else ""
    page.show(made, alt_text or f"{kind.capitalize()} chart of {what}{per}, {len(data)} rows.")
    return None


def _side_by_side(data: pl.DataFrame, enc: dict[str, Any], place: str, color: str | None, y: str) -> pl.DataFrame:
    """Bars at one ``place`` set side by side (an offset by colour, else one bar per row), never summed."""
    apart = color or place
    if data.select(place, apart).is_duplicated().any():  # rows that would share a bar: one bar each
        data, apart = data.with_columns(row_no=pl.int_range(pl.len())), "row_no"
    if apart != place:
        enc["yOffset" if place == y else "xOffset"] = (
            alt.YOffset(apart, type="nominal") if place == y else alt.XOffset(apart, type="nominal")
        )
    return data


def _nothing_to_draw(show: bool) -> None:
    """An empty frame draws no chart: it says so (in the notebook, or as a warning with show=False)."""
    text = "Nothing to draw: the frame has no rows (check the study's name and the filters of lab.view)."
    if not show:
        raise ValueError(text)
    page.note(text)
