"""`iolab ingest PATH...`: store raw result files and folders in the database.

Output: on a terminal, a progress bar and tables; otherwise (logs, CI, pipes) one plain line per
file and a summary. `--format json` (or `--json`) prints one JSON document instead, `--quiet` only the summary and the
failures, `--verbose` every file with its row counts.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import itertools
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config import max_files
from ..outcome import Status
from ..terminal import console, is_terminal, markup, say, shown
from . import params, tables
from .requires import EXIT_ENVIRONMENT, EXIT_OK, EXIT_REJECTED, EXIT_USAGE
from .tables import Col

if TYPE_CHECKING:  # imported where used: `iolab --help` stays quick (pyarrow, pydantic, duckdb are not needed)
    from .. import batch


def register(sub: Any) -> None:
    pi = sub.add_parser(
        "ingest",
        help="ingest raw result files and folders",
        description="Ingest raw result files and folders (recursively); files already ingested are skipped.",
    )
    pi.add_argument("paths", nargs="+", metavar="PATH", type=existing, help="files or folders to ingest")
    params.db(pi, writes=True)
    pi.add_argument(
        "--verify",
        action="store_true",
        help="hash every file, also those whose size, modification "
        "time and labels are unchanged since they were stored (by default those are skipped unread)",
    )
    pi.add_argument(
        "--allow-root",
        action="store_true",
        help="accept a system folder, the file system's top or the home folder itself as a data root "
        "(refused by default: a data root is the folder of your results)",
    )
    pi.add_argument(
        "--dry-run",
        action="store_true",
        help="print the plan (each file new, changed, moved, copy, relabelled, unchanged, removed or refused, "
        "with its labels) and change nothing, not even make the database",
    )
    pi.add_argument(
        "--yes",
        action="store_true",
        help="go on when the folders hold more files than $IOLAB_MAX_FILES (20,000 by default)",
    )
    out = pi.add_mutually_exclusive_group()
    out.add_argument("-q", "--quiet", action="store_true", help="print only the summary and the failures")
    out.add_argument("-v", "--verbose", action="store_true", help="list every file with its row counts")
    out.add_argument(
        "--format",
        choices=["table", "json"],
        default="table",
        help="table for a reader, or json: one JSON object (summary and every file) on standard output",
    )
    out.add_argument("--json", dest="format", action="store_const", const="json", help="the same as --format json")
    pi.set_defaults(func=cmd_ingest)


def existing(path: str) -> str:
    """A PATH argument. One that names nothing is checked once the database is open
    (``_absent``): a folder deleted from disk is named to take its files out of the analysis."""
    return path


def _not_found(paths: list[Path]) -> int:
    for p in paths:
        console(stderr=True).print(
            f"[red]Not found:[/] {markup(str(p))} does not exist, and the database holds nothing from there"
        )
    return EXIT_USAGE


def _refused(reasons: list[str]) -> int:
    """Nothing is read or written: each reason said, exit 2 (wrong usage)."""
    for why in reasons:
        console(stderr=True).print(f"[red]Not ingested:[/] {markup(why)}")
    return EXIT_USAGE


def too_many(files: list[tuple[Path, Path]], limit: int) -> str:
    """The walk found more than ``limit`` files: where most of them are, and how to go on."""
    counts: collections.Counter[str] = collections.Counter()
    for given, f in files:
        below = f.relative_to(given).parts if f != given and f.is_relative_to(given) else ()
        counts[str(given / below[0]) if len(below) > 1 else str(given)] += 1
    where = ", ".join(f"{n:,} in {path}" for path, n in counts.most_common(3))
    return (
        f"these folders hold more than {limit:,} files (of the first {len(files):,}: {where}); nothing was read. "
        "Name the folder of your results instead, or run again with --yes "
        "(IOLAB_MAX_FILES sets the limit for a lab that big)"
    )


def _absent(con: Any, paths: list[Path]) -> list[Path]:
    """Paths that name nothing on disk and nothing the database holds: a typo, wrong usage."""
    from ..store import places

    gone = [p for p in paths if not os.path.lexists(p)]
    return [p for p in gone if not places.places_under(con, [places.text(places.canonical(p))])]


def _line(o: batch.Outcome, verbose: bool) -> str:
    """One plain log line for a file: status, path, format, and the reason or the counts. An ingested
    file's reason is a parser's note, said once as a warning after the files (as on a terminal)."""
    where = f" (line {o.line})" if o.line else ""
    text = f"{o.status:<10} {shown(o.path)}" + (f" [{o.format}]" if o.format else "")
    if o.reason and o.status != Status.INGESTED:
        return f"{text}{where}: {shown(o.reason)}"
    if verbose and o.counts:
        return f"{text}: " + ", ".join(f"{k}={v}" for k, v in o.counts.items())
    return text


def _files_to_read(args: argparse.Namespace, paths: list[Path]) -> tuple[list, list[str]] | int:
    """The files under ``paths`` and the output markers that did not cover every file beside them,
    or the exit code of a refusal (said): a path not there, a refused root, too many files."""
    from ..files import walk
    from ..roots import refusal

    if not Path(args.db).is_file() and (absent := [p for p in paths if not os.path.lexists(p)]):
        return _not_found(absent)  # nothing can be known from there: no database is made for it
    if refused := [why for p in paths if (why := refusal(p, args.allow_root))]:
        return _refused(refused)
    try:
        limit = max_files()
    except ValueError as e:
        return _refused([str(e)])
    marks: list[str] = []  # output markers that did not cover every file beside them
    files = list(itertools.islice(walk(paths, marks), None if args.yes else limit + 1))
    if len(files) > limit and not args.yes:
        return _refused([too_many(files, limit)])
    return files, marks


def _open_db(args: argparse.Namespace, paths: list[Path], ahead: Any) -> Any:
    """The database to ingest into, or the exit code (said) when it cannot be opened or a path named
    is neither on disk nor a place it knows; the capture read ahead is dropped then."""
    from .. import db

    try:
        con = db.open_db(args.db)
    except db.DatabaseProblem as e:
        if ahead is not None:
            ahead.drop()
        if args.format == "json":
            print(json.dumps({"db": args.db, "error": str(e)}))
        else:
            say(("Cannot ingest:", "red"), f" {shown(e)}")
        return EXIT_ENVIRONMENT
    if absent := _absent(con, paths):
        if ahead is not None:
            ahead.drop()
        con.close()
        return _not_found(absent)
    return con


def cmd_ingest(args: argparse.Namespace) -> int:
    from ..ahead import read_ahead

    paths = [Path(p) for p in args.paths]
    found = _files_to_read(args, paths)
    if isinstance(found, int):
        return found
    files, marks = found
    if args.dry_run:
        from .ingest_plan import dry_run

        return dry_run(args, paths, files, marks, _not_found)
    ahead = read_ahead(files, Path(args.db))  # a new database's first capture streams while it is made
    from .. import batch

    con = _open_db(args, paths, ahead)
    if isinstance(con, int):
        return con
    as_json = args.format == "json"
    terminal = is_terminal()
    plain = not terminal and not as_json and not args.quiet
    with _progress(terminal and not (as_json or args.quiet), len(files)) as advance:

        def step(o: batch.Outcome) -> None:
            advance(o)
            if plain:
                print(_line(o, args.verbose))

        report = batch.ingest_paths(con, paths, step, files=files, verify=args.verify, parallel=True, ahead=ahead)
    report.warnings[:0] = marks
    if not as_json:
        for note in report.notes:
            say(("Data root:", "bold"), f" {shown(note)}")
        for warning in report.warnings:
            say(("Warning:", "yellow"), f" {shown(warning)}")
        for said in report.measured:
            say(("Measurements:", "bold"), f" {shown(said)}")
    try:
        con.close()
    except Exception:  # after an environment fault the connection may be gone already
        pass
    if as_json:
        print(json.dumps(report_json(report, args.db), indent=1))
    else:
        print_report(
            report,
            args.db,
            table=terminal and not args.quiet,
            failures=terminal or args.quiet,
            verbose=args.verbose,
        )
    if report.fault:
        if not as_json:
            say(
                ("Stopped:", "red"),
                f" {shown(report.fault)}. Nothing was recorded against the files; "
                "fix this and run the same command again: files already stored are skipped.",
            )
        return EXIT_ENVIRONMENT
    return EXIT_REJECTED if report.failed else EXIT_OK


@contextlib.contextmanager
def _progress(visible: bool, total: int) -> Iterator[Callable[[batch.Outcome], None]]:
    """A function to call per file done: it moves the progress bar on a terminal, else nothing
    (and rich.progress is not imported)."""
    if not visible:
        yield lambda o: None
        return
    from ..progress import bar

    with bar("ingest", console()) as progress:
        task = progress.add_task("", total=total)
        yield lambda o: progress.update(task, advance=1, description=shown(o.path)[-60:])


STATUSES = tuple(str(s) for s in Status)


def report_json(report: batch.Report, db_path: str) -> dict:
    return {
        "db": db_path,
        "fault": report.fault,
        "notes": report.notes,
        "warnings": report.warnings,
        "measurements": report.measured,
        "summary": {s: len(report.by_status(s)) for s in STATUSES},
        "files": [
            {
                "path": o.path,
                "status": o.status,
                "format": o.format,
                "reason": o.reason,
                "line": o.line,
                "counts": o.counts,
            }
            for o in report.outcomes
        ],
    }


def counted(c: dict[str, int]) -> str:
    """What one file added: its runs, numbers, series and points, and its tool tables' rows."""
    main = [
        f"{c[k]:,} {label}"
        for k, label in (("runs", "runs"), ("samples", "numbers"), ("series", "series"), ("points", "points"))
        if c.get(k)
    ]
    tool = sum(v for k, v in c.items() if k not in ("runs", "samples", "series", "points"))
    return ", ".join(main + ([f"{tool:,} tool-table rows"] if tool else []))


def print_report(
    report: batch.Report, db_path: str, *, table: bool = True, failures: bool = True, verbose: bool = False
) -> None:
    gone = len(report.by_status("gone"))
    n = len(report.outcomes) - gone
    ok = report.by_status("ingested") + (report.by_status("unchanged") + report.by_status("placed") if verbose else [])
    moved = len(report.by_status("moved"))
    say(
        f"{n} files seen: ",
        (f"{len(report.by_status('ingested'))} ingested", "green"),
        f", {len(report.by_status('unchanged'))} unchanged (skipped), "
        f"{len(report.by_status('relabelled'))} relabelled, "
        f"{len(report.by_status('placed'))} known content in a new place (labelled, not stored again), "
        + (f"{moved} moved, " if moved else "")
        + f"{len(report.by_status('skipped'))} skipped (not regular files), ",
        (f"{len(report.by_status('rejected'))} rejected", "red"),
        f", {len(report.by_status('unreadable'))} unreadable  -> {shown(db_path)}",
    )
    if gone:
        say(f"{gone} file(s) no longer on disk left the analysis (their history stays in source_history).")
    if ok and table:
        rows = [[shown(o.path), o.status if verbose else (o.format or ""), counted(o.counts)] for o in ok]
        heads = [Col("file", key=True, wrap=30, fold=True), Col("status" if verbose else "format", drop=1, keep=True)]
        heads.append(Col("rows", drop=2, keep=True, shorten=True))
        tables.table("ingested", heads, rows, tables.JSON)
    bad = report.by_status("rejected") + report.by_status("unreadable") + report.by_status("skipped")
    if failures:
        for o in bad:
            where = f" (line {o.line})" if o.line else ""
            say((o.status, "red"), f" {shown(o.path)}{where}: {shown(o.reason or '')}")
    if bad:
        # (a file no parser recognises says "Add a format" in its own reason: not repeated for a sidecar typo)
        say("Next: fix or remove the files above and ingest again (unchanged files are skipped).")
