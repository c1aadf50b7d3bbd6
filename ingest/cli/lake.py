"""`iolab lake export|views`: the arguments of the lake commands; the logic is in ingest/lake/."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from ..lake import export, views


def register(sub: Any) -> None:
    from ..config import default_db

    p = sub.add_parser("lake", help="a Parquet lake of the database; the views computed by DuckDB or Spark")
    s = p.add_subparsers(dest="lake_cmd", required=True, metavar="ACTION", help="export or views")
    e = s.add_parser("export", help="write the database as a Parquet lake (again: only what is new)")
    e.add_argument("--db", default=default_db(), help="the database to export (read-only)")
    e.add_argument(
        "--to", required=True, metavar="DIR", help="the lake folder (created; an existing lake gets only what is new)"
    )
    e.set_defaults(func=cmd_export)
    v = s.add_parser("views", help="compute every analysis view from the lake into DIR/views/<view>/")
    v.add_argument("--lake", required=True, metavar="DIR", help="a lake written by `iolab lake export`")
    v.add_argument(
        "--engine",
        choices=["spark", "duckdb"],
        default="duckdb",
        help="duckdb on this machine, or Apache Spark (local[*] unless --master)",
    )
    v.add_argument("--master", help="Spark master URL (default local[*]; spark://host:7077, yarn, k8s://...)")
    v.add_argument("--out", metavar="DIR", help="write the views here instead of DIR/views")
    v.set_defaults(func=cmd_views)


def cmd_export(args: argparse.Namespace) -> int:
    from ..terminal import console, markup

    if not Path(args.db).is_file():
        console(stderr=True).print(
            f"[red]No database at {markup(args.db)}[/]: ingest first (`iolab ingest DATA --db {markup(args.db)}`)."
        )
        return 2
    m = export(args.db, args.to)
    last = m["last_run"]
    console(stderr=True).print(
        f"{len(last['new_sources'])} new sources (batch {last['batch']}), "
        f"{len(last['rewritten_batches'])} batches rewritten, {m['row_counts']['measurements']:,} "
        f"measurements, {m['row_counts']['points']:,} points -> {markup(args.to)}"
    )
    return 0


def cmd_views(args: argparse.Namespace) -> int:
    from ..terminal import console, markup

    t0 = time.perf_counter()
    counts = views(args.lake, args.engine, args.master, args.out)
    console(stderr=True).print(
        f"{len(counts)} views computed by {args.engine} in {time.perf_counter() - t0:.1f} s "
        f"-> {markup(args.out or Path(args.lake) / 'views')}"
    )
    return 0
