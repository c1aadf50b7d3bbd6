"""Helpers the text formats share: numbers, counts and times as a file states them.

Each turns what the file says into a value or a ParseError naming the line; none guesses."""

from __future__ import annotations

from datetime import UTC, datetime

from ..model import ParseError

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
