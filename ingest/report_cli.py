"""Read-only commands over a database: `iolab report`, `iolab compare`, `iolab export`.

All three open the database read-only and never create one (a missing file is an error with
advice). A read-only connection cannot open while an ingest writes: they wait for it, as ingest
waits for another ingest (ingest.db.connect), and `report` renders from one snapshot.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .config import REPORTS_DEFAULT, default_db
from .terminal import console, markup

DEFAULT_DB = default_db()
DB_HELP = "the DuckDB database file, opened read-only ($IOLAB_DB sets the default)"
COMPARE_COLUMNS = [
    "study",
    "metric",
    "unit",
    "direction",
    "baseline_system",
    "system",
    "workload_label",
    "block_size_bytes",
    "read_pct",
    "random_pct",
    "load",
    "scope",
    "baseline_config",
    "config",
    "baseline_value",
    "value",
    "ratio",
    "correction",
    "pct_better",
    "match_rule",
]


def register(sub) -> None:
    p = sub.add_parser("report", help="render the HTML reports (one snapshot of the database, offline pages)")
    p.add_argument("--db", default=DEFAULT_DB, help=DB_HELP)
    p.add_argument("--out", default=REPORTS_DEFAULT, help="folder for reports/<study>/*.html and index.html")
    p.add_argument("--study", action="append", help="only this study (repeatable; default: every study)")
    p.add_argument(
        "--force",
        action="store_true",
        help="render every page, even those whose notebook, views and data are unchanged since the last render",
    )
    p.set_defaults(func=cmd_report)
    p = sub.add_parser("compare", help="every system of a study against its baseline, at matched points")
    p.add_argument("--db", default=DEFAULT_DB, help=DB_HELP)
    p.add_argument("--study", required=True, help="the study whose systems are compared")
    p.add_argument("--baseline", help="compare with this system instead of the study's baseline")
    p.add_argument("--metric", action="append", help="only these metrics (default: iops, mbps, avg_latency_ms)")
    p.add_argument("--format", choices=["table", "csv", "json"], default="table", help="output format")
    p.set_defaults(func=cmd_compare)
    p = sub.add_parser("export", help="write any view or table as CSV, Parquet or JSON")
    p.add_argument("view", help="a view or table name, e.g. measurements, comparison, per_drive_iops")
    p.add_argument("--db", default=DEFAULT_DB, help=DB_HELP)
    p.add_argument("--format", choices=["csv", "parquet", "json"], default="csv", help="output format")
    p.add_argument("--out", help="file to write (default: standard output; parquet needs --out)")
    p.set_defaults(func=cmd_export)


def open_read_only(path: str):
    """The database, read-only, waiting while an ingest writes; None (and advice) if it is missing."""
    from . import db

    if not Path(path).is_file():
        console(stderr=True).print(
            f"[red]No database at {markup(path)}[/]: nothing is created by this command. "
            f"Ingest first (`iolab ingest DATA --db {markup(path)}`, or `make demo`)."
        )
        return None
    try:
        return db.connect(path, read_only=True)
    except db.DatabaseBusy as e:
        console(stderr=True).print(f"[red]Database busy:[/] {markup(str(e))}")
        return None


def cmd_report(args) -> int:
    from .reports import render

    return render.render(Path(args.db), Path(args.out), args.study, args.force)


def comparison_rows(con, study: str, baseline: str | None, metrics: list[str] | None):
    """The comparison of ``study``; with ``baseline``, against that system (same matching rules)."""
    metrics = metrics or ["iops", "mbps", "avg_latency_ms"]
    if baseline:
        # the views read the baseline from study_baseline: shadow it for this connection only
        lit = lambda v: "'" + v.replace("'", "''") + "'"  # noqa: E731  (DDL takes no parameters)
        con.execute(f"""CREATE OR REPLACE TEMP VIEW study_baseline AS
                        SELECT study, {lit(baseline)}::VARCHAR AS baseline_system,
                               'command line: --baseline' AS baseline_source, count(DISTINCT system) AS systems
                        FROM measurements WHERE study = {lit(study)} GROUP BY study""")
    cols = ", ".join(COMPARE_COLUMNS)
    return con.sql(
        f"""SELECT {cols} FROM comparison WHERE study = $1 AND metric IN (SELECT unnest($2::VARCHAR[]))
                       ORDER BY system, metric, block_size_bytes, read_pct, random_pct, load, workload_label""",
        params=[study, metrics],
    ).pl()


def cmd_compare(args) -> int:
    con = open_read_only(args.db)
    if con is None:
        return 2
    err = console(stderr=True)
    studies = {s for (s,) in con.execute("SELECT DISTINCT study FROM source_files WHERE study IS NOT NULL").fetchall()}
    if args.study not in studies:
        err.print(
            f"[red]No study '{markup(args.study)}'[/] in {markup(args.db)}; studies: "
            + markup(", ".join(sorted(studies)))
        )
        return 2
    systems = {
        s for (s,) in con.execute("SELECT DISTINCT system FROM measurements WHERE study = ?", [args.study]).fetchall()
    }
    if args.baseline and args.baseline not in systems:
        err.print(
            f"[red]No system '{markup(args.baseline)}'[/] in study {markup(args.study)}; systems: "
            + markup(", ".join(sorted(s for s in systems if s)))
        )
        return 2
    df = comparison_rows(con, args.study, args.baseline, args.metric)
    base = con.execute(
        "SELECT baseline_system, baseline_source FROM study_baseline WHERE study = ?", [args.study]
    ).fetchall()
    unmatched = con.execute(
        "SELECT count(*) FROM comparison_unmatched WHERE study = ? AND metric IN (SELECT unnest(?::VARCHAR[]))",
        [args.study, args.metric or ["iops", "mbps", "avg_latency_ms"]],
    ).fetchall()[0][0]
    con.close()
    if args.format == "csv":
        sys.stdout.write(df.write_csv())
    elif args.format == "json":
        sys.stdout.write(json.dumps(df.to_dicts(), default=str, indent=1) + "\n")
    else:
        _print_table(df, args.study, base[0] if base else (None, None), unmatched)
    return 0


def _print_table(df, study: str, base, unmatched: int) -> None:
    from rich.console import Console
    from rich.table import Table

    out = Console(highlight=False, emoji=False, width=None if sys.stdout.isatty() else 200)
    t = Table(title=markup(f"{study}: each system vs {base[0]} ({base[1]})"), show_edge=False)
    for c in ("system", "workload", "metric", "baseline", "value", "ratio", "% better", "match"):
        t.add_column(c, justify="right" if c in ("baseline", "value", "ratio", "% better") else "left")
    for r in df.iter_rows(named=True):
        pct = r["pct_better"]
        colour = "green" if pct is not None and pct > 0 else "red" if pct is not None and pct < 0 else ""
        t.add_row(
            markup(str(r["system"])),
            markup(str(r["workload_label"])),
            markup(f"{r['metric']} ({r['unit']}, {r['direction']} is better)"),
            f"{r['baseline_value']:,.4g}",
            f"{r['value']:,.4g}",
            "" if r["ratio"] is None else f"{r['ratio']:.4f}",
            "" if pct is None else f"[{colour}]{pct:+.2f} %[/]" if colour else f"{pct:+.2f} %",
            markup(str(r["match_rule"])),
        )
    out.print(t)
    out.print(f"{df.height} matched points; {unmatched} points without a match (view comparison_unmatched).")


def cmd_export(args) -> int:
    con = open_read_only(args.db)
    if con is None:
        return 2
    names = {
        n
        for (n,) in con.execute(
            """SELECT view_name FROM duckdb_views() WHERE NOT internal AND database_name = current_database()
           UNION SELECT table_name FROM duckdb_tables() WHERE NOT internal AND database_name = current_database()"""
        ).fetchall()
    }
    if args.view not in names:
        console(stderr=True).print(
            f"[red]No view or table '{markup(args.view)}'[/]; there are: " + markup(", ".join(sorted(names)))
        )
        return 2
    if args.format == "parquet" and not args.out:
        console(stderr=True).print("[red]Parquet is binary:[/] give a file with --out")
        return 2
    quoted = '"' + args.view.replace('"', '""') + '"'  # a name from the catalog, quoted as an identifier
    df = con.sql(f"SELECT * FROM {quoted}").pl()
    con.close()
    if args.format == "parquet":
        df.write_parquet(args.out)
    else:
        text = df.write_csv() if args.format == "csv" else json.dumps(df.to_dicts(), default=str, indent=1) + "\n"
        if args.out:
            Path(args.out).write_text(text, encoding="utf-8")
        else:
            sys.stdout.write(text)
    if args.out:
        console(stderr=True).print(f"{df.height:,} rows of {markup(args.view)} -> {markup(args.out)}")
    return 0
