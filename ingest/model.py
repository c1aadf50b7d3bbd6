"""The records every parser returns.

A parser is a pure function from bytes to a ``ParseResult``: no clock, no database, no globals.
It either returns exactly what the file says (in canonical units) or raises ``ParseError``
naming the line and the reason. The writer (``iolab.db``) stores a result in one transaction.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any

from . import vocabulary
from .errors import ParseError  # noqa: F401  (parsers import it from here)
from .vocabulary import MB_PER_MIB, MIB  # noqa: F401  (parsers import them from here)


@dataclass(slots=True)  # a file may hold millions of runs (an IOzone cell is one): 0.2 KB each, not 1.2 KB
class Run:
    """One measured test point: an Iometer results block, an Orion test, a Jetstress test..."""

    key: str  # unique within the file, stable across re-parses
    tool: str
    tool_version: str | None = None
    started_at: datetime | None = None
    ended_at: datetime | None = None
    workload: str | None = None
    description: str | None = None
    status: str | None = None  # complete / aborted / unterminated / pass / fail
    block_size_bytes: int | None = None
    read_pct: float | None = None
    random_pct: float | None = None
    test_type: str | None = None
    group: str | None = None  # runs of one test spread over several files share it (Orion)
    # labels a file can carry per run (published tables); otherwise the sidecar's apply
    system: str | None = None
    generation: str | None = None
    config_label: str | None = None
    raid_level: str | None = None
    drives: int | None = None
    tiles: int | None = None
    # the load, as the tool states it (see schemas/V010__workload_signature.sql)
    queue_depth: int | None = None  # per worker/job/thread: fio iodepth, DiskSpd -o
    workers: int | None = None  # fio numjobs, DiskSpd threads x targets, vdbench threads
    outstanding_ios: int | None = None  # total in flight: the load axis every tool maps to


@dataclass
class Sample:
    """One number, tied to a run, in canonical units (see schemas/README.md)."""

    run_key: str
    scope: str  # all, manager, processor, worker, target, volume, instance, host, point, test
    metric: str
    value: float
    unit: str
    target: str | None = None
    outstanding_ios: int | None = None
    small_oio: int | None = None
    large_oio: int | None = None
    line_no: int | None = None


def pack(batch: Any) -> Any:
    """A record batch as a zstd-compressed Arrow IPC buffer (numbers of big files kept small)."""
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, batch.schema, options=pa.ipc.IpcWriteOptions(compression="zstd")) as w:
        w.write_batch(batch)
    # a copy of exactly its size: the stream's buffer grows by doubling, ~1.7x the bytes it holds
    return pa.py_buffer(sink.getvalue().to_pybytes())


def unpack(buf: Any) -> Any:
    import pyarrow as pa

    return pa.ipc.open_stream(buf).read_next_batch()


class PackedTable:
    """A tool table kept as compressed Arrow batches; the writer inserts it a batch at a time."""

    def __init__(self, schema: Any) -> None:
        self.schema, self.num_rows = schema, 0
        self.packed: list[Any] = []

    def append(self, batch: Any) -> None:
        self.packed.append(pack(batch))
        self.num_rows += batch.num_rows

    def __len__(self) -> int:
        return self.num_rows

    def batches(self) -> Iterator[Any]:
        return (unpack(b) for b in self.packed)

    def tables(self) -> Iterator[Any]:
        """The batches, each as a pyarrow Table."""
        import pyarrow as pa

        return (pa.Table.from_batches([b]) for b in self.batches())

    def to_table(self) -> Any:
        import pyarrow as pa

        return pa.Table.from_batches(list(self.batches()), schema=self.schema)


SAMPLE_FIELDS = (
    "run_key",
    "scope",
    "metric",
    "value",
    "unit",
    "target",
    "outstanding_ios",
    "small_oio",
    "large_oio",
    "line_no",
)


DIMS = frozenset({"target", "outstanding_ios", "small_oio", "large_oio", "line_no"})


class Samples:
    """A list of ``Sample`` kept as compressed Arrow column chunks (a big file has millions: as
    objects they took ~60x the file size). Append, len, truth, iteration and indexing behave like a list's."""

    CHUNK = 65536

    def __init__(self, items: Iterable[Sample] = ()) -> None:
        self.chunks: list = []  # compressed (see pack)
        self.rows = 0  # in chunks
        self.pending: dict[str, list] = {f: [] for f in SAMPLE_FIELDS}
        for s in items:
            self.append(s)

    def append(self, s: Sample) -> None:
        for f in SAMPLE_FIELDS:
            self.pending[f].append(getattr(s, f))
        if len(self.pending["value"]) >= self.CHUNK:
            self.flush()

    def add(self, *values: Any) -> None:
        """Append one sample given as the values of SAMPLE_FIELDS, in order."""
        for f, v in zip(SAMPLE_FIELDS, values):
            self.pending[f].append(v)
        if len(self.pending["value"]) >= self.CHUNK:
            self.flush()

    def extend(self, run_key: str, scope: str, metrics: list, values: list, units: list, dims: tuple) -> None:
        """Append samples sharing a run, scope and dimensions (target, outstanding_ios, small_oio,
        large_oio, line_no): the fast path of a parser that reads a row of many metrics."""
        n, p = len(values), self.pending
        p["run_key"].extend([run_key] * n)
        p["scope"].extend([scope] * n)
        p["metric"].extend(metrics)
        p["value"].extend(values)
        p["unit"].extend(units)
        for f, v in zip(SAMPLE_FIELDS[5:], dims):
            p[f].extend([v] * n)
        if len(p["value"]) >= self.CHUNK:
            self.flush()

    def flush(self) -> None:
        if not self.pending["value"]:
            return
        import pyarrow as pa

        cols = {}
        for f, vals in self.pending.items():
            if f == "value":
                cols[f] = pa.array(vals, pa.float64())
            elif f in ("run_key", "scope", "metric", "unit", "target"):
                d = pa.array(vals, pa.string()).dictionary_encode()
                small = pa.int16() if len(d.dictionary) < 2**15 else pa.int32()
                cols[f] = pa.DictionaryArray.from_arrays(d.indices.cast(small), d.dictionary)
            else:
                cols[f] = pa.array(vals, pa.int32())  # INTEGER columns in the samples table
        self.chunks.append(pack(pa.RecordBatch.from_pydict(cols)))
        self.rows += len(self.pending["value"])
        self.pending = {f: [] for f in SAMPLE_FIELDS}

    def batches(self) -> Iterator[Any]:
        """The samples as Arrow record batches (dictionary-encoded text, int32 integers)."""
        self.flush()
        return (unpack(b) for b in self.chunks)

    def __len__(self) -> int:
        return self.rows + len(self.pending["value"])

    def __bool__(self) -> bool:
        return len(self) > 0

    def __iter__(self) -> Iterator[Sample]:
        for b in map(unpack, self.chunks):
            yield from (Sample(**d) for d in b.to_pylist())
        yield from (Sample(*vals) for vals in zip(*self.pending.values()))

    def __getitem__(self, i: int) -> Sample:
        return list(self)[i]

    def __eq__(self, other: object) -> bool:  # like a list: equal to a list (or Samples) of the same samples
        if isinstance(other, Samples | list):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list

    def __repr__(self) -> str:
        return f"Samples({len(self)})"


class Runs:
    """A file's runs kept as compressed Arrow chunks, for a parser with very many runs that are
    final once appended (an IOzone cell is a run): as objects with their strings they took ~0.7 KB
    each, 2 GB for a 32 MB file. Append, len, truth and iteration behave like a list's; a run read
    back is a copy, so a parser that changes a run after appending it keeps a plain list."""

    CHUNK = 50_000

    def __init__(self, items: Iterable[Run] = ()) -> None:
        self.chunks: list = []  # compressed (see pack)
        self.rows = 0  # in chunks
        self.pending: list[Run] = []
        for r in items:
            self.append(r)

    def append(self, run: Run) -> None:
        self.pending.append(run)
        if len(self.pending) >= self.CHUNK:
            self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        for batch in run_columns(self.pending).to_arrow().to_batches():
            self.chunks.append(pack(batch))
        self.rows += len(self.pending)
        self.pending = []

    def frames(self) -> Iterator[Any]:
        """The runs as Polars frames, a chunk at a time, one column per field of ``Run``."""
        import polars as pl

        self.flush()
        return (pl.from_arrow(unpack(c)) for c in self.chunks)

    def __len__(self) -> int:
        return self.rows + len(self.pending)

    def __bool__(self) -> bool:
        return len(self) > 0

    def __iter__(self) -> Iterator[Run]:
        for frame in self.frames():
            yield from (Run(**d) for d in frame.iter_rows(named=True))

    def __getitem__(self, i: int) -> Run:
        return list(self)[i]

    def __repr__(self) -> str:
        return f"Runs({len(self)})"


def run_columns(runs: Iterable[Run]) -> Any:
    """Runs as a Polars frame, built a column at a time (a dict per run cost 3 KB a run), each
    column typed as Polars infers it from the values."""
    import polars as pl

    runs = list(runs)
    return pl.DataFrame({n: [getattr(r, n) for r in runs] for n in RUN_FIELDS}, strict=False)


RUN_FIELDS = [f.name for f in fields(Run)]


@dataclass
class Series:
    """A time series column (esxtop/perfmon counter, Iometer instantaneous worker metric)."""

    key: int  # index within the file; the writer maps it to a global series_id
    original_name: str
    host: str | None
    object: str
    instance: str | None
    counter: str
    metric: str | None = None
    unit: str | None = None
    instance_name: str | None = None
    instance_id: str | None = None
    sub_instance: str | None = None


@dataclass
class ParseResult:
    runs: list[Run] | Runs = field(default_factory=list)
    samples: Samples = field(default_factory=Samples)
    # lossless tool tables: table name -> list of row dicts, a Polars frame, a pyarrow Table or a PackedTable
    tables: dict[str, Any] = field(default_factory=dict)
    series: list[Series] = field(default_factory=list)
    # time-series points (series_key int32, sample_no int32, value float64): a polars LazyFrame or
    # DataFrame, streamed by the writer into the Parquet store; their times go in tables["series_samples"]
    points: Any = None
    tool_version: str | None = None
    archive: tuple[str, str] | None = None  # (how, member name) when parsed from inside a .gz (ingest/archives.py)
    # what the parser decided for the user that the file does not say itself (a report read out of a
    # longer log, and which lines): said with the file's outcome when it is ingested
    notes: list[str] = field(default_factory=list)
    inflated: Any = None  # a .gz's decompressed copy that the points stream from, kept while the result lives
    # the parse's remaining work, left until its points stream (a capture's names and sample times):
    # it fills the fields above, and may raise ParseError. The writer calls ``finish`` once they do
    pending: Callable[[ParseResult], None] | None = None

    def finish(self) -> None:
        """Do the work the parser left pending; afterwards the result is whole."""
        if self.pending is not None:
            pending, self.pending = self.pending, None
            pending(self)

    def set_series(
        self, series: list[Series], keys: list[int], nos: list[int], vals: list[float | None], samples: list[dict]
    ) -> None:
        """A file's time series built row by row: its columns, its points as three parallel lists
        (series_key, sample_no, value) and its sample times (``series_samples`` rows)."""
        import polars as pl

        self.series = series
        self.points = pl.DataFrame(
            {
                "series_key": pl.Series(keys, dtype=pl.Int32),
                "sample_no": pl.Series(nos, dtype=pl.Int32),
                "value": pl.Series(vals, dtype=pl.Float64),
            }
        )
        self.tables["series_samples"] = samples

    def add_many(self, run_key: str, scope: str, items: Iterable[tuple[str, float | None, str]], **dims: Any) -> None:
        """Add several samples of one run, scope and dimensions, each (metric, value, unit), by the
        rules of ``add`` (a row of a results table: one call instead of one per cell)."""
        if unknown := set(dims) - DIMS:
            raise TypeError(f"ParseResult.add_many: unknown keyword(s) {sorted(unknown)} (known: {sorted(DIMS)})")
        metrics, values, units = [], [], []
        for metric, value, unit in items:
            if why := _problem(metric, unit, scope):
                raise ValueError(f"ParseResult.add_many: {why}")
            if value is None:
                continue
            value = float(value)
            if not math.isfinite(value):
                raise ParseError(f"{metric} is not a finite number ({value})", dims.get("line_no"))
            metrics.append(metric)
            values.append(value)
            units.append(unit)
        dim_values = tuple(dims.get(f) for f in SAMPLE_FIELDS[5:])
        self.samples.extend(run_key, scope, metrics, values, units, dim_values)

    def add(self, run_key: str, scope: str, metric: str, value: float | None, unit: str, **dims: Any) -> None:
        """Add a sample; a missing value (None) is absent, never zero.

        A (metric, unit, scope) outside ingest/vocabulary.py is a programming error: ``ValueError``.
        """
        if why := _problem(metric, unit, scope):
            raise ValueError(f"ParseResult.add: {why}")
        if unknown := set(dims) - DIMS:  # a misspelt dimension must fail, not vanish
            raise TypeError(f"ParseResult.add: unknown keyword(s) {sorted(unknown)} (known: {sorted(DIMS)})")
        if value is None:
            return
        if isinstance(value, float) and not math.isfinite(value):
            raise ParseError(f"{metric} is not a finite number ({value})", dims.get("line_no"))
        self.samples.add(
            run_key,
            scope,
            metric,
            float(value),
            unit,
            dims.get("target"),
            dims.get("outstanding_ios"),
            dims.get("small_oio"),
            dims.get("large_oio"),
            dims.get("line_no"),
        )


@functools.lru_cache(maxsize=4096)
def _problem(metric: str, unit: str | None, scope: str | None) -> str | None:
    """vocabulary.problem, remembered: a parser asks the same few questions millions of times."""
    return vocabulary.problem(metric, unit, scope)


# the text helpers every parser uses, imported from here by the parsers
from .text import (  # noqa: E402, F401
    TextLines,
    csv_header,
    csv_records,
    decode_text,
    parse_float,
    parse_int,
    polars_reason,
    split_lines,
    text_lines,
)
