"""Walk paths, sniff, parse, and store each file in its own transaction."""
from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import IO

from duckdb import DuckDBPyConnection

from . import db, registry
from .model import ParseError
from .sidecar import NAME as SIDECAR
from .sidecar import SidecarError, Sidecars

IGNORED_SUFFIXES = {".duckdb", ".wal", ".md", ".ipynb", ".png", ".tmp"}


@dataclass
class Outcome:
    path: str
    status: str  # ingested, unchanged, relabelled, placed (known content, new place), skipped (not a
    # regular file), rejected, unreadable
    format: str | None = None
    reason: str | None = None
    line: int | None = None
    counts: dict = field(default_factory=dict)


@dataclass
class Report:
    outcomes: list[Outcome] = field(default_factory=list)
    fault: str | None = None  # the environment failed (disk full, read-only, ...): the batch stopped there

    def by_status(self, status: str) -> list[Outcome]:
        return [o for o in self.outcomes if o.status == status]

    @property
    def failed(self) -> bool:
        return any(o.status in ("rejected", "unreadable") for o in self.outcomes)


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


def display_path(p: Path) -> str:
    """A path as text that DuckDB and terminals accept, even for non-UTF-8 file names."""
    try:
        p = p.relative_to(Path.cwd())
    except ValueError:
        pass
    return os.fsencode(p).decode("utf-8", errors="replace")


def walk(paths: list[Path]) -> Iterator[tuple[Path, Path]]:
    """(root, file) for every candidate file; symlinked folders are not followed (no loops)."""
    for root in paths:
        if not root.is_dir() and (root.exists() or root.is_symlink()):  # a file, FIFO, device or link
            yield root.parent, root
            continue
        if not root.exists():
            yield root, root
            continue
        for folder, dirs, files in os.walk(root, followlinks=False):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for f in sorted(files):
                if f.startswith(".") or f == SIDECAR or Path(f).suffix.lower() in IGNORED_SUFFIXES:
                    continue
                yield root, Path(folder) / f


def _stamp(path: Path) -> tuple[int, int]:
    st = path.stat()
    return st.st_size, st.st_mtime_ns


NOT_REGULAR = {stat.S_IFIFO: "a named pipe (FIFO)", stat.S_IFCHR: "a character device",
               stat.S_IFBLK: "a block device", stat.S_IFSOCK: "a socket", stat.S_IFDIR: "a folder"}


class NotRegular(OSError):
    """Only regular files are read: a FIFO or a device could block the ingest or never end."""


def open_regular(path: Path) -> IO[bytes]:
    """Open for reading only if it is a regular file (a symlink counts as what it points to).

    The kind is checked with stat before opening (a device or a socket is never opened: opening a
    tape rewinds it, a socket cannot be opened at all); O_NONBLOCK keeps a FIFO from blocking the
    open, and the check runs again on the opened descriptor, so a file swapped for a FIFO between
    the stat and the open is still caught.
    """
    _check_regular(os.stat(path).st_mode)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        _check_regular(os.fstat(fd).st_mode)
    except NotRegular:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def _check_regular(mode: int) -> None:
    if not stat.S_ISREG(mode):
        raise NotRegular(f"{NOT_REGULAR.get(stat.S_IFMT(mode), 'not a regular file')}, not a regular file: never read")


def hash_file(path: Path, chunk: int = 8 << 20) -> tuple[str, int, bytes]:
    """(sha256, size, first 64 KiB) read in chunks: a 1 GB capture is never held in memory."""
    h = hashlib.sha256()
    size = 0
    head = b""
    with open_regular(path) as fh:
        while block := fh.read(chunk):
            if not head:
                head = block[: registry.HEAD_BYTES]
            h.update(block)
            size += len(block)
    return h.hexdigest(), size, head


def _known_place(con: DuckDBPyConnection, sha: str, shown: str, size: int, labels: dict, targets: list[dict]) -> Outcome | None:
    """Content already parsed: this place keeps (or gets) its own labels; nothing is parsed again.

    The same bytes found at another path (a copy in a second study) become a new place that reads
    the first place's rows, so each study sees the file under its own labels and neither relabels
    the other.
    """
    rows = con.execute(
        """SELECT source_id, content_id, path, format, parser, parser_version, tool_version FROM source_files
           WHERE sha256 = ? AND status = 'ok' ORDER BY path = ? DESC, source_id""", [sha, shown]).fetchall()
    if not rows:
        return None
    sid, content_id, ppath, fmt, parser, parser_version, tool_version = rows[0]
    con.execute("BEGIN")
    if ppath == shown:
        changed = db.update_labels(con, sid, labels, targets)
        con.execute("COMMIT")
        return Outcome(shown, "relabelled" if changed else "unchanged")
    place = db.record_source(con, path=shown, sha256=sha, size=size, fmt=fmt, parser=parser,
                             parser_version=parser_version, status="ok", labels=labels,
                             tool_version=tool_version, content_id=content_id)
    db.update_labels(con, place, labels, targets)
    con.execute("COMMIT")
    return Outcome(shown, "placed", fmt, reason=f"same content as {ppath}: stored once, labelled here too")


def _rollback(con: DuckDBPyConnection) -> None:
    try:
        con.execute("ROLLBACK")
    except Exception:  # nothing to roll back, or the database is gone: the fault is reported by the caller
        pass


def ingest_file(con: DuckDBPyConnection, path: Path, sidecars: Sidecars) -> Outcome:
    shown = display_path(path)
    try:
        stamp = _stamp(path)
        sha, size, head = hash_file(path)
    except FileNotFoundError:
        return Outcome(shown, "unreadable", reason="the file does not exist (it may have been moved or deleted during the ingest)")
    except IsADirectoryError:
        return Outcome(shown, "unreadable", reason="this is a folder, not a file")
    except NotRegular as e:
        return Outcome(shown, "skipped", reason=str(e))
    except OSError as e:
        return Outcome(shown, "unreadable", reason=f"cannot read it: {e.strerror or e}")
    try:
        labels, targets = sidecars.labels_for(path)
    except SidecarError as e:
        return Outcome(shown, "unreadable", reason=f"its sidecar is broken: {e}")

    known = _known_place(con, sha, shown, size, labels, targets)
    if known is not None:
        return known
    # a file rejected before is tried again (the parser may have improved); its old record goes
    con.execute("DELETE FROM source_files WHERE sha256 = ? AND path = ? AND status = 'rejected'", [sha, shown])

    def reject(reason: str, line: int | None = None, fmt: str | None = None,
               mod: ModuleType | None = None) -> Outcome:
        con.execute("BEGIN")
        db.record_source(con, path=shown, sha256=sha, size=size, fmt=fmt,
                         parser=mod.__name__ if mod else None, parser_version=getattr(mod, "VERSION", None),
                         status="rejected", error=reason, error_line=line, labels=labels)
        con.execute("COMMIT")
        return Outcome(shown, "rejected", fmt, reason, line)

    if not head.strip():
        return reject("the file is empty")
    candidates = registry.sniff(head, path.name)
    if not candidates and (hint := registry.unsupported_hint(path.name, head)):
        return reject(hint)
    if not candidates:
        return reject("no iolab parser recognises this content (supported: "
                      + ", ".join(m.FORMAT for m in registry.modules()) + "); if it is a result file of a "
                      "tool iolab does not read yet, see CONTRIBUTING.md 'Add a format'")
    if len(candidates) > 1:
        return reject("more than one parser claims this file: " + ", ".join(m.FORMAT for m in candidates))
    mod = candidates[0]
    try:
        if hasattr(mod, "parse_path"):  # streams the file: large time-series captures
            result = mod.parse_path(path, path.name)
        else:
            with open_regular(path) as fh:
                data = fh.read()
            if hashlib.sha256(data).hexdigest() != sha:
                return Outcome(shown, "unreadable", reason="the file changed while it was being read; ingest it again")
            result = mod.parse(data, path.name)
    except ParseError as e:
        return reject(e.reason, e.line, mod.FORMAT, mod)
    except BaseException as e:  # a parser bug (or a library panic) must not take the batch down
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        return reject(f"internal error in {mod.__name__} ({type(e).__name__}: {e}); please report it with this file",
                      None, mod.FORMAT, mod)
    con.execute("BEGIN")
    sid = None
    try:
        sid = db.record_source(con, path=shown, sha256=sha, size=size, fmt=mod.FORMAT, parser=mod.__name__,
                               parser_version=mod.VERSION, status="ok", labels=labels,
                               tool_version=result.tool_version)
        counts = db.write_result(con, sid, result)
        db.update_labels(con, sid, labels, targets)
        if hasattr(mod, "parse_path") and _stamp(path) != stamp:
            raise ParseError("the file changed while it was being read; ingest it again")
        con.execute("COMMIT")
    except ParseError as e:  # streamed data (time series) can fail after parse() returned
        _rollback(con)
        if sid is not None:
            db.drop_points(con, sid)
        return reject(e.reason, e.line, mod.FORMAT, mod)
    except BaseException as e:
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        _rollback(con)
        if sid is not None:
            db.drop_points(con, sid)
        if fault := environment_fault(e):
            raise EnvironmentFault(fault) from e
        return reject(f"could not store the parsed rows ({type(e).__name__}: {e})", None, mod.FORMAT, mod)
    if "points" in counts:
        db.refresh_points_view(con)
    return Outcome(shown, "ingested", mod.FORMAT, counts=counts)


def ingest_paths(con: DuckDBPyConnection, paths: list[Path], on_file: Callable[[Outcome], None] | None = None,
                 files: list[tuple[Path, Path]] | None = None) -> Report:
    report = Report()
    sidecars: dict[Path, Sidecars] = {}
    for root, path in files if files is not None else walk(paths):
        sc = sidecars.setdefault(root, Sidecars(root))
        try:
            outcome = ingest_file(con, path, sc)
        except EnvironmentFault as e:
            report.fault = str(e)
            break
        except BaseException as e:  # never let one file take the batch down (Rust panics included)
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise
            _rollback(con)
            if fault := environment_fault(e):  # e.g. recording a rejection failed: the disk, not the file
                report.fault = fault
                break
            outcome = Outcome(display_path(path), "unreadable",
                              reason=f"internal error ({type(e).__name__}: {e}); please report it with this file")
        report.outcomes.append(outcome)
        if on_file:
            on_file(outcome)
    return report
