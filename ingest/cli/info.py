"""`iolab info`: what the database holds (studies, files by format and status, totals), read-only."""

from __future__ import annotations

import argparse
from typing import Any

from ..terminal import console, markup, say, shown
from . import params, requires


def register(sub: Any) -> None:
    p = sub.add_parser("info", help="what the database holds")
    params.db(p)
    p.set_defaults(func=cmd_info)


@requires.database()
def cmd_info(args: argparse.Namespace, con: Any) -> int:
    """What the database holds, opened read-only: it never creates or changes a database."""
    studies = con.execute("""
        SELECT f.study, count(DISTINCT f.source_id) AS files,
               (SELECT string_agg(DISTINCT m.system, '; ' ORDER BY m.system) FROM measurements m WHERE m.study = f.study),
               string_agg(DISTINCT f.format, ', ' ORDER BY f.format),
               (SELECT count(*) FROM measurements m WHERE m.study = f.study)
        FROM source_files f WHERE f.status = 'ok' GROUP BY f.study ORDER BY f.study""").fetchall()
    files = con.execute("SELECT format, status, count(*) FROM source_files GROUP BY ALL ORDER BY ALL").fetchall()
    totals = con.execute("""SELECT (SELECT count(*) FROM measurements), (SELECT count(*) FROM runs),
                                   (SELECT coalesce(sum(points), 0) FROM point_files)""").fetchall()[0]
    roots = [r for (r,) in con.execute("SELECT path FROM data_roots ORDER BY 1").fetchall()]
    left = con.execute("SELECT count(*) FROM source_history WHERE left_at IS NOT NULL").fetchall()[0][0]
    from .. import db

    store = db.store_problems(con)
    copies = _copies(con)
    from rich.table import Table

    t = Table(title=f"studies in {markup(args.db)}")
    for c, j in (("study", "left"), ("files", "right"), ("systems", "left"), ("formats", "left"), ("numbers", "right")):
        t.add_column(c, justify=j)  # type: ignore[arg-type]
    for study, n, systems, formats, numbers in studies:
        t.add_row(markup(study), f"{n:,}", markup(systems or "-"), markup(formats or "-"), f"{numbers:,}")
    console().print(t)
    f = Table(title="files by format and status")
    for c in ("format", "status", "files"):
        f.add_column(c, justify="right" if c == "files" else "left")
    for fmt, status, n in files:
        f.add_row(markup(fmt or "-"), status, f"{n:,}")
    console().print(f)
    say(f"{totals[0]:,} measurements, {totals[1]:,} runs, {totals[2]:,} time-series points")
    say(
        f"mirrors {', '.join(shown(r) for r in roots) or 'no folder yet'}; {left:,} earlier place(s) of files "
        "left the analysis (deleted, moved, replaced or removed: see source_history)"
    )
    if copies[0]:
        say(f"{copies[0]:,} file(s) are copies of another file of their study (the same bytes): each run counts once")
    if copies[1]:
        say(
            ("Warning:", "yellow"),
            f" {copies[1]:,} of those copies are labelled otherwise than the file that counts (another system, "
            "generation or price): their labels are not used. `iolab export study_copies` lists them",
        )
    for problem in store:
        say(("Time-series store:", "red"), f" {shown(problem)}")
    return requires.EXIT_ENVIRONMENT if store else requires.EXIT_OK


def _copies(con: Any) -> tuple[int, int]:
    """(copies in a study that do not count, those labelled otherwise): view study_copies."""
    import duckdb

    try:
        return con.execute("SELECT count(*), count(*) FILTER (other_labels) FROM study_copies").fetchall()[0]
    except duckdb.CatalogException:  # a database made before the view, opened read-only
        return 0, 0
