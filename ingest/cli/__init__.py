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
import threading
from pathlib import Path
from typing import Any

from .. import __version__
from ..outcome import Terminated, stop, stopped_by
from . import requires
from .params import DEFAULT_DB, resolve_db
from .requires import EXIT_ENVIRONMENT, EXIT_INTERRUPTED, EXIT_OK, EXIT_REJECTED, EXIT_TERMINATED, EXIT_USAGE

__all__ = [
    "DEFAULT_DB",
    "EXIT_ENVIRONMENT",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_REJECTED",
    "EXIT_TERMINATED",
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
    commands (Spark, kernels) end normally, as do in-process callers of main().

    SIGINT (Ctrl-C) and SIGTERM unwind the command (every ``with`` and ``finally`` runs: temporary
    files removed, kernels and Chromium stopped) and end it with 130 and 143, whatever error the
    unwinding became on the way (DuckDB's "Query interrupted", a kernel gone): no traceback."""
    # The collector's default (every 700 new objects) walks every loaded module again and again over
    # a capture's column names, none of them in cycles; every 100,000 still bounds what cycles hold.
    # Set for the command's own process only (lowering it again at the end would collect once more).
    gc.set_threshold(100_000)
    sys.stdout = _PipeGuard(sys.stdout)
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _on_signal)
    threading.excepthook = _thread_ended
    ingest = sys.argv[1:2] == ["ingest"]
    try:
        code, args = _dispatch(None)
    except BaseException as e:
        if stopped_by() is None and not isinstance(e, KeyboardInterrupt):
            raise
        code, args = _interrupted(ingest), argparse.Namespace(cmd="ingest" if ingest else None)
    if (signum := stopped_by()) is not None and code != 128 + signum:  # a command that took the signal in its stride
        code = _interrupted(ingest)
    if getattr(args, "cmd", None) == "ingest" or signum is not None:  # stopped: its threads are not awaited
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except OSError:  # a reader that went away (`| head`): nothing more can be said to it
            pass
        os._exit(code)
    sys.exit(code)


def _on_signal(signum: int, frame: Any) -> None:
    """Ctrl-C or SIGTERM: say so to whatever runs (iolab.outcome.stop: a library may turn the
    KeyboardInterrupt into its own error, as DuckDB interrupts its query), then raise it as Python
    does for Ctrl-C."""
    first = stopped_by() is None
    stop(signum)
    if first:
        raise Terminated if signum == signal.SIGTERM else KeyboardInterrupt


def _thread_ended(hook: threading.ExceptHookArgs) -> None:
    """A thread's error is printed as Python prints it, but once the command is being stopped: then
    it is the stop, said once by the command."""
    if stopped_by() is None:
        threading.__excepthook__(hook)


def _interrupted(ingest: bool) -> int:
    """Say how the command was stopped; its exit code (128 + the signal: 130 Ctrl-C, 143 SIGTERM)."""
    from ..terminal import console

    signum = stopped_by() or signal.SIGINT
    how = "Ctrl-C" if signum == signal.SIGINT else signal.Signals(signum).name
    text = (
        f"Stopped ({how}). Every file reported as ingested is stored whole; the one being stored was rolled "
        "back. Run the same command again to go on: stored files are skipped."
        if ingest
        else f"Stopped ({how}). What was written is whole; run the same command again to go on."
    )
    with contextlib.suppress(Exception):
        console(stderr=True).print(text)
        sys.stdout.flush()
    return 128 + signum


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
    resolve_db(args)
    if (code := requires.bad_paths(args)) is not None:
        return code, args
    _watch(args)
    try:
        return int(args.func(args)), args
    except Exception as e:  # the machine's fault, wherever it came up: one line, exit 3
        if stopped_by() is not None or (code := requires.fault(e)) is None:
            raise
        return code, args


def _watch(args: argparse.Namespace) -> None:
    """The folders a fault of this command may hit, by role (iolab.faults), and what killed commands
    left in the temporary folder removed (iolab.written.sweep)."""
    from .. import faults, written
    from ..reports import scratch

    if isinstance(db := getattr(args, "db", None), str):
        faults.watch("the database", os.path.dirname(os.path.abspath(db)))
        written.sweep(Path(os.path.abspath(db)).parent)  # a killed command's temporary files beside it
    for name in ("out", "images", "to"):
        if isinstance(out := getattr(args, name, None), str):
            faults.watch(f"the output folder (--{name})", out)
    scratch.sweep()  # a killed render's snapshot, kernel files, Chromium profile
