"""`iolab watch DIR`: keep the database equal to a data folder as files land, change and leave
(iolab.watch), and named reports rendered again when their data changed. Ctrl-C ends it (exit 130),
SIGTERM too (exit 143: a service stopped)."""

from __future__ import annotations

import argparse
import signal
from pathlib import Path
from typing import Any

from ..outcome import stopped_by
from ..terminal import console, markup, shown
from . import params
from .requires import EXIT_ENVIRONMENT, EXIT_USAGE


def register(sub: Any) -> None:
    p = sub.add_parser(
        "watch",
        help="keep the database equal to a data folder as files land, change and leave",
        description="Ingest DIR, then watch it: a file dropped in is ingested once its size and time have been "
        "still for --quiet seconds (a file being written is waited for), a file changed or deleted is updated "
        "or taken out, a sidecar edited relabels its files; the changes that settle together are one ingest. "
        "The database is open only while an ingest runs. Ctrl-C ends it (exit 130); what was stored is whole.",
    )
    p.add_argument("folder", metavar="DIR", help="the data folder to keep the database equal to")
    params.db(p, writes=True)
    p.add_argument(
        "--report",
        action="append",
        default=[],
        metavar="OUT",
        help="a reports folder to render again (iolab report --out OUT) after each ingest that changed the data; "
        "may be given more than once",
    )
    p.add_argument(
        "--quiet",
        type=float,
        default=1.0,
        metavar="SECONDS",
        help="how long a file's size and modification time must stay the same before it is read",
    )
    p.add_argument(
        "--poll",
        action="store_true",
        help="look for changes by listing the folder every second instead of inotify (for a network share, "
        "where another machine's writes raise no inotify event)",
    )
    p.add_argument(
        "--allow-root",
        action="store_true",
        help="accept a system folder, the file system's top or the home folder itself as the data folder",
    )
    p.set_defaults(func=cmd_watch)


def _refusal(args: argparse.Namespace, root: Path) -> str | None:
    """Why the command cannot start (wrong usage), or None."""
    from ..roots import refusal

    if not root.is_dir():
        return f"{root} is not a folder"
    if why := refusal(root, args.allow_root):
        return why
    if args.quiet < 0:
        return "--quiet must be 0 seconds or more"
    for out in args.report:
        if Path(out).resolve() == root or root in Path(out).resolve().parents:
            return f"the reports folder {out} is inside the data folder {root}: name one outside it"
    return None


def cmd_watch(args: argparse.Namespace) -> int:
    from .. import db, watch

    root = Path(args.folder).resolve()
    if why := _refusal(args, root):
        console(stderr=True).print(f"[red]Not watched:[/] {markup(why)}")
        return EXIT_USAGE
    reports = [Path(out).resolve() for out in args.report]
    # Ctrl-C or SIGTERM (a service stopped; iolab.cli.run raises both): the ingest under way is rolled back whole
    try:
        watch.run(root, Path(args.db).resolve(), reports, _tell, quiet=args.quiet, poll=args.poll)
    except KeyboardInterrupt:
        _tell("stopped: every file stored is whole; `iolab watch` again takes up what changed meanwhile")
        return 128 + (stopped_by() or signal.SIGINT)
    except (db.DatabaseProblem, watch.Fault) as e:
        console(stderr=True).print(f"[red]Stopped watching:[/] {markup(shown(str(e)))}")
        return EXIT_ENVIRONMENT
    return 128 + signal.SIGINT  # not reached: it watches until stopped


def _tell(line: str) -> None:
    print(shown(line), flush=True)
