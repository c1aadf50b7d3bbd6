"""`iolab validate`: run the Great Expectations suites over the database, store and print the results.
Exit 1 when an expectation failed, unless --warn-only."""

from __future__ import annotations

import argparse
from typing import Any

from . import params, requires


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
    p.set_defaults(func=cmd_validate)


@requires.database(read_only=False)
def cmd_validate(args: argparse.Namespace, con: Any) -> int:
    from validation import run as vrun

    rows = vrun.validate(con)
    vrun.show(rows, args.db)
    failed = any(not r["success"] for r in rows)
    return requires.EXIT_REJECTED if failed and not args.warn_only else requires.EXIT_OK
