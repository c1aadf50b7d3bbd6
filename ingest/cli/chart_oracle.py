"""The chart oracle over a folder of rendered pages, each chart against the view it draws.

What it checks: ingest/reports/oracle.py. Without the database, the views are not checked.

    python -m iolab.cli.chart_oracle [--db data/iolab.duckdb] reports

Not an `iolab` command (`make check-reports` runs the oracle with the browser's checks); its
arguments are parsed here because argument parsing lives in ingest/cli/ only.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import db as dbm
from ..config import default_db
from ..reports import oracle
from ..terminal import shown


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--db", default=default_db())
    p.add_argument("reports", nargs="?", default="reports")
    a = p.parse_args(argv)
    con = dbm.connect(Path(a.db), read_only=True) if Path(a.db).is_file() else None
    bad = 0
    for page in sorted(Path(a.reports).rglob("*.html")):
        for d in oracle.check_page(page, con):
            bad += 1
            print(shown(d))
    print(f"chart oracle: {bad} defect(s)" + ("" if con else " (no database: views not checked)"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
