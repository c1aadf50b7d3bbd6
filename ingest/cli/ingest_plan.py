"""`iolab ingest --dry-run`: the ingest's plan (ingest/plan.py) printed, nothing written.

The store's index is read from the database when there is one (read-only); a database that does not
exist is not made: the plan is then made against the empty index. Every file is hashed, the big
ones too, so the plan says what an ingest would do with it (rsync --dry-run, terraform plan).
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..terminal import say, shown
from .requires import EXIT_ENVIRONMENT, EXIT_OK

if TYPE_CHECKING:
    from ..plan import Plan, Step
    from ..store.index import Index

LABELS_SHOWN = ("study", "system", "generation", "firmware", "measurement")  # on a line; json has them all


def index_of(db_path: str) -> Index | str:
    """The store's index of ``db_path`` (read-only, a database that does not exist: empty), or why
    it cannot be read."""
    from .. import db
    from ..store import index

    if not Path(db_path).is_file():
        return index.Index()
    try:
        con = db.open_db(db_path, read_only=True)
    except db.DatabaseProblem as e:
        return str(e)
    try:
        return index.read(con)
    finally:
        con.close()


def absent(idx: Index, paths: list[Path]) -> list[Path]:
    """Paths that name nothing on disk and nothing the index holds (cli.ingest._absent)."""
    from ..store import places

    gone = [p for p in paths if not os.path.lexists(p)]
    return [p for p in gone if not any(places.inside(a, places.text(places.canonical(p))) for a in idx.known)]


def dry_run(
    args: argparse.Namespace, paths: list[Path], walked: list, marks: list[str], not_found: Callable[[list[Path]], int]
) -> int:
    """The plan of ``iolab ingest`` with these arguments, printed; or the exit code of a fault (said;
    ``not_found`` says the paths that name nothing)."""
    from .. import plan

    idx = index_of(args.db)
    if isinstance(idx, str):
        if args.format == "json":
            print(json.dumps({"db": args.db, "error": idx}))
        else:
            say(("Cannot plan:", "red"), f" {shown(idx)}")
        return EXIT_ENVIRONMENT
    if missing := absent(idx, paths):
        return not_found(missing)
    planned = plan.make(paths, walked, idx, verify=args.verify, hash_all=True)
    if args.format == "json":
        print(json.dumps(plan_json(planned, args.db, marks), indent=1, default=str))
    else:
        print_plan(planned, args.db, marks, quiet=args.quiet, verbose=args.verbose)
    return EXIT_OK


def _format(s: Step) -> str | None:
    mod = s.mod
    return getattr(mod, "FORMAT", None) if mod is not None and not isinstance(mod, str) else None


def plan_json(planned: Plan, db_path: str, marks: list[str]) -> dict[str, Any]:
    from ..plan import Action

    return {
        "db": db_path,
        "dry_run": True,
        "notes": planned.notes,
        "warnings": marks,
        "roots": [str(r) for r in planned.roots.paths],
        "summary": {str(a): sum(s.action == a for s in planned.steps) for a in Action},
        "files": [
            {"path": s.path, "action": s.action, "reason": s.reason, "format": _format(s), "labels": s.labels}
            for s in planned.steps
        ],
    }


def _line(s: Step) -> str:
    """One step as a line: action, path, format, labels, and the reason."""
    fmt = f" [{_format(s)}]" if _format(s) else ""
    labels = ", ".join(f"{k}={s.labels[k]}" for k in LABELS_SHOWN if s.labels.get(k) is not None)
    text = f"{s.action:<10} {s.path}{fmt}" + (f" ({labels})" if labels else "")
    return shown(text + (f": {s.reason}" if s.reason else ""))


def print_plan(planned: Plan, db_path: str, marks: list[str], *, quiet: bool, verbose: bool) -> None:
    from ..plan import Action

    if not quiet:
        for s in planned.steps:
            if verbose or s.action != Action.UNCHANGED or s.changes:
                print(_line(s))
    for note in planned.notes:
        say(("Data root:", "bold"), f" {shown(note)}")
    for warning in marks:
        say(("Warning:", "yellow"), f" {shown(warning)}")
    counts = [f"{n} {a}" for a in Action if (n := sum(s.action == a for s in planned.steps))]
    say(
        ("Plan:", "bold"),
        f" {', '.join(counts) or 'no files'} -> {shown(db_path)}. "
        + ("Nothing to do." if planned.empty() else "Nothing was written (--dry-run): run without it to apply."),
    )
