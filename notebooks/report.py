"""Helpers the notebooks share: the database, human-formatted tables, offline charts, provenance.

The analysis itself lives in schemas/views/*.sql; notebooks query those views and show them.
"""
from __future__ import annotations

import datetime as dt
import html
import os
from pathlib import Path

import altair as alt
import duckdb
import polars as pl
from IPython.display import HTML, display

ROOT = Path(__file__).resolve().parent.parent

# Static SVG: charts render with no network (the default renderer loads Vega from a CDN).
alt.renderers.enable("svg")
alt.data_transformers.disable_max_rows()

CSS = """<style>
.iolab table {border-collapse: collapse; font: 13px/1.4 system-ui, sans-serif; margin: 8px 0 18px}
.iolab th {background: #f0f2f5; text-align: left; padding: 4px 8px; border-bottom: 2px solid #c8ccd2}
.iolab td {padding: 3px 8px; border-bottom: 1px solid #e4e6ea; text-align: left !important; vertical-align: top}
.iolab th {text-align: left !important}
.iolab td.num {text-align: right !important; font-variant-numeric: tabular-nums}
.iolab .note {color: #555; font: 13px system-ui, sans-serif; max-width: 60em}
.iolab .pass {color: #1a7f37; font-weight: 600} .iolab .fail {color: #b42318; font-weight: 600}
.iolab code {font-size: 12px}
</style>"""


def connect(db_path: str) -> duckdb.DuckDBPyConnection:
    path = Path(db_path)
    if not path.is_absolute():
        path = Path(os.environ.get("IOLAB_ROOT", ROOT)) / path
    return duckdb.connect(str(path), read_only=True,
                          config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})


def query(con, sql: str, params=None) -> pl.DataFrame:
    df = con.sql(sql, params=params or None).pl()
    # SUM() of integers is HUGEINT in DuckDB (Decimal/Int128 here): plain numbers for charts and tables
    fix = []
    for name, dtype in df.schema.items():
        if isinstance(dtype, pl.Decimal):
            fix.append(pl.col(name).cast(pl.Int64 if (dtype.scale or 0) == 0 else pl.Float64))
        elif dtype == pl.Int128:
            fix.append(pl.col(name).cast(pl.Int64))
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
            return f"{v:,.1f} %", True
        a = abs(v)
        if a >= 1000:
            return f"{v:,.0f}", True
        if a >= 10:
            return f"{v:,.1f}", True
        return f"{v:,.3g}" if a < 0.01 and v else f"{v:,.2f}", True
    return html.escape(str(v)), False


def table(df: pl.DataFrame, title: str | None = None, max_rows: int = 200) -> None:
    """Show a frame as a compact, human-formatted HTML table (thousands separators, units in headers)."""
    if df.is_empty():
        display(HTML(f'{CSS}<div class="iolab"><p class="note">{html.escape(title or "")}: no rows.</p></div>'))
        return
    head = "".join(f"<th>{html.escape(c.replace('_', ' '))}</th>" for c in df.columns)
    body = []
    for row in df.head(max_rows).iter_rows():
        cells = []
        for c, v in zip(df.columns, row):
            text, num = _fmt(v, c)
            cells.append(f'<td class="num">{text}</td>' if num else f"<td>{text}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    more = f'<p class="note">{df.height - max_rows} more rows not shown.</p>' if df.height > max_rows else ""
    cap = f"<h4>{html.escape(title)}</h4>" if title else ""
    display(HTML(f'{CSS}<div class="iolab">{cap}<table><tr>{head}</tr>{"".join(body)}</table>{more}</div>'))


def note(text: str) -> None:
    display(HTML(f'{CSS}<div class="iolab"><p class="note">{text}</p></div>'))


def provenance(con, study: str) -> None:
    """Footer: every source file of the study with its sha256 and parser, iolab version, validation."""
    from ingest import __version__

    files = query(con, """SELECT path AS source_file, format, parser || ' v' || parser_version AS parser,
                                 tool_version, status, left(sha256, 16) || '…' AS sha256
                          FROM source_files WHERE study = ? ORDER BY path""", [study])
    table(files, f"Provenance: source files of study {study}")
    try:
        v = query(con, """SELECT suite, count(*) AS expectations, sum(success::INT) AS passed,
                                 count(*) - sum(success::INT) AS failed, max(run_at) AS validated_at
                          FROM validation_results WHERE run_id = (SELECT max(run_id) FROM validation_results)
                          GROUP BY suite ORDER BY suite""")
    except duckdb.Error:
        v = pl.DataFrame()
    if v.is_empty():
        note("Validation: not run on this database (make validate).")
    else:
        failed = int(v["failed"].sum())
        verdict = "all expectations met" if failed == 0 else f"{failed} expectation(s) failed: see the overview report"
        table(v, f"Validation (Great Expectations): {verdict}")
    note(f"Rendered by iolab {__version__} from the database; numbers come from the schemas/views/*.sql views.")
