"""`iolab report`: render the HTML reports from one snapshot of the database (offline pages)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..config import REPORTS_DEFAULT
from . import params, requires


def register(sub: Any) -> None:
    p = sub.add_parser("report", help="render the HTML reports (one snapshot of the database, offline pages)")
    params.db(p)
    p.add_argument("--out", default=REPORTS_DEFAULT, help="folder for reports/<study>/*.html and index.html")
    p.add_argument("--study", action="append", help="only this study (repeatable; default: every study)")
    p.add_argument(
        "--force",
        action="store_true",
        help="render every page, even those whose notebook, views and data are unchanged since the last render",
    )
    p.set_defaults(func=cmd_report)


@requires.database(connect=False)
def cmd_report(args: argparse.Namespace) -> int:
    from ..reports import render

    return render.render(Path(args.db), Path(args.out), args.study, args.force)
