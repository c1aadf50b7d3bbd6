"""Numbers no column holds: a mistyped -o 99999999999 or a 400-digit latency is refused at the
line that states it, never left to crash a parser or the store (registry.parse calls these)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
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
    for run in _out_of_range(result.runs):
        for field, limit in RUN_COUNTS.items():
            v = getattr(run, field, None)
            if isinstance(v, int) and not 0 <= v <= limit:
                at = _find_number(data, str(abs(v)))
                raise ParseError(
                    f"run {run.key}: {field} is {v if len(str(v)) <= 24 else str(v)[:12] + '...'}, "
                    "more than any test has: the file is damaged or a value was mistyped",
                    data.count(b"\n", 0, at) + 1 if at >= 0 else None,
                )


def _out_of_range(runs: Any) -> Iterator[Any]:
    """The runs to look at: every run of a list; of packed runs (model.Runs), those a column finds
    out of range, found a chunk at a time without making each run an object again."""
    from .model import Run, Runs

    if not isinstance(runs, Runs):
        yield from runs
        return
    import polars as pl

    for frame in runs.frames():
        checks = [
            (pl.col(f) < 0) | (pl.col(f) > limit) for f, limit in RUN_COUNTS.items() if frame.schema[f].is_integer()
        ]
        if checks:
            yield from (Run(**d) for d in frame.filter(pl.any_horizontal(checks)).iter_rows(named=True))


def check_tables(result: Any, data: bytes) -> None:
    """A ParseError for a tool-table cell holding an integer its column cannot (the column's type
    read from the migrations, only when a cell passes 32 bits; a list cell's items by its item type), at
    its row's line (rows built as dicts; a frame or packed table was typed by the parser already)."""
    for table, rows in result.tables.items():
        if not isinstance(rows, list):
            continue
        for row in rows:
            if not isinstance(row, dict):
                continue
            v: int | None
            for column, cell in row.items():
                kind = type(cell)
                if kind is int:
                    if -(2**31) <= cell < 2**31 or _fits(cell, table, column):
                        continue
                    v = cell
                elif kind is list or kind is tuple:
                    v = next((x for x in cell if type(x) is int and not _fits(x, table, column)), None)
                    if v is None:
                        continue
                else:
                    continue
                raise _cell_error(f"{table}.{column}", v, row, data)


def _cell_error(where: str, v: int, row: dict, data: bytes) -> ParseError:
    line = row.get("line_no")
    if not isinstance(line, int):
        at = _find_number(data, str(abs(v)))
        line = data.count(b"\n", 0, at) + 1 if at >= 0 else None
    digits = str(v) if len(str(v)) <= 24 else f"{str(v)[:12]}... ({len(str(abs(v)))} digits)"
    return ParseError(f"{where} is {digits}: no column holds it, so the file is damaged or a value was mistyped", line)


_RANGES = {
    "TINYINT": (-(2**7), 2**7),
    "SMALLINT": (-(2**15), 2**15),
    "INTEGER": (-(2**31), 2**31),
    "INT": (-(2**31), 2**31),
    "BIGINT": (-(2**63), 2**63),
    "UTINYINT": (0, 2**8),
    "USMALLINT": (0, 2**16),
    "UINTEGER": (0, 2**32),
    "UBIGINT": (0, 2**63),  # rows reach DuckDB through Polars, whose 64-bit integers are signed
    "HUGEINT": (-(2**63), 2**63),
}
_COLUMN = re.compile(r"(?:^|[(,])\s*(\w+)\s+(" + "|".join(_RANGES) + r")\b", re.I | re.M)


def _fits(v: int, table: str, column: str) -> bool:
    """Whether ``v`` fits ``table.column`` as the migrations type it (a 64-bit integer when unknown)."""
    low, high = _column_types().get((table, column), _RANGES["BIGINT"])
    return low <= v < high


@functools.cache
def _column_types() -> dict[tuple[str, str], tuple[int, int]]:
    """(table, column) -> the integer range of its type, from schemas/V*.sql (CREATE TABLE and ADD COLUMN)."""
    from .config import SCHEMAS

    types: dict[tuple[str, str], tuple[int, int]] = {}
    for f in sorted(SCHEMAS.glob("V*__*.sql")):
        text = re.sub(r"--[^\n]*", "", f.read_text())
        for table, body in re.findall(r"CREATE TABLE (\w+)\s*\((.*?)\);", text, re.S | re.I):
            for column, kind in _COLUMN.findall(body):
                types[(table, column)] = _RANGES[kind.upper()]
        for table, column, kind in re.findall(r"ALTER TABLE (\w+) ADD COLUMN (\w+) (\w+)", text, re.I):
            if kind.upper() in _RANGES:
                types[(table, column)] = _RANGES[kind.upper()]
    return types


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
