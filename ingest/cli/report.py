"""`iolab report`: render the HTML reports from one snapshot of the database (offline pages)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..config import REPORTS_DEFAULT
from ..terminal import console, markup
from . import params, requires


def register(sub: Any) -> None:
    p = sub.add_parser("report", help="render the HTML reports (one snapshot of the database, offline pages)")
    params.db(p)
    p.add_argument("--out", default=REPORTS_DEFAULT, help="folder for reports/<study>/*.html and index.html")
    p.add_argument("--study", action="append", help="only this study (repeatable; default: every study)")
    p.add_argument(
        "--format",
        choices=["html", "pdf"],
        default="html",
        help="pdf: also one print-ready PDF per study, <out>/<study>/<study>.pdf (cover, contents, every page, "
        "provenance appendix), printed offline in headless Chromium",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="render every page, even those whose notebook, views and data are unchanged since the last render",
    )
    p.add_argument(
        "--images",
        metavar="DIR",
        help="also write every chart of the pages rendered as SVG and PNG into DIR/<study>/ (offline, vl-convert)",
    )
    p.set_defaults(func=cmd_report)


@requires.database(connect=False)
def cmd_report(args: argparse.Namespace) -> int:
    from ..reports import early

    if args.study and (code := _known_studies(args)) is not None:
        return code
    if args.format == "pdf" and (code := _printer()) is not None:
        return code
    if (code := _check_folders(args)) is not None:
        return code
    # the kernels start before the render is imported, on the core its imports leave idle (iolab.reports.early)
    with early.launched(early.will_run_pages(Path(args.out), args.force), _start_kernel, _close_kernel):
        return _report(args)


def _start_kernel() -> Any:
    from ..reports import kernels  # imported by the thread that starts the kernel, beside the render's imports

    return kernels.start()


def _close_kernel(kernel: Any) -> None:
    from ..reports import kernels

    kernels.close(kernel)


def _report(args: argparse.Namespace) -> int:
    from ..outputs import Refused
    from ..reports import render, scratch
    from ..terminal import is_terminal, say, shown

    plain = not is_terminal()  # a terminal has the progress bar; a log gets one line per page
    if plain:
        say(f"rendering the reports of {shown(args.db)} into {shown(args.out)}, one line per page as it is done")

    def page(study: str, notebook: str, what: str) -> None:
        if plain:
            say(
                f"{what.split(':')[0]:<10} {shown(study)} / {notebook}"
                + (f": {shown(what[8:])}" if ":" in what else "")
            )

    where = args.out
    try:
        with scratch.stopped_by_sigterm():  # its temporary folders are removed on SIGTERM too
            code = render.render(
                Path(args.db), Path(args.out), args.study, args.force, on_page=page, pdf=args.format == "pdf"
            )
        if args.images and code != 2:
            where = args.images
            code = max(code, _images(Path(args.out), Path(args.images), args.study, Path(args.db)))
    except Refused as e:
        return requires.refused(e, "Not writing the reports")
    except OSError as e:
        if (bad := requires.cannot_write(e, where)) is None:
            raise
        return bad
    return code


def _check_folders(args: argparse.Namespace) -> int | None:
    """None when --out (and --images) may be written (iolab.outputs.check); else 2, saying why."""
    from .. import db
    from ..outputs import Refused, check

    try:
        roots = requires.data_roots(args.db)
    except db.DatabaseProblem as e:
        console(stderr=True).print(f"[red]Cannot use the database:[/] {markup(e)}")
        return requires.EXIT_ENVIRONMENT
    try:
        check(Path(args.out), roots, "--out", args.db)
        if args.images:
            check(Path(args.images), roots, "--images", args.db)
    except Refused as e:
        return requires.refused(e, "Not writing the reports")
    return None


def _images(out: Path, images: Path, studies: list[str] | None, db: Path) -> int:
    """Every chart of the pages as SVG and PNG files under ``images``: 0, or 1 if they cannot be written."""
    import duckdb

    from ..outputs import cannot_write
    from ..reports.images import write_images
    from ..terminal import say, shown

    try:
        written = write_images(out, images, studies, db)
    except (OSError, ValueError, duckdb.Error) as e:
        if isinstance(e, OSError) and cannot_write(e):
            raise  # the folder, not the charts: said once by the command, exit 3
        console(stderr=True).print(f"[red]Cannot write the chart images into {markup(shown(images))}:[/] {markup(e)}")
        return 1
    say(f"{len(written) // 2} charts as SVG and PNG -> {shown(images)}")
    return 0


def _printer() -> int | None:
    """None when Chromium is there to print the PDF; else say how to get it."""
    from ..reports import check

    if check.chromium() is not None:
        return None
    console(stderr=True).print(
        "[red]The print edition needs Chromium[/] (headless, to print the pages): `apt-get install chromium`, "
        "or `make check-reports`, which installs it."
    )
    return requires.EXIT_ENVIRONMENT


def _known_studies(args: argparse.Namespace) -> int | None:
    """None when every --study is in the database; else 2 with the studies listed."""
    from .. import db

    try:
        con = db.connect(args.db, read_only=True)
    except db.DatabaseProblem as e:
        console(stderr=True).print(f"[red]Cannot use the database:[/] {markup(e)}")
        return requires.EXIT_ENVIRONMENT
    try:
        return next((c for s in args.study if (c := requires.known_study(con, s, args.db)) is not None), None)
    finally:
        con.close()
