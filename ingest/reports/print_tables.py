"""The print edition's tables: names kept whole. A cell of a column holding names (a system, a
workload, a configuration) short enough to stand on one line is never wrapped; a longer name wraps in
a column kept wide enough to read; other cells wrap at their spaces, a path after its slashes. The
screen pages are not changed: ``whole_names`` rewrites the print copy of a page only (print.css
holds the rules: td.whole, td.name)."""

from __future__ import annotations

import html
import re

WHOLE = 32  # characters: a name this short is never wrapped on paper
# the columns of the pages' tables that hold names (their headers as shown): a system, a workload...
NAMES = {
    "system",
    "baseline",
    "baseline system",
    "other system",
    "workload",
    "workload label",
    "configuration",
    "configurations",
    "config",
    "baseline config",
    "config label",
    "measurement",
    "baseline measurement",
    "target",
    "volume",
    "array name",
    "tool",
    "tools",
    "tool version",
    "run",
    "side",
    "metric",
    "scope",
    "unit",
}
_TABLE = re.compile(r"<table>(.*?)</table>", re.S)
_TH = re.compile(r"<th>([^<]*)</th>")
_TR = re.compile(r"<tr>(.*?)</tr>", re.S)
_TD = re.compile(r"<td([^>]*)>(.*?)</td>", re.S)  # every cell: its attributes, its content


def _cell(cell: re.Match, i: int, names: set[int]) -> str:
    """A plain text cell of a name column kept whole (or wide), a path's cell wrapping after its
    slashes; any other cell (a number, a cell with a class or markup of its own) as it is."""
    attrs, text = cell.group(1), cell.group(2)
    if attrs or "<" in text:
        return cell.group(0)
    if i in names:  # a long name wraps, in a column kept wide
        return f'<td class="{"whole" if len(html.unescape(text)) <= WHOLE else "name"}">{text}</td>'
    return f"<td>{text.replace('/', '/<wbr>')}</td>"  # a path wraps after its slashes


def _row(row: str, names: set[int]) -> str:
    count = iter(range(len(row)))
    return _TD.sub(lambda c: _cell(c, next(count), names), row)


def _table(match: re.Match) -> str:
    body = match.group(1)
    names = {i for i, h in enumerate(_TH.findall(body)) if html.unescape(h).strip() in NAMES}
    return "<table>" + _TR.sub(lambda r: f"<tr>{_row(r.group(1), names)}</tr>", body) + "</table>"


def whole_names(page: str) -> str:
    """A page's HTML whose tables keep names whole: a cell of a name column (NAMES) of up to WHOLE
    characters is never wrapped (print.css: td.whole), a longer one wraps in a column kept wide
    (td.name); other cells wrap at their spaces, a path after its slashes, and inside a word only
    where a word is wider than its column."""
    return _TABLE.sub(_table, page)
