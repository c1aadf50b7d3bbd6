"""The time-series store: one Parquet file per source in <database>.points/<store id>/, streamed
there by Polars, read by the views series_points and series_values."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # DuckDB is imported where a connection is made (iolab.store.connect)
    from duckdb import DuckDBPyConnection

STORE_MARK = ".iolab-output"  # iolab.outputs.MARK: the files it lists are never read as data


def _db_file(con: DuckDBPyConnection) -> Path:
    name = con.execute("SELECT path FROM duckdb_databases() WHERE database_name = current_database()").fetchall()[0][0]
    if not name:
        raise RuntimeError("the time-series store needs a database file, not an in-memory database")
    return Path(name).resolve()


def store_id(con: DuckDBPyConnection) -> str | None:
    import duckdb

    try:
        rows = con.execute("SELECT store_id FROM store_identity").fetchall()
    except duckdb.CatalogException:  # a database from before V060, opened read-only
        return None
    return rows[0][0] if rows else None


def store_dir(con: DuckDBPyConnection) -> Path:
    """<database>.points/<store id>/: this database's Parquet files of time-series values.

    The id is the database's own (store_identity), so a database moved, renamed or copied never
    reads or cleans another one's files: its store is then missing, which ``store_problems`` says."""
    db_file = _db_file(con)
    base = db_file.with_name(db_file.name + ".points")
    sid = store_id(con)
    return base / sid if sid else base


def ensure_store(con: DuckDBPyConnection, *, fresh: bool) -> None:
    """Give the database its store id (``fresh``: a new one, for a copy of the template) and move
    files of the earlier layout (directly in <database>.points/) into its folder."""
    try:
        base = store_dir(con)
    except RuntimeError:
        return
    if store_id(con) is not None and not fresh:
        return
    import uuid

    con.execute("DELETE FROM store_identity")
    con.execute("INSERT INTO store_identity VALUES (?)", [uuid.uuid4().hex[:16]])
    folder = store_dir(con)
    for (name,) in con.execute("SELECT file_name FROM point_files").fetchall():
        if (base / name).is_file() and not fresh:
            folder.mkdir(parents=True, exist_ok=True)
            (base / name).replace(folder / name)


def _mark_store(folder: Path) -> None:
    """<database>.points is iolab's output folder: its marker lists every file put in the store."""
    from .. import outputs

    folder.mkdir(parents=True, exist_ok=True)
    outputs.start(folder.parent, "time-series store")


def _record(folder: Path, final: Path) -> None:
    from .. import outputs

    outputs.record(folder.parent, final)


def store_problems(con: DuckDBPyConnection) -> list[str]:
    """What is wrong with the time-series store: files the database lists that are missing or cut."""
    try:
        folder = store_dir(con)
    except RuntimeError:
        return []
    rows = con.execute("SELECT file_name, bytes FROM point_files ORDER BY source_id").fetchall()
    missing = [n for n, _ in rows if not (folder / n).is_file()]
    cut = [n for n, b in rows if (folder / n).is_file() and (folder / n).stat().st_size != b]
    problems = []
    if missing:
        where = _elsewhere(folder)
        problems.append(
            f"{len(missing)} of {len(rows)} time-series files are missing from {folder}"
            + (f" (a folder of this database's id is at {where}: move it there)" if where else "")
            + "; their series have no points until the files are back or the captures are ingested again"
        )
    if cut:
        problems.append(f"{len(cut)} time-series files in {folder} are not the size stored (cut or changed)")
    return problems


def _elsewhere(folder: Path) -> Path | None:
    """This store's folder beside another database file (the database was moved or copied)."""
    for other in folder.parent.parent.glob(f"*.points/{folder.name}"):
        if other.is_dir() and other != folder:
            return other
    return None


def _sample_times(samples: Any) -> Any:
    """A file's series_samples rows (dicts, a frame or nothing) as a (sample_no, ts) frame."""
    import polars as pl

    if samples is None or len(samples) == 0:
        return pl.DataFrame(schema={"sample_no": pl.Int32, "ts": pl.Datetime("us")})
    frame = samples if isinstance(samples, pl.DataFrame) else pl.DataFrame(samples, infer_schema_length=None)
    return frame.select(pl.col("sample_no").cast(pl.Int32), pl.col("ts").cast(pl.Datetime("us")))


class StreamingPoints:
    """A file's points streaming into a Parquet file in a thread of their own, while the caller
    stores the rest of the file: Polars' pass holds no lock Python needs, and the header's names,
    the sample times and the other rows (60 ms of a 100 MB capture) go in meanwhile, on the core
    the pass leaves idle at times. ``done`` waits for the pass, moves its file to
    <store>/<source_id>.parquet and registers it; ``abandon`` waits for it and removes what it
    wrote (a Polars pass cannot be stopped half-way). The pass needs no database nor any id: each
    point names its series by ``column_no`` (the views add the file's id, its name: series_id is
    source_id + column_no), so it can start before a database is open (ingest/ahead.py) and before
    the file's hash, which its content id is made of, is known.

    Each point carries its sample's time (from ``samples``, the file's series_samples rows, unless
    the points bring it), so series_points reads the store alone: no join, a count from metadata.
    The file is written under a temporary name and renamed into place before the caller commits;
    a crash in between leaves a file no point_files row names, removed at the next open
    (clean_store). A value Polars cannot read (a malformed cell deep in the file) raises ParseError
    from ``done``."""

    def __init__(self, points: Any, samples: Any, tmp: Path):
        import threading

        import polars as pl

        lf = points.lazy() if isinstance(points, pl.DataFrame) else points
        if "ts" not in lf.collect_schema().names():
            lf = lf.join(_sample_times(samples).lazy(), on="sample_no", how="left", maintain_order="left")
        self.points, self.tmp = lf, tmp
        lf = lf.select(
            pl.col("series_key").cast(pl.Int32).alias("column_no"),
            pl.col("sample_no").cast(pl.Int32),
            pl.col("ts").cast(pl.Datetime("us")),
            pl.col("value").cast(pl.Float64),
        )
        self.error: BaseException | None = None
        self.lock, self.ended, self.abandoned = threading.Lock(), False, False
        self.thread = threading.Thread(target=self._sink, args=(lf,), name=f"points {tmp.name}", daemon=True)
        self.thread.start()

    @classmethod
    def into_store(cls, con: DuckDBPyConnection, points: Any, samples: Any) -> StreamingPoints:
        import uuid

        folder = store_dir(con)
        _mark_store(folder)
        return cls(points, samples, folder / f".{uuid.uuid4().hex[:16]}.parquet.tmp")

    def _sink(self, lf: Any) -> None:
        # No min/max statistics: each row group spans every series of the capture, so they could prune
        # only a time window inside one file, and writing them is a tenth of the pass. LZ4: 5 % less of
        # the pass than zstd level 1, for 1.4x its bytes (docs/PERFORMANCE.md)
        try:
            lf.sink_parquet(self.tmp, compression="lz4", statistics=False)
        except BaseException as e:  # Polars can also panic (a Rust PanicException is not an Exception)
            self.error = e
        with self.lock:
            self.ended = True
            if self.abandoned:  # and not waited for: Ctrl-C
                self.tmp.unlink(missing_ok=True)

    def done(self, con: DuckDBPyConnection, source_id: int) -> int:
        """Wait for the pass, move its file into place and register it; the number of points."""
        import polars as pl

        from ..model import ParseError, polars_reason

        self.thread.join()
        if (e := self.error) is not None:
            self.tmp.unlink(missing_ok=True)
            if isinstance(e, (KeyboardInterrupt, SystemExit, OSError)) or "(os error" in str(e):
                raise e  # the disk, not the data: the batch says so
            raise ParseError(polars_reason(e)) from None
        try:
            n = pl.scan_parquet(self.tmp).select(pl.len()).collect().item()  # from the footer
            folder = store_dir(con)
            _mark_store(folder)
            final = folder / f"{source_id}.parquet"
            self.tmp.replace(final)
            _record(folder, final)
        except BaseException:
            self.tmp.unlink(missing_ok=True)
            raise
        con.execute(
            "INSERT INTO point_files (source_id, file_name, points, bytes, has_times) VALUES (?, ?, ?, ?, true)",
            [source_id, final.name, n, final.stat().st_size],
        )
        return n

    def abandon(self, wait: bool = True) -> None:
        """Something else of the file failed: wait for the pass, and leave nothing of it behind.
        Without ``wait`` (Ctrl-C: the user is not kept waiting), the pass removes its file when it
        ends; if the process ends first, the file is removed at the database's next open."""
        with self.lock:
            self.abandoned = True
            if self.ended:
                self.tmp.unlink(missing_ok=True)
        if wait:
            self.thread.join()
            self.tmp.unlink(missing_ok=True)


def clean_store(con: DuckDBPyConnection) -> None:
    """Remove Parquet files no committed source owns (a crash between write and commit)."""
    try:
        folder = store_dir(con)
    except RuntimeError:
        return
    if store_id(con) is None or not folder.is_dir():
        return
    owned = {f for (f,) in con.execute("SELECT file_name FROM point_files").fetchall()}
    for f in folder.iterdir():
        if f.name not in owned and f.is_file():
            f.unlink(missing_ok=True)


def ahead_file(db: Path, pid: int) -> Path:
    """Where process ``pid`` streams a capture read ahead for database ``db`` (ingest/ahead.py)."""
    return db.with_name(f".{db.name}.ahead-{pid}.parquet.tmp")


def clean_ahead(db: Path) -> None:
    """Remove what a capture read ahead for ``db`` left when its process ended before its ingest did."""
    prefix, suffix = f".{db.name}.ahead-", ".parquet.tmp"
    try:
        leftovers = [f for f in db.parent.iterdir() if f.name.startswith(prefix) and f.name.endswith(suffix)]
    except OSError:
        return
    for f in leftovers:
        pid = f.name.removeprefix(prefix).removesuffix(suffix)
        if pid.isdigit() and not _alive(int(pid)):
            f.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    import os

    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def drop_points(con: DuckDBPyConnection, source_id: int) -> None:
    try:
        (store_dir(con) / f"{source_id}.parquet").unlink(missing_ok=True)
    except RuntimeError:
        pass


def upgrade_store(con: DuckDBPyConnection) -> None:
    """Rewrite, once each, the store files of an older iolab: those written before the points carried
    their times (point_files.has_times: each point gets its sample's time from series_samples), and
    those named by an id counted in ingest order whose points name their series by that count's id
    (point_files.series_base, schemas/V100: each point gets its column_no, the file its content id's
    name). The file is written beside, put in place and recorded before the old one goes, so an
    upgrade cut short is done again at the next open."""
    try:
        folder = store_dir(con)
    except RuntimeError:
        return
    old = con.execute(
        """SELECT source_id, file_name, series_base FROM point_files
           WHERE NOT has_times OR series_base IS NOT NULL ORDER BY source_id"""
    )
    for sid, name, base in old.fetchall():
        f = folder / name
        if not f.exists():
            continue
        final = folder / f"{sid}.parquet"
        tmp = folder / f".{final.name}.tmp"
        has = {c for (c,) in con.execute(f"SELECT name FROM parquet_schema({_sql_text(f)})").fetchall()}
        column = "p.column_no" if "column_no" in has else f"(p.series_id - {int(base or 0)})::INTEGER"
        ts = "p.ts" if "ts" in has else "smp.ts::TIMESTAMP"
        con.execute(
            f"""COPY (SELECT {column} AS column_no, p.sample_no, {ts} AS ts, p.value
                      FROM read_parquet({_sql_text(f)}) p
                      LEFT JOIN series_samples smp ON smp.source_id = ? AND smp.sample_no = p.sample_no)
                TO {_sql_text(tmp)} (FORMAT parquet, COMPRESSION zstd)""",
            [sid],
        )
        tmp.replace(final)
        _record(folder, final)
        con.execute(
            "UPDATE point_files SET has_times = true, series_base = NULL, file_name = ?, bytes = ? WHERE source_id = ?",
            [final.name, final.stat().st_size, sid],
        )
        if f != final:
            f.unlink(missing_ok=True)


def _sql_text(v: Path | str) -> str:
    return "'" + str(v).replace("'", "''") + "'"


def points_of(files: list[Path]) -> str:
    """The query of every point of the store ``files`` (each <source_id>.parquet): series_id, source_id
    (from the file's name), sample_no, ts, value; a point's series_id is its file's id plus its
    column_no (ingest/store/ids.py). series_points is this over the whole store; the lake's export
    summarises a few files at a time with it."""
    source = "regexp_extract(filename, '([0-9]+)\\.parquet$', 1)::BIGINT"
    listed = ", ".join(map(_sql_text, files))
    return (
        "SELECT source_id + column_no AS series_id, source_id, sample_no, ts, value "
        f"FROM (SELECT {source} AS source_id, column_no, sample_no, ts, value "
        f"FROM read_parquet([{listed}], filename = true))"
    )


def refresh_points_view(con: DuckDBPyConnection) -> None:
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
        points = points_of(files)
    else:
        points = (
            "SELECT NULL::BIGINT AS series_id, NULL::BIGINT AS source_id, NULL::INTEGER AS sample_no, "
            "NULL::TIMESTAMP AS ts, NULL::DOUBLE AS value WHERE false"
        )
    con.execute(f"CREATE OR REPLACE VIEW series_points AS {points}")
    con.execute(
        "CREATE OR REPLACE VIEW series_values AS SELECT series_id, source_id, sample_no, value FROM series_points"
    )
    # looked up when queried: a file deleted, or the database moved without its store, shows here
    pattern = _sql_text(folder / "*.parquet")
    con.execute(f"""CREATE OR REPLACE VIEW store_files AS
        SELECT p.source_id, p.file_name, p.points, p.bytes, g.file IS NOT NULL AS present
        FROM point_files p LEFT JOIN glob({pattern}) g ON parse_filename(g.file) = p.file_name""")


# ---- writing one parsed file ---------------------------------------------------------------------


def lock(con: DuckDBPyConnection) -> None:
    """Make the read-only connection ``con`` unable to reach any file but through iolab: DuckDB's
    external access off and its configuration locked, so ATTACH, COPY TO, EXPORT DATABASE, reading
    or writing any path, and installing or loading an extension are refused (DETACH of the database
    is refused by DuckDB itself). The time-series views, which read the store's Parquet files, are
    shadowed by temporary views of the same names that read them through pyarrow (a reader that
    cannot write): DuckDB's ``allowed_paths`` would have let COPY overwrite a store file."""
    import os

    if con.execute("SELECT current_setting('lock_configuration')").fetchone() == (True,):
        return  # locked already (a second lab.connect of the same connection)
    import pyarrow as pa
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    try:
        folder: Path | None = store_dir(con)
    except RuntimeError:
        folder = None
    rows = con.execute("SELECT source_id, file_name FROM point_files ORDER BY source_id").fetchall() if folder else []
    present = [(int(sid), folder / name) for sid, name in rows if folder and (folder / name).is_file()]
    if present:
        schema = pq.read_schema(present[0][1]).append(pa.field("source_id", pa.int64()))
        points = ds.FileSystemDataset.from_paths(
            [str(f) for _, f in present],
            schema=schema,
            format=ds.ParquetFileFormat(),
            filesystem=pa.fs.LocalFileSystem(),
            partitions=[ds.field("source_id") == sid for sid, _ in present],
        )
        con.register("iolab_store_points", points)
        ts = "ts" if "ts" in schema.names else "NULL::TIMESTAMP AS ts"
        con.execute(
            "CREATE OR REPLACE TEMP VIEW series_points AS "  # a series' id: its file's plus its column_no (points_of)
            f"SELECT source_id + column_no AS series_id, source_id, sample_no, {ts}, value FROM iolab_store_points"
        )
        con.execute(
            "CREATE OR REPLACE TEMP VIEW series_values AS SELECT series_id, source_id, sample_no, value FROM series_points"
        )
    listed = sorted(os.listdir(folder)) if folder and folder.is_dir() else []
    con.register("iolab_store_listing", pa.table({"file": pa.array(listed, pa.string())}))
    con.execute("""CREATE OR REPLACE TEMP VIEW store_files AS
        SELECT p.source_id, p.file_name, p.points, p.bytes, p.file_name IN (SELECT file FROM iolab_store_listing) AS present
        FROM point_files p""")
    lock_settings(con)


def lock_settings(con: DuckDBPyConnection) -> None:
    """DuckDB's external access off and its configuration locked (once)."""
    if con.execute("SELECT current_setting('lock_configuration')").fetchone() != (True,):
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
