"""The print edition's tables: names kept whole. A cell of a column holding names (a system, a
workload, a configuration) short enough to stand on one line is never wrapped; a longer name wraps in
a column kept wide enough to read; other cells wrap at their spaces, a path after its slashes. A
column empty in every row shown (a config, a RAID level no sidecar declares) is left out on paper, and
a line under the table says which. The screen pages are not changed: ``whole_names`` rewrites the
print copy of a page only (print.css holds the rules: td.whole, td.name, p.left-out)."""

from __future__ import annotations

import html
import re

from ..display import label

WHOLE = 48  # characters: a name this short is never wrapped on paper (a 44-character one, whole)
# the columns of the pages' tables that hold names (a system, a workload...), by their identifiers: a
# table shows each head by its label (iolab.display), an older or hand-set head as the words of its name
NAME_COLUMNS = (
    "system", "baseline", "baseline_system", "other_system", "workload", "workload_label", "configuration",
    "configurations", "config", "baseline_config", "config_label", "measurement", "baseline_measurement",
    "target", "volume", "array_name", "tool", "tools", "tool_version", "run", "run_key", "side", "metric",
    "scope", "unit",
)  # fmt: skip
NAMES = {label(c) for c in NAME_COLUMNS} | {c.replace("_", " ") for c in NAME_COLUMNS}
_TABLE = re.compile(r"<table>(.*?)</table>", re.S)
_TH = re.compile(r"<th\b[^>]*>(.*?)</th>", re.S)  # every head cell's content, a class or not (<th class="num">)
_TR = re.compile(r"<tr>(.*?)</tr>", re.S)
_TD = re.compile(r"<td([^>]*)>(.*?)</td>", re.S)  # every cell: its attributes, its content
_CELL = re.compile(r"<(t[hd])\b[^>]*>.*?</\1>", re.S)  # a head or a body cell, whole
_MARKUP = re.compile(r"<[^>]*>")
_PATH_BREAK = re.compile(r"[/_-]+")  # where a path may wrap: after a slash, a dash, an underscore
PATH_MOST = 48  # characters: a path's column is never made wider than this (a longer path takes 3 lines)
_WORD_BREAK = re.compile(r"(?<=\w)/+(?=\w)")  # a path in text: after its slashes (an identifier stays whole)
SHORT = 16  # characters: a column of texts no longer than this (a run key, a match rule) never wraps


def _path(text: str) -> bool:
    """A cell's text is a path: a slash and no space (a file, samples/esg-ds5020-2009/x.csv)."""
    return "/" in text and " " not in text


def _cell(cell: re.Match, i: int, names: set[int], short: set[int], loose: set[int]) -> str:
    """A plain text cell of a name column or of a column of short texts kept whole (a long name:
    wide), a path's cell wrapping after its slashes, dashes and underscores (never inside a word);
    any other cell (a number, a cell with a class or markup of its own) as it is. A path of ``loose``
    wraps over as many lines as its column's width takes."""
    attrs, text = cell.group(1), cell.group(2)
    if attrs or "<" in text:
        return cell.group(0)
    if i in names:  # a long name wraps, in a column kept wide
        whole = len(html.unescape(text)) <= WHOLE
        return f'<td class="{"whole" if whole else "name"}">{text if whole else _joined(text)}</td>'
    if i in short:  # a run key, a match rule: never broken over two lines
        return f'<td class="whole">{text}</td>'
    if _path(text):  # a path: on two lines at most, its column as wide as that takes
        style = "" if i in loose else f' style="--two-lines: {two_lines(html.unescape(text))}ch"'  # print.css
        return f'<td class="path"{style}>{_PATH_BREAK.sub(lambda m: m.group(0) + "<wbr>", text)}</td>'
    return f"<td>{_joined(_TOKEN.sub(_token_breaks, _WORD_BREAK.sub(lambda m: m.group(0) + '<wbr>', text)))}</td>"


_HYPHENATED = re.compile(r"(?<![^\s])[^\s<>/]*\w-\w[^\s<>/]*(?![^\s])")  # RAID-10, D3-S4610: a word with a hyphen


def _joined(text: str) -> str:
    """``text`` whose words with a hyphen (RAID-10) never break at it (print.css: span.nw): a line
    breaks at a space before them, as it does before any word; the text itself is unchanged."""
    return _HYPHENATED.sub(
        lambda m: f'<span class="nw">{m.group(0)}</span>' if len(m.group(0)) <= LONG else m.group(0), text
    )


LONG = 20  # characters: a run of text without a space longer than this is a token (a formula, a URL), not a word
_TOKEN = re.compile(rf"[^\s<>]{{{LONG + 1},}}")
_TOKEN_BREAK = re.compile(r"[,)](?=.)")  # where a token may break: after a comma or a closing parenthesis


def _token_breaks(token: re.Match) -> str:
    """A long token (``=HYPERLINK("http://example.invalid","Omega")``) with places to break after its
    commas and closing parentheses: no column need be as wide as it, nor the page shrunk to hold it."""
    return _TOKEN_BREAK.sub(lambda m: m.group(0) + "<wbr>", token.group(0))


def two_lines(path: str) -> int:
    """Characters of the longer line of ``path`` broken once, after a slash, dash or underscore, where
    its two lines are most even (the whole path where it has no such place), at most PATH_MOST."""
    cuts = [m.end() for m in _PATH_BREAK.finditer(path) if m.end() < len(path)]
    return min(PATH_MOST, min((max(c, len(path) - c) for c in cuts), default=len(path)) + 1)


def _row(row: str, names: set[int], short: set[int], loose: set[int]) -> str:
    count = iter(range(len(row)))
    return _TD.sub(lambda c: _cell(c, next(count), names, short, loose), row)


def short_columns(body: str) -> set[int]:
    """The columns of a table whose every body cell holds at most SHORT characters."""
    rows = [[html.unescape(_MARKUP.sub("", c.group(2))) for c in _TD.finditer(r)] for r in _TR.findall(body)]
    rows = [r for r in rows if r]
    if not rows or any(len(r) != len(rows[0]) for r in rows):
        return set()
    return {i for i in range(len(rows[0])) if max(len(r[i]) for r in rows) <= SHORT}


def empty_columns(body: str) -> list[int]:
    """The columns of a table (its inside) whose every body cell is empty, markup aside; none where a
    row has another count of cells than the head (a spanning cell: the columns are not plain)."""
    rows = [[c.group(0) for c in _CELL.finditer(r)] for r in _TR.findall(body)]
    if len(rows) < 2 or any(len(r) != len(rows[0]) for r in rows):
        return []
    cells = [r for r in rows[1:] if r and r[0].startswith("<td")]
    if not cells:
        return []
    return [i for i in range(len(rows[0])) if all(not html.unescape(_MARKUP.sub("", r[i])).strip() for r in cells)]


CHAR = 5.3  # px: an average character of a table's 9.5 px text, a little wider than drawn (5.0-5.2 px measured)
CELL_PAD = 11  # px: a cell's padding and rule
TABLE_WIDTH = 1016  # px: the printable width of an A4 landscape page (print_bands.PAGE_WIDTH)


def _words(text: str) -> int:
    """The longest piece of ``text`` no line may break: its longest word, a path's piece between
    slashes (an identifier, bytes_written, whole); of a path (a cell _cell breaks after its slashes,
    dashes and underscores), its longest piece between them."""
    if _path(text):
        return max(len(p) + 1 for p in _PATH_BREAK.split(text))
    pieces = _WORD_BREAK.sub(lambda m: m.group(0) + " ", text).split()  # where _cell lets a line break
    pieces = [
        p for w in pieces for p in (_TOKEN_BREAK.sub(lambda m: m.group(0) + " ", w).split() if len(w) > LONG else [w])
    ]
    return max((len(p) for p in pieces), default=0)


def _plan(longest: list[int], least: list[int], kept: set[int], lines: int) -> list[float]:
    """Each column's width in characters for rows of ``lines`` lines: a text wrapped at its spaces in
    that many lines (a line is never filled to its last character: 15 % to spare), never narrower
    than its longest word; a ``kept`` column (a number, a path on its two lines, a name whole) as it is."""
    return [
        max(least[i], longest[i] if i in kept or lines == 1 else -(-longest[i] * 1.15 // lines), 1)
        for i in range(len(longest))
    ]


def body_cells(body: str, n: int) -> list[list[tuple[str, str]]]:
    """The body rows of a table of ``n`` columns (its inside), each cell as its attributes and its
    plain text; a row of another count of cells (a heading row spanning them) left out."""
    rows = [
        [(c.group(1), html.unescape(_MARKUP.sub("", c.group(2)))) for c in _TD.finditer(r)] for r in _TR.findall(body)
    ]
    return [r for r in rows if len(r) == n]


def fitted(
    body: str, heads: list[str], names: set[int], short: set[int]
) -> tuple[set[int], set[int], set[int], list[float]]:
    """The columns of a table kept whole on one line, of ``names`` and ``short`` (their texts), the
    path columns let wrap over more than two lines, and every column's share of the page's width (%):
    the fewest lines a row that fits the page's width (TABLE_WIDTH), names and short texts whole and
    paths on two lines where the page holds them so, each column at least as wide as its longest word.
    Chromium, left to itself, gives a wrapping column its narrowest width (a reason five characters
    wide), or shrinks the whole page to the table's width."""
    rows = body_cells(body, len(heads))
    if not rows:
        return names, short, set(), []
    n = len(heads)
    heads = [html.unescape(_MARKUP.sub("", h)) for h in heads]
    full = [max(len(r[i][1]) for r in rows) for i in range(n)]
    paths = {i for i in range(n) if all(_path(t) or not t for _, t in (r[i] for r in rows))}
    numbers = {i for i in range(n) if any(r[i][0] for r in rows)}  # a cell with a class
    least = [max([_words(heads[i])] + [_words(r[i][1]) for r in rows]) for i in range(n)]
    longest = [
        min(two_lines(max((r[i][1] for r in rows), key=len)), full[i]) if i in paths else full[i] for i in range(n)
    ]
    longest = [min(longest[i], WHOLE) if i in names else longest[i] for i in range(n)]  # a longer name wraps
    fixed = numbers | paths | short  # a short text (RAID-10, s1/r57) is never broken
    # names whole, then names wrapped, then paths wrapped too over as many lines as the row
    wrapped = [full[i] if i in paths else longest[i] for i in range(n)]
    tiers = ((fixed | names, longest), (fixed, longest), (fixed - paths, wrapped))
    for lines in range(1, 9):
        for keep, widths in tiers:
            plan = _plan(widths, least, keep, lines)
            if sum(plan) * CHAR + CELL_PAD * n <= TABLE_WIDTH:
                return names & keep, short & keep, paths - keep, [100 * w / sum(plan) for w in plan]
    return set(), set(), set(), []


def _without(row: str, columns: set[int]) -> str:
    count = iter(range(len(row)))
    return _CELL.sub(lambda c: "" if next(count) in columns else c.group(0), row)


GROUPED_TEXT = 40  # characters: a text column this long, repeated over runs of rows, heads its runs on paper
GROUP_ROWS = 10  # rows: a table this long at least; its runs of one text at least GROUP_RUN rows long on average
GROUP_RUN = 4


def name_columns(heads: list[str]) -> set[int]:
    """The columns whose head (as the page has it, escaped, maybe with markup) is a name's (NAMES)."""
    return {i for i, h in enumerate(heads) if html.unescape(_MARKUP.sub("", h)).strip() in NAMES}


def grouped_column(body: str, heads: list[str]) -> int | None:
    """The column of a long table whose long text (a reason, over 40 characters) stays the same over
    runs of rows (on average GROUP_RUN or more): printed once above each run, not in every row, where
    it would take most of the page's width and every row two more lines. None where there is none.
    Never a name (a system, a workload: NAMES): a row names what it is on every page it lands on."""
    rows = body_cells(body, len(heads))
    if len(heads) < 3 or len(rows) < GROUP_ROWS:
        return None
    named = name_columns(heads)
    for i in (i for i in reversed(range(len(heads))) if i not in named):
        texts = [r[i][1] for r in rows]
        runs = 1 + sum(a != b for a, b in zip(texts, texts[1:]))
        if not any(r[i][0] for r in rows) and max(map(len, texts)) > GROUPED_TEXT and len(rows) >= GROUP_RUN * runs:
            return i
    return None


def _heading_rows(body: str, column: int, head: str, span: int) -> str:
    """``body`` without ``column``, a row spanning the table above each run of rows of one text of it."""
    last: list[str | None] = [None]

    def row(r: re.Match) -> str:
        cells = [c.group(0) for c in _CELL.finditer(r.group(1))]
        if len(cells) != span + 1 or not cells[column].startswith("<td"):
            return f"<tr>{_without(r.group(1), {column})}</tr>"
        text = _TD.match(cells[column]).group(2)  # type: ignore[union-attr]
        said = "" if text == last[0] else f'<tr class="group"><td colspan="{span}">{head}: {text}</td></tr>'
        last[0] = text
        return f"{said}<tr>{_without(r.group(1), {column})}</tr>"

    return _TR.sub(row, body)


def _table(match: re.Match) -> str:
    body = match.group(1)
    heads = _TH.findall(body)
    left = set(empty_columns(body)) if len(heads) > 1 else set()
    note = ""
    if left and len(left) < len(heads):  # a table of nothing but empty columns stays as it is
        said = ", ".join(heads[i] for i in sorted(left))  # escaped as the page has them
        note = f'<p class="left-out">columns empty in every row shown are left out: {said}</p>'
        body = _TR.sub(lambda r: f"<tr>{_without(r.group(1), left)}</tr>", body)
        heads = _TH.findall(body)
    if (g := grouped_column(body, heads)) is not None:  # heads above its runs, not a column
        body = _heading_rows(body, g, heads[g], len(heads) - 1)
        heads = _TH.findall(body)
    names, short, loose, shares = fitted(body, heads, name_columns(heads), short_columns(body))
    cols = "".join(f'<col style="width: {w:.1f}%">' for w in shares)
    rows = _TR.sub(lambda r: f"<tr>{_row(r.group(1), names, short, loose)}</tr>", body)
    return f"<table>{f'<colgroup>{cols}</colgroup>' if cols else ''}{rows}</table>{note}"


def whole_names(page: str) -> str:
    """A page's HTML whose tables keep names whole: a cell of a name column (NAMES) of up to WHOLE
    characters is never wrapped (print.css: td.whole), a longer one wraps in a column kept wide
    (td.name); other cells wrap at their spaces, a path after its slashes, and inside a word only
    where a word is wider than its column. Columns empty in every row are left out, and said so under
    the table."""
    return _TABLE.sub(_table, page)
