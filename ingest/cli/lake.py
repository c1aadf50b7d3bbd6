"""`iolab lake export|views`: the arguments of the lake commands; the logic is in ingest/lake/."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from . import params, requires
from .steps import steps


def register(sub: Any) -> None:
    p = sub.add_parser("lake", help="a Parquet lake of the database; the views computed by DuckDB or Spark")
    s = p.add_subparsers(dest="lake_cmd", required=True, metavar="ACTION", help="export, views or status")
    e = s.add_parser("export", help="write the database as a Parquet lake (again: only what is new)")
    params.db(e, text="the database to export (read-only)")
    e.add_argument(
        "--to", required=True, metavar="DIR", help="the lake folder (created; an existing lake gets only what is new)"
    )
    params.output(e)
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
    v.add_argument(
        "--view",
        action="append",
        metavar="NAME",
        help="compute only this view and those it reads (repeatable); the folder then holds just them",
    )
    params.output(v)
    v.add_argument("--verbose", action="store_true", help="show Spark's warnings (code generation, plans)")
    v.set_defaults(func=cmd_views)
    st = s.add_parser("status", help="whether the lake's views are current, stale (an export since) or missing")
    st.add_argument("--lake", required=True, metavar="DIR", help="a lake written by `iolab lake export`")
    st.add_argument("--out", metavar="DIR", help="the views folder, if not DIR/views")
    params.output(st)
    st.set_defaults(func=cmd_status)


def cmd_export(args: argparse.Namespace) -> int:
    from ..lake import export
    from ..terminal import console, markup

    if not Path(args.db).is_file():
        console(stderr=True).print(
            f"[red]No database at {markup(args.db)}[/]: ingest first (`iolab ingest DATA --db {markup(args.db)}`)."
        )
        return 2
    from .. import db
    from ..outputs import Refused

    try:
        with steps("lake export") as step:
            m = export(args.db, args.to, step=step)
    except Refused as e:
        return requires.refused(e, "Not exporting the lake")
    except db.DatabaseProblem as e:
        console(stderr=True).print(f"[red]Cannot use the database:[/] {markup(e)}")
        return requires.EXIT_ENVIRONMENT
    except Exception as e:
        if (bad := requires.cannot_write(e, args.to)) is None:
            raise
        return bad
    last = m["last_run"]
    if args.format == "json":
        params.write_json({"lake": args.to, "db": args.db, "last_run": last, "row_counts": m["row_counts"]})
        return 0
    console(stderr=True).print(
        f"{len(last['new_sources'])} new sources (batch {last['batch']}), "
        f"{len(last['rewritten_batches'])} batches rewritten, {m['row_counts']['measurements']:,} "
        f"measurements, {m['row_counts']['points']:,} points -> {markup(args.to)}"
    )
    return 0


def cmd_views(args: argparse.Namespace) -> int:
    from ..lake import owned, views
    from ..lake.views import TooBig
    from ..terminal import console, markup

    out = Path(args.out) if args.out else Path(args.lake) / "views"
    if not (Path(args.lake) / owned.MANIFEST).is_file():
        console(stderr=True).print(
            f"[red]Not writing the views[/]: {markup(args.lake)} is not an iolab lake (no {owned.MANIFEST}): "
            "run `iolab lake export` first"
        )
        return requires.EXIT_USAGE
    if why := owned.incomplete(Path(args.lake)):
        console(stderr=True).print(f"[red]Not computing the views[/]: the lake is incomplete: {markup(why)}")
        return requires.EXIT_USAGE
    if owned.read(out) and owned.status(Path(args.lake), out) == "stale":
        console(stderr=True).print(f"The views in {markup(out)} are stale (an export since): computing them again.")
    t0 = time.perf_counter()
    try:
        with steps("lake views") as step:
            counts = views(
                args.lake, args.engine, args.master, args.out, only=args.view, step=step, verbose=args.verbose
            )
    except (owned.NotOurs, ValueError, TooBig) as e:
        console(stderr=True).print(f"[red]Not writing the views[/]: {markup(str(e))}")
        return 2
    except Exception as e:
        if (bad := requires.cannot_write(e, out)) is None:
            raise
        return bad
    seconds = time.perf_counter() - t0
    if args.format == "json":
        params.write_json({"views": str(out), "engine": args.engine, "seconds": round(seconds, 1), "rows": counts})
        return 0
    console(stderr=True).print(
        f"{len(counts)} views computed by {args.engine} in {seconds:.1f} s "
        f"-> {markup(args.out or Path(args.lake) / 'views')}"
    )
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    """Exit 0 when the views are current, 1 when stale or missing."""
    from ..lake import owned
    from ..terminal import console, markup

    lake = Path(args.lake)
    out = Path(args.out) if args.out else lake / "views"
    if not lake.is_dir():
        console(stderr=True).print(
            f"[red]No lake at {markup(lake)}[/]: `iolab lake export --to {markup(lake)}` writes one"
        )
        return requires.EXIT_USAGE
    state = owned.status(lake, out)
    say = {
        "incomplete": f"the lake is incomplete: {owned.incomplete(lake)}",
        "current": "current: computed from the lake's latest export",
        "stale": "stale: computed before the lake's latest export; `iolab lake views` computes them again",
        "missing": "missing: `iolab lake views` computes them",
    }[state]
    if args.format == "json":
        why = owned.incomplete(lake) if state == "incomplete" else None
        params.write_json({"lake": str(lake), "views": str(out), "state": state} | ({"why": why} if why else {}))
    else:
        console().print(f"views in {markup(out)}: {markup(say)}")
    return 0 if state == "current" else 1
