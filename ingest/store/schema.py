"""The schema: append-only migrations (schemas/V*.sql, checksummed), the views (schemas/views/*.sql,
made again when they change), and new databases copied from an empty template made once."""

from __future__ import annotations

import hashlib
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb

from .. import faults, vocabulary_table
from ..config import SCHEMAS, VIEWS, cache_dir
from .connect import DatabaseProblem, connect, transaction
from .points import clean_ahead, clean_store, ensure_store, refresh_points_view, upgrade_store


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
        if isinstance(e, duckdb.OutOfMemoryException):  # the machine, not the migration: said as such, exit 3
            raise DatabaseProblem(f"{faults.out_of_memory(e)}; nothing was changed") from None
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
        vocabulary_table.install(con)  # the views join metric_vocabulary, so it is made first
        for text in texts:
            con.execute(text)
        con.execute("DELETE FROM view_state")
        con.execute("INSERT INTO view_state VALUES (?, ?)", [checksum, datetime.now(UTC).replace(tzinfo=None)])


def open_db(path: str | Path, **kw: Any) -> duckdb.DuckDBPyConnection:
    """Open (or make) an iolab database; a writable open brings its schema, store and views up to date."""
    copied = not kw.get("read_only") and from_template(Path(path))
    con = connect(path, **kw)
    if kw.get("read_only"):
        check_version(con)
        return con
    clean_ahead(Path(path))
    if copied:  # the template's schema was made earlier: say when this database got it
        con.execute("UPDATE schema_history SET applied_at = ?", [datetime.now(UTC).replace(tzinfo=None)])
        ensure_store(con, fresh=True)
        clean_store(con)  # a store left beside an earlier database of this name holds nothing of this one
        return con  # the rest of _bring_up is what made the template: migrations, views
    _bring_up(con)
    return con


def _bring_up(con: duckdb.DuckDBPyConnection) -> None:
    migrate(con)
    ensure_store(con, fresh=False)
    clean_store(con)
    upgrade_store(con)
    refresh_points_view(con)  # before the view files: series_summary reads it
    create_views(con, force=False)


def from_template(path: Path) -> bool:
    """Make a new database at ``path`` as a copy of the empty one (True), as PostgreSQL makes
    databases from template1: running the schema's DDL costs far more than copying a small file.

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
    here = (Path(__file__).parent / "points.py").read_text()  # the store's views are made there, in Python
    key = _checksum("\n".join([duckdb.__version__, here, *texts, vocabulary_table.fingerprint()]))[:20]
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
