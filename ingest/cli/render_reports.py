"""Render the reports of a database into a folder, as `iolab report` does without its checks and
progress: the page-by-page entry the tests and scripts use.

    python -m iolab.cli.render_reports [--db data/iolab.duckdb] [--out reports] [--study S] [--force]

Not an `iolab` command; its arguments are parsed here because argument parsing lives in
ingest/cli/ only (the renderer is ingest/reports/render.py).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..config import REPORTS_DEFAULT, default_db
from ..reports.render import render


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description="Execute the notebooks per study and render self-contained, offline HTML reports."
    )
    p.add_argument("--db", default=default_db())
    p.add_argument("--out", default=REPORTS_DEFAULT)
    p.add_argument("--study", action="append", help="only these studies")
    p.add_argument("--force", action="store_true", help="render every page, even those unchanged since the last run")
    a = p.parse_args(argv)
    return render(Path(a.db), Path(a.out), a.study, a.force)


if __name__ == "__main__":
    sys.exit(main())
