"""What iolab prints: outside text made safe for a terminal, and rich's console, made when first used.

Names and reasons come from outside (file names, study and system names, a parse error quoting its
file). A control character in one (ESC, CR, BEL, a newline) would act on the reader's terminal or
split a log line, and a bidi control or an invisible character would make the name read as another, so
``shown`` writes each as an escape (``\\x1b``, ``\\u202e``: the rule of iolab.names); rich passes ESC
through as it is.
rich is imported only when something is drawn: an ingest's plain log does without it (its import
was 2 % of ingesting a 100 MB capture).
"""

from __future__ import annotations

import functools
import sys
from typing import TYPE_CHECKING

from .names import visible

if TYPE_CHECKING:
    from rich.console import Console


def shown(text: object) -> str:
    """``text`` with every control, bidi and invisible character written as an escape (iolab.names)."""
    return visible(str(text))


def markup(text: object) -> str:
    """``shown(text)`` for a rich markup string: its brackets are text, not style."""
    from rich.markup import escape

    return escape(shown(text))


def write_out(text: str) -> None:
    """Rows for a program (CSV, TSV, JSON lines) on standard output: as they are in a pipe or a file,
    every control, bidi and invisible character escaped but the line breaks when standard output is
    a terminal (a cell holding an OSC 8 link, a clear-screen or U+202E would act on the reader's
    terminal). Files written with --out never pass here: they stay byte-exact."""
    sys.stdout.write(visible(text, keep="\n") if is_terminal() else text)


def is_terminal() -> bool:
    """Whether standard output is a terminal (progress bar and tables) or a log (plain lines)."""
    return sys.stdout.isatty()


@functools.cache
def console(stderr: bool = False) -> Console:
    """rich's console for standard output (or error), the one every iolab command prints through:
    off a terminal each thing said is one line however long, never wrapped (a log, a pipe, grep).
    Emoji codes stay text (a file named ``:smile:.csv`` is printed as named)."""
    from rich.console import Console

    out = Console(highlight=False, emoji=False, stderr=stderr)
    return out if out.is_terminal else Console(highlight=False, emoji=False, stderr=stderr, width=160, soft_wrap=True)


def say(*pieces: str | tuple[str, str]) -> None:
    """One line from plain strings and (text, style) pieces: styled on a terminal, plain text in a
    log. The pieces are text, never markup; outside text in them must go through ``shown``."""
    if not is_terminal():
        print("".join(p if isinstance(p, str) else p[0] for p in pieces))
        return
    from rich.text import Text

    console().print(Text.assemble(*pieces), soft_wrap=True)
