"""Check every rendered report in headless Chromium, every chart with the chart oracle, and every
print edition read back (ingest/reports/check.py says what is checked).

    python -m iolab.cli.check_reports [--db data/iolab.duckdb] reports   (make check-reports)

Not an `iolab` command: a check for the reports' makers, run by `make check-reports`. It sits
here, above the reports it checks, because argument parsing lives in ingest/cli/ only.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..reports.check import check, chromium
from ..terminal import shown


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--db", help="check each chart against the views of this database")
    p.add_argument("reports", nargs="?", default="reports")
    a = p.parse_args(argv)
    root = Path(a.reports)
    if not chromium():
        print("chromium not found: `apt-get install chromium` (make check-reports does it)")
        return 2
    return 1 if pages(root, a.db) + editions(root) else 0


def pages(root: Path, db: str | None) -> int:
    """Check every page under ``root``; how many are bad."""
    from ..reports import oracle

    con = None
    if db and Path(db).is_file():  # the oracle checks each chart against the views of the database
        from .. import db as dbm

        con = dbm.connect(Path(db), read_only=True)
    bad = 0
    for page in sorted(root.rglob("*.html")):
        r = check(page)
        defects = r["cut_off"] + oracle.check_page(page, con)
        ok = r["dom_bytes"] > 1000 and (r["min_marks"] is None or r["min_marks"] > 3) and not defects
        bad += not ok
        print(
            f"{'ok ' if ok else 'BAD'} {shown(page)}: {r['charts']} charts ({r['live']} live, "
            f"fewest marks {r['min_marks']}), "
            f"{r['tables']} tables, screenshot {shown(r['png'])}"
        )
        for d in defects:
            print(f"    {shown(d)}")
    if con is not None:
        con.close()
    return bad


def editions(root: Path) -> int:
    """Check every print edition under ``root`` (iolab report --format pdf); how many are bad."""
    from ..reports import pdf

    bad = 0
    for edition in sorted(root.rglob("*.pdf")):
        found = pdf.defects(edition)
        bad += bool(found)
        print(f"{'BAD' if found else 'ok '} {shown(edition)}: print edition")
        for d in found:
            print(f"    {shown(d)}")
    return bad


if __name__ == "__main__":
    sys.exit(main())
