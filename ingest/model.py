"""The records every parser returns.

A parser is a pure function from bytes to a ``ParseResult``: no clock, no database, no globals.
It either returns exactly what the file says (in canonical units) or raises ``ParseError``
naming the line and the reason. The writer (``ingest.db``) stores a result in one transaction.
"""

from __future__ import annotations

import array
import codecs
import functools
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from . import vocabulary
from .vocabulary import MB_PER_MIB, MIB  # noqa: F401  (parsers import them from here)


class ParseError(Exception):
    """A file that cannot be read as its format. ``line`` is 1-based, or None for whole-file faults."""

    def __init__(self, reason: str, line: int | None = None):
        self.reason = reason
        self.line = line
        super().__init__(f"line {line}: {reason}" if line else reason)


@dataclass
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
    return sink.getvalue()


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
    runs: list[Run] = field(default_factory=list)
    samples: Samples = field(default_factory=Samples)
    # lossless tool tables: table name -> list of row dicts, a Polars frame, a pyarrow Table or a PackedTable
    tables: dict[str, Any] = field(default_factory=dict)
    series: list[Series] = field(default_factory=list)
    # time-series points (series_key int32, sample_no int32, value float64): a polars LazyFrame or
    # DataFrame, streamed by the writer into the Parquet store; their times go in tables["series_samples"]
    points: Any = None
    tool_version: str | None = None
    archive: tuple[str, str] | None = None  # (how, member name) when parsed from inside a .gz (ingest/archives.py)

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


# ---- shared helpers -----------------------------------------------------------------------------


def decode_text(data: bytes, fallback: str = "cp1252") -> str:
    """Decode a text file: BOM first (UTF-8/UTF-16), then strict UTF-8, then ``fallback``.

    Windows tools write ANSI code pages; which one is not recorded in the file, so callers that
    know better (perfmon: cp1251 is common) pass their own fallback.
    """
    if data.startswith(codecs.BOM_UTF8):
        return _strict(data, 3, "utf-8", "it starts with a UTF-8 byte-order mark")
    if data.startswith(codecs.BOM_UTF16_LE) or data.startswith(codecs.BOM_UTF16_BE):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as e:
            raise ParseError(
                f"file starts with a UTF-16 byte-order mark but is not valid UTF-16 ({e.reason})"
            ) from None
    if b"\x00" in data[:4096]:
        if enc := _utf16_without_bom(data[:4096]):
            return _strict(data, 0, enc, "every other byte of its start is NUL")
        raise ParseError("file contains NUL bytes: binary data, or UTF-16 without a byte-order mark")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return _strict(data, 0, fallback, "it is not UTF-8")


def _utf16_without_bom(head: bytes) -> str | None:
    """UTF-16 of mostly-ASCII text saved without a BOM (an XML file declaring encoding="utf-16"):
    its start alternates character and NUL. None for anything else (binary data)."""
    even, odd = head[0::2], head[1::2]
    if len(head) >= 8 and len(head) % 2 == 0:
        if not odd.strip(b"\x00") and b"\x00" not in even:
            return "utf-16-le"
        if not even.strip(b"\x00") and b"\x00" not in odd:
            return "utf-16-be"
    return None


def _strict(data: bytes, start: int, encoding: str, why: str) -> str:
    """``data[start:]`` decoded, or a ParseError naming the line and the byte that is not text."""
    try:
        return data[start:].decode(encoding)
    except UnicodeDecodeError as e:
        at = start + e.start
        line = data.count(b"\n", 0, at) + 1
        raise ParseError(
            f"byte 0x{data[at]:02x} is not text in {encoding} (read as {encoding} because {why}): "
            "the file is damaged, or was saved in an encoding iolab cannot tell from its bytes; "
            "save it as UTF-8",
            line,
        ) from None


_LINE_END = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """Split on CRLF, CR or LF (mixed endings happen after spreadsheet edits); drop one final empty."""
    lines = _LINE_END.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


_LINE_END_B = re.compile(rb"\r\n|\r|\n")


class TextLines:
    """``split_lines(decode_text(data))`` without either copy: an index of line ends in ``data``,
    each line decoded when asked for (a 200 MB file costs 200 MB, not three times that)."""

    def __init__(self, data: bytes, start: int, encoding: str):
        self.data, self.encoding = data, encoding
        self.bounds = array.array("q")  # start, end of each line
        pos = start
        for m in _LINE_END_B.finditer(data, start):
            self.bounds.extend((pos, m.start()))
            pos = m.end()
        if pos < len(data):
            self.bounds.extend((pos, len(data)))

    def __len__(self) -> int:
        return len(self.bounds) // 2

    def __getitem__(self, i: int) -> str:
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(i)
        return self.data[self.bounds[2 * i] : self.bounds[2 * i + 1]].decode(self.encoding)

    def __iter__(self) -> Iterator[str]:
        return (self[i] for i in range(len(self)))


def text_lines(data: bytes, fallback: str = "cp1252") -> tuple[TextLines | list[str], bool]:
    """(lines, whether the text ends with a line end) as ``split_lines(decode_text(data))`` gives
    them, with the same errors; UTF-8 and ``fallback`` files are indexed, not copied (see TextLines)."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text = decode_text(data, fallback)
        return split_lines(text), text.endswith(("\n", "\r"))
    start = 3 if data.startswith(codecs.BOM_UTF8) else 0
    if not start and b"\x00" in data[:4096]:
        decode_text(data[:4096], fallback)  # raises its ParseError
    encoding = "utf-8"
    if not _decodes(data, start, "utf-8"):
        if start:
            _strict(data, start, "utf-8", "it starts with a UTF-8 byte-order mark")
        encoding = fallback
        if not _decodes(data, start, fallback):
            _strict(data, start, fallback, "it is not UTF-8")
    return TextLines(data, start, encoding), data.endswith((b"\n", b"\r"))


def _decodes(data: bytes, start: int, encoding: str, chunk: int = 1 << 20) -> bool:
    """Whether ``data[start:]`` decodes strictly, checked a chunk at a time (no full-size copy)."""
    dec = codecs.getincrementaldecoder(encoding)("strict")
    view = memoryview(data)
    try:
        for i in range(start, len(data), chunk):
            dec.decode(view[i : i + chunk])
        dec.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


def parse_float(text: str, what: str, line: int | None) -> float | None:
    """A number as the tool printed it; empty is missing (None); anything else is an error."""
    t = text.strip()
    if t == "":
        return None
    try:
        v = float(t)
    except ValueError:
        raise ParseError(f"{what}: {t!r} is not a number", line) from None
    if not math.isfinite(v):
        raise ParseError(f"{what}: {t!r} is not a finite number", line)
    return v


def parse_int(text: str, what: str, line: int | None) -> int | None:
    t = text.strip()
    if t == "":
        return None
    try:
        return int(t)
    except ValueError:
        raise ParseError(f"{what}: {t!r} is not an integer", line) from None


_POLARS_PARSE = re.compile(r"could not parse `(.*?)` as dtype `(\w+)` at column '?c?(\d+)'?")


def polars_reason(e: BaseException) -> str:
    """A colleague's wording of a Polars CSV error (our frames name file column i 'c<i>')."""
    msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    m = _POLARS_PARSE.search(msg)
    if m:
        return f"column {int(m.group(3)) + 1} of the file holds {m.group(1)!r}, which is not a number"
    if "more fields" in msg or "ragged" in msg.lower():
        return f"a data row has more cells than the header ({msg})"
    return f"a data row could not be read: {msg}"


def csv_header(head: str) -> list[str]:
    """The first row of a CSV text (for sniffers: any line end, BOM dropped, never raises on odd text)."""
    import csv

    first = _LINE_END.split(head.lstrip("\ufeff"), maxsplit=1)[0]
    return next(csv.reader([first]), [])


def csv_records(data: bytes) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """(header, [(line number, row dict)]) of a small RFC 4180 CSV; blank rows skipped.

    A row whose field count differs from the header's is an error naming its line.
    """
    import csv
    import io

    try:
        rows = list(csv.reader(io.StringIO(decode_text(data).lstrip("\ufeff"))))
    except csv.Error as e:
        raise ParseError(f"not readable as CSV ({e})") from None
    if not rows:
        raise ParseError("empty file")
    header = rows[0]
    if len(set(header)) != len(header):
        raise ParseError("duplicate column names in the header", 1)
    out = []
    for ln, cells in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in cells):
            continue
        if len(cells) != len(header):
            raise ParseError(f"row has {len(cells)} fields, the header has {len(header)} (an unquoted comma?)", ln)
        out.append((ln, dict(zip(header, cells))))
    return header, out
