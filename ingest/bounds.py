"""Numbers no column holds: a mistyped -o 99999999999 or a 400-digit latency is refused at the
line that states it, never left to crash a parser or the store (registry.parse calls these)."""

from __future__ import annotations

import re
from typing import Any

from . import archives
from .model import ParseError

# the runs columns holding counts, and the largest value each holds (schemas: BIGINT, INTEGER)
RUN_COUNTS = {"block_size_bytes": 2**63 - 1} | dict.fromkeys(
    ("drives", "tiles", "queue_depth", "workers", "outstanding_ios"), 2**31 - 1
)


def check_runs(result: Any, data: bytes) -> None:
    """A ParseError for a run whose size or count no column holds (a mistyped -o 99999999999),
    at the line that states it when the number is written in the file."""
    for run in result.runs:
        for field, limit in RUN_COUNTS.items():
            v = getattr(run, field, None)
            if isinstance(v, int) and not 0 <= v <= limit:
                at = _find_number(data, str(abs(v)))
                raise ParseError(
                    f"run {run.key}: {field} is {v if len(str(v)) <= 24 else str(v)[:12] + '...'}, "
                    "more than any test has: the file is damaged or a value was mistyped",
                    data.count(b"\n", 0, at) + 1 if at >= 0 else None,
                )


def check_tables(result: Any, data: bytes) -> None:
    """A ParseError for a tool-table cell holding an integer no 64-bit column holds, at its row's
    line (rows built as dicts; a frame or packed table was typed by the parser already)."""
    for table, rows in result.tables.items():
        if not isinstance(rows, list):
            continue
        for row in rows:
            for column, v in row.items():
                if type(v) is int and not -(2**63) <= v < 2**63:
                    line = row.get("line_no")
                    if not isinstance(line, int):
                        at = _find_number(data, str(abs(v)))
                        line = data.count(b"\n", 0, at) + 1 if at >= 0 else None
                    raise ParseError(
                        f"{table}.{column} is {str(v)[:12]}... ({len(str(abs(v)))} digits): no column holds "
                        "it, so the file is damaged or a value was mistyped",
                        line,
                    )


def _find_number(data: bytes, digits: str) -> int:
    """Where ``digits`` stand as a whole number in ``data`` (-1: not written there, or compressed)."""
    if not data or data.startswith(archives.GZIP):
        return -1
    m = re.search(rb"(?<!\d)" + digits.encode() + rb"(?!\d)", data)
    return m.start() if m else -1


_TOO_LARGE = re.compile(r"too large|out of range|overflow", re.I)
_VALUE = re.compile(r"\b(\d{10,})\b")
_LONG_NUMBER = re.compile(rb"\d{19,}")  # past what a 64-bit integer holds


def too_large(e: BaseException, data: bytes) -> tuple[str, int | None] | None:
    """(reason, line) when ``e`` says a number did not fit (Python's float or C long, Arrow's
    integers), with the line of that number when the message or the file shows which; else None."""
    msg = str(e)
    if not (isinstance(e, OverflowError) or _TOO_LARGE.search(msg)):
        return None
    named = _VALUE.search(msg)
    at = _find_number(data, named.group(1)) if named else -1
    if at < 0 and data:
        m = _LONG_NUMBER.search(data) if not data.startswith(archives.GZIP) else None
        at = m.start() if m else -1
    line = data.count(b"\n", 0, at) + 1 if at >= 0 else None
    shown = named.group(1) if named else (data[at:].split()[0][:24].decode("latin-1") + "..." if at >= 0 else "")
    return (
        f"a number too large to be a measurement{f' ({shown})' if shown else ''}: no column holds it, "
        "so the file is damaged or a value was mistyped",
        line,
    )
