"""iolab command line: `iolab ingest PATH... [--db FILE]`, `iolab validate`, `iolab info`."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from . import __version__, batch, db

DEFAULT_DB = "data/iolab.duckdb"
# exit codes: 0 all files stored or known; 1 some files rejected or unreadable (the rest are stored);
# 2 wrong usage (argparse); 3 the environment failed (database busy, damaged, newer, read-only, disk full)
EXIT_OK, EXIT_REJECTED, EXIT_ENVIRONMENT = 0, 1, 3
console = Console(highlight=False)
if not console.is_terminal:  # logs and CI: wide lines rather than wrapped tables
    console = Console(highlight=False, width=160)


def cmd_ingest(args) -> int:
    paths = [Path(p) for p in args.paths]
    try:
        con = db.open_db(args.db)
    except db.DatabaseProblem as e:
        console.print(f"[red]Cannot ingest:[/] {escape(str(e))}")
        return EXIT_ENVIRONMENT
    files = list(batch.walk(paths))
    with Progress(TextColumn("[bold]ingest[/]"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.description}"), console=console, transient=True,
                  disable=not console.is_terminal) as progress:
        task = progress.add_task("", total=len(files))

        def step(o: batch.Outcome) -> None:
            progress.update(task, advance=1, description=o.path[-60:])

        report = batch.ingest_paths(con, paths, step, files=files)
    try:
        con.close()
    except Exception:  # after an environment fault the connection may be gone already
        pass
    print_report(report, args.db)
    if report.fault:
        console.print(f"[red]Stopped:[/] {escape(report.fault)}. Nothing was recorded against the files; "
                      f"fix this and run the same command again: files already stored are skipped.")
        return EXIT_ENVIRONMENT
    return EXIT_REJECTED if report.failed else EXIT_OK


def print_report(report: batch.Report, db_path: str) -> None:
    n = len(report.outcomes)
    ok = report.by_status("ingested")
    console.print(
        f"{n} files seen: [green]{len(ok)} ingested[/], {len(report.by_status('unchanged'))} unchanged (skipped), "
        f"{len(report.by_status('relabelled'))} relabelled, "
        f"{len(report.by_status('placed'))} known content in a new place (labelled, not stored again), "
        f"{len(report.by_status('skipped'))} skipped (not regular files), "
        f"[red]{len(report.by_status('rejected'))} rejected[/], {len(report.by_status('unreadable'))} unreadable"
        f"  -> {escape(str(db_path))}", soft_wrap=True  # one line, whatever the terminal width
    )
    if ok:
        t = Table(title="ingested", show_edge=False)
        for c in ("file", "format", "rows"):
            t.add_column(c)
        for o in ok:
            c = o.counts
            main = [f"{c[k]:,} {label}" for k, label in (("runs", "runs"), ("samples", "numbers"),
                                                          ("series", "series"), ("points", "points")) if c.get(k)]
            tool = sum(v for k, v in c.items() if k not in ("runs", "samples", "series", "points"))
            t.add_row(escape(o.path), o.format, ", ".join(main + ([f"{tool:,} tool-table rows"] if tool else [])))
        console.print(t)
    bad = report.by_status("rejected") + report.by_status("unreadable") + report.by_status("skipped")
    for o in bad:
        where = f" (line {o.line})" if o.line else ""
        console.print(f"[red]{o.status}[/] {escape(o.path)}{where}: {escape(o.reason or '')}")


def cmd_info(args) -> int:
    """What the database holds, opened read-only: it never creates or changes a database."""
    try:
        con = db.open_db(args.db, read_only=True)
    except db.DatabaseProblem as e:
        console.print(f"[red]Cannot read it:[/] {escape(str(e))}")
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
    finally:
        con.close()
    t = Table(title=f"studies in {escape(str(args.db))}")
    for c, j in (("study", "left"), ("files", "right"), ("systems", "left"), ("formats", "left"), ("numbers", "right")):
        t.add_column(c, justify=j)  # type: ignore[arg-type]
    for study, n, systems, formats, numbers in studies:
        t.add_row(escape(str(study)), f"{n:,}", escape(systems or "-"), escape(formats or "-"), f"{numbers:,}")
    console.print(t)
    f = Table(title="files by format and status")
    for c in ("format", "status", "files"):
        f.add_column(c, justify="right" if c == "files" else "left")
    for fmt, status, n in files:
        f.add_row(escape(str(fmt or "-")), status, f"{n:,}")
    console.print(f)
    console.print(f"{totals[0]:,} measurements, {totals[1]:,} runs, {totals[2]:,} time-series points")
    return EXIT_OK


def cmd_validate(args) -> int:
    from validation import run as vrun

    return vrun.main(args.db)


# Commands that live in their own modules: each has ``register(subparsers)``, which adds its parser
# and sets ``func``. Keep heavy imports inside the command functions (cold start).
COMMAND_MODULES: list[str] = ["ingest.report_cli"]


def main(argv: list[str] | None = None) -> int:
    import importlib

    p = argparse.ArgumentParser(prog="iolab", description="Storage benchmark results database.")
    p.add_argument("--version", action="version", version=f"iolab {__version__}")
    sub = p.add_subparsers(dest="cmd", required=True)
    pi = sub.add_parser("ingest", help="ingest raw result files and folders")
    pi.add_argument("paths", nargs="+")
    pi.add_argument("--db", default=DEFAULT_DB)
    pi.set_defaults(func=cmd_ingest)
    pn = sub.add_parser("info", help="what the database holds")
    pn.add_argument("--db", default=DEFAULT_DB)
    pn.set_defaults(func=cmd_info)
    pv = sub.add_parser("validate", help="run the Great Expectations suites and store the results")
    pv.add_argument("--db", default=DEFAULT_DB)
    pv.set_defaults(func=cmd_validate)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    args = p.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
