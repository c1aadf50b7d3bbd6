"""Writing one parsed file's rows: runs, samples, series and every tool table, a table at a time."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import fields
from typing import TYPE_CHECKING, Any

from duckdb import DuckDBPyConnection

from ..model import PackedTable, ParseResult, Run, Runs, Samples, Series, run_columns
from .points import StreamingPoints

if TYPE_CHECKING:  # pyarrow is imported only where a parser hands over Arrow data (its import is slow)
    import polars as pl
    import pyarrow as pa


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
    for a 200 MB Iometer file). The caller holds the transaction and calls ``flush`` before it commits.

    A file's rows are written under its content id (ingest/store/ids.py): its runs are numbered from
    it in the file's order, its series by their column."""

    ALONE, GATHER = 50_000, 100_000

    def __init__(self, con: DuckDBPyConnection) -> None:
        self.con = con
        self.parts: dict[str, list[pl.DataFrame | pa.Table]] = {}
        self.rows: dict[str, int] = {}
        self.streaming: list[tuple[StreamingPoints, int, dict[str, int]]] = []  # points passes, done at flush

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
        """Insert the queued rows, then wait for the points passes and register their files."""
        try:
            for table in list(self.parts):
                self._flush_table(table)
            while self.streaming:
                points, source_id, counts = self.streaming[0]
                counts["points"] = points.done(self.con, source_id)
                self.streaming.pop(0)
        except BaseException as e:
            self.abandon(wait=not isinstance(e, KeyboardInterrupt))
            raise

    def abandon(self, wait: bool = True) -> None:
        """The rows will not be committed: the points passes' files are removed (StreamingPoints.abandon)."""
        streaming, self.streaming = self.streaming, []
        for points, _, _ in streaming:
            points.abandon(wait)

    def write(self, source_id: int | Callable[[], int], result: ParseResult) -> dict[str, int]:
        """Queue a parsed file's rows under ``source_id`` (its content id; a function when the id is
        known only later: a big file's hash is computed beside its parse); returns the row count per
        table (its points are counted at ``flush``). A file's points start streaming first: the rest
        of the parse (ParseResult.pending) and of the rows is done while they stream."""
        counts: dict[str, int] = {}
        streaming = self._stream(result)
        try:
            result.finish()
            if streaming is not None and not result.series:  # points of no series are nobody's
                streaming.abandon()
                streaming = None
            source_id = source_id() if callable(source_id) else source_id
            self._queue(source_id, result, counts)
        except BaseException as e:
            if streaming is not None:
                streaming.abandon(wait=not isinstance(e, KeyboardInterrupt))
            raise
        if streaming is not None:
            self.streaming.append((streaming, source_id, counts))
        return counts

    def _stream(self, result: ParseResult) -> StreamingPoints | None:
        """The file's points streaming (each point names its series by column, so a pass started
        before the database was open, ingest/ahead.py, is kept as it is)."""
        points = result.points
        if points is None or isinstance(points, StreamingPoints):
            return points
        samples = result.tables.get("series_samples")
        return StreamingPoints.into_store(self.con, points, samples)

    def _queue(self, source_id: int, result: ParseResult, counts: dict[str, int]) -> None:
        extra = {"source_id": source_id}
        run_ids = RunIds()
        gather = len(result.samples) < self.ALONE  # a small file's rows wait for the others
        if result.runs:
            counts["runs"] = self._put_runs(result.runs, run_ids, extra, gather, first=source_id)
        if result.samples:
            counts["samples"] = self._put_samples(result.samples, run_ids, gather)
        if result.series:
            counts["series"] = self.put("series", _series_frame(result.series, source_id), extra, gather)
        for table, rows in result.tables.items():
            self.put(table, rows, extra, gather)
            counts[table] = len(rows)

    def _put_runs(self, runs: list[Run] | Runs, run_ids: RunIds, extra: dict, gather: bool, first: int) -> int:
        """Runs numbered from ``first`` (the file's content id) in the file's order, a frame (or a
        packed chunk) at a time; fills ``run_ids`` (run key -> run_id) for the samples."""
        import polars as pl

        n = 0
        for frame in runs.frames() if isinstance(runs, Runs) else [run_columns(runs)]:
            run_ids.add(frame["key"], first)
            frame = frame.rename(_RUN_COLUMN).with_columns(pl.int_range(first, first + len(frame)).alias("run_id"))
            first += len(frame)
            n += self.put("runs", frame, extra, gather)
        run_ids.check()
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
    """Run key -> run_id, for a file's samples; a key two runs share is refused (the database keeps
    no unique index on run keys, schemas/V080). A dict while the file has few runs; past ``DICT``,
    two 64-bit hashes of each key (two seeds), sorted, beside the ids: 24 bytes a run (3.1 million
    IOzone cells held 470 MB of keys and dict, then 170 MB of key columns pinning their Arrow
    chunks). A key is a run's when both hashes are, so a key no run has is refused unless it
    matches 128 bits of one; runs whose first hash another run has are found by both."""

    DICT = 100_000

    def __init__(self) -> None:
        self.keys: dict[str, int] | None = {}
        self.hashed: list[tuple[Any, Any, Any]] = []  # past DICT: (first hashes, second hashes, ids) per chunk
        self.index: tuple[Any, Any, Any] | None = None  # the same, all chunks, sorted by hash
        self.shared: dict[tuple[int, int], int] = {}  # (hashes) -> id of runs sharing their first hash
        self.next: int | None = None  # the id after the last run added

    def add(self, keys: pl.Series, first: int) -> None:
        if self.next is not None and first != self.next:
            raise ValueError("RunIds: a file's run ids are one run after another")
        self.next = first + len(keys)
        if self.keys is not None and len(self.keys) + len(keys) <= self.DICT:
            new = dict(zip(keys.to_list(), range(first, first + len(keys))))
            if len(new) != len(keys) or not new.keys().isdisjoint(self.keys):
                _repeated([*self.keys, *keys.to_list()])
            self.keys.update(new)
            return
        import numpy as np

        if self.index is not None:  # runs added after a lookup: sorted again at the next
            self.hashed, self.index = [self.index], None
        if self.keys:  # past DICT: the runs so far are hashed too
            import polars as pl

            ids = np.fromiter(self.keys.values(), np.int64, len(self.keys))
            self.hashed.append((*_hashes(pl.Series(list(self.keys), dtype=pl.String)), ids))
        self.keys = None
        self.hashed.append((*_hashes(keys), np.arange(first, first + len(keys), dtype=np.int64)))

    def check(self) -> None:
        """Refuse a file two of whose runs share a key (each sample must find its one run)."""
        if self.keys is None and self.index is None:
            self._build()

    def of(self, keys: pa.Array) -> pa.Array:
        """The run_id of each key (a KeyError for a key no run has)."""
        import numpy as np
        import pyarrow as pa

        if self.keys is not None:
            return pa.array([self.keys[k] for k in keys.to_pylist()], pa.int64())
        self.check()
        assert self.index is not None
        h1, h2, ids = self.index
        w1, w2 = _hashes(pl_series(keys))
        at = np.minimum(np.searchsorted(h1, w1), len(h1) - 1)
        found, same = ids[at], (h1[at] == w1) & (h2[at] == w2)
        for i in np.flatnonzero(~same) if self.shared else ():
            if (run := self.shared.get((int(w1[i]), int(w2[i])))) is not None:
                found[i], same[i] = run, True
        if not same.all():
            raise KeyError(keys[int(np.argmin(same))].as_py())
        return pa.array(found, pa.int64())

    def _build(self) -> None:
        import numpy as np

        h1, h2, ids = (np.concatenate([part[i] for part in self.hashed]) for i in range(3))
        self.hashed = []
        order = np.lexsort((h2, h1))
        h1, h2, ids = h1[order], h2[order], ids[order]
        del order
        shared = h1[1:] == h1[:-1]
        if (twice := shared & (h2[1:] == h2[:-1])).any():
            i = int(np.argmax(twice))
            first = int(ids.min())
            a, b = sorted((int(ids[i]) - first + 1, int(ids[i + 1]) - first + 1))
            raise ValueError(
                f"two runs of the file (its runs {a:,} and {b:,}) have the same key: each run needs its own key"
            )
        if shared.any():
            at = np.flatnonzero(np.r_[shared, False] | np.r_[False, shared])
            self.shared = {(int(h1[i]), int(h2[i])): int(ids[i]) for i in at}
        self.index = (h1, h2, ids)


def _repeated(keys: Iterable[str]) -> None:
    """Raise naming the first key that comes twice."""
    seen: set[str] = set()
    for k in keys:
        if k in seen:
            raise ValueError(f"two runs of the file have the key {k!r}: each run needs its own key")
        seen.add(k)


def _hashes(keys: pl.Series) -> tuple[Any, Any]:
    """Two independent 64-bit hashes of each key (numpy uint64)."""
    return keys.hash(seed=0).to_numpy(), keys.hash(seed=0x9E3779B97F4A7C15).to_numpy()


def pl_series(values: pa.Array) -> pl.Series:
    import polars as pl

    return pl.Series(values, dtype=pl.String)


_RUN_COLUMN = {"key": "run_key", "group": "run_group"}


_SERIES_FIELDS = [f.name for f in fields(Series)]


def _series_frame(series: list[Series], first_id: int) -> pl.DataFrame:
    """A file's series as a frame, built a column at a time (faster than row dicts for a capture's
    thousands of series); each series' key is its column_no, and its series_id is first_id (the
    file's content id) + key."""
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
    con: DuckDBPyConnection, source_id: int | Callable[[], int], result: ParseResult, writer: Writer
) -> dict[str, int]:
    """Queue one parsed file's rows under ``source_id`` (its content id, or the function that gives
    it) in ``writer`` (the caller holds the transaction and flushes the writer before committing);
    the one place a file's rows go in, which tests wrap."""
    return writer.write(source_id, result)
