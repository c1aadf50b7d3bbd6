"""Walk paths, sniff, parse, and store each file in its own transaction."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import IO, Any

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


NOT_REGULAR = {
    stat.S_IFIFO: "a named pipe (FIFO)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a folder",
}


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


@dataclass
class Known:
    """A stored place as the fast path needs it: what decides whether the file changed."""

    source_id: int
    size: int
    mtime_ns: int | None
    labels: str | None
    targets: list


def known_places(con: DuckDBPyConnection) -> dict[str, Known]:
    """Every stored place by path, in one query (re-ingesting a large folder asks nothing per file)."""
    rows = con.execute("""
        SELECT f.path, f.source_id, f.size_bytes, f.mtime_ns, f.labels,
               list((t.target, t.volume, t.drives, t.array_name)) FILTER (t.target IS NOT NULL)
        FROM source_files f LEFT JOIN sidecar_targets t USING (source_id)
        WHERE f.status = 'ok' GROUP BY ALL""").fetchall()
    return {
        path: Known(sid, size, mtime, labels, sorted(map(tuple, targets or []), key=repr))
        for path, sid, size, mtime, labels, targets in rows
    }


def _same_labels(k: Known, labels: dict, targets: list[dict]) -> bool:
    new_targets = sorted(
        ((t["target"], t.get("volume"), t.get("drives"), t.get("array_name")) for t in targets), key=repr
    )
    return json.loads(k.labels or "{}") == json.loads(db.labels_json(labels)) and k.targets == new_targets


def _known_place(con: DuckDBPyConnection, f: _File) -> Outcome | None:
    """Content already parsed: this place keeps (or gets) its own labels; nothing is parsed again.

    The same bytes found at another path (a copy in a second study) become a new place that reads
    the first place's rows, so each study sees the file under its own labels and neither relabels
    the other.
    """
    rows = con.execute(
        """SELECT source_id, content_id, path, format, parser, parser_version, tool_version, mtime_ns FROM source_files
           WHERE sha256 = ? AND status = 'ok' ORDER BY path = ? DESC, source_id""",
        [f.sha, f.shown],
    ).fetchall()
    if not rows:
        return None
    sid, content_id, ppath, fmt, parser, parser_version, tool_version, mtime_ns = rows[0]
    con.execute("BEGIN")
    if ppath == f.shown:
        changed = db.update_labels(con, sid, f.labels, f.targets)
        if mtime_ns != f.stamp[1]:  # touched, same bytes: the next run can trust size and time again
            con.execute("UPDATE source_files SET mtime_ns = ? WHERE source_id = ?", [f.stamp[1], sid])
        con.execute("COMMIT")
        return Outcome(f.shown, "relabelled" if changed else "unchanged")
    place = db.record_source(
        con,
        path=f.shown,
        sha256=f.sha,
        size=f.size,
        fmt=fmt,
        parser=parser,
        parser_version=parser_version,
        status="ok",
        labels=f.labels,
        tool_version=tool_version,
        content_id=content_id,
        mtime_ns=f.stamp[1],
    )
    db.update_labels(con, place, f.labels, f.targets)
    con.execute("COMMIT")
    return Outcome(f.shown, "placed", fmt, reason=f"same content as {ppath}: stored once, labelled here too")


def _rollback(con: DuckDBPyConnection) -> None:
    try:
        con.execute("ROLLBACK")
    except Exception:  # nothing to roll back, or the database is gone: the fault is reported by the caller
        pass


@dataclass
class _File:
    """One file on its way in: where it is, what it holds (sha256), and its labels."""

    path: Path
    shown: str
    stamp: tuple[int, int] = (0, 0)
    sha: str = ""
    size: int = 0
    head: bytes = b""
    labels: dict = field(default_factory=dict)
    targets: list[dict] = field(default_factory=list)
    source_id: int | None = None  # once recorded


def _open(f: _File, sidecars: Sidecars, known: Known | None, verify: bool) -> Outcome | None:
    """Stat, label and hash the file; an Outcome when that already decides it (unchanged, unreadable)."""
    try:
        f.stamp = _stamp(f.path)
        f.labels, f.targets = sidecars.labels_for(f.path)
        if (
            known
            and not verify
            and (known.size, known.mtime_ns) == f.stamp
            and _same_labels(known, f.labels, f.targets)
        ):
            return Outcome(f.shown, "unchanged")  # same size, time and labels: not even hashed (--verify hashes)
        f.sha, f.size, f.head = hash_file(f.path)
    except FileNotFoundError:
        return Outcome(
            f.shown,
            "unreadable",
            reason="the file does not exist (it may have been moved or deleted during the ingest)",
        )
    except IsADirectoryError:
        return Outcome(f.shown, "unreadable", reason="this is a folder, not a file")
    except NotRegular as e:
        return Outcome(f.shown, "skipped", reason=str(e))
    except OSError as e:
        return Outcome(f.shown, "unreadable", reason=f"cannot read it: {e.strerror or e}")
    except SidecarError as e:
        return Outcome(f.shown, "unreadable", reason=f"its sidecar is broken: {e}")
    return None


def _reject(
    con: DuckDBPyConnection, f: _File, reason: str, line: int | None = None, mod: ModuleType | None = None
) -> Outcome:
    fmt = getattr(mod, "FORMAT", None)
    con.execute("BEGIN")
    db.record_source(
        con,
        path=f.shown,
        sha256=f.sha,
        size=f.size,
        fmt=fmt,
        parser=mod.__name__ if mod else None,
        parser_version=getattr(mod, "VERSION", None),
        status="rejected",
        error=reason,
        error_line=line,
        labels=f.labels,
    )
    con.execute("COMMIT")
    return Outcome(f.shown, "rejected", fmt, reason, line)


def _parser(f: _File) -> ModuleType | str:
    """The one module that claims the file, or why there is none."""
    if not f.head.strip():
        return "the file is empty"
    candidates = registry.sniff(f.head, f.path.name)
    if not candidates and (hint := registry.unsupported_hint(f.path.name, f.head)):
        return hint
    if not candidates:
        return (
            "no iolab parser recognises this content (supported: "
            + ", ".join(m.FORMAT for m in registry.modules())
            + "); if it is a result file of a tool iolab does not read yet, see CONTRIBUTING.md 'Add a format'"
        )
    if len(candidates) > 1:
        return "more than one parser claims this file: " + ", ".join(m.FORMAT for m in candidates)
    return candidates[0]


def _parse(f: _File, mod: ModuleType) -> Any:
    """The parser's result; ParseError for a bad file, FileChanged if the bytes moved under us."""
    if hasattr(mod, "parse_path"):  # streams the file: large time-series captures
        return mod.parse_path(f.path, f.path.name)
    with open_regular(f.path) as fh:
        data = fh.read()
    if hashlib.sha256(data).hexdigest() != f.sha:
        raise FileChanged()
    return mod.parse(data, f.path.name)


class FileChanged(Exception):
    """The file changed between hashing and parsing."""


def _write(con: DuckDBPyConnection, f: _File, mod: ModuleType, result: Any, writer: db.Writer | None = None) -> Outcome:
    """Record the place and write every row of one parsed file, inside the caller's transaction
    (with a ``writer``, its rows are queued there for the caller to flush)."""
    sid = db.record_source(
        con,
        path=f.shown,
        sha256=f.sha,
        size=f.size,
        fmt=mod.FORMAT,
        parser=mod.__name__,
        parser_version=mod.VERSION,
        status="ok",
        labels=f.labels,
        tool_version=result.tool_version,
        mtime_ns=f.stamp[1],
    )
    f.source_id = sid
    counts = db.write_result(con, sid, result, writer)
    db.update_labels(con, sid, f.labels, f.targets)
    if hasattr(mod, "parse_path") and _stamp(f.path) != f.stamp:
        raise ParseError("the file changed while it was being read; ingest it again")
    return Outcome(f.shown, "ingested", mod.FORMAT, counts=counts)


def _store(con: DuckDBPyConnection, f: _File, mod: ModuleType, result: Any) -> Outcome:
    """One file in its own transaction; a failure leaves nothing behind."""
    con.execute("BEGIN")
    f.source_id = None
    try:
        outcome = _write(con, f, mod, result)
        con.execute("COMMIT")
    except BaseException as e:
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        _rollback(con)
        if f.source_id is not None:
            db.drop_points(con, f.source_id)
        if isinstance(e, ParseError):  # streamed data (time series) can fail after parse() returned
            return _reject(con, f, e.reason, e.line, mod)
        if fault := environment_fault(e):
            raise EnvironmentFault(fault) from e
        return _reject(con, f, f"could not store the parsed rows ({type(e).__name__}: {e})", None, mod)
    if "points" in outcome.counts:
        db.refresh_points_view(con)
    return outcome


class _Batch:
    """Parsed small files waiting to be stored together.

    A commit cost more than storing a small file's rows, so up to MAX_FILES files (or MAX_ROWS rows)
    share one transaction. Each file stays atomic: if any of them fails to store, the batch is rolled
    back and its files are stored again one transaction each, where the bad one is rejected alone.
    Time series (a Parquet file each) and streamed captures are stored on their own, as before."""

    MAX_FILES, MAX_ROWS = 64, 1_000_000

    def __init__(self) -> None:
        self.items: list[tuple[_File, ModuleType, Any]] = []
        self.rows = 0
        self.shas: set[str] = set()
        self.done: list[Outcome] = []  # outcomes of stored batches, not yet reported

    @staticmethod
    def takes(mod: ModuleType, result: Any) -> bool:
        return not hasattr(mod, "parse_path") and result.points is None

    def add(self, con: DuckDBPyConnection, f: _File, mod: ModuleType, result: Any) -> None:
        self.items.append((f, mod, result))
        self.shas.add(f.sha)
        self.rows += len(result.samples) + sum(
            len(t) if isinstance(t, list) else t.num_rows for t in result.tables.values()
        )
        if len(self.items) >= self.MAX_FILES or self.rows >= self.MAX_ROWS:
            self.flush(con)

    def flush(self, con: DuckDBPyConnection) -> None:
        items, self.items, self.rows, self.shas = self.items, [], 0, set()
        if not items:
            return
        con.execute("BEGIN")
        try:
            writer = db.Writer(con)
            outcomes = [_write(con, f, mod, result, writer) for f, mod, result in items]
            writer.flush()
            con.execute("COMMIT")
        except BaseException as e:
            _rollback(con)
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise
            if fault := environment_fault(e):
                raise EnvironmentFault(fault) from e
            outcomes = [_store(con, f, mod, result) for f, mod, result in items]
        self.done.extend(outcomes)

    def drain(self) -> list[Outcome]:
        out, self.done = self.done, []
        return out


def ingest_file(
    con: DuckDBPyConnection,
    path: Path,
    sidecars: Sidecars,
    known: Known | None = None,
    verify: bool = False,
    batch: _Batch | None = None,
) -> Outcome | None:
    """Read, parse and store one file: status ingested, unchanged, relabelled, placed, skipped, rejected
    or unreadable. ``known``: its stored place, if any (size, time and labels unchanged: not hashed).
    With a ``batch``, a parsed small file may wait there to be stored with others: None, its
    outcome comes from the batch."""
    f = _File(path, display_path(path))
    if (early := _open(f, sidecars, known, verify)) is not None:
        return early
    if batch is not None and f.sha in batch.shas:  # the same bytes wait in the batch: store them first
        batch.flush(con)
    if (place := _known_place(con, f)) is not None:
        return place
    # a file rejected before is tried again (the parser may have improved); its old record goes
    con.execute("DELETE FROM source_files WHERE sha256 = ? AND path = ? AND status = 'rejected'", [f.sha, f.shown])
    mod = _parser(f)
    if isinstance(mod, str):
        return _reject(con, f, mod)
    try:
        result = _parse(f, mod)
    except FileChanged:
        return Outcome(f.shown, "unreadable", reason="the file changed while it was being read; ingest it again")
    except ParseError as e:
        return _reject(con, f, e.reason, e.line, mod)
    except BaseException as e:  # a parser bug (or a library panic) must not take the batch down
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        return _reject(
            con,
            f,
            f"internal error in {mod.__name__} ({type(e).__name__}: {e}); please report it with this file",
            None,
            mod,
        )
    if batch is not None and batch.takes(mod, result):
        batch.add(con, f, mod, result)
        return None
    return _store(con, f, mod, result)


def ingest_paths(
    con: DuckDBPyConnection,
    paths: list[Path],
    on_file: Callable[[Outcome], None] | None = None,
    files: list[tuple[Path, Path]] | None = None,
    verify: bool = False,
) -> Report:
    """Ingest every file below ``paths``; ``verify`` hashes even files whose size and time are unchanged."""
    report = Report()
    sidecars: dict[Path, Sidecars] = {}
    known = known_places(con)
    pending = _Batch()

    def tell(outcomes: list[Outcome]) -> None:
        for o in outcomes:
            report.outcomes.append(o)
            if on_file:
                on_file(o)

    for root, path in files if files is not None else walk(paths):
        sc = sidecars.setdefault(root, Sidecars(root))
        try:
            outcome = ingest_file(con, path, sc, known.get(display_path(path)), verify, pending)
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
            outcome = Outcome(
                display_path(path),
                "unreadable",
                reason=f"internal error ({type(e).__name__}: {e}); please report it with this file",
            )
        tell(pending.drain() + ([outcome] if outcome else []))
    if not report.fault:
        try:
            pending.flush(con)
        except EnvironmentFault as e:
            report.fault = str(e)
        tell(pending.drain())
    return report
