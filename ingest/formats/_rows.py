"""Rows of a tool table that may grow large, kept small in memory.

A row held as a dict costs 300-600 bytes, ten to fifty times the text it came from: a parser that
keeps every row of a big file that way runs out of memory long before the file is big, and the
writer's frame of them doubled it. ``Rows`` gathers dicts and, once there are ``chunk`` of them,
packs them: into compressed Arrow batches (``model.PackedTable``) of declared types, or into
Polars frames typed as the writer would type the dicts. A small file never reaches a chunk: its
rows stay a plain list, as the writer has always taken them (and bounds.check_tables checks).
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from ..model import PackedTable, ParseError

# column kinds -> Arrow types (names of pyarrow constructors)
KINDS = {"i32": "int32", "i64": "int64", "u64": "uint64", "f64": "float64", "str": "string", "ts": "timestamp"}


def arrow_schema(columns: dict[str, str]) -> Any:
    """A pyarrow schema from column -> kind (``KINDS``)."""
    import pyarrow as pa

    def arrow_type(kind: str) -> Any:
        return pa.timestamp("us") if kind == "ts" else getattr(pa, KINDS[kind])()

    return pa.schema([(name, arrow_type(kind)) for name, kind in columns.items()])


class Rows:
    """A tool table's rows: dicts while they are few; past ``chunk`` of them, packed a chunk at a
    time. With ``columns`` (column -> kind), as compressed Arrow batches of those types; without,
    as Polars frames typed by inference, as the writer types a list of dicts (``frame_rows``), and
    handed over as one frame (each column the type its chunks agree on)."""

    CHUNK = 50_000

    def __init__(self, columns: dict[str, str] | None = None, chunk: int | None = None) -> None:
        unknown = sorted(k for k in (columns or {}).values() if k not in KINDS)
        if unknown:
            raise ValueError(f"Rows: unknown column kind(s) {unknown} (known: {sorted(KINDS)})")
        self.columns = columns
        self.chunk = chunk or self.CHUNK
        self.pending: list[dict] = []
        self.packed: PackedTable | None = None  # typed
        self.frames: list[Any] = []  # untyped
        self.done = 0  # rows packed

    def append(self, row: dict) -> None:
        self.pending.append(row)
        if len(self.pending) >= self.chunk:
            self.pack()

    def extend(self, rows: list[dict]) -> None:
        self.pending.extend(rows)
        if len(self.pending) >= self.chunk:
            self.pack()

    def __iadd__(self, rows: list[dict]) -> Rows:
        self.extend(rows)
        return self

    def __len__(self) -> int:
        return len(self.pending) + self.done

    def pack(self) -> None:
        """The pending rows as one batch (a key a row lacks is an empty cell)."""
        if not self.pending:
            return
        try:
            if self.columns is None:
                import polars as pl

                self.frames.append(pl.DataFrame(self.pending, infer_schema_length=None))
            else:
                self._pack_typed(self.columns)
        except UnicodeEncodeError as e:  # a lone surrogate from a JSON escape: refused as the writer refuses it
            raise ParseError(f"could not store the parsed rows ({type(e).__name__}: {e})") from None
        self.done += len(self.pending)
        self.pending = []

    def _pack_typed(self, columns: dict[str, str]) -> None:
        import pyarrow as pa

        if self.packed is None:
            self.packed = PackedTable(arrow_schema(columns))
        names = list(columns)
        try:  # every key in every row (the usual case): transposed in C
            cols = list(zip(*map(itemgetter(*names), self.pending))) if len(names) > 1 else None
        except KeyError:
            cols = None
        if cols is None:
            cols = [[r.get(name) for r in self.pending] for name in names]
        self.packed.append(
            pa.RecordBatch.from_arrays([pa.array(c, t) for c, t in zip(cols, self.packed.schema.types)], names)
        )

    def table(self) -> Any:
        """What the writer takes: the plain rows when they never filled a chunk, else every batch
        (a PackedTable, or one Polars frame)."""
        if not self.done:
            return self.pending
        self.pack()
        if self.columns is not None:
            return self.packed
        import polars as pl

        self.frames = [pl.concat(self.frames, how="diagonal_relaxed")]  # the chunks' memory goes with them
        return self.frames[0]
