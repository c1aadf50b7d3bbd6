"""Walk paths, sniff, parse, and store each file whole or not at all.

A file is hashed (a big one beside its parse), checked against what is stored, sniffed, parsed
(with many files, by worker processes) and stored: small files 64 to a transaction (_Batch), a
time-series capture in its own (its points streamed to the Parquet store)."""

from __future__ import annotations

import errno
import hashlib
import importlib
import json
import os
import stat
import threading
from collections import deque
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


# Set by the `iolab` command's SIGINT handler (ingest.cli): Ctrl-C was pressed. A library may turn
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


def _ignore_sigint() -> None:
    """In a parse worker: Ctrl-C is the main process's to handle (it stops the pool)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


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
    hashing: Any = None  # a big file's sha256 being computed beside its parse (a Future of hash_file)


HASH_BESIDE_BYTES = 32 << 20  # a file this big is hashed in a thread while it is sniffed and parsed
_hasher: Any = None


def _hash_beside(f: _File) -> None:
    """Start hashing a big file in a thread; read its head now (sniffing needs only that)."""
    global _hasher
    if _hasher is None:
        from concurrent.futures import ThreadPoolExecutor

        _hasher = ThreadPoolExecutor(1, thread_name_prefix="iolab-sha256")
    with open_regular(f.path) as fh:
        f.head = fh.read(registry.HEAD_BYTES)
    f.size = f.stamp[0]
    f.hashing = _hasher.submit(hash_file, f.path)


def _await_hash(f: _File) -> Outcome | None:
    """The sha256 started by _hash_beside (hashlib works outside the GIL: it ran beside the parse)."""
    if f.hashing is None:
        return None
    try:
        f.sha, f.size, _ = f.hashing.result()
    except FileNotFoundError:
        return Outcome(f.shown, "unreadable", reason="the file was moved or deleted during the ingest")
    except OSError as e:
        return Outcome(f.shown, "unreadable", reason=f"cannot read it: {e.strerror or e}")
    finally:
        f.hashing = None
    return None


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
        if f.stamp[0] >= HASH_BESIDE_BYTES:
            _hash_beside(f)
        else:
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
    """The one module that claims the file, or why there is none (registry.claim, as `iolab detect`)."""
    c = registry.claim(f.head, f.path.name)
    return c.module or c.reason


def _streams(mod: ModuleType | str) -> bool:
    """Whether a format module reads its file from disk as it goes (``parse_path``: large
    time-series captures) rather than from the bytes that were hashed."""
    return not isinstance(mod, str) and hasattr(mod, "parse_path")


def _parse(f: _File, mod: ModuleType) -> Any:
    """The parser's result; ParseError for a bad file, FileChanged if the bytes moved under us."""
    if _streams(mod):
        return mod.parse_path(f.path, f.path.name)
    with open_regular(f.path) as fh:
        data = fh.read()
    if hashlib.sha256(data).hexdigest() != f.sha:
        raise FileChanged()
    return mod.parse(data, f.path.name)


class FileChanged(Exception):
    """The file changed between hashing and parsing."""


class _Settled(Exception):
    """Writing a file stopped because its outcome is known after all (see _await_content)."""

    def __init__(self, outcome: Outcome | None) -> None:
        self.outcome = outcome  # None: the same bytes are stored already (a place)


def _write(con: DuckDBPyConnection, f: _File, mod: ModuleType, result: Any, writer: db.Writer | None = None) -> Outcome:
    """Write every row of one parsed file, then record its place, inside the caller's transaction
    (with a ``writer``, its rows are queued there for the caller to flush). A big capture is
    streamed while its hash is still being computed (_hash_beside); its content is checked then."""
    sid = f.source_id = db.next_source_id(con)
    counts = db.write_result(con, sid, result, writer)
    _await_content(con, f)
    db.record_source(
        con,
        source_id=sid,
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
    db.write_targets(con, sid, f.targets)  # record_source wrote the labels
    if _streams(mod) and _stamp(f.path) != f.stamp:
        raise ParseError("the file changed while it was being read; ingest it again")
    return Outcome(f.shown, "ingested", mod.FORMAT, counts=counts)


def _await_content(con: DuckDBPyConnection, f: _File) -> None:
    """For a file hashed beside its streaming: its sha256 now, and _Settled if these bytes are stored."""
    if f.hashing is None:
        return
    if (unreadable := _await_hash(f)) is not None:
        raise _Settled(unreadable)
    if con.execute("SELECT count(*) FROM source_files WHERE sha256 = ? AND status = 'ok'", [f.sha]).fetchall()[0][0]:
        raise _Settled(None)
    _forget_rejected(con, f)


def _forget_rejected(con: DuckDBPyConnection, f: _File) -> None:
    """A file rejected before is tried again (the parser may have improved): its old record goes."""
    con.execute("DELETE FROM source_files WHERE sha256 = ? AND path = ? AND status = 'rejected'", [f.sha, f.shown])


def _store(con: DuckDBPyConnection, f: _File, mod: ModuleType, result: Any) -> Outcome:
    """One file in its own transaction; a failure leaves nothing behind."""
    con.execute("BEGIN")
    f.source_id = None
    try:
        outcome = _write(con, f, mod, result)
        con.execute("COMMIT")
    except BaseException as e:
        _rollback(con)  # first: a caller that goes on after Ctrl-C must not commit half a file
        stop_if_interrupted(e)
        if f.source_id is not None:
            db.drop_points(con, f.source_id)
        if isinstance(e, _Settled):  # the streaming was for nothing: the same bytes are stored, or unreadable
            return e.outcome or _known_place(con, f) or Outcome(f.shown, "unchanged")
        if (unreadable := _await_hash(f)) is not None:
            return unreadable
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
        return not _streams(mod) and result.points is None

    def add(self, con: DuckDBPyConnection, f: _File, mod: ModuleType, result: Any) -> None:
        self.items.append((f, mod, result))
        self.shas.add(f.sha)
        self.rows += len(result.samples) + sum(len(t) for t in result.tables.values())
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
            stop_if_interrupted(e)
            if fault := environment_fault(e):
                raise EnvironmentFault(fault) from e
            outcomes = [_store(con, f, mod, result) for f, mod, result in items]
        self.done.extend(outcomes)

    def drain(self) -> list[Outcome]:
        out, self.done = self.done, []
        return out


def _prepare(
    con: DuckDBPyConnection,
    f: _File,
    sidecars: Sidecars,
    known: Known | None,
    verify: bool,
    settle: Callable[[str], None],
    seen: set[str] | None = None,
) -> Outcome | ModuleType:
    """Everything before parsing: hash, known content, format. The file's parser, or its outcome.
    ``settle`` stores whatever is still being parsed or waits in a batch (the same bytes may be there);
    ``seen``: every sha256 the database or this run has met (None: ask the database each time).
    A big file whose parser streams it is parsed while its hash is still being computed
    (_known_content runs after the parse then)."""
    if (early := _open(f, sidecars, known, verify)) is not None:
        return early
    if f.hashing is None and (place := _known_content(con, f, settle, seen)) is not None:
        return place
    mod = _parser(f)
    streamed = _streams(mod)
    if f.hashing is not None and not streamed and (place := _await_hash(f) or _known_content(con, f, settle, seen)):
        return place
    return _reject(con, f, mod) if isinstance(mod, str) else mod


def _known_content(
    con: DuckDBPyConnection, f: _File, settle: Callable[[str], None], seen: set[str] | None
) -> Outcome | None:
    """The outcome when these bytes are stored already (see _known_place); None when they are new."""
    if seen is None or f.sha in seen:  # these bytes may be stored already
        settle(f.sha)
        if (place := _known_place(con, f)) is not None:
            return place
        _forget_rejected(con, f)
    if seen is not None:
        seen.add(f.sha)
    return None


def _parse_here(
    con: DuckDBPyConnection, f: _File, mod: ModuleType, settle: Callable[[str], None], seen: set[str] | None
) -> tuple | Outcome:
    """Parse in this process. A big streamed file's hash goes on beside its streaming (_write), unless
    the parse failed: then it is awaited here, and the content checked, before the file is rejected."""
    parsed = _parsed(f, mod)
    failed = parsed[0] != "ok"
    if f.hashing is not None and failed and (place := _await_hash(f) or _known_content(con, f, settle, seen)):
        return place
    return parsed


def parse_job(f: _File, module: str) -> tuple:
    """A worker process's job: parse one file with the parser module named ``module``."""
    return _parsed(f, importlib.import_module(module))


def _parsed(f: _File, mod: ModuleType) -> tuple:
    """Parse one file: ("ok", result) or what went wrong, as plain data (it may cross processes)."""
    try:
        result = _parse(f, mod)
        result.samples.flush()  # packed: a worker sends compressed columns, not lists of numbers
        return ("ok", result)
    except FileChanged:
        return ("changed",)
    except ParseError as e:
        return ("bad", e.reason, e.line)
    except BaseException as e:  # a parser bug (or a library panic) must not take the batch down
        stop_if_interrupted(e)
        return ("bug", f"{type(e).__name__}: {e}")


def _finish(con: DuckDBPyConnection, f: _File, mod: ModuleType, parsed: tuple, batch: _Batch | None) -> Outcome | None:
    """Store a parsed file, or record why it could not be parsed. None: it waits in ``batch``."""
    if parsed[0] == "changed":
        return Outcome(f.shown, "unreadable", reason="the file changed while it was being read; ingest it again")
    if parsed[0] == "bad":
        return _reject(con, f, parsed[1], parsed[2], mod)
    if parsed[0] == "bug":
        reason = f"internal error in {mod.__name__} ({parsed[1]}); please report it with this file"
        return _reject(con, f, reason, None, mod)
    if batch is not None and batch.takes(mod, parsed[1]):
        batch.add(con, f, mod, parsed[1])
        return None
    return _store(con, f, mod, parsed[1])


class _Workers:
    """Parsers running in worker processes while this process hashes and stores.

    The parsers are pure Python and hold one core each; with many files a lab machine's other
    cores parse ahead (at most WINDOW per worker in flight, in order). A file too big to ship
    back cheaply, or a streamed capture, is parsed here. IOLAB_PARSE_WORKERS sets the count (0: none)."""

    MIN_FILES, WINDOW, MAX_BYTES = 48, 2, 32 << 20

    def __init__(self, n_files: int, parallel: bool) -> None:
        wanted = os.environ.get("IOLAB_PARSE_WORKERS", "").strip()
        n = int(wanted) if wanted.isdigit() else (os.cpu_count() or 1) if n_files >= self.MIN_FILES else 0
        self.n = n if parallel and n > 1 else 0
        self.pool: Any = None

    def takes(self, f: _File, mod: ModuleType) -> bool:
        return self.n > 0 and not _streams(mod) and f.size <= self.MAX_BYTES

    def submit(self, f: _File, mod: ModuleType) -> Any:
        if self.pool is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            # spawn, not fork: this process holds DuckDB and Polars threads, which fork would copy mid-flight
            self.pool = ProcessPoolExecutor(
                self.n, mp_context=multiprocessing.get_context("spawn"), initializer=_ignore_sigint
            )
        try:
            return self.pool.submit(parse_job, f, mod.__name__)
        except Exception:  # the pool broke (a worker died): the rest is parsed here
            self.n = 0
            return None

    def stop(self) -> None:
        """Ctrl-C: end the workers now, their parses are not needed. shutdown() releases the pool's
        queues, unless the interrupt struck inside submit(), which holds the lock shutdown() takes."""
        if self.pool is None:
            return
        for p in list((getattr(self.pool, "_processes", None) or {}).values()):
            p.terminate()
        lock = getattr(self.pool, "_shutdown_lock", None)
        if lock is not None and not lock.acquire(blocking=False):
            return
        if lock is not None:
            lock.release()
        self.pool.shutdown(wait=True, cancel_futures=True)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)


class _Run:
    """One ``ingest_paths`` call: files go in in order, parsed here or by workers, stored in batches."""

    def __init__(
        self, con: DuckDBPyConnection, on_file: Callable[[Outcome], None] | None, n_files: int, parallel: bool
    ) -> None:
        self.con, self.on_file = con, on_file
        self.report = Report()
        self.batch = _Batch()
        self.workers = _Workers(n_files, parallel)
        self.inflight: deque[tuple[_File, ModuleType, Any]] = deque()
        self.seen = {sha for (sha,) in con.execute("SELECT DISTINCT sha256 FROM source_files").fetchall()}

    def tell(self, outcome: Outcome | None = None) -> None:
        for o in self.batch.drain() + ([outcome] if outcome else []):
            self.report.outcomes.append(o)
            if self.on_file:
                self.on_file(o)

    def settle(self, sha: str | None = None) -> None:
        """Store what is in flight and in the batch when ``sha`` is among it (None: always)."""
        if sha is None or sha in self.batch.shas or any(f.sha == sha for f, _, _ in self.inflight):
            while self.inflight:
                self.finish_oldest()
            self.batch.flush(self.con)
            self.tell()

    def finish_oldest(self) -> None:
        f, mod, future = self.inflight.popleft()
        try:
            parsed = future.result()
        except Exception:  # the result could not come back (not picklable, a worker died): parse here
            parsed = _parsed(f, mod)
        self.guarded(f, lambda: _finish(self.con, f, mod, parsed, self.batch))

    def guarded(self, f: _File, step: Callable[[], Outcome | None]) -> None:
        """Run one file's step; an environment fault stops the run, any other error is that file's."""
        try:
            outcome = step()
        except EnvironmentFault:
            raise
        except BaseException as e:  # never let one file take the batch down (Rust panics included)
            stop_if_interrupted(e)
            _rollback(self.con)
            if fault := environment_fault(e):  # e.g. recording a rejection failed: the disk, not the file
                raise EnvironmentFault(fault) from e
            reason = f"internal error ({type(e).__name__}: {e}); please report it with this file"
            outcome = Outcome(f.shown, "unreadable", reason=reason)
        self.tell(outcome)

    def file(self, path: Path, sidecars: Sidecars, known: Known | None, verify: bool) -> None:
        f = _File(path, display_path(path))

        def step() -> Outcome | None:
            mod = _prepare(self.con, f, sidecars, known, verify, self.settle, self.seen)
            if isinstance(mod, Outcome):
                return mod
            if self.workers.takes(f, mod) and (future := self.workers.submit(f, mod)) is not None:
                self.inflight.append((f, mod, future))
                return None
            parsed = _parse_here(self.con, f, mod, self.settle, self.seen)
            return parsed if isinstance(parsed, Outcome) else _finish(self.con, f, mod, parsed, self.batch)

        self.guarded(f, step)
        while len(self.inflight) > self.workers.WINDOW * self.workers.n:
            self.finish_oldest()


def ingest_paths(
    con: DuckDBPyConnection,
    paths: list[Path],
    on_file: Callable[[Outcome], None] | None = None,
    files: list[tuple[Path, Path]] | None = None,
    verify: bool = False,
    parallel: bool = False,
) -> Report:
    """Ingest every file below ``paths``; ``verify`` hashes even files whose size and time are unchanged.

    ``parallel``: with many files, parse them in worker processes (spawned: the program's main
    module is imported again in each, so a script must keep its work under ``if __name__ ==
    "__main__":``; the ``iolab`` command does)."""
    files = files if files is not None else list(walk(paths))
    sidecars: dict[Path, Sidecars] = {}
    known = known_places(con)
    run = _Run(con, on_file, len(files), parallel)
    stopping = True
    try:
        for root, path in files:
            stop_if_interrupted()
            sc = sidecars.setdefault(root, Sidecars(root))
            run.file(path, sc, known.get(display_path(path)), verify)
        run.settle()
        stopping = False
    except EnvironmentFault as e:
        stopping = False
        run.report.fault = str(e)
        run.tell()  # what a batch stored before the fault
    finally:
        run.workers.stop() if stopping else run.workers.close()
    order = {display_path(path): i for i, (_, path) in enumerate(files)}
    run.report.outcomes.sort(key=lambda o: order.get(o.path, len(order)))  # batches report late: walk order
    return run.report
