"""Helpers the notebooks share: the database, escaped headings, tables with their full data as a
download, charts coloured by system, the systems of a study, provenance and per-study validation.

The analysis itself lives in schemas/views/*.sql; notebooks query those views and show them.
Every label that comes from the data (study, system, workload, file names) is escaped here:
notebooks never build HTML or Markdown from data themselves.
"""

from __future__ import annotations

import base64
import datetime as dt
import html
from pathlib import Path

import altair as alt
import duckdb
import polars as pl
from IPython.display import HTML, display

ROOT = Path(__file__).resolve().parent.parent.parent

# Static SVG: charts render with no network (the default renderer loads Vega from a CDN).
alt.renderers.enable("svg")
alt.data_transformers.disable_max_rows()

SHOWN_ROWS = 50  # rows a table shows; the download always holds all of them
# A render's kernels draw page after page from one snapshot: there, connect() hands every page the
# same read-only connection (render_kernel). None: each connect() opens the database, as in the lab.
_shared: dict[Path, duckdb.DuckDBPyConnection] | None = None

CSS = """<style>
.iolab table {border-collapse: collapse; font: 13px/1.4 system-ui, sans-serif; margin: 8px 0 6px}
.iolab th {background: #f0f2f5; text-align: left !important; padding: 4px 8px; border-bottom: 2px solid #c8ccd2}
.iolab td {padding: 3px 8px; border-bottom: 1px solid #e4e6ea; text-align: left !important; vertical-align: top}
.iolab td.num {text-align: right !important; font-variant-numeric: tabular-nums}
.iolab .note {color: #555; font: 13px system-ui, sans-serif; max-width: 60em}
.iolab .rows {color: #555; font: 12px system-ui, sans-serif; margin: 0 0 18px}
.iolab .pass {color: #1a7f37; font-weight: 600} .iolab .fail {color: #b42318; font-weight: 600}
.iolab .better {color: #1a7f37} .iolab .worse {color: #b42318}
.iolab h1 {font: 600 26px system-ui, sans-serif; margin: 0 0 6px} .iolab h4 {margin: 14px 0 2px}
.iolab code {font-size: 12px}
</style>"""


def esc(v) -> str:
    return html.escape("" if v is None else str(v), quote=True)


def connect(db_path: str | None = None, lake: str = "") -> duckdb.DuckDBPyConnection:
    """Open the database read-only (waiting while an ingest holds it); never create one.

    None: the default database (ingest.config); a relative path is relative to ``$IOLAB_ROOT``.
    ``lake``: a Parquet lake directory (`iolab lake export` + `iolab lake views`) to read instead:
    its views (DIR/views/<view>/, whichever engine computed them) and tables, read with Polars,
    answer the same SQL the notebooks send to the database."""
    from ingest import config, db

    if lake:
        from ingest.lake import lake_connection

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


def render_kernel() -> None:
    """Set up a kernel that renders many pages (iolab report): the first chart's costs are paid now
    (warm_up), and every page of the render shares one read-only connection per database instead of
    opening it again (35 ms a page: DuckDB reads the catalogue of every view). The pages only read;
    the render's snapshot does not change while they run."""
    global _shared
    _shared = {}
    warm_up()


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


def _fmt(v, col: str) -> tuple[str, bool]:
    if v is None:
        return "", False
    if isinstance(v, bool):
        if col in ("passed", "success", "all_passed"):  # verdicts
            return f'<span class="{"pass" if v else "fail"}">{"pass" if v else "FAIL"}</span>', False
        return ("yes" if v else "no"), False
    if isinstance(v, int):
        return f"{v:,}", True
    if isinstance(v, dt.datetime):
        return v.strftime("%Y-%m-%d %H:%M:%S"), False
    if isinstance(v, float):
        if col.startswith("pct") or col.endswith("_pct"):
            cls = (
                ' class="better"'
                if col == "pct_better" and v > 0
                else ' class="worse"'
                if col == "pct_better" and v < 0
                else ""
            )
            return f"<span{cls}>{v:+,.1f} %</span>" if col == "pct_better" else f"{v:,.1f} %", True
        a = abs(v)
        if a >= 1000:
            return f"{v:,.0f}", True
        if a >= 10:
            return f"{v:,.1f}", True
        return f"{v:,.3g}" if a < 0.01 and v else f"{v:,.2f}", True
    return esc(v), False


def download_link(df: pl.DataFrame, name: str) -> str:
    """The whole frame as CSV inside the page (a data: URI): it works offline, from a file."""
    data = base64.b64encode(df.write_csv().encode("utf-8")).decode("ascii")
    fname = "".join(c if c.isalnum() or c in "-_" else "-" for c in name.lower()).strip("-")[:60] or "table"
    return (
        f'<a download="{esc(fname)}.csv" href="data:text/csv;charset=utf-8;base64,{data}">'
        f"download all {df.height:,} rows (CSV)</a>"
    )


def table(df: pl.DataFrame, title: str | None = None, max_rows: int = SHOWN_ROWS) -> None:
    """A compact, human-formatted HTML table; says how many rows it shows and carries all of them."""
    cap = f"<h4>{esc(title)}</h4>" if title else ""
    if df.is_empty():
        display(HTML(f'{CSS}<div class="iolab">{cap}<p class="note">No rows.</p></div>'))
        return
    head = "".join(f"<th>{esc(c.replace('_', ' '))}</th>" for c in df.columns)
    body = []
    for row in df.head(max_rows).iter_rows():
        cells = []
        for c, v in zip(df.columns, row):
            text, num = _fmt(v, c)
            cells.append(f'<td class="num">{text}</td>' if num else f"<td>{text}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    shown = min(df.height, max_rows)
    count = f"{shown:,} of {df.height:,} rows shown; " if df.height > shown else f"{df.height:,} rows; "
    foot = f'<p class="rows">{count}{download_link(df, title or "table")}</p>'
    display(HTML(f'{CSS}<div class="iolab">{cap}<table><tr>{head}</tr>{"".join(body)}</table>{foot}</div>'))


def heading(*parts: str) -> None:
    """The page title, escaped (a study named <script> stays text)."""
    display(HTML(f'{CSS}<div class="iolab"><h1>{esc(": ".join(parts))}</h1></div>'))


def note(text: str) -> None:
    display(HTML(f'{CSS}<div class="iolab"><p class="note">{esc(text)}</p></div>'))


def systems(con, study: str) -> pl.DataFrame:
    """Every system of the study, the baseline first, with what was measured on each."""
    df = query(
        con,
        """
        WITH s AS (SELECT system, count(DISTINCT run_id) AS runs, string_agg(DISTINCT tool, ', ' ORDER BY tool) AS tools,
                          string_agg(DISTINCT config_label, '; ' ORDER BY config_label) AS configurations,
                          string_agg(DISTINCT generation, '; ' ORDER BY generation) AS generation
                   FROM study_runs WHERE study = ? GROUP BY system)
        SELECT coalesce(s.system, '(no system label)') AS system, s.generation, s.configurations, s.tools, s.runs,
               coalesce(s.system = b.baseline_system, false) AS baseline  -- an unlabelled system is never one
        FROM s LEFT JOIN study_baseline b ON b.study = ?
        ORDER BY baseline DESC, s.system""",
        [study, study],
    )
    return df


def systems_block(con, study: str) -> pl.DataFrame:
    df = systems(con, study)
    if df.height:
        table(df, f"Systems under test ({df.height})")
    b = query(con, "SELECT baseline_system, baseline_source, systems FROM study_baseline WHERE study = ?", [study])
    if b.height and b["systems"][0] > 1:
        note(f"Baseline for comparisons: {b['baseline_system'][0]} ({b['baseline_source'][0]}).")
    return df


def system_colors(names) -> alt.Scale:
    """One fixed colour per system (or configuration), the same on every chart of a page."""
    palette = [
        "#1f77b4",
        "#d62728",
        "#2ca02c",
        "#ff7f0e",
        "#9467bd",
        "#8c564b",
        "#e377c2",
        "#17becf",
        "#7f7f7f",
        "#bcbd22",
    ]
    domain = sorted({str(n) for n in names if n is not None})
    return alt.Scale(domain=domain, range=[palette[i % len(palette)] for i in range(len(domain))])


def point_label(row) -> str:
    """A matched point in words: workload, then the baseline's RAID level, drives and configuration where
    stated, so two points that differ only there never share (and stack into) one bar."""
    parts = [str(row["workload"])]
    raid = row.get("baseline_raid_level")
    if raid is not None and raid == raid:  # pandas gives NaN for a missing value
        parts.append(str(raid) if str(raid).upper().startswith("RAID") else f"RAID {raid}")
    drives = row.get("baseline_drives")
    if drives is not None and drives == drives:
        parts.append(f"{int(drives)} drives")
    for key in ("baseline_config", "config"):
        v = row.get(key)
        if v is not None and v == v and v != "":
            parts.append(str(v))
            break
    return " · ".join(parts)


LABEL_CHARS = 80


def short_labels(values, n: int = LABEL_CHARS):
    """Chart labels (a pandas Series) cut to ``n`` characters, ending "…", for an axis, header or
    legend drawn with ``labelLimit=0``. Vega's own cut (a labelLimit in pixels) measures each label
    again and again: 3.8 s of the 5 s page for one chart of 40 bars. Labels that differ only after
    the cut are kept whole: each keeps its own bar or line, never merged with another."""

    def cut(v):
        return v[: n - 1] + "…" if isinstance(v, str) and len(v) > n else v

    originals: dict = {}
    for v in values.dropna().unique():
        originals.setdefault(cut(v), set()).add(v)
    return values.map(lambda v: cut(v) if len(originals[cut(v)]) == 1 else v, na_action="ignore")


def warm_up() -> None:
    """What a kernel's first page would pay: pandas (Altair hands it its data) and vl-convert's
    JavaScript engine, which starts on the first chart drawn (0.8 s). A render's kernels pay it
    (render_kernel) while the render validates, before any page."""
    import vl_convert

    chart = alt.Chart(pl.DataFrame({"x": [0.0]}).to_pandas()).mark_point().encode(x="x:Q")
    vl_convert.vegalite_to_svg(chart.to_dict())


def tooltips(*fields: str) -> list[alt.Tooltip]:
    """Tooltip channels as objects. Altair turns each plain string of an encoding into its channel
    class by hashing the schema of every class it has (4-12 ms a string, on every chart drawn)."""
    return [alt.Tooltip(f) for f in fields]


def show(chart) -> None:
    display(chart.configure_axis(labelFontSize=11, titleFontSize=12).configure_legend(labelLimit=320))


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


def provenance(con, study: str) -> None:
    """Footer: every source file of the study with its sha256 and parser, and the study's validation."""
    from ingest import __version__

    files = query(
        con,
        """SELECT path AS source_file, format, parser || ' v' || parser_version AS parser,
                                 tool_version, status, left(sha256, 16) || '…' AS sha256
                          FROM source_files WHERE study = ? ORDER BY path""",
        [study],
    )
    table(files, "Provenance: source files of this study")
    v = study_validation(con, study)
    if v.is_empty():
        note("Validation: no suite has rows of this study.")
    else:
        failed = int(v["failed"].sum())
        verdict = "all expectations met" if failed == 0 else f"{failed} expectation(s) failed"
        when = v["validated_at"][0]
        table(v, f"Validation of this study's data (Great Expectations, {when:%Y-%m-%d %H:%M} UTC): {verdict}")
    note(f"Rendered by iolab {__version__}; numbers come from the schemas/views/*.sql views.")


def study_validation(con, study: str) -> pl.DataFrame:
    """Per-suite results on this study's rows: from the render snapshot, or computed now."""
    sql = """SELECT suite, count(*) AS expectations, sum(success::INT) AS passed,
                    count(*) - sum(success::INT) AS failed, max(rows_validated) AS rows_validated,
                    max(run_at) AS validated_at
             FROM report_validation WHERE study = ? GROUP BY suite ORDER BY suite"""
    try:
        return query(con, sql, [study])
    except duckdb.CatalogException:  # a live notebook, not a render: validate the study now
        from ingest.reports.validation import study_results

        rows = study_results(con, study)
        if not rows:
            return pl.DataFrame()
        df = pl.DataFrame(rows)
        return (
            df.group_by("suite", maintain_order=True)
            .agg(
                pl.len().alias("expectations"),
                pl.col("success").sum().alias("passed"),
                (~pl.col("success")).sum().alias("failed"),
                pl.col("rows_validated").max(),
                pl.col("run_at").max().alias("validated_at"),
            )
            .sort("suite")
        )
