"""The one table every command prints, as DuckDB's command line prints them.

On a terminal the table fits the terminal's width: the least important columns are abbreviated (a
text column that may be, with an ellipsis) or left out whole, never a number nor a key column (those
that say which row it is), and a line under the table says what was left out and how to see it (a
wider terminal, or the command's ``--format``). Off a terminal (a pipe, a file, a log) every column
is printed as plain rows aligned by spaces, one line per row however long: no box drawing.

Each table declares its columns (``Col``): which are keys, which are numbers (aligned right), and
the order in which the others give way (``drop``: the highest first; the columns of one ``drop``
together, as a minimum and its maximum).
Cells are text already made safe (``terminal.shown``) or (text, rich style); never markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

from .. import terminal

Cell: TypeAlias = str | tuple[str, str]  # a table cell: its text (names already shown), or (text, rich style)
GAP = 3  # what rich draws between two columns: " │ "
SHORTEST = 8  # an abbreviated column keeps at least this many characters (its ellipsis included)
CSV, JSON = "`--format csv`", "`--format json`"  # how a command shows every column (table's ``more``)


@dataclass(frozen=True)
class Col:
    """One column: its heading; ``key`` (says which row it is: never left out or cut); ``number``
    (aligned right, never cut: left out whole if it must go); ``drop`` (the order of giving way,
    the highest first, the columns of one value together); ``shorten`` (text that may be abbreviated
    with an ellipsis before it goes); ``wrap`` (a key whose text may wrap at its spaces down to this
    many characters, before a number or a column to ``keep`` goes; ``fold``: within a word too, as a
    path)."""

    head: str
    key: bool = False
    number: bool = False
    drop: int = 0
    shorten: bool = False
    wrap: int = 0
    fold: bool = False
    keep: bool = False


@dataclass(frozen=True)
class Fit:
    """Which columns a terminal shows, at which widths, and what gave way."""

    shown: list[int]
    widths: dict[int, int]
    left_out: list[int]
    shortened: list[int]
    needed: int  # the width that shows every column whole


def text_of(cell: Cell) -> str:
    return cell if isinstance(cell, str) else cell[0]


def _width(widths: dict[int, int], shown: list[int]) -> int:
    return sum(widths[i] for i in shown) + GAP * max(0, len(shown) - 1)


def fit(cols: Sequence[Col], rows: Sequence[Sequence[Cell]], width: int) -> Fit:
    """Fit the columns into ``width`` characters: a heading may wrap at its spaces (never within a
    word); a cell never wraps but in a key that says it may (``wrap``), and only as far as a number
    or a column to ``keep`` needs. The columns give way in their ``drop`` order (a column with nothing
    in it first, unsaid); those left out that fit again once others went come back (the most
    important first), and what is left over widens what was narrowed (the abbreviated first)."""
    from rich.cells import cell_len

    words = {i: max(cell_len(w) for w in c.head.split() or [" "]) for i, c in enumerate(cols)}
    natural = {i: max([words[i]] + [cell_len(text_of(r[i])) for r in rows]) for i in range(len(cols))}
    widths = dict(natural)
    # a column with nothing in it goes first, unsaid
    shown = [i for i, c in enumerate(cols) if c.key or any(text_of(r[i]) for r in rows) or not rows]
    left_out: list[int] = []
    shortened: list[int] = []
    for group in _groups([c if i in shown else Col(c.head, key=True) for i, c in enumerate(cols)]):
        i, over = group[0], _width(widths, shown) - width
        if over <= 0:
            break
        short = len(group) == 1 and cols[i].shorten and not cols[i].number  # a number is never cut
        if any(cols[j].number or cols[j].keep for j in group):  # the keys wrap, as little as needed
            # an abbreviated column keeps a quarter of the width, or what it has if less
            least = min(natural[i], max(SHORTEST, words[i], width // 4))
            _wrap_keys(cols, rows, widths, over - (natural[i] - least if short else 0))
            over = _width(widths, shown) - width
            if over <= 0:
                break
        if short and natural[i] - over >= max(SHORTEST, words[i]):
            widths[i] = natural[i] - over
            shortened.append(i)
            break
        shown = [j for j in shown if j not in group]
        left_out += group
    for group in reversed(_groups([c if i in left_out else Col(c.head, key=True) for i, c in enumerate(cols)])):
        if _width(widths, sorted([*shown, *group])) <= width:  # the most important first
            shown = sorted([*shown, *group])
            left_out = [j for j in left_out if j not in group]
    for i in [*shortened, *shown]:  # what is left over widens what was narrowed: the abbreviated first
        widths[i] += max(0, min(natural[i] - widths[i], width - _width(widths, shown)))
    return Fit(shown, widths, sorted(left_out), shortened, _width(natural, list(range(len(cols)))))


def _wrap_keys(cols: Sequence[Col], rows: Sequence[Sequence[Cell]], widths: dict[int, int], over: int) -> None:
    """Narrow the keys that may wrap (``wrap``) by up to ``over`` characters, the one with the most
    to spare first, never below its ``wrap`` nor (unless it may ``fold``) its longest word."""
    from rich.cells import cell_len

    def floor(i: int) -> int:
        if cols[i].fold:
            return cols[i].wrap
        longest = max(cell_len(w) for w in [*cols[i].head.split(), *(w for r in rows for w in text_of(r[i]).split())])
        return max(cols[i].wrap, longest)

    spare = {i: widths[i] - floor(i) for i, c in enumerate(cols) if c.key and c.wrap and widths[i] > floor(i)}
    for i in sorted(spare, key=lambda i: -spare[i]):
        if over <= 0:
            return
        take = min(over, spare[i])
        widths[i] -= take
        over -= take


def _groups(cols: Sequence[Col]) -> list[list[int]]:
    """The columns that are not keys, in the order they give way: the highest ``drop`` first, the
    columns of one ``drop`` together (a minimum and its maximum go and come back as one)."""
    drops = sorted({c.drop for c in cols if not c.key}, reverse=True)
    return [[i for i, c in enumerate(cols) if not c.key and c.drop == d] for d in drops]


def table(title: str, cols: Sequence[Col], rows: Sequence[Sequence[Cell]], more: str = "") -> None:
    """Print the table: fitted on a terminal (what gave way said under it; ``more``: the option that
    shows every column, e.g. "`--format csv`"), plain rows off it."""
    if terminal.is_terminal():
        _screen(title, cols, rows, more)
    else:
        print("\n".join(plain(title, cols, rows)))


def plain(title: str, cols: Sequence[Col], rows: Sequence[Sequence[Cell]]) -> list[str]:
    """The table as lines of text: the title, the headings, a rule, one line per row; columns aligned
    by two spaces, numbers to the right, every cell whole."""
    from rich.cells import cell_len

    texts = [[c.head for c in cols]] + [[text_of(c) for c in r] for r in rows]
    widths = [max(cell_len(r[i]) for r in texts) for i in range(len(cols))]

    def line(cells: list[str]) -> str:
        pad = [" " * (w - cell_len(c)) for c, w in zip(cells, widths, strict=True)]
        return "  ".join(p + c if col.number else c + p for c, p, col in zip(cells, pad, cols, strict=True)).rstrip()

    return [title, line(texts[0]), "  ".join("-" * w for w in widths), *(line(t) for t in texts[1:])]


def _screen(title: str, cols: Sequence[Col], rows: Sequence[Sequence[Cell]], more: str) -> None:
    from rich.table import Table
    from rich.text import Text

    out = terminal.console()
    f = fit(cols, rows, out.width)
    t = Table(title=title, show_edge=False, pad_edge=False)
    keys_too_wide = _width(f.widths, f.shown) > out.width  # the keys alone: rich wraps them at their spaces
    for i in f.shown:
        width = None if keys_too_wide and cols[i].key else f.widths[i]
        justify: Literal["left", "right"] = "right" if cols[i].number else "left"
        t.add_column(cols[i].head, justify=justify, width=width, overflow="fold")  # never rich's ellipsis
    for r in rows:
        cells = [Text(text_of(r[i]), style="" if isinstance(r[i], str) else r[i][1]) for i in f.shown]
        for i, cell in zip(f.shown, cells, strict=True):
            if i in f.shortened:
                cell.truncate(f.widths[i], overflow="ellipsis")
        t.add_row(*cells)
    out.print(t)
    if note := gave_way(cols, f, out.width, more):
        out.print(Text(note, style="dim"), soft_wrap=True)


def gave_way(cols: Sequence[Col], f: Fit, width: int, more: str = "") -> str:
    """The line under a fitted table: what was left out or abbreviated, and how to see it whole."""
    if not f.left_out and not f.shortened:
        return ""
    said = []
    if f.left_out:
        said.append("left out " + ", ".join(cols[i].head for i in f.left_out))
    if f.shortened:
        said.append("abbreviated " + ", ".join(cols[i].head for i in f.shortened))
    see = f"a terminal {f.needed} columns wide" + (f", or {more}," if more else "")
    return f"{'; '.join(said)} to fit {width} columns: {see} shows every column whole."
