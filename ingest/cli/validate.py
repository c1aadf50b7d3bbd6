"""`iolab validate`: run the Great Expectations suites over the database and store the results."""

from __future__ import annotations

import argparse
from typing import Any

from . import params, requires


def register(sub: Any) -> None:
    p = sub.add_parser("validate", help="run the Great Expectations suites and store the results")
    params.db(p)
    p.set_defaults(func=cmd_validate)


@requires.database(connect=False)
def cmd_validate(args: argparse.Namespace) -> int:
    from validation import run as vrun

    return vrun.main(args.db)
