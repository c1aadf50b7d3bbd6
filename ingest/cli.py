"""iolab command line: `iolab ingest PATH... [--db FILE]`, `iolab validate`, `iolab info`."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from . import __version__, batch, db

DEFAULT_DB = "data/iolab.duckdb"
console = Console(highlight=False)
if not console.is_terminal:  # logs and CI: wide lines rather than wrapped tables
    console = Console(highlight=False, width=160)


def cmd_ingest(args) -> int:
    paths = [Path(p) for p in args.paths]
    try:
        con = db.open_db(args.db)
    except db.DatabaseBusy as e:
        console.print(f"[red]Cannot ingest:[/] {e}")
        return 3
    files = list(batch.walk(paths))
    with Progress(TextColumn("[bold]ingest[/]"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.description}"), console=console, transient=True,
                  disable=not console.is_terminal) as progress:
        task = progress.add_task("", total=len(files))

        def step(o: batch.Outcome) -> None:
            progress.update(task, advance=1, description=o.path[-60:])

        report = batch.ingest_paths(con, paths, step, files=files)
    con.close()
    print_report(report, args.db)
    return 1 if report.failed else 0


def print_report(report: batch.Report, db_path: str) -> None:
    n = len(report.outcomes)
    ok = report.by_status("ingested")
    console.print(
        f"{n} files seen: [green]{len(ok)} ingested[/], {len(report.by_status('unchanged'))} unchanged (skipped), "
        f"{len(report.by_status('relabelled'))} relabelled, "
        f"{len(report.by_status('placed'))} known content in a new place (labelled, not stored again), "
        f"[red]{len(report.by_status('rejected'))} rejected[/], {len(report.by_status('unreadable'))} unreadable"
        f"  -> {db_path}"
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
            t.add_row(o.path, o.format, ", ".join(main + ([f"{tool:,} tool-table rows"] if tool else [])))
        console.print(t)
    bad = report.by_status("rejected") + report.by_status("unreadable")
    for o in bad:
        where = f" (line {o.line})" if o.line else ""
        console.print(f"[red]{o.status}[/] {o.path}{where}: {o.reason}")


def cmd_info(args) -> int:
    con = db.open_db(args.db)
    rows = con.execute(
        """SELECT format, status, count(*) FROM source_files GROUP BY ALL ORDER BY ALL"""
    ).fetchall()
    t = Table(title=f"{args.db}")
    for c in ("format", "status", "files"):
        t.add_column(c)
    for r in rows:
        t.add_row(*(str(x) for x in r))
    console.print(t)
    console.print(f"measurements: {con.execute('SELECT count(*) FROM measurements').fetchall()[0][0]} rows")
    return 0


def cmd_validate(args) -> int:
    from validation import run as vrun

    return vrun.main(args.db)


# Commands that live in their own modules: each has ``register(subparsers)``, which adds its parser
# and sets ``func``. Keep heavy imports inside the command functions (cold start).
COMMAND_MODULES: list[str] = ["ingest.report_cli", "ingest.lake"]


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
