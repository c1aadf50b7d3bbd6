"""What a command needs before it runs, and the one exit-code policy (the pattern of dbt-core's
cli/requires.py): ``@database`` opens the database named by ``--db`` and maps each way that can fail
to its exit code, so every command answers a missing or broken database the same way.

Exit codes, for every command (the table in docs/commands.md says the same):
  0  done;
  1  done, but some files were rejected or could not be read (a file or folder without permission),
     or some expectations failed;
  2  wrong usage: a bad option, a --db where there is no database, a --study naming no study, a PATH
     naming nothing, an empty PATH or the file system's top; an output that would go where iolab
     reads or keeps something (a database, its WAL or time-series store, the cache, a data root) or
     into a folder holding files iolab did not write;
  3  the environment failed: the database is busy, damaged, newer or read-only; a disk is full, over
     quota or read-only, or a folder may not be written (the database's, an output's, the cache's,
     the temporary one): said once, naming the folder; DuckDB out of memory (IOLAB_DB_MEMORY);
  130  stopped by Ctrl-C (SIGINT), 143 by SIGTERM: what was written is whole, and the same command
     run again goes on from there.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..terminal import console, markup

EXIT_OK, EXIT_REJECTED, EXIT_USAGE, EXIT_ENVIRONMENT, EXIT_INTERRUPTED, EXIT_TERMINATED = 0, 1, 2, 3, 130, 143
# the options and arguments that name paths, on every command that takes them
PATH_ARGS = ("paths", "db", "out", "images", "to", "lake", "corpus", "reports")


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
    return None if study in every else unknown("study", study, every, f" in {db_path}", "studies")


def unknown(what: str, name: str, known: list[str], where: str = "", plural: str = "") -> int:
    """Say, in one line, that ``name`` names no ``what`` (a study, system, metric, view...) ``where``,
    the closest ``known`` one if any is close (iolab.names.did_you_mean) and every known one; return
    the usage exit code (2): the one answer of every command to a name that names nothing."""
    from ..names import did_you_mean

    listed = ", ".join(known) or "none"
    console(stderr=True).print(
        f"[red]No {what} '{markup(name)}'[/]{markup(where)}"
        + markup(f"{did_you_mean(name, known)}; {plural or what + 's'}: {listed}"),
        soft_wrap=True,
    )
    return EXIT_USAGE


def not_found(paths: list[str], option: str = "PATH") -> int | None:
    """EXIT_USAGE, having said which, when a path given names nothing on disk (a typo): before
    anything is read. None when each is there (a link to nothing is there: the command says what it is)."""
    import os

    absent = [p for p in paths if not os.path.lexists(p)]
    for p in absent:
        console(stderr=True).print(f"[red]Not found:[/] {option} {markup(p)} does not exist", soft_wrap=True)
    return EXIT_USAGE if absent else None


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
    from .. import faults

    hit = faults.named_path(e)  # the folder the error names (the temporary folder, the cache), else the output
    folder = (hit if hit.is_dir() else hit.parent) if hit is not None else Path(where)
    console(stderr=True).print(
        f"[red]Cannot write into {markup(str(folder))}:[/] {markup(cause)}. What iolab wrote is whole and listed "
        "as its own: run the same command again once it can be written, and it goes on from there."
    )
    return EXIT_ENVIRONMENT


def bad_paths(args: Any) -> int | None:
    """EXIT_USAGE, having said why, when a path given to the command is empty (a shell variable
    that was not set: "" is the current folder to the file system) or resolves to the file system's
    top (``/``): no command reads, removes or writes the whole machine."""
    import os

    for name in PATH_ARGS:
        given = getattr(args, name, None)
        for value in given if isinstance(given, list) else [given]:
            if not isinstance(value, str):
                continue
            option = "PATH" if name == "paths" else f"--{name}"
            if not value.strip():
                why = f"{option} is empty: an empty path names no file or folder (a variable that was not set?)"
            elif Path(os.path.realpath(value)).parent == Path(os.path.realpath(value)):
                why = f"{option} {value} is the file system's top: name the folder of your results instead"
            else:
                continue
            console(stderr=True).print(f"[red]Wrong usage:[/] {markup(why)}")
            return EXIT_USAGE
    return None


def fault(e: BaseException) -> int | None:
    """EXIT_ENVIRONMENT, having said it in one line, when ``e`` is the machine's fault (a disk full,
    read-only or not ours to write, DuckDB out of memory: iolab.faults); None for any other error."""
    from .. import faults

    said = faults.out_of_memory(e) or faults.describe(e)
    if said is None:
        return None
    console(stderr=True).print(f"[red]Stopped:[/] {markup(said)}. Run the same command again once this is fixed.")
    return EXIT_ENVIRONMENT
