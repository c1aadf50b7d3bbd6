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
_TD = re.compile(r"<td( class=\"num\")?>(.*?)</td>", re.S)


def _row(row: str, names: set[int]) -> str:
    cells = list(_TD.finditer(row))
    out = []
    for i, cell in enumerate(cells):
        num, text = cell.group(1) or "", cell.group(2)
        if not num and i in names and "<" not in text:  # a long name wraps, in a column kept wide
            whole = len(html.unescape(text)) <= WHOLE
            out.append(f'<td class="{"whole" if whole else "name"}">{text}</td>')
        elif not num and "<" not in text:
            out.append(f"<td>{text.replace('/', '/<wbr>')}</td>")  # a path wraps after its slashes
        else:
            out.append(cell.group(0))
    return "".join(out) if len(cells) else row


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
