"""`iolab validate`: run the Great Expectations suites over the database, store and print the results.
Exit 1 when an expectation failed, unless --warn-only."""

from __future__ import annotations

import argparse
from typing import Any

from . import params, requires
from .steps import steps


def register(sub: Any) -> None:
    p = sub.add_parser(
        "validate",
        help="run the Great Expectations suites and store the results",
        description="Run the Great Expectations suites and store the results; exit 1 when an expectation failed.",
    )
    params.db(p)
    p.add_argument(
        "--warn-only", action="store_true", help="exit 0 even when expectations failed (they are still reported)"
    )
    params.output(p)
    p.set_defaults(func=cmd_validate)


@requires.database(read_only=False)
def cmd_validate(args: argparse.Namespace, con: Any) -> int:
    from iolab.validation import run as vrun

    with steps("validate") as step:
        rows = vrun.validate(con, step=step)
    failed = sum(not r["success"] for r in rows)
    if args.format == "json":
        params.write_json(
            {
                "db": args.db,
                "expectations": len(rows),
                "met": len(rows) - failed,
                "failed": failed,
                "results": [{k: v for k, v in r.items() if k not in ("seconds", "run_at")} for r in rows],
            }
        )
    else:
        vrun.show(rows, args.db)
    return requires.EXIT_REJECTED if failed and not args.warn_only else requires.EXIT_OK
