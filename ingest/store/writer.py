"""Writing one parsed file's rows: runs, samples, series and every tool table, a table at a time."""

from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, Any

from duckdb import DuckDBPyConnection

from ..model import PackedTable, ParseResult, Run, Runs, Samples, Series, run_columns
from .points import write_points

if TYPE_CHECKING:  # pyarrow is imported only where a parser hands over Arrow data (its import is slow)
    import polars as pl
    import pyarrow as pa


def _next_id(con: DuckDBPyConnection, table: str, col: str) -> int:
    return con.execute(f"SELECT coalesce(max({col}), 0) + 1 FROM {table}").fetchall()[0][0]


class ArrowStream:
    """A Polars frame as DuckDB scans it: through the Arrow C stream interface. Handed a Polars
    frame itself, DuckDB converts it with ``to_arrow()``, which imports pyarrow."""

    def __init__(self, frame: pl.DataFrame) -> None:
        self.frame = frame

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        return self.frame.__arrow_c_stream__(requested_schema)


SLICE = 250_000  # rows per INSERT of a big table (no slower than one INSERT: docs/PERFORMANCE.md)


def _insert_table(con: DuckDBPyConnection, table: str, rows: pl.DataFrame | pa.Table) -> None:
    """Insert a Polars frame (what the writer builds) or an Arrow table (what some parsers hand over)."""
    import polars as pl

    if len(rows) > SLICE:  # a slice at a time: the whole as one Arrow stream held ~2x its size more
        for start in range(0, len(rows), SLICE):
            _insert_table(con, table, rows.slice(start, SLICE))
        return
    if isinstance(rows, pl.DataFrame):
        names = rows.columns
        # an all-empty column (Polars' Null type) reaches DuckDB's stream reader without the validity
        # bitmap it asks for; as text it is NULL all the same, which the INSERT casts to the column's type
        scan: Any = ArrowStream(rows.with_columns(pl.col(pl.Null).cast(pl.String)))
    else:
        names, scan = rows.column_names, rows
    # found by DuckDB's replacement scan: a registered view would keep the rows alive until commit
    _iolab_rows = scan  # noqa: F841
    cols = ", ".join(f'"{c}"' for c in names)
    con.execute(f"INSERT INTO {table} ({cols}) SELECT {cols} FROM _iolab_rows")


def frame_rows(rows: list[dict], extra: dict[str, Any] | None = None) -> pl.DataFrame:
    """Dicts (each with the constant columns ``extra`` unless it has its own) as a Polars frame;
    types from every row. The constants are added to the frame, not to a copy of every dict (the
    copies doubled a big table's memory while it was written).

    Not pyarrow's builders: ``pa.array`` and ``Table.from_pylist`` import pandas the first time they
    look at a Python object, to ask whether it is a DataFrame, and take the keys of the first row only."""
    import polars as pl

    frame = pl.DataFrame(rows, infer_schema_length=None)
    return with_constants(frame, {k: v for k, v in (extra or {}).items() if k not in frame.columns})


def with_constants(rows: pl.DataFrame | pa.Table, extra: dict[str, Any]) -> pl.DataFrame | pa.Table:
    """``rows`` with a constant column per ``extra`` item. An Arrow table stays one (built by
    Polars, as in ``frame_rows``): its parser's dictionary-encoded columns go to DuckDB as they are."""
    if not extra:
        return rows
    import polars as pl

    if isinstance(rows, pl.DataFrame):
        return rows.with_columns(pl.lit(v).alias(k) for k, v in extra.items())
    frame = pl.from_arrow(rows)
    assert isinstance(frame, pl.DataFrame)
    return frame.with_columns(pl.lit(v).alias(k) for k, v in extra.items()).to_arrow()


class Writer:
    """Rows of one or more parsed files, inserted a table at a time.

    An INSERT costs a few milliseconds whatever its size (a wide tool table more), so the rows of
    small files (fewer than ALONE samples) are gathered per table (up to GATHER rows) and inserted
    together; a big file's rows go in as they come: gathering them only cost memory (~300 MB more
    for a 200 MB Iometer file). The caller holds the transaction and calls ``flush`` before it commits."""

    ALONE, GATHER = 50_000, 100_000

    def __init__(self, con: DuckDBPyConnection) -> None:
        self.con = con
        self.next_id = {"runs": _next_id(con, "runs", "run_id"), "series": _next_id(con, "series", "series_id")}
        self.parts: dict[str, list[pl.DataFrame | pa.Table]] = {}
        self.rows: dict[str, int] = {}

    def put(self, table: str, rows: Any, extra: dict[str, Any], gather: bool = True) -> int:
        """Queue ``rows`` (dicts, a Polars frame, a pyarrow Table or a PackedTable) for ``table``
        with constant columns ``extra``; without ``gather``, insert them now."""
        if isinstance(rows, PackedTable):
            return sum(self.put(table, b, extra, gather) for b in rows.tables())
        if isinstance(rows, list):
            if not rows:
                return 0
            rows = frame_rows(rows, extra)
        else:
            rows = with_constants(rows, extra)
        if not gather or len(rows) >= self.ALONE:
            self._flush_table(table)  # rows go in in the order they came
            _insert_table(self.con, table, rows)
        else:
            self.parts.setdefault(table, []).append(rows)
            self.rows[table] = self.rows.get(table, 0) + len(rows)
            if self.rows[table] >= self.GATHER:
                self._flush_table(table)
        return len(rows)

    def _flush_table(self, table: str) -> None:
        parts, self.rows[table] = self.parts.pop(table, []), 0
        for t in _together(parts):
            _insert_table(self.con, table, t)

    def flush(self) -> None:
        for table in list(self.parts):
            self._flush_table(table)

    def write(self, source_id: int, result: ParseResult) -> dict[str, int]:
        """Queue a parsed file's rows under ``source_id``; returns the row count per table."""
        counts: dict[str, int] = {}
        extra = {"source_id": source_id}
        run_ids = RunIds()
        gather = len(result.samples) < self.ALONE  # a small file's rows wait for the others
        if result.runs:
            counts["runs"] = self._put_runs(result.runs, run_ids, extra, gather)
        if result.samples:
            counts["samples"] = self._put_samples(result.samples, run_ids, gather)
        if result.series:
            first = self.next_id["series"]
            self.next_id["series"] += max(s.key for s in result.series) + 1
            counts["series"] = self.put("series", _series_frame(result.series, first), extra, gather)
            if result.points is not None:
                times = result.tables.get("series_samples")
                counts["points"] = write_points(self.con, source_id, first, result.points, times)
        for table, rows in result.tables.items():
            self.put(table, rows, extra, gather)
            counts[table] = len(rows)
        return counts

    def _put_runs(self, runs: list[Run] | Runs, run_ids: RunIds, extra: dict, gather: bool) -> int:
        """Runs numbered from the next free run_id, a frame (or a packed chunk) at a time; fills
        ``run_ids`` (run key -> run_id) for the samples."""
        import polars as pl

        n = 0
        for frame in runs.frames() if isinstance(runs, Runs) else [run_columns(runs)]:
            first = self.next_id["runs"]
            self.next_id["runs"] += len(frame)
            run_ids.add(frame["key"], first)
            frame = frame.rename(_RUN_COLUMN).with_columns(pl.int_range(first, first + len(frame)).alias("run_id"))
            n += self.put("runs", frame, extra, gather)
        return n

    def _put_samples(self, samples: Samples, run_ids: RunIds, gather: bool) -> int:
        """Samples batch by batch (``Samples`` keeps them as Arrow batches keyed by run_key)."""
        if not isinstance(samples, Samples):
            samples = Samples(samples)
        import pyarrow as pa

        n = 0
        for b in samples.batches():
            keys = b.column("run_key")
            ids = run_ids.of(keys.dictionary).take(keys.indices)
            cols = [c for c in b.schema.names if c != "run_key"]
            n += self.put("samples", pa.table([ids] + [b.column(c) for c in cols], names=["run_id"] + cols), {}, gather)
        return n


class RunIds:
    """Run key -> run_id, for a file's samples. A dict while the file has few runs; past ``DICT``,
    the keys' 64-bit hashes, sorted, beside their ids: 16 bytes a run instead of ~150 (3.1 million
    IOzone cells held 470 MB of keys and dict). Should two keys share a hash, unlikely as that is,
    the file goes back to a dict."""

    DICT = 100_000

    def __init__(self) -> None:
        self.parts: list[tuple[pl.Series, int]] = []  # each chunk's key column and its first id
        self.keys: dict[str, int] | None = {}
        self.index: tuple[Any, Any] | None = None  # (sorted hashes, their ids)

    def add(self, keys: pl.Series, first: int) -> None:
        if self.parts and first != self.parts[-1][1] + len(self.parts[-1][0]):
            raise ValueError("RunIds: a file's run ids are one run after another")
        self.parts.append((keys, first))
        self.index = None
        if self.keys is not None and len(self.keys) + len(keys) <= self.DICT:
            self.keys.update(zip(keys.to_list(), range(first, first + len(keys))))
        else:
            self.keys = None

    def of(self, keys: pa.Array) -> pa.Array:
        """The run_id of each key (a KeyError for a key no run has)."""
        import numpy as np
        import pyarrow as pa

        if self.keys is None and self.index is None:
            self._build()
        if self.keys is not None:
            return pa.array([self.keys[k] for k in keys.to_pylist()], pa.int64())
        assert self.index is not None
        import polars as pl

        hashes, ids = self.index
        wanted = pl_series(keys)
        found = ids[np.minimum(np.searchsorted(hashes, _hashes(wanted)), len(hashes) - 1)]
        # the key at each id found, read back: a key no run has (whatever its hash) is an error
        first = self.parts[0][1]
        same = (pl.concat([k for k, _ in self.parts], rechunk=False).gather(found - first) == wanted).to_numpy()
        if not same.all():
            raise KeyError(keys[int(np.argmin(same))].as_py())
        return pa.array(found, pa.int64())

    def _build(self) -> None:
        import numpy as np

        hashes = np.concatenate([_hashes(k) for k, _ in self.parts])
        ids = np.concatenate([np.arange(first, first + len(k), dtype=np.int64) for k, first in self.parts])
        order = np.argsort(hashes, kind="stable")
        hashes, ids = hashes[order], ids[order]
        if (hashes[1:] == hashes[:-1]).any():  # a shared hash: the keys themselves decide
            self.keys = {k: first + i for keys, first in self.parts for i, k in enumerate(keys.to_list())}
        else:
            self.index = (hashes, ids)


def _hashes(keys: pl.Series) -> Any:
    return keys.hash(seed=0).to_numpy()


def pl_series(values: pa.Array) -> pl.Series:
    import polars as pl

    return pl.Series(values, dtype=pl.String)


_RUN_COLUMN = {"key": "run_key", "group": "run_group"}


_SERIES_FIELDS = [f.name for f in fields(Series)]


def _series_frame(series: list[Series], first_id: int) -> pl.DataFrame:
    """A file's series as a frame, built a column at a time (faster than row dicts for a capture's
    thousands of series); each series' key is its column_no, and its series_id is first_id + key."""
    import polars as pl

    cols = {name: [getattr(s, name) for s in series] for name in _SERIES_FIELDS}
    keys = cols.pop("key")
    return pl.DataFrame({"series_id": [first_id + k for k in keys], **cols, "column_no": keys}, strict=False)


def _together(parts: list) -> list:
    """Queued parts of one table as few tables as their types allow: columns a file left all-empty
    take the type another file gives them; parts whose types do not merge go in one INSERT each
    (DuckDB casts as for one file). Polars frames and Arrow tables are merged among their own kind."""
    if len(parts) < 2:
        return parts
    import polars as pl

    frames = [p for p in parts if isinstance(p, pl.DataFrame)]
    tables = [p for p in parts if not isinstance(p, pl.DataFrame)]
    out: list = []
    if frames:
        try:
            out.append(pl.concat(frames, how="diagonal_relaxed"))
        except (pl.exceptions.SchemaError, pl.exceptions.ComputeError, pl.exceptions.InvalidOperationError):
            out.extend(frames)
    if tables:
        import pyarrow as pa

        try:
            out.append(pa.concat_tables(tables, promote_options="permissive") if len(tables) > 1 else tables[0])
        except (pa.ArrowInvalid, pa.ArrowTypeError, NotImplementedError):
            out.extend(tables)
    return out


def write_result(
    con: DuckDBPyConnection, source_id: int, result: ParseResult, writer: Writer | None = None
) -> dict[str, int]:
    """Store one parsed file's rows under ``source_id`` (the caller holds the transaction); with a
    ``writer``, queue them there (a batch of files: the caller flushes it before committing)."""
    if writer is not None:
        return writer.write(source_id, result)
    w = Writer(con)
    counts = w.write(source_id, result)
    w.flush()
    return counts
