"""What became of each file an ingest met, and the faults that stop an ingest."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from . import faults


class Status(StrEnum):
    """A file's outcome. Compares equal to its text, as the CLI and the JSON output print it."""

    INGESTED = "ingested"  # parsed and stored
    UNCHANGED = "unchanged"  # stored already, as it is
    RELABELLED = "relabelled"  # stored already; its labels changed
    PLACED = "placed"  # these bytes are stored already: a new place reads them, labelled where it is
    MOVED = "moved"  # a place gone from disk, found at a new path with the same bytes
    GONE = "gone"  # no longer on disk: it left the analysis
    REMOVED = "removed"  # taken out of the analysis by iolab remove
    SKIPPED = "skipped"  # not a regular file: never read
    REJECTED = "rejected"  # read and refused, with the reason and the line
    UNREADABLE = "unreadable"  # could not be read (missing, permissions, a broken sidecar)


FAILED = (Status.REJECTED, Status.UNREADABLE)

# Set by the `iolab` command's SIGINT handler (iolab.cli): Ctrl-C was pressed. A library may turn
# the KeyboardInterrupt into its own error (DuckDB interrupts the query it runs and raises
# InterruptException): then the flag still says the user asked to stop, not that a file is bad.
interrupted = threading.Event()
_stopped_by: list[int] = []  # the signal that asked the command to stop (SIGINT, SIGTERM), the first one


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill``, a service manager, a CI timeout): unwinds as Ctrl-C does, every ``with`` and
    ``finally`` on the way out running, and the command ends with 143 instead of 130."""


def stop(signum: int) -> None:
    """The command was asked to stop by signal ``signum``: remember it (the exit code is 128 + it)."""
    interrupted.set()
    if not _stopped_by:
        _stopped_by.append(signum)


def stopped_by() -> int | None:
    """The signal that asked the command to stop, if one did."""
    return _stopped_by[0] if _stopped_by else None


def stop_if_interrupted(e: BaseException | None = None) -> None:
    """Raise KeyboardInterrupt (or ``e`` itself, if it is one or a SystemExit) when the run must stop."""
    import duckdb

    if isinstance(e, (KeyboardInterrupt, SystemExit)):
        raise e
    if interrupted.is_set() or isinstance(e, duckdb.InterruptException):
        raise KeyboardInterrupt from e


@dataclass
class Outcome:
    path: str
    status: Status
    format: str | None = None
    reason: str | None = None
    line: int | None = None
    counts: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.status = Status(self.status)


@dataclass
class Report:
    outcomes: list[Outcome] = field(default_factory=list)
    fault: str | None = None  # the environment failed (disk full, read-only, ...): the batch stopped there
    notes: list[str] = field(default_factory=list)  # what changed in the data roots
    warnings: list[str] = field(default_factory=list)  # what the analysis does differently than the files say
    measured: list[str] = field(default_factory=list)  # how the time rule grouped a system's files (measurement_splits)

    def by_status(self, status: str) -> list[Outcome]:
        return [o for o in self.outcomes if o.status == status]

    @property
    def failed(self) -> bool:
        return any(o.status in FAILED for o in self.outcomes)


class EnvironmentFault(Exception):
    """The machine failed, not the file: disk full, a read-only store, permissions, a damaged database.

    The batch stops at once and says so once; no file is recorded as bad for it.
    """


_DATABASE = [  # (what DuckDB says, what it means) for faults of the database that carry no errno
    ("read-only mode", "the database is open read-only"),
    ("database has been invalidated", "an earlier write failed and DuckDB closed the database"),
]


def environment_fault(e: BaseException, what: str = "the database", folder: Path | None = None) -> str | None:
    """What is wrong with the environment, if writing failed because of it (else None): the folder it
    hit, by its role (iolab.faults); ``what`` and ``folder`` are what was being written when the
    error names no path (by default the database)."""
    import duckdb

    if said := faults.out_of_memory(e):  # the machine's memory, not the file: the batch stops, exit 3
        return said
    if not isinstance(e, (OSError, duckdb.Error)) and "os error" not in str(e).lower():
        return None
    if said := faults.describe(e, what, folder):
        return said
    for text, meaning in _DATABASE:
        if text.lower() in str(e).lower():
            return f"{meaning} ({type(e).__name__}: {str(e).strip().splitlines()[0][:200]})"
    return None
