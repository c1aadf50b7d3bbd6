"""`iolab validate`: run the Great Expectations suites over the database, store and print the results.
Exit 1 when an expectation failed, unless --warn-only."""

from __future__ import annotations

import argparse
from typing import Any

from . import params, requires
from .steps import steps
from .tables import JSON, Cell, Col, table


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
        show(rows, args.db)
    return requires.EXIT_REJECTED if failed and not args.warn_only else requires.EXIT_OK


SUITES = [
    Col("suite", key=True),
    Col("expectations", number=True, drop=2),
    Col("passed", number=True, drop=1),
    Col("failed", number=True),
    Col("rows", number=True, drop=3),
]


def show(rows: list[dict[str, Any]], db_path: str) -> None:
    """The results as a table per suite, then each failed expectation with examples."""
    from ..terminal import console, markup, shown

    by: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by.setdefault(r["suite"], []).append(r)
    cells: list[list[Cell]] = []
    for suite, rs in by.items():
        failed = sum(not r["success"] for r in rs)
        cells.append(
            [suite, str(len(rs)), str(len(rs) - failed), (str(failed), "red") if failed else "0"]
            + [f"{rs[0]['rows_validated']:,}"]
        )
    table(f"validation of {shown(db_path)}", SUITES, cells, JSON)
    bad = [r for r in rows if not r["success"]]
    for r in bad:
        args = ", ".join(f"{k}={v}" for k, v in r["kwargs"].items())
        console().print(
            f"[red]failed[/] {r['suite']}: {r['expectation']}({markup(args)}): "
            f"{r['unexpected_count']} unexpected, e.g. {markup(r['examples'][:3])}"
        )
    console().print(
        f"{len(rows)} expectations, {len(rows) - len(bad)} met, {len(bad)} failed (stored in validation_results)"
    )
