"""The DuckDB database: opening it safely, migrations, views, and the per-file writer."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import fields
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from . import vocabulary_table
from .config import LOCK_WAIT_S, SCHEMAS, VIEWS, cache_dir
from .model import PackedTable, ParseResult, Samples, Series

if TYPE_CHECKING:  # pyarrow is imported only where a parser hands over Arrow data (0.1 s; esxtop never does)
    import polars as pl
    import pyarrow as pa


class DatabaseProblem(Exception):
    """The database cannot be used as it is; the message says why and what to do next."""


class DatabaseBusy(DatabaseProblem):
    """Another process holds the database."""


def _problem(path: Path, e: Exception) -> DatabaseProblem:
    said = str(e).strip().splitlines()[0][:300] if str(e).strip() else type(e).__name__
    low = said.lower()
    if "read-only file system" in low or "permission denied" in low:
        why = "iolab may not write there (a read-only disk or folder, or permissions)"
        todo = "ingest into a database on a writable disk (--db), or read this one with `iolab info`/`iolab report`"
    elif "no space left" in low:
        why, todo = "the disk is full", "free some space, then run the same command again"
    else:
        why = "it is not a DuckDB database, or it is damaged"
        todo = "move it aside and ingest the raw files again into a new one (`iolab ingest data --db NEW`)"
    return DatabaseProblem(f"cannot open {path}: {why}. Next: {todo}. (DuckDB said: {said})")


def connect(path: str | Path, *, read_only: bool = False, wait_s: float = LOCK_WAIT_S) -> duckdb.DuckDBPyConnection:
    """Open the database; if another iolab process has it, wait up to ``wait_s`` then explain.

    DuckDB lets one process write a file at a time; a second ingest therefore waits for the first
    instead of failing at once, and says plainly what is going on if the wait runs out.
    """
    path = Path(path)
    if read_only and not path.is_file():
        raise DatabaseProblem(
            f"there is no database at {path}. Next: ingest first (`iolab ingest data --db {path}`, "
            f"or `make demo` for the bundled studies), or give the right --db."
        )
    if not read_only:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise _problem(path, e) from None
    config: dict[str, Any] = {
        # offline always: never try to download an extension
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": False,
    }
    deadline = time.monotonic() + wait_s
    while True:
        try:
            return duckdb.connect(str(path), read_only=read_only, config=config)
        except duckdb.Error as e:
            if "lock" not in str(e).lower():
                raise _problem(path, e) from None
            if time.monotonic() >= deadline:
                raise DatabaseBusy(
                    f"{path} is in use by another process (another `iolab ingest`, or a notebook "
                    f"holding it open). Waited {wait_s:.0f} s; try again when it has finished. "
                    f"DuckDB said: {e}"
                ) from None
            time.sleep(0.25)


def _checksum(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def migrate(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Apply schemas/V*.sql once each, in order; refuse if an applied file has changed."""
    con.execute(
        """CREATE TABLE IF NOT EXISTS schema_history (
               version INTEGER PRIMARY KEY, script VARCHAR NOT NULL, checksum VARCHAR NOT NULL,
               applied_at TIMESTAMP NOT NULL)"""
    )
    applied = {v: (s, c) for v, s, c in con.execute("SELECT version, script, checksum FROM schema_history").fetchall()}
    files = sorted(SCHEMAS.glob("V*__*.sql"), key=lambda p: int(p.name[1:].split("__")[0]))
    unknown = sorted(set(applied) - {int(f.name[1:].split("__")[0]) for f in files})
    if unknown:
        names = ", ".join(applied[v][0] for v in unknown)
        raise DatabaseProblem(
            f"this database was made by a newer iolab: it has schema changes this version does not know ({names}). "
            f"Next: upgrade iolab (`git pull` then `make setup`, or `pip install -U iolab`); this version leaves "
            f"the database untouched."
        )
    pending = []
    for f in files:
        version = int(f.name[1:].split("__")[0])
        text = f.read_text()
        if version not in applied:
            pending.append((version, f.name, text))
        elif applied[version][1] != _checksum(text):
            raise DatabaseProblem(
                f"{f.name} was changed after it was applied to this database. Migrations are "
                f"append-only: if you changed it, put the change in a new V*__*.sql file after the last "
                f"one instead; otherwise rebuild the database from the raw files (`iolab ingest data --db NEW`)."
            )
    if pending:
        _apply(con, pending)
    return [name for _, name, _ in pending]


def _apply(con: duckdb.DuckDBPyConnection, pending: list[tuple[int, str, str]]) -> None:
    """Apply the pending migrations in one transaction (one commit, not one per file: a new
    database is made in a third of the time); any failure rolls them all back."""
    now = datetime.now(UTC).replace(tzinfo=None)
    con.execute("BEGIN")
    name = ""
    try:
        for version, name, text in pending:
            con.execute(text)
            con.execute("INSERT INTO schema_history VALUES (?, ?, ?, ?)", [version, name, _checksum(text), now])
        con.execute("COMMIT")
    except Exception as e:
        con.execute("ROLLBACK")
        if isinstance(e, duckdb.Error) and not any(t in str(e) for t in ("space", "Read-only", "ermission")):
            raise DatabaseProblem(
                f"{name} could not be applied ({type(e).__name__}: {str(e).splitlines()[0][:300]}). It was "
                f"rolled back with the other pending migrations, so the database is as it was. Next: if you "
                f"wrote this migration, fix its SQL; otherwise report it with the output of `iolab info`."
            ) from None
        raise


def check_version(con: duckdb.DuckDBPyConnection) -> None:
    """A read-only open applies nothing, but still refuses a database made by a newer iolab."""
    known = {int(f.name[1:].split("__")[0]) for f in SCHEMAS.glob("V*__*.sql")}
    try:
        rows = con.execute("SELECT version, script FROM schema_history").fetchall()
    except duckdb.CatalogException:
        raise DatabaseProblem(
            "this file is a DuckDB database, but not an iolab one (it has no schema_history). "
            "Next: give the right --db."
        ) from None
    newer = [s for v, s in rows if v not in known]
    if newer:
        raise DatabaseProblem(
            f"this database was made by a newer iolab ({', '.join(newer)} unknown here). "
            "Next: upgrade iolab (`git pull` then `make setup`, or `pip install -U iolab`)."
        )


def create_views(con: duckdb.DuckDBPyConnection, *, force: bool = True) -> None:
    """(Re)create every schemas/views/*.sql, in name order (files may depend on earlier ones).
    Without ``force``, only when they differ from those last created here (view_state)."""
    texts = [f.read_text() for f in sorted(VIEWS.glob("*.sql"))]
    checksum = _checksum("\n".join([*texts, vocabulary_table.fingerprint()]))
    if not force and con.execute("SELECT count(*) FROM view_state WHERE checksum = ?", [checksum]).fetchall()[0][0]:
        return
    with transaction(con):  # one commit for them all
        # ---- the metric vocabulary hook: the views join metric_vocabulary, so it is made first ----
        vocabulary_table.install(con)
        for text in texts:
            con.execute(text)
        con.execute("DELETE FROM view_state")
        con.execute("INSERT INTO view_state VALUES (?, ?)", [checksum, datetime.now(UTC).replace(tzinfo=None)])


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """BEGIN ... COMMIT around the block; ROLLBACK if anything in it fails (then re-raised)."""
    con.execute("BEGIN")
    try:
        yield
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def open_db(path: str | Path, **kw) -> duckdb.DuckDBPyConnection:
    """Open (or make) an iolab database; a writable open brings its schema, store and views up to date."""
    copied = not kw.get("read_only") and from_template(Path(path))
    con = connect(path, **kw)
    if kw.get("read_only"):
        check_version(con)
        return con
    if copied:  # the template's schema was made earlier: say when this database got it
        con.execute("UPDATE schema_history SET applied_at = ?", [datetime.now(UTC).replace(tzinfo=None)])
        clean_store(con)  # a store left beside an earlier database of this name holds nothing of this one
        return con  # the rest of _bring_up is what made the template: migrations, views (6 ms)
    _bring_up(con)
    return con


def _bring_up(con: duckdb.DuckDBPyConnection) -> None:
    migrate(con)
    clean_store(con)
    upgrade_store(con)
    refresh_points_view(con)  # before the view files: series_summary reads it
    create_views(con, force=False)


def from_template(path: Path) -> bool:
    """Make a new database at ``path`` as a copy of the empty one (True), as PostgreSQL makes
    databases from template1: the schema's DDL costs 0.5-0.7 s, a copy of 1.3 MB a few ms.

    The empty database is made once per set of migrations and views and per DuckDB version, in
    the cache folder (config.cache_dir). Anything in the way (a file already at ``path``, a cache
    that cannot be written, no hard links) returns False: the database is then made in place, as
    before, with the same checks and messages."""
    if path.exists() or str(path) == ":memory:":
        return False
    try:
        template = _template()
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_name(f".{path.name}.{os.getpid()}.new")
        try:
            shutil.copyfile(template, part)
            os.link(part, path)  # never over a database another process made meanwhile
        finally:
            part.unlink(missing_ok=True)
    except (OSError, duckdb.Error, DatabaseProblem):
        return False
    return True


def _template() -> Path:
    """The empty database for today's migrations, views and DuckDB version, made if missing."""
    texts = [f"{f.name}\n{f.read_text()}" for f in sorted(SCHEMAS.glob("V*__*.sql")) + sorted(VIEWS.glob("*.sql"))]
    key = _checksum("\n".join([duckdb.__version__, *texts, vocabulary_table.fingerprint()]))[:20]
    folder = cache_dir()
    template = folder / f"empty-{key}.duckdb"
    if template.is_file() and not template.is_symlink():
        return template
    folder.mkdir(parents=True, exist_ok=True)
    part = folder / f".empty-{key}.{os.getpid()}.duckdb"
    try:
        con = connect(part)
        try:
            _bring_up(con)
        finally:
            con.close()
        part.replace(template)
    finally:
        part.unlink(missing_ok=True)
        part.with_name(part.name + ".wal").unlink(missing_ok=True)
    return template


# ---- the time-series store: one Parquet file per source beside the database ---------------------


def store_dir(con) -> Path:
    """<database>.points/: Parquet files of time-series values (Polars streams them there)."""
    db_file = con.execute("SELECT path FROM duckdb_databases() WHERE database_name = current_database()").fetchall()[0][
        0
    ]
    if not db_file:
        raise RuntimeError("the time-series store needs a database file, not an in-memory database")
    return Path(db_file).resolve().with_name(Path(db_file).name + ".points")


def _sample_times(samples: Any):
    """A file's series_samples rows (dicts, a frame or nothing) as a (sample_no, ts) frame."""
    import polars as pl

    if samples is None or len(samples) == 0:
        return pl.DataFrame(schema={"sample_no": pl.Int32, "ts": pl.Datetime("us")})
    frame = samples if isinstance(samples, pl.DataFrame) else pl.DataFrame(samples, infer_schema_length=None)
    return frame.select(pl.col("sample_no").cast(pl.Int32), pl.col("ts").cast(pl.Datetime("us")))


def write_points(con, source_id: int, first_series_id: int, points, samples: Any = None) -> int:
    """Stream (series_key, sample_no[, ts], value) into <store>/<source_id>.parquet; register it.

    Each point carries its sample's time (from ``samples``, the file's series_samples rows, unless
    the points bring it), so series_points reads the store alone: no join, a count from metadata.
    The file is written under a temporary name and renamed into place before the caller commits;
    a crash in between leaves a file no point_files row names, removed at the next open
    (clean_store). A value Polars cannot read (a malformed cell deep in the file) raises ParseError.
    """
    import polars as pl

    from .model import ParseError, polars_reason

    lf = points.lazy() if isinstance(points, pl.DataFrame) else points
    if "ts" not in lf.collect_schema().names():
        lf = lf.join(_sample_times(samples).lazy(), on="sample_no", how="left", maintain_order="left")
    lf = lf.select(
        (pl.col("series_key").cast(pl.Int32) + first_series_id).alias("series_id"),
        pl.col("sample_no").cast(pl.Int32),
        pl.col("ts").cast(pl.Datetime("us")),
        pl.col("value").cast(pl.Float64),
    )
    folder = store_dir(con)
    folder.mkdir(parents=True, exist_ok=True)
    final = folder / f"{source_id}.parquet"
    tmp = folder / f".{source_id}.parquet.tmp"
    # No min/max statistics: they cost 10 % of the pass (0.15 s per 100 MB), and each row group spans
    # every series of the capture, so they could prune only a time window inside one file. zstd level 1:
    # 0.1 s per 100 MB less than level 3, for 12 % more bytes (9.4 against 8.4 MB); reading is as fast
    try:
        lf.sink_parquet(tmp, compression="zstd", compression_level=1, statistics=False)
    except BaseException as e:  # Polars can also panic (a Rust PanicException is not an Exception)
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        tmp.unlink(missing_ok=True)
        if isinstance(e, OSError) or "(os error" in str(e):  # the disk, not the data: the batch says so
            raise
        raise ParseError(polars_reason(e)) from None
    n = pl.scan_parquet(tmp).select(pl.len()).collect().item()  # from the footer
    tmp.replace(final)
    con.execute(
        "INSERT INTO point_files (source_id, file_name, points, bytes, has_times) VALUES (?, ?, ?, ?, true)",
        [source_id, final.name, n, final.stat().st_size],
    )
    return n


def clean_store(con) -> None:
    """Remove Parquet files no committed source owns (a crash between write and commit)."""
    try:
        folder = store_dir(con)
    except RuntimeError:
        return
    if not folder.is_dir():
        return
    owned = {f for (f,) in con.execute("SELECT file_name FROM point_files").fetchall()}
    for f in folder.iterdir():
        if f.name not in owned:
            f.unlink(missing_ok=True)


def drop_points(con, source_id: int) -> None:
    try:
        (store_dir(con) / f"{source_id}.parquet").unlink(missing_ok=True)
    except RuntimeError:
        pass


def upgrade_store(con) -> None:
    """Rewrite the store files written before the points carried their times (point_files.has_times),
    giving each point its sample's time from series_samples: once per file, then never."""
    try:
        folder = store_dir(con)
    except RuntimeError:
        return
    old = con.execute("SELECT source_id, file_name FROM point_files WHERE NOT has_times ORDER BY source_id")
    for sid, name in old.fetchall():
        f = folder / name
        if not f.exists():
            continue
        tmp = folder / f".{name}.tmp"
        con.execute(
            f"""COPY (SELECT p.series_id, p.sample_no, smp.ts::TIMESTAMP AS ts, p.value
                      FROM read_parquet({_sql_text(f)}) p
                      LEFT JOIN series_samples smp ON smp.source_id = ? AND smp.sample_no = p.sample_no)
                TO {_sql_text(tmp)} (FORMAT parquet, COMPRESSION zstd)""",
            [sid],
        )
        tmp.replace(f)
        con.execute("UPDATE point_files SET has_times = true, bytes = ? WHERE source_id = ?", [f.stat().st_size, sid])


def _sql_text(v: Path | str) -> str:
    return "'" + str(v).replace("'", "''") + "'"


def refresh_points_view(con) -> None:
    """series_values and series_points read the store's files (those point_files names), the source
    id from each file's name (<source_id>.parquet); every point carries its sample's time
    (upgrade_store saw to the older files), so a count or an aggregate over either is a Parquet scan
    (a time join made a count 500x slower)."""
    try:
        folder = store_dir(con)
    except RuntimeError:
        return
    files = [folder / f for (f,) in con.execute("SELECT file_name FROM point_files ORDER BY source_id").fetchall()]
    files = [f for f in files if f.exists()]
    if files:
        source = "regexp_extract(filename, '([0-9]+)\\.parquet$', 1)::BIGINT AS source_id"
        listed = ", ".join(map(_sql_text, files))
        points = f"SELECT series_id, {source}, sample_no, ts, value FROM read_parquet([{listed}], filename = true)"
    else:
        points = (
            "SELECT NULL::INTEGER AS series_id, NULL::BIGINT AS source_id, NULL::INTEGER AS sample_no, "
            "NULL::TIMESTAMP AS ts, NULL::DOUBLE AS value WHERE false"
        )
    con.execute(f"CREATE OR REPLACE VIEW series_points AS {points}")
    con.execute(
        "CREATE OR REPLACE VIEW series_values AS SELECT series_id, source_id, sample_no, value FROM series_points"
    )


# ---- writing one parsed file ---------------------------------------------------------------------


def _next_id(con, table: str, col: str) -> int:
    return con.execute(f"SELECT coalesce(max({col}), 0) + 1 FROM {table}").fetchall()[0][0]


class ArrowStream:
    """A Polars frame as DuckDB scans it: through the Arrow C stream interface. Handed a Polars
    frame itself, DuckDB converts it with ``to_arrow()``, which imports pyarrow (0.1 s)."""

    def __init__(self, frame: pl.DataFrame) -> None:
        self.frame = frame

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        return self.frame.__arrow_c_stream__(requested_schema)


def _insert_table(con, table: str, rows: pl.DataFrame | pa.Table) -> None:
    """Insert a Polars frame (what the writer builds) or an Arrow table (what some parsers hand over)."""
    import polars as pl

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
    """Dicts (each with the constant columns ``extra``) as a Polars frame; types from every row.

    Not pyarrow's builders: ``pa.array`` and ``Table.from_pylist`` import pandas the first time they
    look at a Python object, to ask whether it is a DataFrame (0.3 s), and take the keys of the first
    row only."""
    import polars as pl

    return pl.DataFrame([{**(extra or {}), **r} for r in rows], infer_schema_length=None)


def with_constants(rows: pl.DataFrame | pa.Table, extra: dict[str, Any]) -> pl.DataFrame | pa.Table:
    """``rows`` with a constant column per ``extra`` item. An Arrow table stays one (built by
    Polars, as in ``frame_rows``): its parser's dictionary-encoded columns go to DuckDB as they are."""
    if not extra:
        return rows
    import polars as pl

    if isinstance(rows, pl.DataFrame):
        return rows.with_columns(pl.Series(k, [v] * rows.height) for k, v in extra.items())
    frame = pl.from_arrow(rows)
    assert isinstance(frame, pl.DataFrame)
    return frame.with_columns(pl.Series(k, [v] * rows.num_rows) for k, v in extra.items()).to_arrow()


def _insert_rows(con, table: str, rows: list[dict], extra: dict[str, Any]) -> None:
    """Insert a list of dicts into ``table``, adding constant columns ``extra``."""
    if rows:
        _insert_table(con, table, frame_rows(rows, extra))


LABEL_COLUMNS = ("study", "system", "generation", "tiles", "vms", "config_label", "price_usd", "watts", "tags")


def _label_values(labels: dict[str, Any]) -> list[Any]:
    return [labels.get(k) for k in LABEL_COLUMNS] + [json.dumps(labels, default=str, sort_keys=True)]


def record_source(
    con,
    *,
    path: str,
    sha256: str,
    size: int,
    fmt: str | None,
    parser: str | None,
    parser_version: str | None,
    status: str,
    error: str | None = None,
    error_line: int | None = None,
    labels: dict | None = None,
    tool_version: str | None = None,
    content_id: int | None = None,
    mtime_ns: int | None = None,
    source_id: int | None = None,
) -> int:
    """A place where a file was found. ``content_id``: the place whose parsed rows this content has
    (another place of the same bytes); None for a first place, which owns its rows itself.
    ``source_id``: the id its rows were written under already (next_source_id), else the next one."""
    sid = source_id if source_id is not None else next_source_id(con)
    con.execute(
        f"""INSERT INTO source_files (source_id, content_id, path, sha256, size_bytes, format, parser, parser_version,
                tool_version, ingested_at, status, error, error_line, mtime_ns, {", ".join(LABEL_COLUMNS)}, labels)
            VALUES ({", ".join(["?"] * (14 + len(LABEL_COLUMNS) + 1))})""",
        [
            sid,
            content_id if content_id is not None else sid,
            path,
            sha256,
            size,
            fmt,
            parser,
            parser_version,
            tool_version,
            datetime.now(UTC).replace(tzinfo=None),
            status,
            error,
            error_line,
            mtime_ns,
            *_label_values(labels or {}),
        ],
    )
    return sid


def next_source_id(con) -> int:
    return _next_id(con, "source_files", "source_id")


def labels_json(labels: dict[str, Any]) -> str:
    """The labels as stored in source_files.labels (compared to decide whether a place changed)."""
    return _label_values(labels)[-1]


def update_labels(con, source_id: int, labels: dict, targets: list[dict]) -> bool:
    """Sidecars can change after a file was ingested: refresh this place's labels and target map.

    Returns whether anything changed; nothing is written when nothing did."""
    old = con.execute("SELECT labels FROM source_files WHERE source_id = ?", [source_id]).fetchall()
    old_targets = con.execute(
        "SELECT target, volume, drives, array_name FROM sidecar_targets WHERE source_id = ? ORDER BY ALL", [source_id]
    ).fetchall()
    new_targets = sorted((t["target"], t.get("volume"), t.get("drives"), t.get("array_name")) for t in targets)
    if (
        old
        and json.loads(old[0][0] or "{}") == json.loads(_label_values(labels)[-1])
        and sorted(old_targets, key=repr) == sorted(new_targets, key=repr)
    ):
        return False
    sets = ", ".join(f"{k} = ?" for k in LABEL_COLUMNS) + ", labels = ?"
    con.execute(f"UPDATE source_files SET {sets} WHERE source_id = ?", [*_label_values(labels), source_id])
    con.execute("DELETE FROM sidecar_targets WHERE source_id = ?", [source_id])
    write_targets(con, source_id, targets)
    return True


def write_targets(con, source_id: int, targets: list[dict]) -> None:
    """The sidecar's target map for a place (host target -> array volume)."""
    _insert_rows(con, "sidecar_targets", [dict(t) for t in targets], {"source_id": source_id})


def _shallow(obj: Any) -> dict[str, Any]:
    """A dataclass's fields as a dict, in their order (dataclasses.asdict deep-copies every value: 64 %
    of a profile; asking ``fields()`` per object took 15 us, 75 ms for a capture's 5,000 series)."""
    return dict(vars(obj))


class Writer:
    """Rows of one or more parsed files, inserted a table at a time.

    An INSERT costs a few milliseconds whatever its size (a wide tool table more), so the rows of
    small files (fewer than ALONE samples) are gathered per table (up to GATHER rows) and inserted
    together; a big file's rows go in as they come: gathering them only cost memory (~300 MB more
    for a 200 MB Iometer file). The caller holds the transaction and calls ``flush`` before it commits."""

    ALONE, GATHER = 50_000, 100_000

    def __init__(self, con) -> None:
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
        run_ids: dict[str, int] = {}
        gather = len(result.samples) < self.ALONE  # a small file's rows wait for the others
        if result.runs:
            first = self.next_id["runs"]
            self.next_id["runs"] += len(result.runs)
            rows = []
            for i, r in enumerate(result.runs):
                run_ids[r.key] = first + i
                d = _shallow(r)
                d["run_key"] = d.pop("key")
                d["run_group"] = d.pop("group")
                rows.append({"run_id": first + i, **d})
            counts["runs"] = self.put("runs", rows, extra, gather)
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

    def _put_samples(self, samples, run_ids: dict[str, int], gather: bool) -> int:
        """Samples batch by batch (``Samples`` keeps them as Arrow batches keyed by run_key)."""
        if not isinstance(samples, Samples):
            samples = Samples(samples)
        import pyarrow as pa

        n = 0
        for b in samples.batches():
            keys = b.column("run_key")
            ids = pa.array([run_ids[k] for k in keys.dictionary.to_pylist()], pa.int64()).take(keys.indices)
            cols = [c for c in b.schema.names if c != "run_key"]
            n += self.put("samples", pa.table([ids] + [b.column(c) for c in cols], names=["run_id"] + cols), {}, gather)
        return n


_SERIES_FIELDS = [f.name for f in fields(Series)]


def _series_frame(series: list[Series], first_id: int) -> pl.DataFrame:
    """A file's series as a frame, built a column at a time (row dicts took 4x as long: 10 ms for a
    capture's 5,000 series); each series' key is its column_no, and its series_id is first_id + key."""
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


def write_result(con, source_id: int, result: ParseResult, writer: Writer | None = None) -> dict[str, int]:
    """Store one parsed file's rows under ``source_id`` (the caller holds the transaction); with a
    ``writer``, queue them there (a batch of files: the caller flushes it before committing)."""
    if writer is not None:
        return writer.write(source_id, result)
    w = Writer(con)
    counts = w.write(source_id, result)
    w.flush()
    return counts
