"""What became of each file an ingest met, and the faults that stop an ingest."""

from __future__ import annotations

import errno
import threading
from dataclasses import dataclass, field
from enum import StrEnum


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


_FAULTS = [  # (what the OS or DuckDB says, what it means for the user)
    (errno.ENOSPC, "No space left on device", "the disk holding the database is full"),
    (errno.EDQUOT, "Disk quota exceeded", "the disk quota for the database's folder is used up"),
    (errno.EROFS, "Read-only file system", "the database's folder is on a read-only file system"),
    (errno.EACCES, "Permission denied", "iolab may not write the database or its folder (permissions)"),
    (errno.EIO, "Input/output error", "the disk reported an input/output error"),
    (None, "read-only mode", "the database is open read-only"),
    (None, "database has been invalidated", "an earlier write failed and DuckDB closed the database"),
]


def environment_fault(e: BaseException) -> str | None:
    """What is wrong with the environment, if writing failed because of it (else None)."""
    import duckdb

    if not isinstance(e, (OSError, duckdb.Error)) and "os error" not in str(e).lower():
        return None
    code = getattr(e, "errno", None)
    for no, text, meaning in _FAULTS:
        if (no is not None and code == no) or text.lower() in str(e).lower():
            return f"{meaning} ({type(e).__name__}: {str(e).strip().splitlines()[0][:200]})"
    return None
