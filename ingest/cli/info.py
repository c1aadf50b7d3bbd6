"""`iolab info`: what the database holds (studies, files by format and status, totals), read-only."""

from __future__ import annotations

import argparse
from typing import Any

from ..terminal import say, shown
from . import params, requires
from .tables import JSON as MORE
from .tables import Col, table


def register(sub: Any) -> None:
    p = sub.add_parser("info", help="what the database holds")
    params.db(p)
    params.output(p)
    p.set_defaults(func=cmd_info)


@requires.database()
def cmd_info(args: argparse.Namespace, con: Any) -> int:
    """What the database holds, opened read-only: it never creates or changes a database."""
    doc = holdings(con, args.db) | {"db_found": getattr(args, "db_found", "--db")}
    if args.format == "json":
        params.write_json(doc)
    else:
        _print(doc)
    return requires.EXIT_ENVIRONMENT if doc["store_problems"] else requires.EXIT_OK


def holdings(con: Any, db_path: str) -> dict[str, Any]:
    """What ``iolab info`` says, as one object (its --format json)."""
    from .. import db

    studies = con.execute("""
        SELECT f.study, count(DISTINCT f.source_id) AS files,
               (SELECT list(DISTINCT m.system ORDER BY m.system) FILTER (m.system IS NOT NULL)
                FROM measurements m WHERE m.study = f.study),
               list(DISTINCT f.format ORDER BY f.format) FILTER (f.format IS NOT NULL),
               (SELECT count(*) FROM measurements m WHERE m.study = f.study)
        FROM source_files f WHERE f.status = 'ok' GROUP BY f.study ORDER BY f.study""").fetchall()
    files = con.execute("SELECT format, status, count(*) FROM source_files GROUP BY ALL ORDER BY ALL").fetchall()
    totals = con.execute("""SELECT (SELECT count(*) FROM measurements), (SELECT count(*) FROM runs),
                                   (SELECT coalesce(sum(points), 0) FROM point_files)""").fetchall()[0]
    roots = [r for (r,) in con.execute("SELECT path FROM data_roots ORDER BY 1").fetchall()]
    measured = con.execute("""
        SELECT study, system, measurement, measured_by, runs, runs_with_numbers, first_run, is_current, current_note
        FROM system_measurements ORDER BY study, system, measurement_no NULLS LAST, measurement""").fetchall()
    left = con.execute("SELECT count(*) FROM source_history WHERE left_at IS NOT NULL").fetchall()[0][0]
    copies = _copies(con)
    return {
        "db": db_path,
        "studies": [
            {"study": s, "files": n, "systems": sy or [], "formats": fm or [], "numbers": k}
            for s, n, sy, fm, k in studies
        ],
        # each system's measurements, as `iolab compare --measurement SYSTEM=LABEL` names them
        "measurements": [
            dict(zip(MEASURED, row, strict=True)) | {"first_run": row[6].isoformat(sep=" ") if row[6] else None}
            for row in measured
        ],
        "files": [{"format": f, "status": st, "files": n} for f, st, n in files],
        "totals": dict(zip(("measurements", "runs", "points"), totals, strict=True)),
        "data_roots": roots,
        "left_analysis": left,
        "copies": copies[0],
        "copies_labelled_otherwise": copies[1],
        "store_problems": db.store_problems(con),
    }


MEASURED = (
    "study",
    "system",
    "measurement",
    "measured_by",
    "runs",
    "runs_with_numbers",
    "first_run",
    "current",
    "note",
)


STUDIES = [
    Col("study", key=True),
    Col("files", number=True, drop=2),
    Col("systems", drop=3, shorten=True),
    Col("formats", drop=4, shorten=True),
    Col("numbers", number=True, drop=1),
]
MEASUREMENTS = [
    Col("study", key=True),
    Col("system", key=True, wrap=18),
    Col("measurement", key=True),
    Col("by", drop=5),
    Col("runs", number=True, drop=1),
    Col("with numbers", number=True, drop=4),
    Col("first run", drop=3),
    Col("current", drop=2, shorten=True),
]
FILES = [Col("format", key=True), Col("status", key=True), Col("files", number=True)]


def _print(doc: dict[str, Any]) -> None:
    how = {"--db": "", "the default": ""}.get(doc["db_found"], f" ({shown(doc['db_found'])})")
    studies = [
        [shown(s["study"]), f"{s['files']:,}", shown("; ".join(s["systems"]) or "-")]
        + [shown(", ".join(s["formats"]) or "-"), f"{s['numbers']:,}"]
        for s in doc["studies"]
    ]
    table(f"studies in {shown(doc['db'])}{how}", STUDIES, studies, MORE)
    measured = [
        [shown(r["study"]), shown(r["system"]), shown(r["measurement"]), r["measured_by"], f"{r['runs']:,}"]
        # counted where it decides
        + ["" if r["runs_with_numbers"] is None else f"{r['runs_with_numbers']:,}", (r["first_run"] or "-")[:16]]
        + ["yes" if r["current"] else (shown(r["note"]) if r["note"] else "no")]
        for r in doc["measurements"]
    ]
    table(
        "measurements of each system (`iolab compare --measurement SYSTEM=LABEL` names one)",
        MEASUREMENTS,
        measured,
        MORE,
    )
    files = [[shown(r["format"] or "-"), r["status"], f"{r['files']:,}"] for r in doc["files"]]
    table("files by format and status", FILES, files, MORE)
    n = doc["totals"]
    say(f"{n['measurements']:,} measurements, {n['runs']:,} runs, {n['points']:,} time-series points")
    say(
        f"mirrors {', '.join(shown(r) for r in doc['data_roots']) or 'no folder yet'}; {doc['left_analysis']:,} "
        "earlier place(s) of files left the analysis (deleted, moved, replaced or removed: see source_history)"
    )
    if doc["copies"]:
        say(
            f"{doc['copies']:,} file(s) are copies of another file of their study (the same bytes): each run counts once"
        )
    if doc["copies_labelled_otherwise"]:
        say(
            ("Warning:", "yellow"),
            f" {doc['copies_labelled_otherwise']:,} of those copies are labelled otherwise than the file that counts "
            "(another system, generation or price): their labels are not used. `iolab export study_copies` lists them",
        )
    for problem in doc["store_problems"]:
        say(("Time-series store:", "red"), f" {shown(problem)}")


def _copies(con: Any) -> tuple[int, int]:
    """(copies in a study that do not count, those labelled otherwise): view study_copies."""
    import duckdb

    try:
        return con.execute("SELECT count(*), count(*) FILTER (other_labels) FROM study_copies").fetchall()[0]
    except duckdb.CatalogException:  # a database made before the view, opened read-only
        return 0, 0
