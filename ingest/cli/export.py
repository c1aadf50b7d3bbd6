"""`iolab export VIEW`: write any view or table of the database as CSV, Parquet or JSON, its rows
sorted by every column in the view's order (ORDER BY ALL): the same data exports the same bytes.

The rows stream from DuckDB in batches (memory stays bounded whatever the view's size) into a
temporary file beside ``--out``, renamed into place when complete: an interrupted export leaves no
half-written file. CSV gets nested columns as JSON text and formula-like cells neutralised
(iolab.csvsafe); JSON keeps nested values nested; Parquet keeps every type.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, cast

from ..terminal import console, is_terminal, markup, write_out
from ..written import replacing
from . import params, requires

BATCH_ROWS = 50_000
# The columns that record when (or in which database) iolab did something: the only ones in which
# two databases of the same files may differ, whichever way the files came in and in whatever
# order (ids are derived from content and place: ingest/store/ids.py). docs/commands.md names them.
OWN_COLUMNS = frozenset(
    {
        "ingested_at",  # source_files, source_history: when a place was first recorded
        "left_at",  # source_history: when a place left the analysis
        "purged_at",  # source_history: when a content's parsed rows were deleted
        "added_at",  # data_roots: when a folder was first ingested
        "applied_at",  # schema_history: when a migration was applied
        "created_at",  # view_state: when the views were last made
        "run_at",  # validation_results: when the expectations were checked
        "store_id",  # store_identity: the database's own random id, its time-series folder's name
    }
)


def register(sub: Any) -> None:
    p = sub.add_parser("export", help="write any view or table as CSV, Parquet or JSON")
    p.add_argument("view", help="a view or table name, e.g. measurements, comparison, per_drive_iops")
    params.db(p)
    params.study(p, help="only this study's rows (the view must have a study column)")
    p.add_argument("--format", choices=["csv", "parquet", "json"], default="csv", help="output format")
    p.add_argument("--out", help="file to write (default: standard output; parquet needs --out)")
    p.set_defaults(func=cmd_export)


def relations(con: Any) -> set[str]:
    """Every view and table of the database (the names `iolab export` accepts)."""
    return {
        n
        for (n,) in con.execute(
            """SELECT view_name FROM duckdb_views() WHERE NOT internal AND database_name = current_database()
           UNION SELECT table_name FROM duckdb_tables() WHERE NOT internal AND database_name = current_database()"""
        ).fetchall()
    }


def ident(name: str) -> str:
    """``name`` quoted as an SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def _columns(con: Any, view: str) -> list[tuple[str, str]]:
    return [(r[0], r[1]) for r in con.execute(f"DESCRIBE SELECT * FROM {ident(view)}").fetchall()]


def query(con: Any, view: str, study: str | None, fmt: str) -> tuple[str, list[Any]]:
    """The SELECT that export runs, and its parameters; for CSV, nested columns become JSON text."""
    cols = []
    for name, kind in _columns(con, view):
        flat = fmt == "csv" and (kind.endswith("]") or kind.startswith(("STRUCT", "MAP", "UNION")))
        cols.append(
            f"to_json({ident(name)})::VARCHAR AS {ident(name)}"
            if flat
            else f"{ident(name)}::VARCHAR AS {ident(name)}"
            if kind == "JSON" and fmt == "csv"
            else ident(name)
        )
    # ORDER BY ALL: the same rows give the same bytes, whatever order the ingests stored them in
    sql = f"SELECT {', '.join(cols)} FROM {ident(view)}" + (" WHERE study = ?" if study is not None else "")
    sql += " ORDER BY ALL"
    if fmt == "json":  # one JSON object per row, made by DuckDB: JSON columns stay JSON, not text
        sql = f"SELECT to_json(t)::VARCHAR AS row FROM ({sql}) t"
    return sql, [] if study is None else [study]


@requires.database()
def cmd_export(args: argparse.Namespace, con: Any) -> int:
    err = console(stderr=True)
    names = relations(con)
    if args.view not in names:
        return requires.unknown("view or table", args.view, sorted(names), plural="there are")
    if args.format == "parquet" and not args.out:
        err.print("[red]Parquet is binary:[/] give a file with --out")
        return requires.EXIT_USAGE
    if args.study is not None:
        if "study" not in {c for c, _ in _columns(con, args.view)}:
            err.print(f"[red]{markup(args.view)} has no study column[/], so --study cannot select its rows.")
            return requires.EXIT_USAGE
        if (code := requires.known_study(con, args.study, args.db)) is not None:
            return code
    if args.out:
        from ..outputs import Refused, check_file
        from ..store import places

        try:
            check_file(Path(args.out), places.roots(con), "--out", args.db)
        except Refused as e:
            return requires.refused(e, "Not exporting")
    sql, values = query(con, args.view, args.study, args.format)
    reader = con.sql(sql, params=values).to_arrow_reader(BATCH_ROWS)
    try:
        with _target(args.out, binary=args.format == "parquet") as out:
            rows = WRITERS[args.format](reader, out)
        if args.out:
            from ..outputs import record_file

            record_file(Path(args.out))  # an ingest of its folder never reads it as data
    except OSError as e:
        if not args.out or (bad := requires.cannot_write(e, Path(args.out).parent)) is None:
            raise
        return bad
    if args.out:
        err.print(f"{rows:,} rows of {markup(args.view)} -> {markup(args.out)}")
    return requires.EXIT_OK


@contextlib.contextmanager
def _target(out: str | None, *, binary: bool) -> Iterator[IO[Any]]:
    """Standard output, or a temporary file beside ``out`` that becomes ``out`` once complete."""
    if not out:
        yield cast(IO[Any], _Shown()) if is_terminal() and not binary else sys.stdout
        return
    with replacing(Path(out), binary=binary, suffix=".part") as f:
        yield f


class _Shown:
    """Standard output on a terminal: what is written there has its control characters escaped
    (iolab.terminal.write_out); a pipe or --out gets the bytes as they are."""

    def write(self, text: str) -> int:
        write_out(text)
        return len(text)


def _csv(reader: Any, out: IO[str]) -> int:
    import polars as pl

    from ..csvsafe import write_csv

    rows, header = 0, True
    for batch in reader:
        out.write(write_csv(pl.from_arrow(batch), header=header))  # type: ignore[arg-type]
        rows, header = rows + batch.num_rows, False
    if header:  # no rows: the header alone
        out.write(write_csv(pl.from_arrow(reader.schema.empty_table()), header=True))  # type: ignore[arg-type]
    return rows


def _json(reader: Any, out: IO[str]) -> int:
    """A JSON array of one object per row (nested values nested), written batch by batch."""
    rows = 0
    out.write("[")
    for batch in reader:
        for r in batch.column(0).to_pylist():
            out.write(("\n" if not rows else ",\n") + r)
            rows += 1
    out.write("\n]\n")
    return rows


def _parquet(reader: Any, out: IO[bytes]) -> int:
    import pyarrow.parquet as pq

    rows = 0
    with pq.ParquetWriter(out, reader.schema) as w:
        for batch in reader:
            w.write_batch(batch)
            rows += batch.num_rows
    return rows


WRITERS: dict[str, Callable[[Any, Any], int]] = {"csv": _csv, "json": _json, "parquet": _parquet}
