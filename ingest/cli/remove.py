"""`iolab remove PATH... | --study S`: take files, folders or a study out of the analysis."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..terminal import console, say, shown
from . import params, requires
from .ingest import _absent, _line, _not_found


def register(sub: Any) -> None:
    p = sub.add_parser(
        "remove",
        help="take files, folders or a study out of the analysis",
        description="Take the places below each PATH (on disk or not), or every place of a study, out of "
        "the analysis; their history stays in source_history. A file still on disk comes back at the next "
        "ingest of its folder: move it out of the data folder to retire it for good.",
    )
    p.add_argument("paths", nargs="*", metavar="PATH", help="files or folders")
    params.study(p, help="every place of this study")
    params.db(p)
    params.output(p)
    p.set_defaults(func=cmd_remove)


@requires.database(read_only=False)
def cmd_remove(args: argparse.Namespace, con: Any) -> int:
    """Retire places by path or study (batch.remove); say which, and which are still on disk."""
    from .. import batch

    if not args.paths and not args.study:
        console(stderr=True).print("[red]Nothing to remove:[/] name files or folders, or --study STUDY")
        return requires.EXIT_USAGE
    if args.study and (bad := requires.known_study(con, args.study, args.db)) is not None:
        return bad
    if absent := _absent(con, [Path(p) for p in args.paths]):  # a typo: as `iolab ingest` says it
        return _not_found(absent)
    gone = batch.remove(con, [Path(p) for p in args.paths], args.study)
    kept = [p for p in args.paths if Path(p).exists()]
    if args.format == "json":
        places = [{"path": o.path, "status": o.status} for o in gone]
        params.write_json({"db": args.db, "removed": places, "still_on_disk": kept})
        return requires.EXIT_OK
    for o in gone:
        print(_line(o, False))
    say(f"{len(gone)} place(s) taken out of the analysis.")
    if kept:
        say(
            f"{', '.join(map(shown, kept))}: still on disk, so the next ingest of its folder brings it back; "
            "move it out of the data folder to retire it for good."
        )
    return requires.EXIT_OK
