"""Rows of a tool table that may grow large, kept small in memory.

A row held as a dict costs 300-600 bytes, ten to fifty times the text it came from: a parser that
keeps every row of a big file that way runs out of memory long before the file is big. ``Rows``
gathers dicts and, once there are ``chunk`` of them, packs them into a compressed Arrow batch
(``model.PackedTable``) with the table's declared types. A small file never reaches a chunk: its
rows stay a plain list, as the writer has always taken them, and pyarrow is not imported for it.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from ..model import PackedTable

# column kinds -> Arrow types (names of pyarrow constructors)
KINDS = {"i32": "int32", "i64": "int64", "u64": "uint64", "f64": "float64", "str": "string", "ts": "timestamp"}


def arrow_schema(columns: dict[str, str]) -> Any:
    """A pyarrow schema from column -> kind (``KINDS``)."""
    import pyarrow as pa

    def arrow_type(kind: str) -> Any:
        return pa.timestamp("us") if kind == "ts" else getattr(pa, KINDS[kind])()

    return pa.schema([(name, arrow_type(kind)) for name, kind in columns.items()])


class Rows:
    """A tool table's rows: dicts while they are few, compressed Arrow batches of ``chunk`` rows after."""

    CHUNK = 50_000

    def __init__(self, columns: dict[str, str], chunk: int | None = None) -> None:
        unknown = sorted(k for k in columns.values() if k not in KINDS)
        if unknown:
            raise ValueError(f"Rows: unknown column kind(s) {unknown} (known: {sorted(KINDS)})")
        self.columns = columns
        self.chunk = chunk or self.CHUNK
        self.pending: list[dict] = []
        self.packed: PackedTable | None = None

    def append(self, row: dict) -> None:
        self.pending.append(row)
        if len(self.pending) >= self.chunk:
            self.pack()

    def extend(self, rows: list[dict]) -> None:
        for row in rows:
            self.append(row)

    def __iadd__(self, rows: list[dict]) -> Rows:
        self.extend(rows)
        return self

    def __len__(self) -> int:
        return len(self.pending) + (self.packed.num_rows if self.packed is not None else 0)

    def pack(self) -> None:
        """The pending rows as one compressed batch (a key a row lacks is an empty cell)."""
        if not self.pending:
            return
        import pyarrow as pa

        if self.packed is None:
            self.packed = PackedTable(arrow_schema(self.columns))
        names = list(self.columns)
        try:  # every key in every row (the usual case): transposed in C
            cols = list(zip(*map(itemgetter(*names), self.pending))) if len(names) > 1 else None
        except KeyError:
            cols = None
        if cols is None:
            cols = [[r.get(name) for r in self.pending] for name in names]
        self.packed.append(
            pa.RecordBatch.from_arrays([pa.array(c, t) for c, t in zip(cols, self.packed.schema.types)], names)
        )
        self.pending = []

    def table(self) -> list[dict] | PackedTable:
        """What the writer takes: the plain rows when they never filled a chunk, else every batch."""
        if self.packed is None:
            return self.pending
        self.pack()
        return self.packed
