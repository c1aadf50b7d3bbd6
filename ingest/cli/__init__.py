"""iolab command line: one module per command in this package, each with ``register(subparsers)``
adding its parser and setting ``func``. Shared options are in params.py; opening the database and
the exit-code policy in requires.py. A bare `iolab` prints the help.

Keep heavy imports inside the command functions: `iolab --help` imports every command module.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import os
import signal
import sys
from typing import Any

from .. import __version__
from .params import DEFAULT_DB
from .requires import EXIT_ENVIRONMENT, EXIT_INTERRUPTED, EXIT_OK, EXIT_REJECTED, EXIT_USAGE

__all__ = [
    "DEFAULT_DB",
    "EXIT_ENVIRONMENT",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_REJECTED",
    "EXIT_USAGE",
    "build_parser",
    "main",
    "run",
]

# in the order `iolab --help` lists them
COMMANDS: list[str] = [
    "ingest",
    "watch",
    "remove",
    "info",
    "validate",
    "formats",
    "detect",
    "report",
    "compare",
    "export",
    "lake",
    "doctor",
    "completion",
]


class _Formatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows an option's default unless it has none (None) or is an on/off flag."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default in (None, False) or isinstance(action.default, list):
            return action.help
        return super()._get_help_string(action)


class _Parser(argparse.ArgumentParser):
    """Every (sub)command shows each option's default in its help."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)


def version_text() -> str:
    """iolab's version, the newest schema migration it writes, and the engines' versions (read from
    their installed metadata: nothing is imported)."""
    from importlib import metadata

    from ..config import SCHEMAS

    def of(dist: str) -> str:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return "not installed"

    schema = max((int(f.name[1:4]) for f in SCHEMAS.glob("V[0-9][0-9][0-9]__*.sql")), default=0)
    engines = ", ".join(f"{d} {of(d)}" for d in ("duckdb", "polars", "pyarrow", "altair"))
    return f"iolab {__version__} (schema V{schema:03d}; {engines}; Python {sys.version.split()[0]})"


class _Version(argparse.Action):
    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        print(version_text())
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="iolab",
        description="Storage benchmark results database: ingest raw result files, validate, report.",
        epilog="`iolab COMMAND --help` explains a command.",
    )
    p.add_argument("--version", action=_Version, help="iolab's version, its schema's and its engines', and exit")
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    return _dispatch(argv)[0]


def run() -> None:
    """The `iolab` command. An ingest ends the process at once when it is done (the database is
    closed, the output flushed, the parse workers joined): tearing down an interpreter with DuckDB
    and Polars loaded is a measurable share of a capture's ingest (docs/PERFORMANCE.md). Other
    commands (Spark, kernels) end normally, as do in-process callers of main()."""
    # The collector's default (every 700 new objects) walks every loaded module again and again over
    # a capture's column names, none of them in cycles; every 100,000 still bounds what cycles hold.
    # Set for the command's own process only (lowering it again at the end would collect once more).
    gc.set_threshold(100_000)
    sys.stdout = _PipeGuard(sys.stdout)
    signal.signal(signal.SIGINT, _on_sigint)
    try:
        code, args = _dispatch(None)
    except KeyboardInterrupt:
        _interrupted(sys.argv[1:2] == ["ingest"])
        code, args = EXIT_INTERRUPTED, argparse.Namespace(cmd="ingest")  # end at once, as an ingest does
    if getattr(args, "cmd", None) == "ingest":
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except OSError:  # a reader that went away (`| head`): nothing more can be said to it
            pass
        os._exit(code)
    sys.exit(code)


def _on_sigint(signum: int, frame: Any) -> None:
    """Ctrl-C: say so to an ingest under way (iolab.batch.interrupted: a library may have turned the
    KeyboardInterrupt into its own error), then raise it as Python does."""
    if batch := sys.modules.get("iolab.batch"):
        batch.interrupted.set()
    raise KeyboardInterrupt


def _interrupted(ingest: bool) -> None:
    from ..terminal import console

    text = (
        "Stopped (Ctrl-C). Every file reported as ingested is stored whole; the one being stored was rolled "
        "back. Run the same command again to go on: stored files are skipped."
        if ingest
        else "Stopped (Ctrl-C)."
    )
    with contextlib.suppress(Exception):
        console(stderr=True).print(text)
        sys.stdout.flush()


class _PipeGuard:
    """Standard output that ends quietly when its reader goes away (`iolab ... | head -1`): the
    first write to a closed pipe points the stream at /dev/null, so the rest (and the flush at exit)
    goes nowhere instead of ending in a BrokenPipeError traceback. The command itself runs on: an
    ingest still stores every file."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return int(self._stream.write(text))
        except BrokenPipeError:
            self._gone()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._gone()

    def _gone(self) -> None:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, self._stream.fileno())
        os.close(null)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _dispatch(argv: list[str] | None) -> tuple[int, argparse.Namespace]:
    p = build_parser()
    args = p.parse_args(argv)
    if not getattr(args, "func", None):  # a bare `iolab`
        p.print_help()
        return 0, args
    return int(args.func(args)), args
