"""Opening the database safely: one writer at a time (a second process waits), and every way
opening can fail said as what to do next."""

from __future__ import annotations

import re
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb

from .. import processes
from ..config import LOCK_WAIT_S, db_memory_limit, spill_root


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
    elif path.is_dir():
        why, todo = "it is a folder, not a database file", "give a file name with --db (e.g. FOLDER/iolab.duckdb)"
    elif not path.exists():  # nothing there to be damaged: the folder takes no new file
        why = "iolab cannot create a database file there"
        todo = "give a --db in a folder you can write to"
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
    config = settings(read_only)
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


def settings(read_only: bool) -> dict[str, Any]:
    """The configuration of every connection iolab opens to a database."""
    return {
        # offline always: never try to download an extension
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": False,
        # bounded, sized from the machine: past it DuckDB writes out or spills, not up (config.db_memory_limit)
        "memory_limit": db_memory_limit(read_only),
        "temp_directory": str(spill_folder()),
    }


def reader(path: str | Path) -> duckdb.DuckDBPyConnection:
    """A read-only connection at once, as ``connect`` configures it, but no wait while a writer holds
    the file: duckdb.Error then (a render's plan and digests, which guess or are retried)."""
    return duckdb.connect(str(path), read_only=True, config=settings(True))


_SPILL = re.compile(r"(\d+)\.(\d+)")


def spill_folder() -> Path:
    """The folder this process's connections spill to (DuckDB's temp_directory): in the cache
    (config.spill_root), named for the process (iolab.processes), the same for all its connections
    (DuckDB refuses two connections to one file configured differently; each names its own files in
    it). DuckDB makes it when it first spills and removes its files when the connection closes; the
    folders of processes that have ended are removed here, by the next connection of any iolab
    process. Beside the database, DuckDB's default, a read-only disk or folder left it nowhere to spill."""
    root = spill_root()
    try:
        root.mkdir(parents=True, exist_ok=True)
        for old in root.iterdir():
            m = _SPILL.fullmatch(old.name)
            if m and processes.gone(m.group(1), m.group(2)):
                shutil.rmtree(old, ignore_errors=True)
    except OSError:  # a cache that cannot be written: DuckDB says so if it ever needs to spill
        pass
    return root / processes.tag()


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
