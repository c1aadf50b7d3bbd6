"""Helpers the text formats share: numbers, counts and times as a file states them.

Each turns what the file says into a value or a ParseError naming the line; none guesses."""

from __future__ import annotations

import bisect
import re
from array import array
from collections.abc import Collection
from datetime import UTC, datetime

from ..model import ParseError, decode_text
from ..text import number, undouble_backslashes

_SIZE = re.compile(r"^(\d+)\s*(KiB|MiB|GiB|K|M|G|B)?$", re.I)
_FACTOR = {"": 1, "b": 1, "k": 1024, "kib": 1024, "m": 1 << 20, "mib": 1 << 20, "g": 1 << 30, "gib": 1 << 30}


def decode(data: bytes) -> str:
    """A tool's text output as text (model.decode_text; a BOM left by a re-save is dropped too, also
    where it starts a line inside a longer text: a capture typed into a script's log, or after a blank
    line; and backslashes a JSON-escaped log doubled are single again: text.undouble_backslashes)."""
    text = decode_text(data).lstrip("\ufeff")
    if "\ufeff" in text:
        text = _LINE_BOM.sub("", text)
    return undouble_backslashes(text)


_LINE_BOM = re.compile(r"(?:^|(?<=[\r\n]))\ufeff+")  # at a line start, whatever the line ends


def whole(text: str | None, what: str, line: int | None, *, missing: Collection[str] = ("",)) -> int | None:
    """A whole number as printed (None for a ``missing`` token); a fraction or text is a ParseError."""
    t = (text or "").strip()
    if t in missing:
        return None
    try:
        return int(t)
    except ValueError:
        v = number(t, what, line)
        if v is None or v != int(v):
            raise ParseError(f"{what}: {t!r} is not a whole number", line) from None
        return int(v)


def size_bytes(text: str, line: int | None = None) -> int:
    """A block size as DiskSpd and vdbench print it (4096, 4K, 4KiB, 1M): bytes, binary multiples."""
    m = _SIZE.match(text.strip())
    if not m:
        raise ParseError(f"block size {text.strip()!r} is not a size", line)
    return int(m.group(1)) * _FACTOR[(m.group(2) or "").lower()]


# the largest count a runs column holds (INTEGER): a queue depth or a thread count beyond it is no real setting
MAX_COUNT = 2**31 - 1


def count(value: int | None, what: str, line: int | None, limit: int = MAX_COUNT) -> int | None:
    """``value`` when it is a count a test can have, else a ParseError (None stays None)."""
    if value is not None and not 0 <= value <= limit:
        raise ParseError(f"{what} is {_short(value)}: no test runs with that many", line)
    return value


def epoch(seconds: float | None, what: str, line: int | None) -> datetime | None:
    """A Unix time in seconds as a naive UTC datetime; a ParseError when no calendar holds it."""
    if seconds is None:
        return None
    try:
        return datetime.fromtimestamp(seconds, UTC).replace(tzinfo=None)
    except (OverflowError, OSError, ValueError):
        raise ParseError(f"{what} is {_short(seconds)}, which is no date (seconds since 1970)", line) from None


def _short(v: object) -> str:
    """A number as a person can read it in a message, however many digits it has."""
    t = str(v)
    return t if len(t) <= 24 else f"{t[:12]}... ({len(t)} digits)"


class LineIndex:
    """Where each line of one text starts, found in one pass, so the line of any offset is a bisect
    (a parser placing many things in a large text stays linear instead of counting from the start)."""

    def __init__(self, text: str) -> None:
        self.starts = array("q", [0])
        self.starts.extend(m.end() for m in re.finditer("\n", text))

    def line(self, offset: int) -> int:
        """The 1-based line ``offset`` falls on: ``text[:offset].count("\\n") + 1``."""
        return bisect.bisect_right(self.starts, offset)

    def start(self, line: int) -> int:
        """The offset where 1-based ``line`` starts."""
        return self.starts[line - 1]


def wrapped_note(tool: str, read: list[int], lines: list[str]) -> str | None:
    """What to say when a tool's report was read out of a longer text (a sweep script's log, a
    shell prompt, progress lines): ``read`` are the 1-based lines that were the report's. None
    when every line that is not blank was read."""
    if not read:
        return None
    taken = set(read)
    skipped = [i + 1 for i, line in enumerate(lines) if line.strip() and i + 1 not in taken]
    if not skipped:
        return None
    before = sum(1 for n in skipped if n < read[0])
    after = sum(1 for n in skipped if n > read[-1])
    inside = len(skipped) - before - after
    where = f"lines {read[0]}-{read[-1]}" if read[-1] > read[0] else f"line {read[0]}"
    parts = [
        f"{n} line{'s' * (n > 1)} {what}"
        for n, what in ((before, "before it"), (inside, "between its tables"), (after, "after it"))
        if n
    ]
    return (
        f"read the {tool} report at {where} of {len(lines)}; skipped {', '.join(parts)} "
        f"(not {tool}'s output: a script's log, a prompt, progress lines)"
    )
