"""The HTML of a report's tables and notes: numbers formatted for people, every label escaped, each
table carrying all its rows as a CSV download. Notebooks show them through iolab.reports.page; the
render (iolab.reports.render) uses them for the one part of a page it writes itself, the
validation footer. It imports neither Polars nor Altair: the render process imports it before its
snapshot, and is handed the frames.
"""

from __future__ import annotations

import base64
import datetime as dt
import html
import re
from pathlib import Path
from typing import TYPE_CHECKING

from .. import csvsafe, display
from ..names import visible as visible_text
from ..vocabulary import METRICS

if TYPE_CHECKING:  # frames are handed in: the render's own process needs no Polars before its snapshot
    import polars as pl

SHOWN_ROWS = 50  # rows a table shows; the download always holds all of them
# Where a rendered page's validation goes: the render fills it in once it has validated the study.
# Data cannot write it: every label is escaped (esc), so no '<' of the data reaches a page.
VALIDATION_SLOT = "<!-- iolab: the study's validation -->"

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
    """``v`` as HTML text: markup escaped, and control, bidi and invisible characters written as
    escapes (iolab.names; a cell's tabs and newlines kept), so a name reads as it is."""
    return html.escape("" if v is None else visible_text(str(v), keep=KEPT), quote=True)


def _fmt(v, col: str, claim: bool = True, places: int | None = None, bound: float | None = None) -> tuple[str, bool]:
    """A cell as text, and whether it is a number (iolab.display: ``places`` the decimals of its column,
    ``bound`` a bound it must never print equal to unless it is). ``claim``: a % better may be coloured
    as a win or a loss (False where the row's verdict says the difference is inside the noise or from one run)."""
    if v is None:
        return "", False
    if isinstance(v, bool):
        if col in ("passed", "success", "all_passed"):  # verdicts
            return f'<span class="{"pass" if v else "fail"}">{"pass" if v else "FAIL"}</span>', False
        return display.fmt(v), False
    if isinstance(v, int):
        return display.fmt(v), True
    if isinstance(v, dt.datetime):
        return v.strftime("%Y-%m-%d %H:%M:%S"), False
    if isinstance(v, float):
        if col.startswith("pct") or col.endswith("_pct"):
            text = display.fmt(v, places, bound, signed=col == "pct_better")
            if col != "pct_better":
                return f"{text} %", True
            cls = ' class="better"' if claim and v > 0 else ' class="worse"' if claim and v < 0 else ""
            return f"<span{cls}>{text} %</span>", True
        return display.fmt(v, places, bound), True
    if col in display.NAMES and isinstance(v, str) and (v in METRICS or "_" in v):  # a name: its label
        return esc(display.label(v)), False
    return esc(v), False


def _places(df: pl.DataFrame) -> dict[str, int | None]:
    """Each float column's decimals, fitted to the spread of the rows shown (iolab.display.decimals)."""
    return {c: display.column_places(df[c].drop_nulls().to_list()) for c, t in df.schema.items() if t.is_float()}


def download_link(df: pl.DataFrame, name: str) -> str:
    """The whole frame as CSV inside the page (a data: URI): it works offline, from a file."""
    data = base64.b64encode(csvsafe.write_csv(df).encode("utf-8")).decode("ascii")
    fname = "".join(c if c.isalnum() or c in "-_" else "-" for c in name.lower()).strip("-")[:60] or "table"
    return (
        f'<a download="{esc(fname)}.csv" href="data:text/csv;charset=utf-8;base64,{data}">'
        f"download all {df.height:,} rows (CSV)</a>"
    )


def table_html(
    df: pl.DataFrame, title: str | None = None, max_rows: int = SHOWN_ROWS, bounds: dict[str, float | str] | None = None
) -> str:
    """A compact, human-formatted HTML table; says how many rows it shows and carries all of them. Its
    headers are the columns' labels and its numbers formatted by iolab.display; ``bounds``: per column, a
    bound its values never print equal to unless they are (an SLA's), or the column holding each row's
    (a QoS verdict's threshold)."""
    cap = f"<h4>{esc(title)}</h4>" if title else ""
    if df.is_empty():
        return f'{CSS}<div class="iolab">{cap}<p class="note">No rows.</p></div>'
    head = "".join(f"<th>{esc(display.label(c))}</th>" for c in df.columns)
    places, bounds = _places(df.head(max_rows)), bounds or {}
    at = {c: i for i, c in enumerate(df.columns)}
    body = []
    verdict = df.columns.index("verdict") if "verdict" in df.columns else None
    for row in df.head(max_rows).iter_rows():
        cells = []
        claim = verdict is None or row[verdict] in ("better", "worse")
        for c, v in zip(df.columns, row):
            bound = bounds.get(c)  # a number, or the column holding each row's own bound
            text, num = _fmt(v, c, claim, places.get(c), row[at[bound]] if isinstance(bound, str) else bound)
            cells.append(f'<td class="num">{text}</td>' if num else f"<td>{text}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    shown = min(df.height, max_rows)
    count = f"{shown:,} of {df.height:,} rows shown; " if df.height > shown else f"{df.height:,} rows; "
    cut = " cut" if df.height > shown else ""  # the print edition says where the other rows are
    foot = f'<p class="rows{cut}">{count}{download_link(df, title or "table")}</p>'
    # the head in <thead>: a printed table that runs over a page repeats it at the top of the next
    rows = f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    return f'{CSS}<div class="iolab">{cap}{rows}{foot}</div>'


def note_html(text: str, screen_only: bool = False) -> str:
    """A note, escaped; ``screen_only``: left out of the print edition (print.css: .iolab-no-print)."""
    return f'{CSS}<div class="iolab{" iolab-no-print" if screen_only else ""}"><p class="note">{esc(text)}</p></div>'


# A page that has nothing to draw says why, in a note of its own (page.not_drawn): the render reads it
# back from the page, for the index (beside the page's link) and the print edition (which leaves the page
# out and lists it, with why, under its contents). Data cannot write it: every label is escaped.
NOT_DRAWN = '<div class="iolab iolab-not-drawn"><p class="note"><b>Nothing drawn:</b> '
_NOT_DRAWN = re.compile(re.escape(NOT_DRAWN) + r"(.*?)</p></div>", re.S)


def not_drawn_html(reason: str) -> str:
    return f"{CSS}{NOT_DRAWN}{esc(reason)}</p></div>"


def not_drawn(page: str) -> str | None:
    """Why the page whose HTML is ``page`` has nothing to draw (``not_drawn_html``); None if it has something."""
    m = _NOT_DRAWN.search(page)
    return html.unescape(m.group(1)) if m else None


def drawn(pages: list[tuple[str, Path]]) -> tuple[list[tuple[str, Path]], list[tuple[str, str]]]:
    """Of ``pages`` ((title, HTML page)), those with something drawn, and (title, why) of the others."""
    reasons = [(title, path, not_drawn(path.read_text(encoding="utf-8"))) for title, path in pages]
    return [(t, p) for t, p, why in reasons if why is None], [(t, why) for t, _, why in reasons if why is not None]


def validation_html(v: pl.DataFrame) -> str:
    """The footer's validation of one study: ``v`` has a row per suite (iolab.reports.validation.summary)."""
    if v.is_empty():
        return note_html("Validation: no suite has rows of this study.")
    failed = int(v["failed"].sum())
    verdict = "all expectations met" if failed == 0 else f"{failed} expectation(s) failed"
    when = v["validated_at"][0]
    return table_html(v, f"Validation of this study's data (Great Expectations, {when:%Y-%m-%d %H:%M} UTC): {verdict}")


CHART_SPEC = "iolab-chart-spec"
KEPT = "\t\n\r"  # white space a cell or a label may hold as it is


def visible(v):
    """``v`` (and every string inside it) with control, bidi and invisible characters written as
    escapes (\\x1b, \\u202e; iolab.names): an SVG cannot hold control characters (vl-convert aborts
    the kernel on one), and a name must neither vanish from a chart nor read as another."""
    if isinstance(v, str):
        return visible_text(v, keep=KEPT)
    if isinstance(v, list):
        return [visible(x) for x in v]
    if isinstance(v, dict):
        return {visible(k): visible(x) for k, x in v.items()}
    return v  # the class of the script holding a chart's Vega-Lite spec and data


def no_marks_text(absent: list[str], why: str) -> str:
    """What a chart's caption says of the systems it draws nothing of (page.no_marks)."""
    return f"No marks for {', '.join(absent)}: {why}." if absent else ""


def says_no_marks_for(caption: str, name: str) -> bool:
    """Whether ``caption`` holds a ``no_marks_text`` naming ``name`` among its systems."""
    return re.search(rf"No marks for (?:[^:]*?, )?{re.escape(name)}(?:, [^:]*)?: ", caption) is not None


def file_name(text: str, limit: int = 60) -> str:
    """A file name made of ``text``: letters, digits, '-' and '_' only (no path, no dot file), or "chart"."""
    kept = "".join(c if c.isascii() and (c.isalnum() or c in "-_") else "-" for c in text.lower())
    return re.sub(r"-{2,}", "-", kept).strip("-")[:limit].strip("-") or "chart"


def chart_name(spec: dict) -> str:
    """The file name a chart's downloads take: its title's (a title its inputs compute: "chart")."""
    title = spec.get("title", "")
    text = title.get("text", "") if isinstance(title, dict) else title
    return file_name(str(text) if isinstance(text, str | list) else "")


def figure_html(spec: dict, svg: str, alt_text: str, left_out: str = "", live: bool = False) -> str:
    """A chart as a page shows it: the SVG as an image whose alt text says what it shows, a caption
    naming what the chart leaves out, and its Vega-Lite spec with its data, which the chart oracle
    (iolab.reports.oracle) checks against the views. Both travel base64-encoded: no name in the data
    can close the script or look like a fetch to ``render.offline``. ``live``: a box the page's script
    draws the interactive chart into (iolab.reports.interactive), named for its downloads."""
    import json

    image = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    data = base64.b64encode(json.dumps(spec, default=str).encode("utf-8")).decode("ascii")
    caption = f'<figcaption class="note">{esc(left_out)}</figcaption>' if left_out else ""
    box = f'<div class="iolab-vega" hidden data-name="{esc(chart_name(spec))}"></div>' if live else ""
    return (
        f'{CSS}<div class="iolab"><figure class="iolab-chart" style="margin:8px 0">'
        f'<img src="data:image/svg+xml;base64,{image}" alt="{esc(alt_text)}">{box}{caption}'
        f'<script type="application/json" class="{CHART_SPEC}">{data}</script></figure></div>'
    )
