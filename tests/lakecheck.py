"""Comparing views computed by two engines (DuckDB, Spark) from the same lake: the same columns and
the same rows, floats to 1e-9 relative. Used by tests/test_lake.py and tests/bench_lake.py.

A view of up to ``ROWS_IN_PYTHON`` rows is compared row by row (both sides sorted); a larger one
(the points of a 10 GB lab) by DuckDB, per column: the count of values, distinct values of text and
time columns, and the sum of numeric ones (relative 1e-9), which a missing, doubled or changed row
would move.
"""

from __future__ import annotations

import math
import os
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

ROWS_IN_PYTHON = 500_000


def _norm(v):
    """A value as both engines should agree on it: whole numbers exact (a run's id is a 64-bit hash,
    which a float would round into its neighbours), other numbers as float, times as plain datetimes
    (pyarrow gives pandas Timestamps for nanosecond columns), lists element-wise."""
    if isinstance(v, bool) or v is None or isinstance(v, (str, int)):
        return v
    if isinstance(v, datetime):
        return datetime(*v.timetuple()[:6], v.microsecond, tzinfo=v.tzinfo)
    if isinstance(v, date):
        return v
    if isinstance(v, Decimal):
        return int(v) if v == v.to_integral_value() else float(v)
    if isinstance(v, float):
        return v
    if isinstance(v, (list, tuple)):
        return tuple(_norm(x) for x in v)
    return v


def _key(row):
    # floats rounded for sorting only (two engines may differ in the last bits); NULLs first
    return tuple((x is not None, f"{x:.9g}" if isinstance(x, float) else repr(x)) for x in row)


def same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def rows(folder: Path) -> tuple[list[str], list[tuple]]:
    """The columns and the sorted, normalised rows of the Parquet files of a folder."""
    import pyarrow.parquet as pq

    tables = [pq.read_table(f) for f in sorted(Path(folder).glob("*.parquet"))]
    cols = tables[0].column_names
    out = [tuple(_norm(r[c]) for c in cols) for t in tables for r in t.to_pylist()]
    return cols, sorted(out, key=_key)


def _columns(folder: Path) -> list[str]:
    import pyarrow.parquet as pq

    return pq.read_schema(sorted(Path(folder).glob("*.parquet"))[0]).names


def _profile(con, folder: Path) -> list[float | int | None]:
    """Per column: non-NULL count, and the sum (numbers) or distinct count (anything else)."""
    src = f"read_parquet('{str(folder).replace(chr(39), chr(39) * 2)}/*.parquet')"
    types = con.execute(f"SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM {src})").fetchall()
    parts = ["count(*)"]
    for name, t in types:
        c = '"' + name.replace('"', '""') + '"'
        parts.append(f"count({c})")
        numeric = any(k in t for k in ("INT", "DOUBLE", "FLOAT", "DECIMAL")) and "[]" not in t
        parts.append(f"sum({c}::DOUBLE)" if numeric else f"count(DISTINCT {c}::VARCHAR)")
    return list(con.execute(f"SELECT {', '.join(parts)} FROM {src}").fetchall()[0])


def _differ_large(a: Path, b: Path) -> str | None:
    import duckdb

    con = duckdb.connect(config={"memory_limit": "2GB", "temp_directory": str(a.parent / ".duckdb-tmp")})
    try:
        pa, pb = _profile(con, a), _profile(con, b)
    finally:
        con.close()
    bad = [i for i, (x, y) in enumerate(zip(pa, pb)) if not same(_norm(x), _norm(y))]
    return (
        f"column profiles differ at {bad[:5]}: {[pa[i] for i in bad[:5]]} vs {[pb[i] for i in bad[:5]]}"
        if bad
        else None
    )


def differ(a: Path, b: Path) -> str | None:
    """None if the Parquet folders ``a`` and ``b`` hold the same view, else what differs."""
    if not any(a.glob("*.parquet")) or not any(b.glob("*.parquet")):
        return f"no Parquet in {a if not any(a.glob('*.parquet')) else b}"
    if _columns(a) != _columns(b):
        return f"columns {_columns(a)} vs {_columns(b)}"
    import pyarrow.parquet as pq

    n_a = sum(pq.read_metadata(f).num_rows for f in a.glob("*.parquet"))
    n_b = sum(pq.read_metadata(f).num_rows for f in b.glob("*.parquet"))
    if n_a != n_b:
        return f"{n_a} rows vs {n_b}"
    if n_a > ROWS_IN_PYTHON:
        return _differ_large(a, b)
    _, ra = rows(a)
    _, rb = rows(b)
    bad = [(x, y) for x, y in zip(ra, rb) if not same(x, y)]
    return f"{len(bad)} rows differ, first: {bad[0]}" if bad else None


def compare(a: Path, b: Path, names) -> dict[str, str]:
    """{view: what differs} for every view of ``names`` that is not the same in folders a and b."""
    out = {}
    for name in sorted(names):
        d = differ(Path(a) / name, Path(b) / name)
        if d:
            out[name] = d
    return out


def listening(pids: list[int]) -> list[str]:
    """The local addresses (host:port, hex as in /proc/net) the processes ``pids`` listen on."""
    inodes = set()
    for pid in pids:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
                if link.startswith("socket:["):
                    inodes.add(link[8:-1])
        except OSError:
            continue
    out = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            f = line.split()
            if f[3] == "0A" and f[9] in inodes:  # LISTEN
                out.append(f[1])
    return out


LOOPBACK = ("0100007F:", "0000000000000000FFFF00000100007F:")  # 127.0.0.1 in tcp and tcp6 (v4-mapped)
