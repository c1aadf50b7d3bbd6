"""Files on disk as an ingest meets them: which are walked, which are regular, their stamp and hash,
and the record of one file on its way in (Incoming)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import outputs, registry
from .outcome import Outcome, Status
from .regular import NOT_REGULAR, SPECIAL_FS, NotRegular, open_regular, special_devices, special_fs  # noqa: F401  (read from here too)
from .sidecar import NAME as SIDECAR
from .store import places

IGNORED_SUFFIXES = {".duckdb", ".wal", ".md", ".ipynb", ".png", ".tmp"}


def display_path(p: Path) -> str:
    """A path as text that DuckDB and terminals accept, even for non-UTF-8 file names."""
    try:
        p = p.relative_to(Path.cwd())
    except ValueError:
        pass
    return os.fsencode(p).decode("utf-8", errors="replace")


def walk(paths: list[Path], notes: list[str] | None = None) -> Iterator[tuple[Path, Path]]:
    """(given path, file) for every candidate file below the given paths. Not walked: symlinked
    folders (no loops), hidden files and folders, sidecars, the files iolab wrote into its own output
    folders (those a marker lists: iolab.outputs; any other file there is read, and ``notes`` gets
    a line saying so), a database's time-series store and files named in IGNORED_SUFFIXES, such as
    the database. A folder on a special file system (SPECIAL_FS: /proc, /sys...) is yielded itself,
    never walked: the ingest skips it with the reason; so is a folder that cannot be listed
    (permissions): the ingest says so, and the files it holds in the analysis stay there."""
    for given in paths:
        if not given.is_dir() and (given.exists() or given.is_symlink()):  # a file, FIFO, device or link
            yield given.parent, given
            continue
        if not given.exists() or special_fs(given):
            yield given, given
            continue
        marks = outputs.Marks(given)
        unreadable: list[Path] = []  # folders that cannot be listed (permissions): yielded, never "gone"

        def cannot_list(e: OSError, into: list[Path] = unreadable) -> None:
            into.append(Path(e.filename))

        for folder, dirs, files in os.walk(given, followlinks=False, onerror=cannot_list):
            while unreadable:
                yield given, unreadable.pop()
            marks.visit(Path(folder), files)
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not _is_store(Path(folder), d))
            if special := [d for d in dirs if special_fs(Path(folder) / d)]:
                dirs[:] = [d for d in dirs if d not in special]
                yield from ((given, Path(folder) / d) for d in special)
            for f in sorted(files):
                if f.startswith(".") or f == SIDECAR or Path(f).suffix.lower() in IGNORED_SUFFIXES:
                    continue
                if f in outputs.MARKS or marks.covers(Path(folder) / f):
                    continue
                yield given, Path(folder) / f
        yield from ((given, u) for u in unreadable)
        if notes is not None:
            notes += marks.notes()


def unreadable_folder(path: Path) -> str | None:
    """Why the folder ``path`` cannot be listed (permissions, an I/O error), else None (a file, a
    folder that lists, or one on a special file system, which is never read)."""
    if not path.is_dir() or special_fs(path):
        return None
    try:
        with os.scandir(path):
            return None
    except OSError as e:
        return e.strerror or str(e)


def _is_store(folder: Path, name: str) -> bool:
    """A database's time-series store (<name>.duckdb.points beside <name>.duckdb), marked or not."""
    return name.endswith(".points") and (folder / name.removesuffix(".points")).is_file()


def stamp(path: Path) -> places.Stamp:
    """Size, mtime, ctime and inode: no write leaves all four as they were (a tool can set the
    mtime back, as `cp -p` and `rsync -t` do, but not the ctime), so equal stamps mean equal bytes."""
    st = path.stat()
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino


def hash_file(path: Path, chunk: int = 1 << 20) -> tuple[str, int, bytes]:
    """(sha256, size, first 64 KiB), read into one buffer used again for every chunk: a 1 GB capture
    is never held in memory, and no new block is made per read (14 % less time than 8 MB reads)."""
    h = hashlib.sha256()
    size = 0
    head = b""
    with open_regular(path) as fh:
        buf = bytearray(min(chunk, os.fstat(fh.fileno()).st_size + 1))  # a small file, a small buffer
        view = memoryview(buf)
        while n := fh.readinto(buf):
            if len(head) < registry.HEAD_BYTES:
                head += view[: min(n, registry.HEAD_BYTES - len(head))]
            h.update(view[:n])
            size += n
    return h.hexdigest(), size, head


@dataclass
class Incoming:
    """One file on its way in: where it is, what it holds (sha256), and its labels."""

    path: Path
    shown: str  # as the terminal shows it (relative to the current folder)
    place: places.Place  # as the database keeps it
    where: Path = Path()  # its identity as a path (places.canonical)
    root: Path | None = None  # its data root: its path and default study start there (places.Roots.of)
    stamp: places.Stamp = (0, None, None, None)
    sha: str = ""
    size: int = 0
    head: bytes = b""
    labels: dict = field(default_factory=dict)
    targets: list[dict] = field(default_factory=list)
    source_id: int | None = None  # its content id, once its rows are being written (ingest/store/ids.py)
    replaces: int | None = None  # the place's earlier version (other bytes at the same path)
    missing: dict[str, places.Known] = field(default_factory=dict)  # the run's places not found on disk
    hashing: Any = None  # a big file's sha256 being computed beside its parse (a Future of hash_file)


HASH_BESIDE_BYTES = 32 << 20  # a file this big is hashed in a thread while it is sniffed and parsed
_hasher: Any = None


def read_head(f: Incoming) -> None:
    """A big file's head (sniffing needs only that); its hash is started by hash_beside when its
    turn to be parsed comes."""
    with open_regular(f.path) as fh:
        f.head = fh.read(registry.HEAD_BYTES)
    f.size = f.stamp[0]


def hash_beside(f: Incoming) -> None:
    """Start hashing a big file in a thread (its head was read by read_head)."""
    global _hasher
    if _hasher is None:
        from concurrent.futures import ThreadPoolExecutor

        _hasher = ThreadPoolExecutor(1, thread_name_prefix="iolab-sha256")
    f.hashing = _hasher.submit(hash_file, f.path)


def await_hash(f: Incoming) -> Outcome | None:
    """The sha256 started by _hash_beside (hashlib works outside the GIL: it ran beside the parse)."""
    if f.hashing is None:
        return None
    try:
        f.sha, f.size, _ = f.hashing.result()
    except FileNotFoundError:
        return Outcome(f.shown, Status.UNREADABLE, reason="the file was moved or deleted during the ingest")
    except OSError as e:
        return Outcome(f.shown, Status.UNREADABLE, reason=f"cannot read it: {e.strerror or e}")
    finally:
        f.hashing = None
    return None
