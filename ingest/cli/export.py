"""`iolab export VIEW`: write any view or table of the database as CSV, Parquet or JSON."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..terminal import console, markup
from . import params, requires


def register(sub: Any) -> None:
    p = sub.add_parser("export", help="write any view or table as CSV, Parquet or JSON")
    p.add_argument("view", help="a view or table name, e.g. measurements, comparison, per_drive_iops")
    params.db(p)
    p.add_argument("--format", choices=["csv", "parquet", "json"], default="csv", help="output format")
    p.add_argument("--out", help="file to write (default: standard output; parquet needs --out)")
    p.set_defaults(func=cmd_export)


@requires.database()
def cmd_export(args: argparse.Namespace, con: Any) -> int:
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
        return requires.EXIT_USAGE
    if args.format == "parquet" and not args.out:
        console(stderr=True).print("[red]Parquet is binary:[/] give a file with --out")
        return requires.EXIT_USAGE
    quoted = '"' + args.view.replace('"', '""') + '"'  # a name from the catalog, quoted as an identifier
    df = con.sql(f"SELECT * FROM {quoted}").pl()
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
    return requires.EXIT_OK
