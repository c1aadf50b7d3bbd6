"""The store's points a chunk at a time, for the views that aggregate every point (series_stats).

An exact p95 holds every value of its series in memory until the series is done, and DuckDB cannot
spill that state: a 1 GB esxtop capture (146 M points in one file) needed 3-4 GB at once, and failed
under any smaller memory limit. Summarised a chunk of points at a time, memory stays bounded whatever
the capture's size: small files go together, and a file of more points than a chunk is split by its
series (a series is never split: its p95 needs all its values). The store's Parquet has no min/max
statistics, so each part of a big file is a scan of its series ids (DuckDB reads the values of the
rows that pass only): a 1 GB capture in 8 parts took 8.9 s of CPU against 9.8 s in one query, whose
per-series buffers grew past the caches (docs/PERFORMANCE.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..config import memory_bytes
from .points import points_of, store_dir

if TYPE_CHECKING:
    from duckdb import DuckDBPyConnection

MOST = 20_000_000  # points in one chunk, whatever the memory limit
BYTES_PER_POINT = 25  # measured 10-13 bytes a point held for an exact p95; twice that, to be safe
LEAST = 1_000_000  # a chunk under a tiny limit: a query costs its scan whatever its size


@dataclass(frozen=True)
class Chunk:
    """Store files summarised in one query; ``series``: a part of one file bigger than a chunk, its
    series ids from the first (None: the lowest) up to, not including, the second (None: the highest)."""

    files: tuple[Path, ...]
    series: tuple[int | None, int | None] | None = None

    def points(self) -> str:
        """Its points as series_values has them (series_id, source_id, sample_no, value)."""
        every = f"SELECT series_id, source_id, sample_no, value FROM ({points_of(list(self.files))})"
        if self.series is None:
            return every
        lo, hi = self.series
        bounds = ([] if lo is None else [f"series_id >= {int(lo)}"]) + (
            [] if hi is None else [f"series_id < {int(hi)}"]
        )
        return f"{every} WHERE {' AND '.join(bounds) or 'true'}"


def budget(con: DuckDBPyConnection) -> int:
    """Points summarised in one query on ``con``: what its memory limit holds, within LEAST..MOST."""
    limit = memory_bytes(str(con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]))
    return max(LEAST, min(MOST, limit // BYTES_PER_POINT)) if limit else MOST


def chunks(con: DuckDBPyConnection, sources: list[int] | None = None, size: int | None = None) -> list[Chunk]:
    """The store's files (those of ``sources`` only, when given) in chunks of about ``size`` points
    (default ``budget``): files together in source order, a bigger file alone in parts of its series."""
    size = size or budget(con)
    folder = store_dir(con)
    where = f"WHERE source_id IN ({', '.join(str(int(s)) for s in sources)})" if sources is not None else ""
    if sources == []:
        return []
    files = con.execute(f"SELECT source_id, file_name, points FROM point_files {where} ORDER BY source_id").fetchall()
    out: list[Chunk] = []
    group: list[Path] = []
    held = 0
    for sid, name, points in files:
        path = folder / name
        if not path.exists():  # store_files says so; nothing to summarise
            continue
        if points > size:
            out += _parts(con, sid, path, points, size)
            continue
        if group and held + points > size:
            out.append(Chunk(tuple(group)))
            group, held = [], 0
        group.append(path)
        held += points
    return out + ([Chunk(tuple(group))] if group else [])


def _parts(con: DuckDBPyConnection, sid: int, path: Path, points: int, size: int) -> list[Chunk]:
    """One big file in parts of about ``size`` points: runs of its series ids (its points spread
    evenly over its series, as a capture's columns are), never a series split."""
    ids = [i for (i,) in con.execute("SELECT series_id FROM series WHERE source_id = ? ORDER BY 1", [sid]).fetchall()]
    if not ids:
        return [Chunk((path,))]
    step = -(-len(ids) // -(-points // size))  # series a part: the file's, over its parts
    starts = ids[step::step]  # each part but the first starts at a series; the first and last are open
    bounds = [None, *starts, None]
    return [Chunk((path,), (lo, hi)) for lo, hi in zip(bounds, bounds[1:], strict=False)]
