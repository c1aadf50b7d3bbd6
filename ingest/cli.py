"""iolab command line: `iolab ingest PATH... [--db FILE]`, `iolab validate`, `iolab info`, and the
read-only commands of ingest.report_cli. A bare `iolab` prints the help.

Output: on a terminal, a progress bar and tables; otherwise (logs, CI, pipes) one plain line per
file and a summary. `ingest --json` prints one JSON document instead, `--quiet` only the summary and
the failures, `--verbose` every file with its row counts.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import __version__
from .config import default_db
from .terminal import console, is_terminal, markup, say, shown

if TYPE_CHECKING:  # imported where used: `iolab --help` stays quick (pyarrow, pydantic, duckdb are not needed)
    from . import batch

DEFAULT_DB = default_db()
# exit codes: 0 all files stored or known; 1 some files rejected or unreadable (the rest are stored);
# 2 wrong usage (argparse); 3 the environment failed (database busy, damaged, newer, read-only, disk full)
EXIT_OK, EXIT_REJECTED, EXIT_ENVIRONMENT = 0, 1, 3


def _line(o: batch.Outcome, verbose: bool) -> str:
    """One plain log line for a file: status, path, format, and the reason or the counts."""
    where = f" (line {o.line})" if o.line else ""
    text = f"{o.status:<10} {shown(o.path)}" + (f" [{o.format}]" if o.format else "")
    if o.reason:
        return f"{text}{where}: {shown(o.reason)}"
    if verbose and o.counts:
        return f"{text}: " + ", ".join(f"{k}={v}" for k, v in o.counts.items())
    return text


def cmd_ingest(args: argparse.Namespace) -> int:
    from . import batch, db

    paths = [Path(p) for p in args.paths]
    try:
        con = db.open_db(args.db)
    except db.DatabaseProblem as e:
        if args.json:
            print(json.dumps({"db": args.db, "error": str(e)}))
        else:
            say(("Cannot ingest:", "red"), f" {shown(e)}")
        return EXIT_ENVIRONMENT
    files = list(batch.walk(paths))
    terminal = is_terminal()
    plain = not terminal and not args.json and not args.quiet
    with _progress(terminal and not (args.json or args.quiet), len(files)) as advance:

        def step(o: batch.Outcome) -> None:
            advance(o)
            if plain:
                print(_line(o, args.verbose))

        report = batch.ingest_paths(con, paths, step, files=files, verify=args.verify, parallel=True)
    if not args.json:
        for note in report.notes:
            say(("Data root:", "bold"), f" {shown(note)}")
    try:
        con.close()
    except Exception:  # after an environment fault the connection may be gone already
        pass
    if args.json:
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
        if not args.json:
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
    from .progress import bar

    with bar("ingest", console()) as progress:
        task = progress.add_task("", total=total)
        yield lambda o: progress.update(task, advance=1, description=shown(o.path)[-60:])


STATUSES = ("ingested", "unchanged", "relabelled", "placed", "skipped", "rejected", "unreadable")


def report_json(report: batch.Report, db_path: str) -> dict:
    return {
        "db": db_path,
        "fault": report.fault,
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


def print_report(
    report: batch.Report, db_path: str, *, table: bool = True, failures: bool = True, verbose: bool = False
) -> None:
    n = len(report.outcomes)
    ok = report.by_status("ingested") + (report.by_status("unchanged") + report.by_status("placed") if verbose else [])
    say(
        f"{n} files seen: ",
        (f"{len(report.by_status('ingested'))} ingested", "green"),
        f", {len(report.by_status('unchanged'))} unchanged (skipped), "
        f"{len(report.by_status('relabelled'))} relabelled, "
        f"{len(report.by_status('placed'))} known content in a new place (labelled, not stored again), "
        f"{len(report.by_status('skipped'))} skipped (not regular files), ",
        (f"{len(report.by_status('rejected'))} rejected", "red"),
        f", {len(report.by_status('unreadable'))} unreadable  -> {shown(db_path)}",
    )
    if ok and table:
        from rich.table import Table

        t = Table(title="ingested", show_edge=False)
        for col in ("file", "status" if verbose else "format", "rows"):
            t.add_column(col)
        for o in ok:
            c = o.counts
            main = [
                f"{c[k]:,} {label}"
                for k, label in (("runs", "runs"), ("samples", "numbers"), ("series", "series"), ("points", "points"))
                if c.get(k)
            ]
            tool = sum(v for k, v in c.items() if k not in ("runs", "samples", "series", "points"))
            t.add_row(
                markup(o.path),
                o.status if verbose else o.format,
                ", ".join(main + ([f"{tool:,} tool-table rows"] if tool else [])),
            )
        console().print(t)
    bad = report.by_status("rejected") + report.by_status("unreadable") + report.by_status("skipped")
    if failures:
        for o in bad:
            where = f" (line {o.line})" if o.line else ""
            say((o.status, "red"), f" {shown(o.path)}{where}: {shown(o.reason or '')}")
    if bad:
        say(
            "Next: fix or remove the files above and ingest again (unchanged files are skipped); "
            "a format iolab does not read yet: see CONTRIBUTING.md, 'Add a format'."
        )


def cmd_remove(args: argparse.Namespace) -> int:
    """Retire places by path or study (batch.remove); say which, and which are still on disk."""
    from . import batch, db

    if not args.paths and not args.study:
        say(("Nothing to remove:", "red"), " name files or folders, or --study STUDY")
        return 2
    try:
        con = db.open_db(args.db)
    except db.DatabaseProblem as e:
        say(("Cannot remove:", "red"), f" {shown(e)}")
        return EXIT_ENVIRONMENT
    try:
        gone = batch.remove(con, [Path(p) for p in args.paths], args.study)
    finally:
        con.close()
    for o in gone:
        print(_line(o, False))
    kept = [p for p in args.paths if Path(p).exists()]
    say(f"{len(gone)} place(s) removed from the analysis.")
    if kept:
        say(
            f"{', '.join(map(shown, kept))} still on disk: the next ingest of its folder brings it back; "
            "move it out of the data folder to retire it for good."
        )
    return EXIT_OK


def cmd_info(args: argparse.Namespace) -> int:
    """What the database holds, opened read-only: it never creates or changes a database."""
    from . import db

    try:
        con = db.open_db(args.db, read_only=True)
    except db.DatabaseProblem as e:
        say(("Cannot read it:", "red"), f" {shown(e)}")
        return EXIT_ENVIRONMENT
    try:
        studies = con.execute("""
            SELECT f.study, count(DISTINCT f.source_id) AS files,
                   (SELECT string_agg(DISTINCT m.system, '; ' ORDER BY m.system) FROM measurements m WHERE m.study = f.study),
                   string_agg(DISTINCT f.format, ', ' ORDER BY f.format),
                   (SELECT count(*) FROM measurements m WHERE m.study = f.study)
            FROM source_files f WHERE f.status = 'ok' GROUP BY f.study ORDER BY f.study""").fetchall()
        files = con.execute("SELECT format, status, count(*) FROM source_files GROUP BY ALL ORDER BY ALL").fetchall()
        totals = con.execute("""SELECT (SELECT count(*) FROM measurements), (SELECT count(*) FROM runs),
                                       (SELECT coalesce(sum(points), 0) FROM point_files)""").fetchall()[0]
        roots = con.execute("SELECT path FROM data_roots ORDER BY 1").fetchall()
        left = con.execute("SELECT count(*) FROM source_history WHERE left_at IS NOT NULL").fetchall()[0][0]
        store = db.store_problems(con)
    finally:
        con.close()
    from rich.table import Table

    t = Table(title=f"studies in {markup(args.db)}")
    for c, j in (("study", "left"), ("files", "right"), ("systems", "left"), ("formats", "left"), ("numbers", "right")):
        t.add_column(c, justify=j)  # type: ignore[arg-type]
    for study, n, systems, formats, numbers in studies:
        t.add_row(markup(study), f"{n:,}", markup(systems or "-"), markup(formats or "-"), f"{numbers:,}")
    console().print(t)
    f = Table(title="files by format and status")
    for c in ("format", "status", "files"):
        f.add_column(c, justify="right" if c == "files" else "left")
    for fmt, status, n in files:
        f.add_row(markup(fmt or "-"), status, f"{n:,}")
    console().print(f)
    say(f"{totals[0]:,} measurements, {totals[1]:,} runs, {totals[2]:,} time-series points")
    say(
        f"mirrors {', '.join(shown(r) for (r,) in roots) or 'no folder yet'}; {left:,} place(s) left the analysis "
        "(deleted, moved, replaced or removed: source_history)"
    )
    for problem in store:
        say(("Time-series store:", "red"), f" {shown(problem)}")
    return EXIT_ENVIRONMENT if store else EXIT_OK


def cmd_validate(args: argparse.Namespace) -> int:
    from validation import run as vrun

    return vrun.main(args.db)


# Commands that live in their own modules: each has ``register(subparsers)``, which adds its parser
# and sets ``func``. Keep heavy imports inside the command functions (cold start).
COMMAND_MODULES: list[str] = ["ingest.report_cli", "ingest.formats_cli", "ingest.lake"]


class _Formatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows an option's default unless it has none (None) or is an on/off flag."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default in (None, False) or isinstance(action.default, list):
            return action.help
        return super()._get_help_string(action)


class _Parser(argparse.ArgumentParser):
    """Every (sub)command shows each option's default in its help."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)


def build_parser() -> argparse.ArgumentParser:
    import importlib

    p = _Parser(
        prog="iolab",
        description="Storage benchmark results database: ingest raw result files, validate, report.",
        epilog="`iolab COMMAND --help` explains a command.",
    )
    p.add_argument("--version", action="version", version=f"iolab {__version__}")
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND", parser_class=_Parser)
    db_help = "the DuckDB database file (created by ingest; $IOLAB_DB sets the default)"
    pi = sub.add_parser(
        "ingest",
        help="ingest raw result files and folders",
        description="Ingest raw result files and folders (recursively); files already ingested are skipped.",
    )
    pi.add_argument("paths", nargs="+", metavar="PATH", help="files or folders to ingest")
    pi.add_argument("--db", default=DEFAULT_DB, help=db_help)
    pi.add_argument(
        "--verify",
        action="store_true",
        help="hash every file, also those whose size, modification "
        "time and labels are unchanged since they were stored (by default those are skipped unread)",
    )
    out = pi.add_mutually_exclusive_group()
    out.add_argument("-q", "--quiet", action="store_true", help="print only the summary and the failures")
    out.add_argument("-v", "--verbose", action="store_true", help="list every file with its row counts")
    out.add_argument("--json", action="store_true", help="print one JSON document (summary and every file)")
    pi.set_defaults(func=cmd_ingest)
    pr = sub.add_parser(
        "remove",
        help="take files, folders or a study out of the analysis",
        description="Take the places below each PATH (on disk or not), or every place of a study, out of "
        "the analysis; their history stays in source_history. A file still on disk comes back at the next "
        "ingest of its folder: move it out of data/ to retire it for good.",
    )
    pr.add_argument("paths", nargs="*", metavar="PATH", help="files or folders")
    pr.add_argument("--study", help="every place of this study")
    pr.add_argument("--db", default=DEFAULT_DB, help=db_help)
    pr.set_defaults(func=cmd_remove)
    pn = sub.add_parser("info", help="what the database holds")
    pn.add_argument("--db", default=DEFAULT_DB, help=db_help)
    pn.set_defaults(func=cmd_info)
    pv = sub.add_parser("validate", help="run the Great Expectations suites and store the results")
    pv.add_argument("--db", default=DEFAULT_DB, help=db_help)
    pv.set_defaults(func=cmd_validate)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    return _dispatch(argv)[0]


def run() -> None:
    """The `iolab` command. An ingest ends the process at once when it is done (the database is
    closed, the output flushed, the parse workers joined): tearing down the interpreter with DuckDB
    and Polars loaded cost 0.1 s, 5 % of ingesting a 100 MB capture. Other commands (Spark, kernels)
    end normally, as do in-process callers of main()."""
    # The garbage collector runs every 700 new objects by default; a capture's 5,000 column names
    # make ~100,000, none of them in cycles, and its ~120 collections (one walking every loaded
    # module) took 20 ms, 2 % of a 100 MB ingest. Every 100,000 still bounds what cycles can hold.
    # (Set here, for the command's own process: lowering it again at the end collected 13 ms.)
    gc.set_threshold(100_000)
    code, args = _dispatch(None)
    if getattr(args, "func", None) is cmd_ingest:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except OSError:  # a reader that went away (`| head`): nothing more can be said to it
            pass
        os._exit(code)
    sys.exit(code)


def _dispatch(argv: list[str] | None) -> tuple[int, argparse.Namespace]:
    p = build_parser()
    args = p.parse_args(argv)
    if not getattr(args, "func", None):  # a bare `iolab`
        p.print_help()
        return 0, args
    return int(args.func(args)), args


if __name__ == "__main__":
    run()
