"""What a command needs before it runs, and the one exit-code policy (the pattern of dbt-core's
cli/requires.py): ``@database`` opens the database named by ``--db`` and maps each way that can fail
to its exit code, so every command answers a missing or broken database the same way.

Exit codes, for every command:
  0  done;
  1  done, but some files were rejected or some expectations failed;
  2  wrong usage: a bad option, a --db where there is no database, a --study naming no study, a PATH
     naming nothing, an output folder in a data root or holding files iolab did not write;
  3  the environment failed: the database is busy, damaged, newer, read-only, or the disk is full;
     an output folder cannot be written (read-only, full, quota, permissions);
  130  stopped by Ctrl-C (what was stored is whole; the file being stored was rolled back).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..terminal import console, markup

EXIT_OK, EXIT_REJECTED, EXIT_USAGE, EXIT_ENVIRONMENT, EXIT_INTERRUPTED = 0, 1, 2, 3, 130


def no_database(path: str, found: str = "--db") -> int:
    """Say there is no database at ``path`` (nothing is created) and return the usage exit code;
    ``found`` is how the path was chosen (params.resolve_db): the default says it was looked for above."""
    where = " (nor data/iolab.duckdb in any folder above this one)" if found == "the default" else ""
    console(stderr=True).print(
        f"[red]No database at {markup(path)}[/]{where}: nothing is created by this command. "
        f"Next: ingest first (`iolab ingest DATA --db {markup(path)}`, or `make demo`), or give the right --db."
    )
    return EXIT_USAGE


def database(*, read_only: bool = True, connect: bool = True) -> Callable[[Callable[..., int]], Callable[[Any], int]]:
    """Run the command as ``fn(args, con)`` with the database of ``args.db`` open (``connect=False``:
    as ``fn(args)`` once the database is known to exist). The database must exist: only ingest
    creates one. Its problems become exit codes here: missing 2, any other 3."""

    def wrap(fn: Callable[..., int]) -> Callable[[Any], int]:
        @functools.wraps(fn)
        def command(args: Any) -> int:
            from .. import db

            if not Path(args.db).is_file():
                return no_database(args.db, getattr(args, "db_found", "--db"))
            if not connect:
                return fn(args)
            try:
                con = db.open_db(args.db, read_only=read_only)
            except db.DatabaseProblem as e:
                console(stderr=True).print(f"[red]Cannot use the database:[/] {markup(e)}")
                return EXIT_ENVIRONMENT
            try:
                return fn(args, con)
            finally:
                with contextlib.suppress(Exception):  # after an environment fault it may be gone already
                    con.close()

        return command

    return wrap


def studies(con: Any) -> list[str]:
    """Every study the database holds, in name order."""
    rows = con.execute("SELECT DISTINCT study FROM source_files WHERE study IS NOT NULL ORDER BY 1").fetchall()
    return [s for (s,) in rows]


def known_study(con: Any, study: str, db_path: str) -> int | None:
    """None when ``study`` is in the database; else say so, list the studies, and return 2."""
    every = studies(con)
    if study in every:
        return None
    from ..names import did_you_mean

    console(stderr=True).print(
        f"[red]No study '{markup(study)}'[/] in {markup(db_path)}"
        + markup(did_you_mean(study, every) + "; studies: " + (", ".join(every) or "none"))
    )
    return EXIT_USAGE


def data_roots(db_path: str | Path) -> list[str]:
    """The data roots of the database at ``db_path`` (read-only), for the output folder check."""
    import duckdb

    from .. import db
    from ..store import places

    con = db.connect(db_path, read_only=True)
    try:
        return places.roots(con)
    except duckdb.CatalogException:  # a database from before data roots: none
        return []
    finally:
        con.close()


def refused(e: Exception, what: str = "Not writing there") -> int:
    """Say why an output folder is refused (iolab.outputs.Refused) and return the usage exit code."""
    console(stderr=True).print(f"[red]{what}:[/] {markup(str(e))}")
    return EXIT_USAGE


def cannot_write(e: BaseException, where: str | Path) -> int | None:
    """EXIT_ENVIRONMENT, having said the cause once, when ``e`` is the output folder refusing a
    write (read-only, full, quota, permissions); None for any other error."""
    from ..outputs import cannot_write as why

    if (cause := why(e)) is None:
        return None
    console(stderr=True).print(
        f"[red]Cannot write into {markup(str(where))}:[/] {cause}. Nothing half-written is left there."
    )
    return EXIT_ENVIRONMENT
